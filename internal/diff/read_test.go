package diff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
)

// repo is a real git repository in a temporary directory.
type repo struct {
	*testbed.GitRepo
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	g := testbed.NewGitRepo(t, "main")
	return &repo{GitRepo: g, t: t, dir: g.Dir}
}

func (r *repo) git(args ...string) string  { r.t.Helper(); return r.Git(args...) }
func (r *repo) write(path, content string) { r.t.Helper(); r.Write(path, content) }
func (r *repo) commit(msg string)          { r.t.Helper(); r.Commit(msg) }

func (r *repo) read(base string) Change {
	r.t.Helper()
	ch, err := Read(context.Background(), r.dir, base)
	if err != nil {
		r.t.Fatalf("Read: %v", err)
	}
	return ch
}

func byPath(ch Change) map[string]File {
	m := map[string]File{}
	for _, f := range ch.Files {
		m[f.Path] = f
	}
	return m
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadSeesStagedUnstagedAndUntrackedChangesAgainstHEAD(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n\nfunc A() {}\n")
	r.write("b.txt", lines(20))
	r.write("gone.txt", "bye\n")
	r.write(".gitignore", "*.log\n")
	r.commit("init")

	r.write("a.go", "package a\n\nfunc A() { println() }\n") // unstaged
	r.write("b.txt", strings.Replace(lines(20), "line x\n", "changed\n", 1))
	r.git("add", "b.txt")                             // staged
	r.write("new dir/new file.txt", "hello\nworld\n") // untracked, with spaces
	r.write("debug.log", "ignored\n")
	if err := os.Remove(filepath.Join(r.dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}

	ch := r.read("")
	if ch.Base.Ref != "HEAD" || ch.Base.Commit == "" || ch.Base.Branch != "main" || ch.Base.MergeBase {
		t.Errorf("base = %+v", ch.Base)
	}
	got := byPath(ch)
	if _, ok := got["debug.log"]; ok {
		t.Error("an ignored file is in the change")
	}
	want := map[string]string{"a.go": KindModified, "b.txt": KindModified, "new dir/new file.txt": KindAdded, "gone.txt": KindDeleted}
	if len(got) != len(want) {
		t.Errorf("files = %v, want %v", ch.Files, want)
	}
	for p, kind := range want {
		if got[p].Kind != kind {
			t.Errorf("%s: kind %q, want %q", p, got[p].Kind, kind)
		}
	}
	if f := got["new dir/new file.txt"]; !f.Untracked || f.Added != 2 || len(f.Hunks) != 1 || f.Hunks[0] != (Hunk{0, 0, 1, 2}) {
		t.Errorf("untracked file = %+v", f)
	}
	if f := got["a.go"]; f.Added != 1 || f.Deleted != 1 || len(f.Hunks) != 1 || f.Hunks[0].NewStart != 3 || f.Hash == "" {
		t.Errorf("a.go = %+v", f)
	}
	if f := got["gone.txt"]; f.Hash != "" || f.Deleted != 1 || f.Hunks[0].NewLines != 0 {
		t.Errorf("gone.txt = %+v", f)
	}
	// The hash is git's blob id of the content.
	if h := r.git("hash-object", "a.go"); got["a.go"].Hash != h {
		t.Errorf("a.go hash = %q, want git's %q", got["a.go"].Hash, h)
	}
	// Nothing was written to the repository's index.
	if st := r.git("status", "--porcelain"); !strings.Contains(st, "?? \"new dir/\"") && !strings.Contains(st, "?? new dir/") {
		t.Errorf("the untracked file became tracked: %q", st)
	}
}

func TestReadNamesRenamesModesBinariesSymlinksAndLargeFiles(t *testing.T) {
	r := newRepo(t)
	r.write("old.txt", lines(30))
	r.write("run.sh", "echo hi\n")
	r.write("img.bin", "\x00\x01\x02")
	r.commit("init")

	r.git("mv", "old.txt", "renamed.txt")
	if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.write("img.bin", "\x00\x03\x04")
	if err := os.Symlink("renamed.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef\n"), TruncateAt/16)
	if err := os.WriteFile(filepath.Join(r.dir, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}

	got := byPath(r.read(""))
	if f := got["renamed.txt"]; f.Kind != KindRenamed || f.OldPath != "old.txt" {
		t.Errorf("rename = %+v", f)
	}
	if f := got["run.sh"]; f.Kind != KindMode || f.OldMode != "100644" || f.NewMode != "100755" {
		t.Errorf("mode change = %+v", f)
	}
	if f := got["img.bin"]; !f.Binary || f.Added != 0 || len(f.Hunks) != 0 {
		t.Errorf("binary = %+v", f)
	}
	if f := got["link"]; f.Kind != KindAdded || f.NewMode != "120000" || f.Hash != "" {
		t.Errorf("symlink = %+v", f)
	}
	if f := got["big.txt"]; !f.Truncated || f.Binary || len(f.Hunks) != 0 {
		t.Errorf("large file = %+v", f)
	}

	var patch bytes.Buffer
	if err := WritePatch(context.Background(), &patch, r.dir, ""); err != nil {
		t.Fatal(err)
	}
	p := patch.String()
	for _, want := range []string{
		"core: big.txt is over the 4 MB limit: its change is left out",
		"rename from old.txt\nrename to renamed.txt\n",
		"old mode 100644\nnew mode 100755\n",
		"Binary files a/img.bin and b/img.bin differ\n",
		"new file mode 120000\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the patch lacks %q:\n%s", want, p)
		}
	}
	if strings.Count(p, "0123456789abcdef") > 0 {
		t.Error("the patch holds the large file's content")
	}
}

