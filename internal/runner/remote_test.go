package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/testbed"
	repb "github.com/corehq/core/proto/gen/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// remoteWorkspace builds outputs of every kind: a file, an executable, a
// read-only file, a symlink, an empty directory; app depends on lib.
const remoteWorkspace = `projects:
  lib:
    path: libs/lib
    targets:
      build:
        run: [sh, -c, "echo built lib >> ../../built.log; mkdir -p out/empty out/sub; cp src.txt out/lib.txt; printf '#!/bin/sh\necho hi\n' > out/run.sh; chmod 755 out/run.sh; echo ro > out/sub/ro.txt; chmod 600 out/sub/ro.txt; ln -sf lib.txt out/link; echo lib says hello"]
        inputs: [src.txt]
        outputs: [out/]
  app:
    path: apps/app
    targets:
      build:
        run: [sh, -c, "echo built app >> ../../built.log; mkdir -p dist; cat ../../libs/lib/out/lib.txt main.txt > dist/app.txt"]
        inputs: [main.txt]
        outputs: [dist/]
        deps: ["lib:build"]
`

var remoteFiles = map[string]string{"libs/lib/src.txt": "lib source\n", "apps/app/main.txt": "app main\n"}

// remoteRunner is a runner of f with the remote cache at url.
func remoteRunner(t *testing.T, f *fixture, url, mode string, warnings *[]string) *Runner {
	t.Helper()
	c, err := remotecache.New(remotecache.Config{URL: url, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return f.runner(Options{Remote: c, Warn: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if warnings != nil {
			*warnings = append(*warnings, s)
		}
	}})
}

// snapshot lists every output path under the fixture with its type, mode
// and content (or link target).
func snapshot(t *testing.T, root string, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		base := filepath.Join(root, d)
		_ = filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			switch {
			case fi.Mode()&os.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				out[rel] = "link -> " + l
			case fi.IsDir():
				out[rel] = "dir " + fi.Mode().Perm().String()
			default:
				data, _ := os.ReadFile(p)
				out[rel] = fi.Mode().Perm().String() + " " + string(data)
			}
			return nil
		})
	}
	return out
}

