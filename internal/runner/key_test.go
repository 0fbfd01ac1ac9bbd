package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// --force runs a target whose entry exists, and its result takes the
// entry's place: the next plain run replays the new result, not the old.
func TestForceReplacesTheEntry(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      t:
        run: [sh, -c, "cat ../counter"]
        inputs: [in.txt]
`, map[string]string{"p/in.txt": "in\n", "counter": "1\n"})
	f.run("p:t")
	f.write("counter", "2\n")
	out := &syncBuffer{}
	if r := f.runWith(f.runner(Options{Cache: CacheRefresh, Output: out}), "p:t")["p:t"]; r.Status != StateSucceeded {
		t.Fatalf("--force: %+v", r)
	}
	out = &syncBuffer{}
	if r := f.runWith(f.runner(Options{Output: out}), "p:t")["p:t"]; r.Status != StateCached {
		t.Fatalf("after --force: %+v", r)
	}
	if got := out.String(); !strings.Contains(got, "2") || strings.Contains(got, "1") {
		t.Errorf("the replay after --force printed %q: the old entry stayed", got)
	}
}

// A file a target writes while a run goes on is hashed again for a target
// that reads it later in the run, though an earlier target of the run
// hashed it before: the run's memo of digests holds only while nothing
// runs.
func TestWhatATargetWritesIsHashedAgainForTheTargetsAfterIt(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      early:
        run: ["true"]
        inputs: [data.txt]
      late:
        run: ["true"]
        inputs: [data.txt]
        deps: ["w:write"]
  w:
    path: w
    targets:
      write:
        run: [sh, -c, "echo v1 > ../p/data.txt"]
        deps: ["p:early"]
`, map[string]string{"p/data.txt": "v0\n", "w/x": ""})
	res := f.run("p:late")
	if res["p:late"].Status != StateSucceeded {
		t.Fatalf("%+v", res)
	}
	parts, err := RecordedParts(f.cacheDir(), res["p:late"].CacheKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("v1\n"))
	if len(parts.Inputs) != 1 || parts.Inputs[0].Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("p:late's key hashed data.txt as it was before w:write wrote it: %+v", parts.Inputs)
	}
}

// A project whose only target lists its inputs once for its own key and
// its dependents': a file that target writes into its own directory (no
// output of its) is in the part its dependents hash, though the listing
// was made before it ran, on directories old enough to vouch for it.
func TestAFileAProjectsOnlyTargetWritesIsInThePartItsDependentsHash(t *testing.T) {
	f := newFixture(t, `projects:
  lib:
    path: lib
    targets:
      gen:
        run: [sh, -c, "echo made > made.txt"]
  app:
    path: app
    deps: [lib]
    targets:
      build:
        run: ["true"]
        deps: ["^gen"]
`, map[string]string{"lib/src.txt": "s\n", "app/main.txt": "m\n"})
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{"lib", "app"} {
		if err := os.Chtimes(filepath.Join(f.root, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	res := f.run("app:build")
	if res["app:build"].Status != StateSucceeded {
		t.Fatalf("%+v", res)
	}
	parts, err := RecordedParts(f.cacheDir(), res["app:build"].CacheKey)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range parts.Dependencies {
		if p.Project == "lib" {
			for _, fh := range p.Files {
				files = append(files, fh.Path)
			}
		}
	}
	if !slices.Contains(files, "made.txt") || !slices.Contains(files, "src.txt") {
		t.Errorf("lib's part in app:build's key: %v; want made.txt and src.txt", files)
	}
}
