package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// The benchmark workspace: 200 projects in 10 layers of 20, each depending
// on two projects of the layer below, each with 5 targets (1,000 in all):
// build (src/**/*.go, deps ^build), test (src + testdata, deps build),
// lint, vet and doc. Every project holds 24 files of 1-8 KB.
const (
	benchLayers   = 10
	benchPerLayer = 20
)

func benchWorkspace(b *testing.B) (root string, ws *workspace.Workspace, ids []string) {
	b.Helper()
	root = b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var y strings.Builder
	y.WriteString("projects:\n")
	write := func(rel string, size int) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte('a' + rng.IntN(26))
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for l := range benchLayers {
		for i := range benchPerLayer {
			name := fmt.Sprintf("p%02d-%02d", l, i)
			fmt.Fprintf(&y, "  %s:\n    path: libs/%s\n", name, name)
			if l > 0 {
				fmt.Fprintf(&y, "    deps: [p%02d-%02d, p%02d-%02d]\n", l-1, i, l-1, (i+1)%benchPerLayer)
			}
			y.WriteString(`    targets:
      build:
        run: [/bin/true, build]
        inputs: ["src/**/*.go", go.mod]
        deps: [^build]
      test:
        run: [/bin/true, test]
        inputs: ["src/**/*.go", "testdata/**"]
        deps: [build]
      lint:
        run: [/bin/true, lint]
        inputs: ["src/**"]
      vet:
        run: [/bin/true, vet]
        inputs: ["src/**/*.go"]
      doc:
        run: [/bin/true, doc]
        inputs: ["**/*.md"]
`)
			dir := "libs/" + name + "/"
			write(dir+"go.mod", 200)
			write(dir+"README.md", 2000)
			for k := range 16 {
				write(fmt.Sprintf("%ssrc/pkg%d/file%d.go", dir, k%4, k), 1024+rng.IntN(7*1024))
			}
			for k := range 6 {
				write(fmt.Sprintf("%stestdata/case%d.txt", dir, k), 1024+rng.IntN(3*1024))
			}
			for _, tg := range []string{"build", "test", "lint", "vet", "doc"} {
				ids = append(ids, name+":"+tg)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(root, workspace.FileName), []byte(y.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Load(root)
	if err != nil {
		b.Fatal(err)
	}
	return root, ws.WithImports(nil), ids
}

// BenchmarkNoopCachedRun is a run of 1,000 targets that are all cached:
// hash every input, look up every key, write a journal per target.
// Compare with BenchmarkHashInputs, the hashing alone.
func BenchmarkNoopCachedRun(b *testing.B) {
	root, ws, ids := benchWorkspace(b)
	cacheDir := filepath.Join(root, ".core")
	r := New(Options{Root: root, CacheDir: cacheDir, Capacity: 4})
	res, err := r.Run(context.Background(), ws, ids)
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed() {
		b.Fatal("warm-up run failed")
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := r.Run(context.Background(), ws, ids)
		if err != nil {
			b.Fatal(err)
		}
		if n := res.Count(StateCached); n != len(ids) {
			b.Fatalf("%d of %d cached", n, len(ids))
		}
		b.StopTimer()
		// Keep the runs directory at a steady size between iterations.
		if _, err := TrimJournals(cacheDir, 0); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkHashInputs hashes what the same 1,000 targets read (their
// inputs, and their dependency projects' parts), with the same
// parallelism and the same once-per-run hashing the runner uses, and
// nothing else.
func BenchmarkHashInputs(b *testing.B) {
	root, ws, ids := benchWorkspace(b)
	cacheDir := filepath.Join(root, ".core")
	sem := make(chan struct{}, hashWorkers)
	for b.Loop() {
		keys := newKeyer(context.Background(), ws, root, cacheDir, targetenv.New(targetenv.Strict, nil))
		var wg sync.WaitGroup
		for _, id := range ids {
			t := ws.Target(id)
			p := ws.Project(t.Project)
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if _, err := keys.hash(context.Background(), p, t); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}