func TestRemoteCache(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	a := newFixture(t, remoteWorkspace, remoteFiles)
	b := newFixture(t, remoteWorkspace, remoteFiles)
	ctx := context.Background()

	resA, err := remoteRunner(t, a, ng.URL, remotecache.ModeReadWrite, nil).Run(ctx, a.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("clone A builds and uploads everything", func(t *testing.T) {
		for _, r := range resA.Targets {
			if r.Status != StateSucceeded || r.From != FromBuilt {
				t.Fatalf("%s: %+v", r.Target, r)
			}
		}
		if resA.Remote.Uploaded != 2 || resA.Remote.BytesUp == 0 {
			t.Fatalf("remote stats %+v, want 2 uploads", resA.Remote)
		}
		acs := 0
		for _, p := range ng.Files() {
			if strings.HasPrefix(p, "ac/") {
				acs++
			}
		}
		if acs != 2 {
			t.Fatalf("the server holds %d action results: %v", acs, ng.Files())
		}
	})

	var warnings []string
	resB, err := remoteRunner(t, b, ng.URL, remotecache.ModeRead, &warnings).Run(ctx, b.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a clone in another directory has the same keys", func(t *testing.T) {
		ka, kb := byTarget(resA), byTarget(resB)
		for id := range ka {
			if ka[id].CacheKey != kb[id].CacheKey {
				t.Fatalf("%s: key %s in A, %s in B", id, ka[id].CacheKey, kb[id].CacheKey)
			}
		}
	})
	t.Run("clone B is served everything from the remote", func(t *testing.T) {
		for _, r := range resB.Targets {
			if r.Status != StateCached || r.From != FromRemote {
				t.Fatalf("%s: %+v", r.Target, r)
			}
		}
		if resB.Remote.Hits != 2 || resB.Remote.BytesDown == 0 || resB.Remote.BytesUp != 0 {
			t.Fatalf("remote stats %+v", resB.Remote)
		}
		if log, ok := b.read("built.log"); ok {
			t.Fatalf("clone B ran a command: %q", log)
		}
		if len(warnings) > 0 {
			t.Fatalf("warnings: %v", warnings)
		}
	})
	t.Run("the outputs are byte-identical with the same modes and links", func(t *testing.T) {
		sa := snapshot(t, a.root, "libs/lib/out", "apps/app/dist")
		sb := snapshot(t, b.root, "libs/lib/out", "apps/app/dist")
		if len(sa) < 7 {
			t.Fatalf("too few outputs in A: %v", sa)
		}
		for p, v := range sa {
			if sb[p] != v {
				t.Errorf("%s: %q in A, %q in B", p, v, sb[p])
			}
		}
		if len(sa) != len(sb) {
			t.Errorf("A has %d outputs, B %d", len(sa), len(sb))
		}
	})
	t.Run("the journal says the result came from the remote, and replays its output", func(t *testing.T) {
		lib := byTarget(resB)["lib:build"]
		j, err := ReadJournal(b.cacheDir(), lib.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if j.From != FromRemote || !strings.Contains(j.Output, "lib says hello") {
			t.Fatalf("journal from %q output %q", j.From, j.Output)
		}
	})
	t.Run("the next run of B is a local hit", func(t *testing.T) {
		res, err := remoteRunner(t, b, ng.URL, remotecache.ModeRead, nil).Run(ctx, b.ws(), []string{"app:build"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Targets {
			if r.From != FromLocal {
				t.Fatalf("%s: %+v", r.Target, r)
			}
		}
	})
}

func TestRemoteReadModeNeverUploads(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	f := newFixture(t, remoteWorkspace, remoteFiles)
	res, err := remoteRunner(t, f, ng.URL, remotecache.ModeRead, nil).Run(context.Background(), f.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || res.Remote.Uploaded != 0 || res.Remote.BytesUp != 0 {
		t.Fatalf("result %+v", res)
	}
	if files := ng.Files(); len(files) != 0 {
		t.Fatalf("the server holds %v", files)
	}
}

func TestACorruptBlobIsRebuiltNotRestored(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	a := newFixture(t, remoteWorkspace, remoteFiles)
	b := newFixture(t, remoteWorkspace, remoteFiles)
	ctx := context.Background()
	if _, err := remoteRunner(t, a, ng.URL, remotecache.ModeReadWrite, nil).Run(ctx, a.ws(), []string{"lib:build"}); err != nil {
		t.Fatal(err)
	}
	// Corrupt the blob of lib.txt on the server, keeping its size.
	want := remotecache.DigestOf([]byte("lib source\n"))
	p := filepath.Join(ng.Data, "cas", want.Hash)
	if err := os.WriteFile(p, []byte("LIB SOURCE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	res, err := remoteRunner(t, b, ng.URL, remotecache.ModeReadWrite, &warnings).Run(ctx, b.ws(), []string{"lib:build"})
	if err != nil {
		t.Fatal(err)
	}
	r := byTarget(res)["lib:build"]
	if r.Status != StateSucceeded || r.From != FromBuilt {
		t.Fatalf("lib:build %+v, want built locally", r)
	}
	if got, _ := b.read("libs/lib/out/lib.txt"); got != "lib source\n" {
		t.Fatalf("lib.txt = %q", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt") {
		t.Fatalf("warnings %q, want one about the corrupt entry", warnings)
	}
	t.Run("read-write mode replaces the corrupt blob", func(t *testing.T) {
		data, _ := os.ReadFile(p)
		if string(data) != "lib source\n" {
			t.Fatalf("the server still holds %q", data)
		}
	})
}

func TestAnActionResultWhoseBlobIsGoneIsAQuietMiss(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	a := newFixture(t, remoteWorkspace, remoteFiles)
	b := newFixture(t, remoteWorkspace, remoteFiles)
	ctx := context.Background()
	if _, err := remoteRunner(t, a, ng.URL, remotecache.ModeReadWrite, nil).Run(ctx, a.ws(), []string{"app:build"}); err != nil {
		t.Fatal(err)
	}
	// The server evicted lib.txt's blob.
	if err := os.Remove(filepath.Join(ng.Data, "cas", remotecache.DigestOf([]byte("lib source\n")).Hash)); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	res, err := remoteRunner(t, b, ng.URL, remotecache.ModeReadWrite, &warnings).Run(ctx, b.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	got := byTarget(res)
	if got["lib:build"].From != FromBuilt || got["app:build"].From != FromRemote {
		t.Fatalf("lib %+v, app %+v: want lib built, app still from the remote", got["lib:build"], got["app:build"])
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings %q", warnings)
	}
	if _, err := os.Stat(filepath.Join(ng.Data, "cas", remotecache.DigestOf([]byte("lib source\n")).Hash)); err != nil {
		t.Fatalf("the rebuilt target did not upload the blob again: %v", err)
	}
}

func TestARemoteThatIsDownCostsOneWarning(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	url := ng.URL
	ng.Stop()
	f := newFixture(t, remoteWorkspace, remoteFiles)
	var warnings []string
	res, err := remoteRunner(t, f, url, remotecache.ModeReadWrite, &warnings).Run(context.Background(), f.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() {
		t.Fatalf("the run failed: %+v", res.Targets)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "building locally") {
		t.Fatalf("warnings %q, want exactly one", warnings)
	}
}

func TestARemoteStoppedMidRunLetsTheRunFinishLocally(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	// lib:build stops the server while it runs: app:build then meets a
	// remote that is gone, on lookup and upload alike.
	ws := strings.Replace(remoteWorkspace, `echo lib says hello"]`, `echo lib says hello; kill -INT $(cat `+ng.PID+`); sleep 0.5"]`, 1)
	f := newFixture(t, ws, remoteFiles)
	var warnings []string
	res, err := remoteRunner(t, f, ng.URL, remotecache.ModeReadWrite, &warnings).Run(context.Background(), f.ws(), []string{"app:build"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Targets {
		if r.Status != StateSucceeded {
			t.Fatalf("%s: %+v", r.Target, r)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("warnings %q, want exactly one", warnings)
	}
}

func TestRestoreSwapsWholeOutputs(t *testing.T) {
	f := newFixture(t, remoteWorkspace, remoteFiles)
	f.run("lib:build")
	m, ok := lookupByTarget(t, f, "lib:build")
	if !ok {
		t.Fatal("no cache entry")
	}
	dir := filepath.Join(f.root, "libs/lib")
	t.Run("a restore over changed outputs leaves exactly the entry's", func(t *testing.T) {
		before := snapshot(t, f.root, "libs/lib/out")
		f.write("libs/lib/out/lib.txt", "tampered")
		f.write("libs/lib/out/extra.txt", "left over")
		if _, err := restore(f.cacheDir(), m.Key, dir, []string{"out/"}, m); err != nil {
			t.Fatal(err)
		}
		after := snapshot(t, f.root, "libs/lib/out")
		if len(after) != len(before) {
			t.Fatalf("after restore %v, want %v", keys(after), keys(before))
		}
		for p, v := range before {
			if after[p] != v {
				t.Errorf("%s: %q, want %q", p, after[p], v)
			}
		}
	})
	t.Run("a file that does not match its digest fails the restore and leaves the old outputs", func(t *testing.T) {
		f.write("libs/lib/out/lib.txt", "the old output")
		tarPath := filepath.Join(buildDir(f.cacheDir()), m.Key, outputsFile)
		data, err := os.ReadFile(tarPath)
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Replace(data, []byte("lib source\n"), []byte("LIB SOURCE\n"), 1)
		if bytes.Equal(bad, data) {
			t.Fatal("lib.txt's content is not in the tar")
		}
		if err := os.WriteFile(tarPath, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(tarPath, data, 0o600)
		if _, err := restore(f.cacheDir(), m.Key, dir, []string{"out/"}, m); err == nil || !strings.Contains(err.Error(), "does not match the digest") {
			t.Fatalf("restore = %v", err)
		}
		if got, _ := f.read("libs/lib/out/lib.txt"); got != "the old output" {
			t.Fatalf("lib.txt = %q", got)
		}
	})
	t.Run("a restore that fails midway leaves the old outputs whole", func(t *testing.T) {
		f.write("libs/lib/out/lib.txt", "the old output")
		// Cut the entry's tar short: extraction fails after some files.
		tarPath := filepath.Join(buildDir(f.cacheDir()), m.Key, outputsFile)
		data, err := os.ReadFile(tarPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tarPath, data[:len(data)/2], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := restore(f.cacheDir(), m.Key, dir, []string{"out/"}, m); err == nil {
			t.Fatal("restore of a truncated entry succeeded")
		}
		if got, _ := f.read("libs/lib/out/lib.txt"); got != "the old output" {
			t.Fatalf("lib.txt = %q: the failed restore touched the outputs", got)
		}
		if left, _ := os.ReadDir(filepath.Join(f.cacheDir(), "restore")); len(left) != 0 {
			t.Fatalf("staging left behind: %v", left)
		}
	})
	t.Run("a run meeting the damaged entry builds and replaces it", func(t *testing.T) {
		if r := f.run("lib:build")["lib:build"]; r.From != FromBuilt {
			t.Fatalf("with a damaged entry: %+v", r)
		}
		f.write("libs/lib/out/lib.txt", "changed again")
		if r := f.run("lib:build")["lib:build"]; r.From != FromLocal {
			t.Fatalf("after the rebuild: %+v", r)
		}
		if got, _ := f.read("libs/lib/out/lib.txt"); got != "lib source\n" {
			t.Fatalf("lib.txt = %q", got)
		}
	})
}

func lookupByTarget(t *testing.T, f *fixture, id string) (cacheMeta, bool) {
	t.Helper()
	list, _ := os.ReadDir(buildDir(f.cacheDir()))
	for _, d := range list {
		if m, ok := lookup(f.cacheDir(), d.Name()); ok && m.Target == id {
			return m, true
		}
	}
	return cacheMeta{}, false
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestTheToolchainIsInTheKey(t *testing.T) {
	yaml := `projects:
  p:
    path: p
    targets:
      build:
        run: [sh, -c, "echo ran >> count.txt"]
        inputs: [a.txt]
        toolchain: [sh, -c, "cat ../version.txt"]
`
	f := newFixture(t, yaml, map[string]string{"p/a.txt": "a", "version.txt": "tool 1.0\n"})
	first := f.run("p:build")["p:build"]
	if first.From != FromBuilt {
		t.Fatalf("first run %+v", first)
	}
	if again := f.run("p:build")["p:build"]; again.From != FromLocal || again.CacheKey != first.CacheKey {
		t.Fatalf("same toolchain: %+v", again)
	}
	f.write("version.txt", "tool 2.0\n")
	if changed := f.run("p:build")["p:build"]; changed.From != FromBuilt || changed.CacheKey == first.CacheKey {
		t.Fatalf("a new toolchain version did not rebuild: %+v", changed)
	}
	parts, err := f.runner(Options{}).Explain(context.Background(), f.ws(), "p:build")
	if err != nil {
		t.Fatal(err)
	}
	if parts.Toolchain == nil || parts.Toolchain.Version != "tool 2.0" {
		t.Fatalf("parts.Toolchain = %+v", parts.Toolchain)
	}
	t.Run("a toolchain command that fails fails the target with its output", func(t *testing.T) {
		f.write("version.txt", "")
		g := newFixture(t, strings.Replace(yaml, `cat ../version.txt`, `echo no such tool; exit 3`, 1), map[string]string{"p/a.txt": "a"})
		r := g.run("p:build")["p:build"]
		if r.Status != StateFailed || !strings.Contains(r.Err, "no such tool") || !strings.Contains(r.Err, "exited 3") {
			t.Fatalf("%+v", r)
		}
	})
}

// FuzzEntryOf feeds the decoder of remote action results what a server
// may answer: it must not panic, and what it accepts must stay inside the
// project and be listed once.
func FuzzEntryOf(f *testing.F) {
	m := cacheMeta{Key: strings.Repeat("ab", 32), Target: "p:t", Output: "out\n", Outputs: []outputEntry{
		{Path: "out", Type: 'd', Mode: 0o755},
		{Path: "out/a.txt", Type: 'f', Mode: 0o644, Size: 3, Digest: strings.Repeat("cd", 32)},
		{Path: "out/l", Type: 'l', Mode: 0o777, Link: "a.txt"},
	}}
	ar, _, err := actionOf(m)
	if err != nil {
		f.Fatal(err)
	}
	seed, _ := proto.Marshal(ar)
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ar := &repb.ActionResult{}
		if proto.Unmarshal(data, ar) != nil {
			return
		}
		got, digests, _, err := entryOf(m.Key, "p:t", ar)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range got.Outputs {
			if !safeRel(e.Path) || seen[e.Path] {
				t.Fatalf("accepted %q", e.Path)
			}
			seen[e.Path] = true
			if e.Type == 'f' && !remotecache.ValidKey(digests[e.Path].Hash) {
				t.Fatalf("accepted digest %q", digests[e.Path].Hash)
			}
		}
	})
}
