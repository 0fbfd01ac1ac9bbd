package diff

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkWritePatch and BenchmarkGitDiff measure the patch route's work
// against plain `git diff HEAD` on the repository DIFF_REPO (bench/diff.sh
// builds a 20,000-file one with a 500-file change). Besides the time, each
// reports cpu-ms/op: the CPU time of the test process and of the git
// processes it ran, which a machine shared with other work disturbs less
// than the wall clock.
func BenchmarkWritePatch(b *testing.B) {
	repo := benchRepo(b)
	cpu := cpuTime()
	for b.Loop() {
		if err := WritePatch(context.Background(), io.Discard, repo, ""); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

func BenchmarkGitDiff(b *testing.B) {
	repo := benchRepo(b)
	cpu := cpuTime()
	for b.Loop() {
		cmd := exec.Command("git", "-C", repo, "diff", "HEAD")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

func reportCPU(b *testing.B, since time.Duration) {
	if used := cpuTime() - since; used > 0 {
		b.ReportMetric(float64(used)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

func benchRepo(b *testing.B) string {
	repo := os.Getenv("DIFF_REPO")
	if repo == "" {
		b.Skip("set DIFF_REPO to a git repository with a change")
	}
	return repo
}
