package diff

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkWritePatch and BenchmarkGitDiff measure the patch route's work
// against plain `git diff HEAD` on the repository DIFF_REPO (bench/diff.sh
// builds a 20,000-file one with a 500-file change).
func BenchmarkWritePatch(b *testing.B) {
	repo := benchRepo(b)
	for b.Loop() {
		if err := WritePatch(context.Background(), io.Discard, repo, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGitDiff(b *testing.B) {
	repo := benchRepo(b)
	for b.Loop() {
		cmd := exec.Command("git", "-C", repo, "diff", "HEAD")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRepo(b *testing.B) string {
	repo := os.Getenv("DIFF_REPO")
	if repo == "" {
		b.Skip("set DIFF_REPO to a git repository with a change")
	}
	return repo
}
