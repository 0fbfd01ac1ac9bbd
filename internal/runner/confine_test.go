package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/corehq/core/internal/remotecache"
	repb "github.com/corehq/core/proto/gen/build/bazel/remote/execution/v2"
)

// fakeRemote is a remote cache that serves crafted action results: what
// anyone who can write to a team's cache could put there.
type fakeRemote struct {
	mu    sync.Mutex
	ac    map[string][]byte // by key
	blobs map[string][]byte // by sha256
}

func newFakeRemote(t *testing.T) (*fakeRemote, string) {
	fr := &fakeRemote{ac: map[string][]byte{}, blobs: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fr.mu.Lock()
		defer fr.mu.Unlock()
		kind, hash, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		var data []byte
		var ok bool
		switch kind {
		case "ac":
			data, ok = fr.ac[hash]
		case "cas":
			data, ok = fr.blobs[hash]
		}
		if !ok || r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return fr, srv.URL
}

func (fr *fakeRemote) blob(content string) *repb.Digest {
	sum := sha256.Sum256([]byte(content))
	h := hex.EncodeToString(sum[:])
	fr.mu.Lock()
	fr.blobs[h] = []byte(content)
	fr.mu.Unlock()
	return &repb.Digest{Hash: h, SizeBytes: int64(len(content))}
}

func (fr *fakeRemote) put(t *testing.T, key string, ar *repb.ActionResult) {
	if ar.StdoutDigest == nil {
		ar.StdoutDigest = fr.blob("restored\n")
	}
	data, err := proto.Marshal(ar)
	if err != nil {
		t.Fatal(err)
	}
	fr.mu.Lock()
	fr.ac[key] = data
	fr.mu.Unlock()
}

const confineYAML = `projects:
  top:
    path: .
    targets:
      gen:
        run: [sh, -c, "mkdir -p topout && echo built > topout/a.txt"]
        inputs: [src.txt]
        outputs: ["topout/**"]
`

// craftedEntries are action results a restore must refuse whole, with a
// path each that must not be written.
func craftedEntries(fr *fakeRemote, outside string) []struct {
	name string
	ar   *repb.ActionResult
} {
	ok := &repb.OutputFile{Path: "topout/a.txt", Digest: fr.blob("from the cache\n")}
	return []struct {
		name string
		ar   *repb.ActionResult
	}{
		{"a git hook beside the outputs", &repb.ActionResult{OutputFiles: []*repb.OutputFile{ok,
			{Path: ".git/hooks/pre-commit", Digest: fr.blob("#!/bin/sh\necho pwned\n"), IsExecutable: true, NodeProperties: &repb.NodeProperties{UnixMode: wrapperspb.UInt32(0o755)}},
		}}},
		{"a file of the project that is no output", &repb.ActionResult{OutputFiles: []*repb.OutputFile{ok, {Path: "README.md", Digest: fr.blob("pwned\n")}}}},
		{"a symlink out of the workspace", &repb.ActionResult{OutputFiles: []*repb.OutputFile{ok}, OutputSymlinks: []*repb.OutputSymlink{{Path: "topout/x.txt", Target: outside}}}},
		{"a relative symlink out of the outputs", &repb.ActionResult{OutputFiles: []*repb.OutputFile{ok}, OutputSymlinks: []*repb.OutputSymlink{{Path: "topout/x", Target: "../README.md"}}}},
		{"a symlinked directory out of the outputs", &repb.ActionResult{OutputFiles: []*repb.OutputFile{ok}, OutputSymlinks: []*repb.OutputSymlink{{Path: "topout/d", Target: "../.git/hooks"}}}},
	}
}

func TestARemoteEntryRestoresOnlyWhatTheTargetDeclares(t *testing.T) {
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fr, url := newFakeRemote(t)
	for _, c := range craftedEntries(fr, outside) {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, confineYAML, map[string]string{"src.txt": "in\n", "README.md": "readme\n", ".git/hooks/README": "hooks\n"})
			before := snapshot(t, f.root, ".git", ".")
			planned, err := f.runner(Options{}).Plan(context.Background(), f.ws(), []string{"top:gen"})
			if err != nil {
				t.Fatal(err)
			}
			fr.put(t, planned[0].Key, c.ar)
			var warnings []string
			res, err := remoteRunner(t, f, url, remotecache.ModeRead, &warnings).Run(context.Background(), f.ws(), []string{"top:gen"})
			if err != nil {
				t.Fatal(err)
			}
			if r := byTarget(res)["top:gen"]; r.Status != StateSucceeded || r.From != FromBuilt {
				t.Fatalf("top:gen %+v, want built locally", r)
			}
			if got, _ := f.read("topout/a.txt"); got != "built\n" {
				t.Errorf("topout/a.txt = %q: the entry was restored", got)
			}
			after := snapshot(t, f.root, ".git", ".")
			for p, v := range after {
				if p == "topout" || p == ".core" || strings.HasPrefix(p, "topout/") || strings.HasPrefix(p, ".core/") {
					continue
				}
				if before[p] != v {
					t.Errorf("%s was written: %q", p, v)
				}
			}
			if data, _ := os.ReadFile(outside); string(data) != "outside\n" {
				t.Errorf("the file outside the workspace is now %q", data)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "does not declare") {
				t.Errorf("warnings %q, want one naming the entry and the path", warnings)
			}
		})
	}
}

