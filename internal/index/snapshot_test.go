package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/workspace"
)

// encoded is `core graph --json` in a new process (live.BuildJSON): a
// fresh Indexer's PrefetchEncoded, the workspace's load, SyncEncoded.
// served says the stored graph was served (nothing synced).
func encoded(t *testing.T, root, cache string, o Options) (b []byte, served bool) {
	t.Helper()
	return syncEncoded(t, root, cache, o, true)
}

func syncEncoded(t *testing.T, root, cache string, o Options, prefetch bool) (b []byte, served bool) {
	t.Helper()
	ix := New(root, cache, o)
	if prefetch {
		ix.PrefetchEncoded()
	}
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ix.SyncEncoded(ws, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), ix.ver == nil
}

// settle waits until what the test wrote is older than racyMargin: a
// change time cannot be set back, only waited out.
func settle() { time.Sleep(racyMargin + 20*time.Millisecond) }

func TestAnUnchangedTreeServesTheStoredGraph(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	settle()
	first, served := encoded(t, root, cache, Options{})
	if served {
		t.Fatal("the first pass served a graph it had not stored")
	}
	if want := cold(t, root).Encode(); !bytes.Equal(first, want) {
		t.Fatal("SyncEncoded's bytes differ from a cold index's encoding")
	}
	again, served := encoded(t, root, cache, Options{})
	if !served {
		t.Fatal("an unchanged tree was indexed again instead of served")
	}
	if !bytes.Equal(again, first) {
		t.Fatal("the stored graph differs from the one it stored")
	}
	if again, served := syncEncoded(t, root, cache, Options{}, false); !served || !bytes.Equal(again, first) {
		t.Fatal("without PrefetchEncoded first, SyncEncoded did not serve the stored graph")
	}
}

func TestAChangeAnywhereTheWalkLooksIsNotServedStale(t *testing.T) {
	outside := t.TempDir()
	later := time.Now().Add(time.Hour)
	changes := []struct {
		fact   string
		setup  func(t *testing.T, root string)
		change func(t *testing.T, root string)
	}{
		{"an edited file", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"py/pkg/helpers.py": "import json\n\ndef clean():\n    return 2\n"})
		}},
		{"a file touched to a new time", nil, func(t *testing.T, root string) {
			if err := os.Chtimes(filepath.Join(root, "lib/util.go"), later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"a new file", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"web/src/extra.ts": "import { render } from './view';\nexport const x = render;\n"})
		}},
		{"a new directory", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"lib/sub/deep.go": "package sub\n\nfunc Deep() {}\n"})
		}},
		{"a removed file", nil, func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "lib/util.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a renamed file", nil, func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, "lib/util.go"), filepath.Join(root, "lib/prefix.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a .gitignore edited in place", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{".gitignore": "ignored/\n"})
		}},
		{"a new .gitignore below the root", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"web/.gitignore": "src/paint.ts\n"})
		}},
		{"a new project in targets.yaml", nil, func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"targets.yaml": strings.Replace(fixture["targets.yaml"], "  py:\n", "  guide:\n    path: docs\n  py:\n", 1)})
		}},
		{"the target of a symlink outside the workspace edited", func(t *testing.T, root string) {
			writeTree(t, outside, map[string]string{"ext.go": "package lib\n\nfunc External() {}\n"})
			if err := os.Symlink(filepath.Join(outside, "ext.go"), filepath.Join(root, "lib/ext.go")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, root string) {
			writeTree(t, outside, map[string]string{"ext.go": "package lib\n\nfunc External() {}\n\nfunc More() {}\n"})
		}},
		{"the missing target of a symlink created", func(t *testing.T, root string) {
			if err := os.Symlink(filepath.Join(outside, "later.go"), filepath.Join(root, "lib/later.go")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, root string) {
			writeTree(t, outside, map[string]string{"later.go": "package lib\n\nfunc Later() {}\n"})
		}},
	}
	for _, c := range changes {
		t.Run(c.fact, func(t *testing.T) {
			t.Parallel()
			root := newFixture(t)
			if c.setup != nil {
				c.setup(t, root)
			}
			cache := t.TempDir()
			settle()
			encoded(t, root, cache, Options{})
			if _, served := encoded(t, root, cache, Options{}); !served {
				t.Fatal("the unchanged tree was not served; the change below proves nothing")
			}
			c.change(t, root)
			got, served := encoded(t, root, cache, Options{})
			if served {
				t.Error("the stored graph was served after the change")
			}
			if !bytes.Equal(got, cold(t, root).Encode()) {
				t.Fatal("the graph after the change differs from a cold index of the changed tree")
			}
		})
	}
}

func TestAFileShrinkingUnderTheLimitIsNotServedStale(t *testing.T) {
	root := newFixture(t)
	writeTree(t, root, map[string]string{"lib/big.go": "package lib\n\n// " + string(bytes.Repeat([]byte("x"), 300)) + "\nfunc Big() {}\n"})
	cache := t.TempDir()
	limit := Options{MaxFileSize: 200}
	settle()
	encoded(t, root, cache, limit)
	writeTree(t, root, map[string]string{"lib/big.go": "package lib\n\nfunc Big() {}\n"})
	got, served := encoded(t, root, cache, limit)
	if served {
		t.Error("the stored graph was served after a skipped file came under the limit")
	}
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := New(root, t.TempDir(), limit).Sync(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Graph().Encode()) {
		t.Fatal("the graph differs from a cold index of the changed tree")
	}
}

