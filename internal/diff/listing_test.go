package diff

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// ageTree sets the modification time of everything under dir (the .git
// directory too) an hour back, as if the tree had been left alone: a kept
// listing is reused only for paths that settled before it was made.
func ageTree(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	must(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

// listedOthers is untrackedOthers for dir, and whether git ran for it.
func listedOthers(t *testing.T, dir string) (string, bool) {
	t.Helper()
	ctx := context.Background()
	b, err := resolveFor(ctx, dir, "", false)
	must(t, err)
	cfg, err := readDiffConfig(ctx, dir)
	must(t, err)
	before := othersRuns.Load()
	out, err := untrackedOthers(ctx, dir, b, cfg)
	must(t, err)
	return out, othersRuns.Load() != before
}

const ignoredDir = "a file created in an ignored directory"

func listingRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write("a/b/tracked.go", "package b\n")
	r.write("a/tracked.txt", "a\n")
	r.write(".gitignore", "*.log\nbuild/\n")
	r.write("sub/.gitignore", "*.tmp\n")
	r.write("sub/tracked.txt", "s\n")
	r.commit("init")
	r.write("a/b/untracked.txt", "u\n")
	r.write("debug.log", "ignored\n")
	r.write("sub/x.tmp", "ignored\n")
	r.write("build/out.bin", "ignored\n")
	must(t, os.MkdirAll(filepath.Join(r.dir, "empty"), 0o755))
	return r
}

// TestListingIsReusedUntilAnythingItDependsOnChanges: a listing is reused
// while the tree is unchanged, and after each kind of change git lists
// again, and the answer is git's.
func TestListingIsReusedUntilAnythingItDependsOnChanges(t *testing.T) {
	gitConfigIsolated(t)
	for name, change := range map[string]func(r *repo){
		"a file created in a directory with files": func(r *repo) { r.write("a/b/new.txt", "n\n") },
		"a file created in an empty directory":     func(r *repo) { r.write("empty/new.txt", "n\n") },
		"a directory created":                      func(r *repo) { r.write("a/new/deeper/x.txt", "x\n") },
		ignoredDir:                                 func(r *repo) { r.write("build/more.bin", "x\n") },
		"an untracked file deleted": func(r *repo) {
			must(t, os.Remove(filepath.Join(r.dir, "a/b/untracked.txt")))
		},
		"an untracked file renamed": func(r *repo) {
			must(t, os.Rename(filepath.Join(r.dir, "a/b/untracked.txt"), filepath.Join(r.dir, "a/b/renamed.txt")))
		},
		".gitignore edited in place": func(r *repo) {
			f, err := os.OpenFile(filepath.Join(r.dir, ".gitignore"), os.O_WRONLY|os.O_TRUNC, 0)
			must(t, err)
			_, err = f.WriteString("build/\n") // *.log no longer ignored
			must(t, err)
			must(t, f.Close())
		},
		"a nested .gitignore edited in place": func(r *repo) {
			must(t, os.WriteFile(filepath.Join(r.dir, "sub/.gitignore"), []byte("#\n"), 0o644))
		},
		"info/exclude edited": func(r *repo) {
			must(t, os.WriteFile(filepath.Join(r.dir, ".git/info/exclude"), []byte("*.txt\n"), 0o644))
		},
		"an untracked file added to the index": func(r *repo) { r.git("add", "a/b/untracked.txt") },
		"core.excludesFile set": func(r *repo) {
			ignore := filepath.Join(t.TempDir(), "ignore")
			must(t, os.WriteFile(ignore, []byte("untracked.txt\n"), 0o644))
			r.git("config", "core.excludesFile", ignore)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := listingRepo(t)
			ageTree(t, r.dir)
			first, ran := listedOthers(t, r.dir)
			if !ran {
				t.Fatal("the first listing ran no git")
			}
			again, ran := listedOthers(t, r.dir)
			if ran || again != first {
				t.Fatalf("nothing changed, yet git ran again (%v) or the answer differs", ran)
			}
			change(r)
			got, ran := listedOthers(t, r.dir)
			if !ran {
				t.Fatal("git did not list again after the change")
			}
			want, err := lsOthers(context.Background(), r.dir)
			must(t, err)
			// In an ignored directory, more is watched than git reads:
			// git lists again, and the answer is the same.
			if got != want || (got == first) != (name == ignoredDir) {
				t.Errorf("after the change: %q, git lists %q (before: %q)", got, want, first)
			}
		})
	}
}

// TestListingBelowTheTopWatchesTheAncestorsIgnores: with root below the
// top, a .gitignore above it applies too.
func TestListingBelowTheTopWatchesTheAncestorsIgnores(t *testing.T) {
	gitConfigIsolated(t)
	r := listingRepo(t)
	root := filepath.Join(r.dir, "a")
	ageTree(t, r.dir)
	first, _ := listedOthers(t, root)
	if _, ran := listedOthers(t, root); ran {
		t.Fatal("nothing changed, yet git ran again")
	}
	must(t, os.WriteFile(filepath.Join(r.dir, ".gitignore"), []byte("untracked.txt\n"), 0o644))
	got, ran := listedOthers(t, root)
	if !ran || got == first || got != "" {
		t.Errorf("after the top's .gitignore changed: ran %v, %q (before %q)", ran, got, first)
	}
}

