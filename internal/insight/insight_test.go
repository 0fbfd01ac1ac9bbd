package insight

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/internal/workspace"
)

// repo is a git repository with a targets.yaml declaring projects a and b.
type repo struct {
	*testbed.GitRepo
	t    *testing.T
	dir  string
	when time.Time
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	g := testbed.NewGitRepo(t, "main")
	r := &repo{GitRepo: g, t: t, dir: g.Dir, when: time.Now().AddDate(0, 0, -60)}
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(r.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.write("targets.yaml", "projects:\n  a:\n    path: a\n    targets:\n      build:\n        run: [true]\n  b:\n    path: b\n    targets:\n      build:\n        run: [true]\n")
	return r
}

func (r *repo) git(args ...string) string  { r.t.Helper(); return r.Git(args...) }
func (r *repo) write(path, content string) { r.t.Helper(); r.Write(path, content) }

// commit commits everything as author, a day after the previous commit.
func (r *repo) commit(author, msg string) {
	r.t.Helper()
	r.when = r.when.Add(24 * time.Hour)
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg, "--date", r.when.Format(time.RFC3339),
		"--author", author+" <"+strings.ToLower(author)+"@example.com>")
}

func (r *repo) engine(t *testing.T) *Engine {
	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Root: r.dir, CacheDir: filepath.Join(r.dir, ".core"), BulkFiles: 5,
		Declared: func() (*workspace.Workspace, error) { return ws, nil }})
}