func TestATreeChangedJustBeforeTheWalkIsNotStored(t *testing.T) {
	// Changed in the clock tick of the walk, a file may change again with
	// the same times: a graph stored now could be served stale.
	root := newFixture(t)
	cache := t.TempDir()
	encoded(t, root, cache, Options{})
	if _, err := os.Stat(filepath.Join(cachedir.Index(cache), snapshotName)); !os.IsNotExist(err) {
		t.Fatalf("a graph was stored from a tree changed %v ago at most (stat: %v)", racyMargin, err)
	}
}

func TestATornStoredGraphIsRebuiltNotServed(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	settle()
	want, _ := encoded(t, root, cache, Options{})
	p := filepath.Join(cachedir.Index(cache), snapshotName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	got, served := encoded(t, root, cache, Options{})
	if served || !bytes.Equal(got, want) {
		t.Fatalf("served %v, same graph %v: want a rebuilt graph equal to the first", served, bytes.Equal(got, want))
	}
}

func TestAStoredGraphCutShortUnderItsMappingReadsAsDamaged(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stored graph is mapped on Linux only")
	}
	path := filepath.Join(t.TempDir(), snapshotName)
	seen := []seenPath{{path: "lib", id: statID{size: 4096}}}
	graphJSON := bytes.Repeat([]byte(`{"nodes":[],"edges":[]}`), 1<<14)
	if err := os.WriteFile(path, encodeSnapshot([32]byte{}, seen, graphJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	data, release, err := mapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, _, got, err := decodeMapped(data); err != nil || !bytes.Equal(got, graphJSON) {
		t.Fatalf("the whole file did not decode: %v", err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := decodeMapped(data); err != errCorrupt {
		t.Fatalf("decoding the cut mapping: %v, want errCorrupt", err)
	}
}

// A workspace opened through a symlink to its directory: the walk reads
// the directory the link points at, so that directory's times are what an
// entry added at the top moves, not the link's.
func TestAWorkspaceOpenedThroughASymlinkIsServedAndSeesANewTopLevelFile(t *testing.T) {
	real := newFixture(t)
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	settle()
	encoded(t, root, cache, Options{})
	if _, served := encoded(t, root, cache, Options{}); !served {
		t.Fatal("the unchanged tree was not served")
	}
	writeTree(t, real, map[string]string{"top.go": "package top\n\nfunc Top() {}\n"})
	got, served := encoded(t, root, cache, Options{})
	if served {
		t.Fatal("a file added at the top was served stale")
	}
	if want := cold(t, root).Encode(); !bytes.Equal(got, want) {
		t.Fatal("after the change, the graph differs from a cold index's")
	}
}

// A root named with ".." through a symlink is the directory the walk's
// filepath.Join makes of it (".." removed by name), and so is what the
// check stats.
func TestARootNamedThroughDotDotIsServed(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.Rename(newFixture(t), ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "link") + "/../ws"
	cache := t.TempDir()
	settle()
	encoded(t, root, cache, Options{})
	if _, served := encoded(t, root, cache, Options{}); !served {
		t.Fatal("the unchanged tree was not served")
	}
}

// encodeSnapshot is the file SyncEncoded stores for key, seen and the
// graph's JSON.
func encodeSnapshot(key [sha256.Size]byte, seen []seenPath, graphJSON []byte) []byte {
	head := snapshotHead(key, seen)
	return binary.LittleEndian.AppendUint32(append(head, graphJSON...), checksum(head, graphJSON))
}

// An answer whose writer fails (the terminal went away) returns the
// writer's error and stores no graph: the next pass indexes again.
func TestAFailedAnswerStoresNoGraph(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	settle()
	ix := New(root, cache, Options{})
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	gone := errors.New("the terminal went away")
	if err := ix.SyncEncoded(ws, failingWriter{gone}); !errors.Is(err, gone) {
		t.Fatalf("SyncEncoded to a failing writer: %v", err)
	}
	if _, served := encoded(t, root, cache, Options{}); served {
		t.Error("the next pass served a graph stored beside a failed answer")
	}
	if _, served := encoded(t, root, cache, Options{}); !served {
		t.Error("the pass after it did not store its graph")
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// An Update after SyncEncoded (which lets go of the files' parts of the
// graph) assembles the graph again, with the change.
func TestAnUpdateAfterAnEncodedSyncHasTheChange(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.SyncEncoded(ws, io.Discard); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"lib/extra.go": "package lib\n\nfunc Extra() {}\n"})
	v, _, err := ix.Update(ws, []string{"lib/extra.go"})
	if err != nil {
		t.Fatal(err)
	}
	g := v.Graph()
	if node(g, "file:lib/extra.go") == nil || node(g, "file:lib/lib.go") == nil {
		t.Error("the graph after the Update lacks the new file or an old one")
	}
}