func TestPatchIsGitsOwnAndAppliesToTheBase(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", lines(50))
	r.write("b.txt", "one\ntwo\n")
	r.commit("init")
	r.write("a.txt", strings.Replace(lines(50), "line xx\n", "LINE\n", -1))
	r.write("c.txt", "brand new\n")
	r.git("rm", "-q", "b.txt")

	var patch bytes.Buffer
	if err := WritePatch(context.Background(), &patch, r.dir, ""); err != nil {
		t.Fatal(err)
	}
	// The patch turns the base into the working tree: apply it to a clean
	// checkout of HEAD.
	clone := t.TempDir()
	cmd := exec.Command("git", "clone", "-q", r.dir, clone)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	apply := exec.Command("git", "-C", clone, "apply", "--index", "-")
	apply.Stdin = bytes.NewReader(patch.Bytes())
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v %s\n%s", err, out, patch.String())
	}
	for _, f := range []string{"a.txt", "c.txt"} {
		want, _ := os.ReadFile(filepath.Join(r.dir, f))
		got, _ := os.ReadFile(filepath.Join(clone, f))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs after applying the patch", f)
		}
	}
	if _, err := os.Stat(filepath.Join(clone, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("b.txt survived the patch")
	}
}

func TestReadAgainstABaseUsesTheMergeBase(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "base\n")
	r.commit("init")
	r.git("checkout", "-q", "-b", "feature")
	r.write("a.txt", "feature\n")
	r.commit("feature work")
	r.git("checkout", "-q", "main")
	r.write("other.txt", "main moved on\n")
	r.commit("main work")
	r.git("checkout", "-q", "feature")
	r.write("wip.txt", "uncommitted\n")

	ch := r.read("main")
	if !ch.Base.MergeBase || ch.Base.Ref != "main" || ch.Base.Commit != r.git("merge-base", "main", "feature") {
		t.Errorf("base = %+v", ch.Base)
	}
	got := byPath(ch)
	if _, ok := got["other.txt"]; ok {
		t.Error("main's own change shows as this branch's")
	}
	if got["a.txt"].Kind != KindModified || got["wip.txt"].Kind != KindAdded || len(got) != 2 {
		t.Errorf("files = %+v", ch.Files)
	}
}