// A link left among the outputs (an older core restored it, a person made
// it) is removed before the target builds, so the build's write stays in
// the project.
func TestALinkAmongTheOutputsIsRemovedBeforeABuild(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      gen:
        run: [sh, -c, "mkdir -p out && echo built > out/x.txt"]
        inputs: [src.txt]
        outputs: [out/]
`, map[string]string{"p/src.txt": "in\n"})
	if err := os.MkdirAll(filepath.Join(f.root, "p/out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.root, "p/out/x.txt")); err != nil {
		t.Fatal(err)
	}
	if r := f.run("p:gen")["p:gen"]; r.Status != StateSucceeded {
		t.Fatalf("%+v", r)
	}
	if data, _ := os.ReadFile(outside); string(data) != "outside\n" {
		t.Errorf("the build wrote through the link: %q", data)
	}
	if fi, err := os.Lstat(filepath.Join(f.root, "p/out/x.txt")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("out/x.txt is not the build's file: %v %v", fi, err)
	}
}

// A restore never writes through a directory of the project that is a
// link out of it.
func TestARestoreDoesNotWriteThroughALinkedDirectory(t *testing.T) {
	outsideDir := t.TempDir()
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      gen:
        run: [sh, -c, "test -f ../stop || (mkdir -p gen && echo built > gen/a.txt)"]
        inputs: [src.txt]
        outputs: ["gen/*.txt"]
`, map[string]string{"p/src.txt": "in\n"})
	f.run("p:gen")
	f.write("stop", "") // the second run's build writes nothing: only a restore could
	if err := os.RemoveAll(filepath.Join(f.root, "p/gen")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideDir, filepath.Join(f.root, "p/gen")); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	r := f.runWith(f.runner(Options{Warn: func(s string) { warnings = append(warnings, s) }}), "p:gen")["p:gen"]
	if _, err := os.Stat(filepath.Join(outsideDir, "a.txt")); err == nil {
		t.Fatalf("the restore wrote through p/gen into %s (%+v)", outsideDir, r)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "link out of the project") {
		t.Errorf("warnings %q", warnings)
	}
}

// FuzzRestoreWritesOnlyDeclaredOutputs: whatever action result a remote
// serves, a restore writes nothing outside the target's declared outputs,
// and every link it leaves resolves inside them.
func FuzzRestoreWritesOnlyDeclaredOutputs(f *testing.F) {
	fr := &fakeRemote{ac: map[string][]byte{}, blobs: map[string][]byte{}}
	for _, c := range craftedEntries(fr, "/etc/passwd") {
		data, _ := proto.Marshal(c.ar)
		f.Add(data)
	}
	good := &repb.ActionResult{
		OutputFiles:    []*repb.OutputFile{{Path: "out/a.txt", Digest: fr.blob("a")}, {Path: "gen/b.txt", Digest: fr.blob("bb")}},
		OutputSymlinks: []*repb.OutputSymlink{{Path: "out/l", Target: "a.txt"}, {Path: "out/up", Target: "../gen/b.txt"}},
	}
	data, _ := proto.Marshal(good)
	f.Add(data)
	outputs := []string{"out/", "gen/*.txt"}
	key := strings.Repeat("ab", 32)
	f.Fuzz(func(t *testing.T, data []byte) {
		ar := &repb.ActionResult{}
		if proto.Unmarshal(data, ar) != nil {
			return
		}
		m, _, _, err := entryOf(key, "p:t", ar)
		if err != nil || confined(m, outputs) != nil {
			return
		}
		for i := range m.Outputs {
			e := &m.Outputs[i]
			if e.Type == 'f' {
				if e.Size > 1<<12 {
					return
				}
				sum := sha256.Sum256(make([]byte, e.Size))
				e.Digest = hex.EncodeToString(sum[:])
			}
		}
		root := t.TempDir()
		ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
		proj := filepath.Join(ws, "p")
		for _, d := range []string{proj, outside, filepath.Join(ws, ".git")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cacheDir := filepath.Join(ws, ".core")
		err = writeEntry(cacheDir, m, false, func(tmp string, m *cacheMeta) error {
			return writeTarFrom(filepath.Join(tmp, outputsFile), m.Outputs, func(e *outputEntry, w io.Writer) error {
				_, err := w.Write(make([]byte, e.Size))
				return err
			})
		})
		if err != nil {
			return
		}
		stored, ok := lookup(cacheDir, key)
		if !ok {
			return
		}
		_, _ = restore(cacheDir, key, proj, outputs, stored)
		realProj, _ := filepath.EvalSymlinks(proj)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return nil
			}
			rel, _ := filepath.Rel(proj, p)
			switch {
			case strings.HasPrefix(p, cacheDir), p == ws, p == outside, p == proj, p == filepath.Join(ws, ".git"):
				return nil
			case !strings.HasPrefix(p, proj+string(filepath.Separator)):
				t.Fatalf("restored %s, outside the project", p)
			case !d.IsDir() && !isOutputPath(outputs, filepath.ToSlash(rel)):
				// (a directory above an output is made to hold it)
				t.Fatalf("restored %s, which is no output", rel)
			}
			if d.Type()&fs.ModeSymlink != 0 {
				to, err := filepath.EvalSymlinks(p)
				if err == nil && !strings.HasPrefix(to, realProj+string(filepath.Separator)) {
					t.Fatalf("restored the link %s to %s, outside the project", rel, to)
				}
			}
			return nil
		})
	})
}

// isOutputPath is what confined asks, for the fuzzer's walk.
func isOutputPath(outputs []string, rel string) bool {
	return confined(cacheMeta{Outputs: []outputEntry{{Path: rel, Type: 'f'}}}, outputs) == nil
}