func TestTheLensesCountTheHistory(t *testing.T) {
	r := newRepo(t)
	r.write("a/x.go", "package a\n\nfunc X() {\n\tif true {\n\t\treturn\n\t}\n}\n")
	r.write("b/y.go", "package b\n")
	r.commit("Ada", "one")
	for i := 0; i < 3; i++ {
		r.write("a/x.go", fmt.Sprintf("package a\n\nfunc X() {\n\tif true {\n\t\treturn\n\t}\n}\n// %d\n", i))
		r.write("b/y.go", fmt.Sprintf("package b\n// %d\n", i))
		r.commit("Ada", "both")
	}
	r.write("a/z.go", "package a\n")
	r.commit("Bob", "z")
	r.git("mv", "a/x.go", "a/renamed.go")
	r.commit("Bob", "rename")
	for i := 0; i < 6; i++ { // a bulk change: more than 5 files
		r.write(fmt.Sprintf("b/gen%d.go", i), "package b\n")
	}
	r.commit("Bot", "vendor")

	rep, err := r.engine(t).Report(context.Background(), Params{Window: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Commits != 7 || rep.Bulk.Commits != 1 || rep.Window.Commits != 7 {
		t.Errorf("commits %d, bulk %d, window %d", rep.Commits, rep.Bulk.Commits, rep.Window.Commits)
	}
	t.Run("hotspots follow a rename and weigh indentation", func(t *testing.T) {
		top := rep.Hotspots.Files[0]
		// renamed.go: 5 changes (4 as x.go, the rename); 7 non-blank lines,
		// two indented once, one twice: 7 + 2 + 2 = 11.
		if top.Path != "a/renamed.go" || top.Changes != 5 || top.Complexity != 11 || top.Score != 55 || top.Project != "a" {
			t.Errorf("top hotspot %+v", top)
		}
		for _, f := range rep.Hotspots.Files {
			if strings.Contains(f.Path, "gen") {
				t.Errorf("a bulk commit counted: %+v", f)
			}
		}
	})
	t.Run("affinity pairs files and flags hidden coupling", func(t *testing.T) {
		if len(rep.Affinity.Projects) != 1 {
			t.Fatalf("project pairs %+v", rep.Affinity.Projects)
		}
		p := rep.Affinity.Projects[0]
		if p.A != "a" || p.B != "b" || p.Together != 4 || !p.Hidden {
			t.Errorf("project pair %+v", p)
		}
		f := rep.Affinity.Files[0]
		if f.A != "a/renamed.go" || f.B != "b/y.go" || f.Together != 4 || f.Confidence != 1 {
			t.Errorf("file pair %+v", f)
		}
	})
	t.Run("ownership has shares and a bus factor", func(t *testing.T) {
		var a ProjectOwners
		for _, p := range rep.Ownership.Projects {
			if p.Project == "a" {
				a = p
			}
		}
		if a.Changes != 6 || a.Owners[0].Author != "Ada" || a.Owners[0].Changes != 4 || a.BusFactor != 1 {
			t.Errorf("project a owners %+v", a)
		}
	})
	t.Run("trend buckets by week", func(t *testing.T) {
		if len(rep.Trend.Weeks) != TrendWeeks || len(rep.Trend.Projects) != 2 {
			t.Fatalf("trend %+v", rep.Trend)
		}
		sum := 0
		for _, n := range rep.Trend.Projects[0].Counts {
			sum += n
		}
		if sum == 0 {
			t.Errorf("project a has no activity in the last %d weeks: %+v", TrendWeeks, rep.Trend.Projects[0])
		}
	})
}

func TestTheHistoryGrowsCommitByCommitAndSurvivesARewrite(t *testing.T) {
	r := newRepo(t)
	r.write("a/x.go", "package a\n")
	r.commit("Ada", "one")
	e := r.engine(t)
	ctx := context.Background()
	if _, err := e.Update(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(e.hist.Commits); n != 1 {
		t.Fatalf("commits after the cold read: %d", n)
	}
	r.write("a/x.go", "package a\n// 2\n")
	r.commit("Ada", "two")
	if changed, err := e.Update(ctx); err != nil || !changed || len(e.hist.Commits) != 2 {
		t.Fatalf("after one commit: changed %v, %d commits, %v", changed, len(e.hist.Commits), err)
	}
	if changed, _ := e.Update(ctx); changed {
		t.Error("an update with nothing new changed something")
	}
	// A new engine reads the kept history and only what is new.
	e2 := r.engine(t)
	if _, err := e2.Update(ctx); err != nil || len(e2.hist.Commits) != 2 {
		t.Fatalf("the kept history: %d commits, %v", len(e2.hist.Commits), err)
	}
	// Rewrite: amend the last commit; the old tip is no longer an ancestor.
	r.git("commit", "-q", "--amend", "-m", "two, amended", "--author", "Ada <ada@example.com>")
	if changed, err := e2.Update(ctx); err != nil || !changed || len(e2.hist.Commits) != 2 {
		t.Fatalf("after a rewrite: %d commits, %v", len(e2.hist.Commits), err)
	}
}

func TestBadQuestionsAndEmptyRepositories(t *testing.T) {
	r := newRepo(t)
	e := r.engine(t)
	rep, err := e.Report(context.Background(), Params{})
	if err != nil {
		t.Fatalf("a repository with no commit: %v", err)
	}
	if rep.Commits != 0 || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "no commit") {
		t.Errorf("no-commit report %+v", rep)
	}
	for _, p := range []Params{{Window: "forever"}, {Window: "0d"}, {Limit: -1}, {Limit: MaxLimit + 1}, {Lenses: []string{"hotness"}}, {Project: "nope"}} {
		if _, err := e.Report(context.Background(), p); err == nil {
			t.Errorf("%+v was accepted", p)
		} else if _, ok := err.(*ParamError); !ok {
			t.Errorf("%+v: %T %v", p, err, err)
		}
	}
	notRepo := New(Options{Root: t.TempDir(), CacheDir: t.TempDir(), Declared: func() (*workspace.Workspace, error) { return &workspace.Workspace{}, nil }})
	if _, err := notRepo.Report(context.Background(), Params{}); err != ErrNotRepository {
		t.Errorf("outside git: %v", err)
	}
}

func TestMeasureWeighsIndentation(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"a\n\n  \nb\n", 2, true},
		{"a\n\tb\n\t\tc\n", 1 + 2 + 3, true},
		{"    four spaces\n  two\n", 2 + 1, true},
		{"bin\x00ary", 0, false},
	} {
		got, ok := measure([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("measure(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWilsonRanksEvidenceOverOneFlake(t *testing.T) {
	one := wilsonLower(1, 3)
	many := wilsonLower(20, 60)
	if !(many > one) {
		t.Errorf("20/60 (%.3f) should outrank 1/3 (%.3f)", many, one)
	}
	if wilsonLower(0, 10) != 0 {
		t.Error("no flips has a lower bound of 0")
	}
}

func FuzzParseDiffTree(f *testing.F) {
	f.Add([]byte("\x1eabc\x1f1700000000\x1fAda\x00\n1\t0\ta.go\x00-\t-\tb.bin\x00\x1d\n\x1d\n"))
	f.Add([]byte("\x1eabc\x1f1700000000\x1fAda\x00\n1\t0\t\x00old.go\x00new\x1d.go\x00\x1d\n"))
	f.Add([]byte("\x1e\x1f\x1f\x00\x1d\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHistory()
		commits := []string{"abc", "def"}
		n, _ := h.parse(strings.NewReader(string(data)), commits, true, func() {})
		if n > len(commits) || len(h.Commits) > n || len(h.Unfollowed) != len(h.Commits) {
			t.Fatalf("%d commits read of %d asked, %d kept, %d unfollowed", n, len(commits), len(h.Commits), len(h.Unfollowed))
		}
		for _, c := range h.Commits {
			for _, id := range c.Files {
				if int(id) >= len(h.Paths) {
					t.Fatalf("file number %d out of %d", id, len(h.Paths))
				}
			}
		}
	})
}

// TestVolatilityRanksAFlakyTargetFromRealRuns runs a target that fails
// every other time with the same inputs (the cache is emptied between runs
// so that each one executes) and a stable one.
func TestVolatilityRanksAFlakyTargetFromRealRuns(t *testing.T) {
	r := newRepo(t)
	counter := filepath.Join(t.TempDir(), "n")
	r.write("targets.yaml", "projects:\n  a:\n    path: a\n    targets:\n      flaky:\n        run: [sh, -c, 'echo x >> "+counter+"; test $(($(wc -l < "+counter+") % 2)) -eq 0']\n      stable:\n        run: [\"true\"]\n  b:\n    path: b\n    targets:\n      build:\n        run: [\"true\"]\n")
	r.commit("Ada", "targets")
	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(r.dir, ".core")
	rn := runner.New(runner.Options{Root: r.dir, CacheDir: cacheDir, Capacity: 1})
	for i := 0; i < 8; i++ {
		if _, err := runner.TrimCache(cacheDir, 0); err != nil {
			t.Fatal(err)
		}
		_, _ = rn.Run(context.Background(), ws, []string{"a:flaky", "a:stable"})
	}
	v := volatility(cacheDir, "", 10)
	if len(v.Targets) != 1 {
		t.Fatalf("volatile targets %+v", v.Targets)
	}
	f := v.Targets[0]
	if f.Target != "a:flaky" || f.Pairs != 7 || f.Flips != 7 || f.LowerBound <= 0.5 {
		t.Errorf("a:flaky %+v", f)
	}
}

func TestAShallowCloneAndOddAuthorsAreSaidNotHidden(t *testing.T) {
	r := newRepo(t)
	r.write("b/.keep", "")
	for i, author := range []string{"Ada", "B\xe9a", "Cy"} { // B\xe9a: Latin-1, not UTF-8
		r.write("a/x.go", fmt.Sprintf("package a\n// %d\n", i))
		r.write("a/bin.dat", fmt.Sprintf("\x00\x01%d", i))
		r.commit(author, "c")
	}
	rep, err := r.engine(t).Report(context.Background(), Params{Window: "all", Lenses: []string{"ownership", "hotspots"}})
	if err != nil {
		t.Fatal(err)
	}
	var authors []string
	for _, p := range rep.Ownership.Projects {
		if p.Project != "a" {
			continue
		}
		for _, o := range p.Owners {
			authors = append(authors, o.Author)
		}
	}
	// git may re-encode the name or pass its bytes through; either way the
	// answer holds valid UTF-8 and three authors.
	if len(authors) != 3 || !utf8.ValidString(strings.Join(authors, "")) {
		t.Errorf("authors %q", authors)
	}
	for _, f := range rep.Hotspots.Files {
		if strings.HasSuffix(f.Path, ".dat") {
			t.Errorf("a binary file has a complexity: %+v", f)
		}
	}

	clone := t.TempDir()
	out, err := exec.Command("git", "clone", "-q", "--depth", "2", "file://"+r.dir, clone).CombinedOutput()
	if err != nil {
		t.Fatalf("git clone --depth 2: %v %s", err, out)
	}
	ws, err := workspace.Load(clone)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: clone, CacheDir: t.TempDir(), Declared: func() (*workspace.Workspace, error) { return ws, nil }})
	rep, err = e.Report(context.Background(), Params{Window: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Shallow || rep.Commits != 2 || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "shallow") {
		t.Errorf("a shallow clone: shallow %v, %d commits, notes %q", rep.Shallow, rep.Commits, rep.Notes)
	}
}

// TestAWorkspaceInASubdirectorySeesItsOwnHistory: paths are relative to
// the workspace, and commits outside it do not count.
func TestAWorkspaceInASubdirectorySeesItsOwnHistory(t *testing.T) {
	g := testbed.NewGitRepo(t, "main")
	g.Write("other/x.txt", "x\n")
	g.Commit("outside")
	g.Write("ws/targets.yaml", "projects:\n  a:\n    path: a\n    targets:\n      build:\n        run: [\"true\"]\n")
	g.Write("ws/a/f.go", "package a\n\nfunc F() {\n\treturn\n}\n")
	g.Commit("inside")
	g.Write("ws/a/f.go", "package a\n\nfunc F() {\n\treturn\n}\n// 2\n")
	g.Commit("inside again")
	root := filepath.Join(g.Dir, "ws")
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: root, CacheDir: t.TempDir(), Declared: func() (*workspace.Workspace, error) { return ws, nil }})
	rep, err := e.Report(context.Background(), Params{Window: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Commits != 2 || len(rep.Hotspots.Files) == 0 || rep.Hotspots.Files[0].Path != "a/f.go" || rep.Hotspots.Files[0].Project != "a" {
		t.Errorf("commits %d, hotspots %+v", rep.Commits, rep.Hotspots.Files)
	}
}

// fastImport appends commits to main with git fast-import: each a list of
// changes ("M path content" sets a file, "D path" deletes one), a day
// apart.
func (r *repo) fastImport(commits ...[]string) {
	r.t.Helper()
	var b strings.Builder
	for i, c := range commits {
		r.when = r.when.Add(24 * time.Hour)
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter Ada <ada@example.com> %d +0000\ndata 1\nc\n", r.when.Unix())
		if i == 0 {
			b.WriteString("from refs/heads/main^0\n") // the rest follow on
		}
		for _, ch := range c {
			op, rest, _ := strings.Cut(ch, " ")
			if op == "D" {
				fmt.Fprintf(&b, "D %s\n", rest)
				continue
			}
			path, content, _ := strings.Cut(rest, " ")
			fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.dir
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	r.git("reset", "-q", "--hard")
}

// TestARenameStormIsReadWithinTheBoundAndSaysSo: one commit renaming
// many identical files (git's exact rename matching is quadratic in their
// number) is read without rename detection once it passes the bound, and
// so is the rest of the read after maxSlow such commits; every commit is
// still counted, and the answer says which were read that way. The bound
// is lowered to a nanosecond, which every commit passes: nothing here
// depends on how fast the machine is.
func TestARenameStormIsReadWithinTheBoundAndSaysSo(t *testing.T) {
	r := newRepo(t)
	r.commit("Ada", "targets")
	const storm = 2000
	var add, move []string
	for i := 0; i < storm; i++ {
		add = append(add, fmt.Sprintf("M a/gen/f%d.go package gen", i))
		move = append(move, fmt.Sprintf("D a/gen/f%d.go", i), fmt.Sprintf("M b/gen/f%d.go package gen", i))
	}
	r.fastImport(
		add,
		[]string{"M a/x.go package a\n\nfunc X() {}"},
		move,
		[]string{"D a/x.go", "M a/y.go package a\n\nfunc X() {}"},
		[]string{"M a/y.go package a\n\nfunc X() { return }"},
	)
	stormHash := r.git("rev-parse", "--short=7", "HEAD~2")

	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: r.dir, CacheDir: t.TempDir(), Declared: func() (*workspace.Workspace, error) { return ws, nil }, CommitBound: time.Nanosecond})
	rep, err := e.Report(context.Background(), Params{Window: "all"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("every commit is counted", func(t *testing.T) {
		if rep.Commits != 6 {
			t.Errorf("commits %d, want 6", rep.Commits)
		}
	})
	t.Run("every commit is kept as read without rename detection", func(t *testing.T) {
		// The bound's timer fires as git starts, and on a quick machine
		// the first commit of a read can be parsed before it does: all
		// but that one, and the storm among them.
		storm := slices.ContainsFunc(e.hist.Unfollowed, func(c Unfollowed) bool { return strings.HasPrefix(c.Hash, stormHash) })
		if len(e.hist.Unfollowed) < 5 || !storm {
			t.Errorf("unfollowed %+v, want the storm %s and at least 5 of the 6 commits", e.hist.Unfollowed, stormHash)
		}
	})
	t.Run("the answer names the storm and the bound", func(t *testing.T) {
		var note string
		for _, n := range rep.Notes {
			if strings.Contains(n, "renames are not followed in ") {
				note = n
			}
		}
		if !strings.Contains(note, stormHash) || !strings.Contains(note, "1ns bound") {
			t.Errorf("notes %q: want one naming %s and the bound", rep.Notes, stormHash)
		}
	})
	t.Run("a file renamed in a commit read without renames starts over", func(t *testing.T) {
		i := slices.IndexFunc(rep.Hotspots.Files, func(f FileHotspot) bool { return f.Path == "a/y.go" })
		if i < 0 || rep.Hotspots.Files[i].Changes != 2 {
			t.Errorf("hotspots %+v: want a/y.go with 2 changes (its past as a/x.go not followed)", rep.Hotspots.Files)
		}
	})
	t.Run("a later question reads nothing again and says the same", func(t *testing.T) {
		again, err := e.Report(context.Background(), Params{Window: "all", Lenses: []string{"trend"}})
		if err != nil {
			t.Fatal(err)
		}
		if again.Commits != 6 || !slices.ContainsFunc(again.Notes, func(n string) bool { return strings.Contains(n, stormHash) }) {
			t.Errorf("commits %d, notes %q", again.Commits, again.Notes)
		}
	})
}

// TestRenamesPastGitsLimitAreSaidNotFollowed: a commit that renames (and
// edits) more files than RenameLimit gets no rename detection by content
// from git, and the answer says so. The bound is an hour: git's time does
// not matter here.
func TestRenamesPastGitsLimitAreSaidNotFollowed(t *testing.T) {
	r := newRepo(t)
	r.commit("Ada", "targets")
	var add, move []string
	for i := 0; i <= RenameLimit; i++ {
		body := fmt.Sprintf("package gen\n\n// file %d\nconst A = %d\nconst B = %d\nconst C = %d", i, i, i, i)
		add = append(add, fmt.Sprintf("M a/f%d.go %s", i, body))
		move = append(move, fmt.Sprintf("D a/f%d.go", i), fmt.Sprintf("M b/f%d.go %s\nconst D = 0", i, body))
	}
	r.fastImport(add, move)
	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: r.dir, CacheDir: t.TempDir(), Declared: func() (*workspace.Workspace, error) { return ws, nil }, CommitBound: time.Hour})
	rep, err := e.Report(context.Background(), Params{Window: "all", Lenses: []string{"trend"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "rename limit (1000)") }) {
		t.Errorf("notes %q: want one about git's rename limit", rep.Notes)
	}
}
