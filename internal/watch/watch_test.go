package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/ignore"
)

// start runs a watcher on a fresh tree and returns a channel of batches.
func start(t *testing.T) (string, <-chan Batch) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := New(ignore.New(root, ""), 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan Batch, 100)
	go func() { _ = w.Run(ctx, func(b Batch) { ch <- b }) }()
	return root, ch
}

// waitFor collects batches until one mentions path or the deadline passes.
func waitFor(t *testing.T, ch <-chan Batch, path string) Batch {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-ch:
			if slices.Contains(b.Paths, path) {
				return b
			}
		case <-deadline:
			t.Fatalf("no batch mentioned %s", path)
		}
	}
}

func TestWatcherReportsChanges(t *testing.T) {
	root, ch := start(t)
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a created file is reported", func(t *testing.T) {
		write("a.md", "# a")
		waitFor(t, ch, "a.md")
	})
	t.Run("an edit is reported", func(t *testing.T) {
		write("a.md", "# b")
		waitFor(t, ch, "a.md")
	})
	t.Run("a file in a new directory is reported and the directory is watched", func(t *testing.T) {
		write("docs/deep/x.md", "# x")
		waitFor(t, ch, "docs/deep/x.md")
		write("docs/deep/y.md", "# y")
		waitFor(t, ch, "docs/deep/y.md")
	})
	t.Run("a rename reports both names", func(t *testing.T) {
		if err := os.Rename(filepath.Join(root, "a.md"), filepath.Join(root, "c.md")); err != nil {
			t.Fatal(err)
		}
		b := waitFor(t, ch, "c.md")
		if !slices.Contains(b.Paths, "a.md") {
			// The old name may come in its own batch.
			waitFor(t, ch, "a.md")
		}
	})
	t.Run("a delete is reported", func(t *testing.T) {
		if err := os.Remove(filepath.Join(root, "c.md")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ch, "c.md")
	})
	t.Run("ignored paths are never reported", func(t *testing.T) {
		write(".git/objects/zz", "x")
		write("marker.md", "m")
		b := waitFor(t, ch, "marker.md")
		for _, p := range b.Paths {
			if strings.HasPrefix(p, ".git") {
				t.Fatalf("reported ignored path %s", p)
			}
		}
	})
}

func TestABurstIsOneBatch(t *testing.T) {
	root, ch := start(t)
	for i := 0; i < 200; i++ {
		if err := os.WriteFile(filepath.Join(root, "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".md"), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "last.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := waitFor(t, ch, "last.md")
	if len(b.Paths) < 2 {
		t.Fatalf("the burst was not coalesced: %v", b.Paths)
	}
}

func TestIgnoredDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"dist", "node_modules/pkg", "src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("dist/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := New(ignore.New(root, ""), 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan Batch, 100)
	go func() { _ = w.Run(ctx, func(b Batch) { ch <- b }) }()
	write := func(rel string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("a directory a .gitignore ignores is not watched, nor node_modules", func(t *testing.T) {
		write("dist/app.js")
		write("node_modules/pkg/index.js")
		write("src/marker.go")
		b := waitFor(t, ch, "src/marker.go")
		for _, p := range b.Paths {
			if strings.HasPrefix(p, "dist/") || strings.HasPrefix(p, "node_modules/") {
				t.Fatalf("reported %s", p)
			}
		}
	})
	t.Run("a directory the .gitignore stops ignoring is watched from then on", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("# nothing\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ch, ".gitignore")
		write("dist/later.js")
		waitFor(t, ch, "dist/later.js")
	})
}