// TestListingJustModifiedIsNotKept: a tree modified a moment ago is
// listed again at every request.
func TestListingJustModifiedIsNotKept(t *testing.T) {
	gitConfigIsolated(t)
	r := listingRepo(t)
	listedOthers(t, r.dir)
	if _, ran := listedOthers(t, r.dir); !ran {
		t.Error("a listing of a tree modified just now was reused")
	}
}

// TestListingOfTooLargeATreeIsNotWatched: past maxListedDirs directories
// the root is listed afresh every time, and still right.
func TestListingOfTooLargeATreeIsNotWatched(t *testing.T) {
	gitConfigIsolated(t)
	r := listingRepo(t)
	for i := range maxListedDirs + 1 {
		must(t, os.MkdirAll(filepath.Join(r.dir, "many", strconv.Itoa(i)), 0o755))
	}
	ageTree(t, r.dir)
	for range 2 {
		got, ran := listedOthers(t, r.dir)
		want, err := lsOthers(context.Background(), r.dir)
		must(t, err)
		if !ran || got != want {
			t.Fatalf("ran git %v, %q, git lists %q", ran, got, want)
		}
	}
}

// TestListingFollowsDirectoriesItDidNotWalk: a directory created (or
// removed) after the first walk is read (or dropped) when its parent
// changes, and changes inside it are seen later.
func TestListingFollowsDirectoriesItDidNotWalk(t *testing.T) {
	gitConfigIsolated(t)
	r := listingRepo(t)
	settled := func() string {
		t.Helper()
		ageTree(t, r.dir)
		got, _ := listedOthers(t, r.dir)
		if again, ran := listedOthers(t, r.dir); ran || again != got {
			t.Fatalf("nothing changed, yet git ran again (%v)", ran)
		}
		want, err := lsOthers(context.Background(), r.dir)
		must(t, err)
		if got != want {
			t.Fatalf("listed %q, git lists %q", got, want)
		}
		return got
	}
	steps := []func(){
		func() { r.write("n1/n2/first.txt", "1\n") },
		func() { r.write("n1/n2/second.txt", "2\n") },
		func() { must(t, os.MkdirAll(filepath.Join(r.dir, "n1/n2/n3"), 0o755)) },
		func() { r.write("n1/n2/n3/third.txt", "3\n") },
		func() { must(t, os.RemoveAll(filepath.Join(r.dir, "n1/n2"))) },
		func() { r.write("n1/n2/again.txt", "4\n") },
		func() { r.write("n1/n2/.gitignore", "again.txt\n") },
		func() { must(t, os.WriteFile(filepath.Join(r.dir, "n1/n2/.gitignore"), []byte("#\n"), 0o644)) },
	}
	prev := settled()
	for i, step := range steps {
		step()
		got, ran := listedOthers(t, r.dir)
		want, err := lsOthers(context.Background(), r.dir)
		must(t, err)
		if !ran || got != want {
			t.Fatalf("step %d: ran git %v, listed %q, git lists %q", i, ran, got, want)
		}
		if i != 2 && got == prev {
			t.Fatalf("step %d changed nothing git lists: the test proves little", i)
		}
		prev = settled()
	}
}

// TestListingRereadsADirectoryReadTooSoon: a directory read right after
// it was modified is read again at the next listing, so that a change
// within the same tick of the file system's clock (simulated here by
// putting its time back) is not lost.
func TestListingRereadsADirectoryReadTooSoon(t *testing.T) {
	gitConfigIsolated(t)
	r := listingRepo(t)
	ageTree(t, r.dir)
	dir := filepath.Join(r.dir, "a")
	// A time a little ahead, so that a/ is recent when the listing starts
	// however long a loaded machine takes to get there (a time of now was
	// old by then once, and the test failed for a reason of its own).
	tick := time.Now().Add(time.Second)
	must(t, os.Chtimes(dir, tick, tick))
	listedOthers(t, r.dir) // reads a/ while its time is recent
	r.write("a/sub/first.txt", "1\n")
	must(t, os.Chtimes(dir, tick, tick))         // the same tick: a/'s time as it was read
	time.Sleep(time.Until(tick.Add(2 * settle))) // a/'s time is old by the next listing
	listedOthers(t, r.dir)
	if _, ran := listedOthers(t, r.dir); ran {
		t.Fatal("nothing changed, yet git ran again")
	}
	r.write("a/sub/second.txt", "2\n")
	got, ran := listedOthers(t, r.dir)
	want, err := lsOthers(context.Background(), r.dir)
	must(t, err)
	if !ran || got != want {
		t.Fatalf("a file created in a/sub: ran git %v, listed %q, git lists %q", ran, got, want)
	}
}
