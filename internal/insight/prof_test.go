package insight

import (
	"context"
	"os"
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
