package diff

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOtherBranchesFindsOverlapsAndConflicts(t *testing.T) {
	r := newRepo(t)
	r.write("shared.txt", "one\ntwo\nthree\n")
	r.write("mine.txt", "mine\n")
	r.write("theirs.txt", "theirs\n")
	r.commit("init")

	// clash changes shared.txt's second line; calm changes its third
	// after a gap; away changes only theirs.txt.
	r.git("checkout", "-q", "-b", "clash")
	r.write("shared.txt", "one\nTWO (clash)\nthree\n")
	r.commit("clash")
	r.git("checkout", "-q", "main")
	r.git("checkout", "-q", "-b", "away")
	r.write("theirs.txt", "changed\n")
	r.commit("away")
	r.git("checkout", "-q", "main")

	// A remote with a branch of its own, fetched as origin/remote-work.
	origin := t.TempDir()
	r.git("init", "-q", "--bare", origin)
	r.git("remote", "add", "origin", origin)
	r.git("push", "-q", "origin", "main")
	r.git("checkout", "-q", "-b", "remote-work")
	r.write("shared.txt", "one\ntwo\nthree\nfour (remote)\n")
	r.commit("remote work")
	r.git("push", "-q", "origin", "remote-work")
	r.git("checkout", "-q", "main")
	r.git("branch", "-q", "-D", "remote-work")
	r.git("fetch", "-q", "origin")

	r.git("checkout", "-q", "-b", "feature")
	r.write("shared.txt", "one\ntwo (mine, uncommitted)\nthree\n")

	before, err := os.Stat(filepath.Join(r.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := OtherBranches(context.Background(), r.dir, []string{"shared.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Current != "feature" || got.Cap != MaxBranches {
		t.Errorf("answer = %+v", got)
	}
	by := map[string]Branch{}
	for _, b := range got.Branches {
		by[b.Name] = b
	}
	if _, ok := by["away"]; ok {
		t.Error("a branch changing other files is listed")
	}
	if _, ok := by["main"]; ok {
		t.Error("main changes nothing since the merge base and is listed")
	}
	clash := by["clash"]
	if !slices.Equal(clash.Overlap, []string{"shared.txt"}) || !clash.Conflicts || !slices.Equal(clash.ConflictFiles, []string{"shared.txt"}) || clash.Subject != "clash" {
		t.Errorf("clash = %+v", clash)
	}
	remote := by["origin/remote-work"]
	if !remote.Remote || !slices.Equal(remote.Overlap, []string{"shared.txt"}) || remote.Conflicts {
		t.Errorf("origin/remote-work = %+v", remote)
	}
	if after, err := os.Stat(filepath.Join(r.dir, ".git", "index")); err != nil || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("the repository's index was rewritten")
	}
	if unstaged, staged := r.git("diff", "--name-only"), r.git("diff", "--cached", "--name-only"); unstaged != "shared.txt" || staged != "" || r.git("stash", "list") != "" {
		t.Errorf("the repository changed: unstaged %q, staged %q, stash %q", unstaged, staged, r.git("stash", "list"))
	}
}

func TestOtherBranchesBeforeTheFirstCommitSaysSo(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	got, err := OtherBranches(context.Background(), r.dir, []string{"a.txt"})
	if err != nil || got.Note == "" || len(got.Branches) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
}

// TestAConflictingFileKeepsItsName: a non-ASCII name with a space comes
// back as it is, not C-quoted.
func TestAConflictingFileKeepsItsName(t *testing.T) {
	r := newRepo(t)
	name := "dir/naïve file.txt"
	r.write(name, "one\ntwo\nthree\n")
	r.commit("init")
	r.git("checkout", "-q", "-b", "other")
	r.write(name, "one\nTWO (other)\nthree\n")
	r.commit("other")
	r.git("checkout", "-q", "main")
	r.git("checkout", "-q", "-b", "mine")
	r.write(name, "one\nTWO (mine)\nthree\n")
	r.commit("mine")
	got, err := OtherBranches(context.Background(), r.dir, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range got.Branches {
		if b.Name == "other" {
			if !b.Conflicts || !slices.Equal(b.ConflictFiles, []string{name}) || !slices.Equal(b.Overlap, []string{name}) {
				t.Errorf("other = %+v", b)
			}
			return
		}
	}
	t.Errorf("other is not listed: %+v", got)
}
