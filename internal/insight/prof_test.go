package insight

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

// BenchmarkRecompute measures the lenses computed again from a kept
// history (what one new commit costs beyond reading it), on the repository
// INSIGHT_REPO (bench/insight.sh makes a 100,000-commit one).
func BenchmarkRecompute(b *testing.B) {
	repo := os.Getenv("INSIGHT_REPO")
	if repo == "" {
		b.Skip("set INSIGHT_REPO to a git repository with a targets.yaml")
	}
	ws, err := workspace.Load(repo)
	if err != nil {
		b.Fatal(err)
	}
	e := New(Options{Root: repo, CacheDir: b.TempDir(), Declared: func() (*workspace.Workspace, error) { return ws, nil }})
	ctx := context.Background()
	if _, err := e.Report(ctx, Params{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(e.results)
		if _, err := e.Report(ctx, Params{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColdRead measures the cold pass (the whole history read into
// the kept form) on INSIGHT_REPO; BenchmarkGitLog is the baseline of the
// same run: git log --numstat -M over the same history, output discarded.
func BenchmarkColdRead(b *testing.B) {
	repo := os.Getenv("INSIGHT_REPO")
	if repo == "" {
		b.Skip("set INSIGHT_REPO to a git repository")
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		h := newHistory()
		if _, err := h.read(ctx, repo, "HEAD", DefaultCommitBound); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGitLog(b *testing.B) {
	repo := os.Getenv("INSIGHT_REPO")
	if repo == "" {
		b.Skip("set INSIGHT_REPO to a git repository")
	}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "-C", repo, "log", "--reverse", "--no-merges", "-z", "--numstat", "-M", "--relative", "--use-mailmap", "--format=%x1e%H%x1f%at%x1f%aN", "HEAD", "--", ".")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
