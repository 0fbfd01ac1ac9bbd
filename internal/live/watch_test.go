package live

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/watch"
	"github.com/corehq/core/internal/workspace"
)

// coldBytes indexes root from scratch in a fresh cache.
func coldBytes(t *testing.T, root string) []byte {
	t.Helper()
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := index.New(root, t.TempDir(), index.Options{Rule: ignore.New(root, filepath.Join(root, ".core"))}).Sync(ws)
	if err != nil {
		t.Fatal(err)
	}
	return g.Graph().Encode()
}

// settle waits until the live graph equals a cold index of the tree.
func settle(t *testing.T, w *Workspace, root string) {
	t.Helper()
	want := coldBytes(t, root)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if snap, err := w.Current(); err == nil && bytes.Equal(snap.JSON(), want) {
			return
		}
		if time.Now().After(deadline) {
			snap, _ := w.Current()
			t.Fatalf("the live graph never matched a cold index\nlive: %.400s\ncold: %.400s", snap.JSON(), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestABurstOfChangesEndsEqualToAColdIndex(t *testing.T) {
	root := newRoot(t)
	w := New(root, filepath.Join(root, ".core"), nil, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := w.Watch(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// 1,000 changes: creates in new directories, edits, renames and deletes.
	for i := 0; i < 1000; i++ {
		dir := filepath.Join(root, "app", fmt.Sprintf("pkg%d", i%20))
		_ = os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, fmt.Sprintf("f%d.go", i%250))
		switch i % 10 {
		case 7:
			_ = os.Rename(p, p+".renamed.go")
		case 9:
			_ = os.Remove(p)
		default:
			_ = os.WriteFile(p, []byte(fmt.Sprintf("package pkg%d\n\nfunc F%d() {}\n", i%20, i)), 0o644)
		}
	}
	write(t, root, "docs/burst.md", "# Burst\n\n[app](../app/pkg1/)\n")
	settle(t, w, root)
}

func TestALostEventReconcilesEverything(t *testing.T) {
	root := newRoot(t)
	w := New(root, filepath.Join(root, ".core"), nil, zerolog.Nop())
	// Changes the watcher never reported...
	write(t, root, "app/a.go", "package app\n")
	write(t, root, "docs/x.md", "# X\n")
	// ...are all found when the kernel says it dropped events.
	if err := w.Changed(watch.Batch{Overflow: true}); err != nil {
		t.Fatal(err)
	}
	snap, _ := w.Current()
	if !bytes.Equal(snap.JSON(), coldBytes(t, root)) {
		t.Fatal("an overflow did not reconcile the whole tree")
	}
}

func TestAnEditReindexesOneFile(t *testing.T) {
	root := newRoot(t)
	for i := 0; i < 50; i++ {
		write(t, root, fmt.Sprintf("app/f%d.go", i), "package app\n")
	}
	w := New(root, filepath.Join(root, ".core"), nil, zerolog.Nop())
	before := w.Indexer().Parsed()
	write(t, root, "app/f7.go", "package app\n\nfunc Seven() {}\n")
	if err := w.Changed(watch.Batch{Paths: []string{"app/f7.go"}}); err != nil {
		t.Fatal(err)
	}
	if n := w.Indexer().Parsed() - before; n != 1 {
		t.Fatalf("an edit of one file parsed %d files", n)
	}
}