func TestReadAnswersTheAwkwardRepositories(t *testing.T) {
	t.Run("no commit yet: everything is added", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.txt", "first\n")
		ch := r.read("")
		if ch.Base.Commit != "" || ch.Base.Branch != "main" || len(ch.Files) != 1 || ch.Files[0].Kind != KindAdded {
			t.Errorf("change = %+v", ch)
		}
	})
	t.Run("detached HEAD has no branch", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.txt", "one\n")
		r.commit("init")
		r.git("checkout", "-q", "--detach")
		r.write("a.txt", "two\n")
		ch := r.read("")
		if ch.Base.Branch != "" || len(ch.Files) != 1 {
			t.Errorf("change = %+v", ch)
		}
		key, err := SessionKey(context.Background(), r.dir)
		if err != nil || !strings.HasPrefix(key, "detached@") || len(key) != len("detached@")+12 {
			t.Errorf("session key = %q, %v", key, err)
		}
	})
	t.Run("an unknown base is a BaseError naming it", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.txt", "one\n")
		r.commit("init")
		for _, base := range []string{"no-such-branch", "--output=/tmp/x", "a\nb"} {
			_, err := Read(context.Background(), r.dir, base)
			var be *BaseError
			if !errors.As(err, &be) || be.Ref != base {
				t.Errorf("base %q: err = %v, want a BaseError", base, err)
			}
		}
	})
	t.Run("a directory outside git is ErrNotRepository", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
		_, err := Read(context.Background(), dir, "")
		if !errors.Is(err, ErrNotRepository) {
			t.Errorf("err = %v", err)
		}
		if err := WritePatch(context.Background(), &bytes.Buffer{}, dir, ""); !errors.Is(err, ErrNotRepository) {
			t.Errorf("patch err = %v", err)
		}
	})
	t.Run("odd names: quotes, tabs, newlines and bytes that are not UTF-8", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.txt", "one\n")
		r.commit("init")
		names := []string{"with \"quote\".txt", "tab\there.txt", "new\nline.txt", "latin1-\xe9.txt"}
		for _, n := range names {
			r.write(n, "x\n")
		}
		got := byPath(r.read(""))
		for _, n := range names {
			if f, ok := got[n]; !ok || f.Kind != KindAdded || f.Added != 1 {
				t.Errorf("%q: %+v (present %v)", n, f, ok)
			}
		}
		for _, n := range names {
			if got[n].Hash != r.git("hash-object", "--", n) {
				t.Errorf("%q: hash %q is not git's", n, got[n].Hash)
			}
		}
	})
	t.Run("a submodule that moved", func(t *testing.T) {
		sub := newRepo(t)
		sub.write("s.txt", "1\n")
		sub.commit("s1")
		r := newRepo(t)
		r.write("a.txt", "one\n")
		r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "sub")
		r.commit("init")
		in := filepath.Join(r.dir, "sub")
		subInRepo := &repo{GitRepo: &testbed.GitRepo{T: t, Dir: in}, t: t, dir: in}
		subInRepo.write("s.txt", "2\n")
		subInRepo.commit("s2")
		f := byPath(r.read(""))["sub"]
		if f.Kind != KindSubmodule || f.Hash != "" {
			t.Errorf("submodule = %+v", f)
		}
	})
	t.Run("a workspace in a subdirectory sees its own files, relative", func(t *testing.T) {
		r := newRepo(t)
		r.write("ws/a.txt", "one\n")
		r.write("elsewhere.txt", "one\n")
		r.commit("init")
		r.write("ws/a.txt", "two\n")
		r.write("ws/new.txt", "new\n")
		r.write("elsewhere.txt", "two\n")
		ch, err := Read(context.Background(), filepath.Join(r.dir, "ws"), "")
		if err != nil {
			t.Fatal(err)
		}
		got := byPath(ch)
		if len(got) != 2 || got["a.txt"].Kind != KindModified || !got["new.txt"].Untracked {
			t.Errorf("files = %+v", ch.Files)
		}
	})
}

func TestStampChangesWithTheChangeAndOnlyThen(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n")
	r.commit("init")
	stamp := func() string {
		s, err := Stamp(context.Background(), r.dir, "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s0 := stamp()
	if stamp() != s0 {
		t.Fatal("the stamp moved with nothing changed")
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"an edit", func() { r.write("a.txt", "two\n") }},
		{"another edit", func() { r.write("a.txt", "three, longer\n") }},
		{"staging", func() { r.git("add", "a.txt") }},
		{"an untracked file", func() { r.write("b.txt", "b\n") }},
		{"a commit", func() { r.commit("next") }},
	}
	seen := map[string]string{s0: "start"}
	for _, s := range steps {
		s.do()
		got := stamp()
		if prev, dup := seen[got]; dup {
			t.Errorf("after %s the stamp is the one of %s", s.name, prev)
		}
		seen[got] = s.name
	}
}

func TestAnEditInTheSecondOfTheCommitIsSeen(t *testing.T) {
	// git trusts a cached stat only for files older than its index; the
	// private copy of the index must not look newer than the real one.
	r := newRepo(t)
	for i := range 5 {
		r.write("a.txt", "aaaa\n")
		r.commit("c" + string(rune('0'+i)))
		r.write("a.txt", "bbbb\n") // same size, same second
		if f := byPath(r.read(""))["a.txt"]; f.Kind != KindModified {
			t.Fatalf("round %d: the same-size edit right after a commit is not seen", i)
		}
		r.commit("d" + string(rune('0'+i)))
	}
}

func TestAFileTakenOutOfTheIndexIsShownOnceAsUntracked(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n")
	r.write("b.txt", "two\n")
	r.commit("init")
	r.git("rm", "-q", "--cached", "a.txt")
	ch := r.read("")
	if len(ch.Files) != 1 || ch.Files[0].Path != "a.txt" || !ch.Files[0].Untracked || ch.Files[0].Kind != KindAdded {
		t.Errorf("files = %+v", ch.Files)
	}
}

func TestReadsStampIsStampsWhenNothingMovesAndNoneWhenAFileJustChanged(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\n")
	r.write("b.txt", "two\n")
	r.commit("init")
	r.write("a.txt", "changed\n")
	r.write("new.txt", "new\n")
	r.git("mv", "b.txt", "c.txt")
	// Every file (and the index) as if written a minute ago.
	past := time.Now().Add(-time.Minute)
	for _, p := range []string{"a.txt", "new.txt", "c.txt", ".git/index"} {
		if err := os.Chtimes(filepath.Join(r.dir, p), past, past); err != nil {
			t.Fatal(err)
		}
	}
	ch := r.read("")
	stamp, err := Stamp(context.Background(), r.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Stamp == "" || ch.Stamp != stamp {
		t.Errorf("Read's stamp %q, Stamp's %q: a repeat would not be a 304", ch.Stamp, stamp)
	}
	var patchStamp string
	if err := WritePatchStamped(context.Background(), &bytes.Buffer{}, r.dir, "", func(s string) { patchStamp = s }); err != nil {
		t.Fatal(err)
	}
	if patchStamp != stamp {
		t.Errorf("the patch's stamp %q, Stamp's %q", patchStamp, stamp)
	}
	r.write("a.txt", "changed again\n")
	// Written as the read runs: its time is after the read began. (Writing
	// it "now", just before the read, depends on the read starting within
	// the settle time, which a loaded machine does not promise.)
	during := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(r.dir, "a.txt"), during, during); err != nil {
		t.Fatal(err)
	}
	if ch := r.read(""); ch.Stamp != "" {
		t.Error("a file written as it was read still gave a stamp")
	}
}

func TestCRLFFilesCountTheirLinesAsGitDoes(t *testing.T) {
	r := newRepo(t)
	r.write("win.txt", "one\r\ntwo\r\nthree\r\n")
	r.commit("init")
	r.write("win.txt", "one\r\nTWO\r\nthree\r\n")
	f := byPath(r.read(""))["win.txt"]
	if f.Kind != KindModified || f.Added != 1 || f.Deleted != 1 || len(f.Hunks) != 1 || f.Hunks[0].NewStart != 2 || f.Binary {
		t.Errorf("win.txt = %+v", f)
	}
}
