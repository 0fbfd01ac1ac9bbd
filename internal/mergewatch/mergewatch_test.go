package mergewatch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corehq/core/internal/testbed"
)

// isolateGit keeps the fixture repositories away from the machine's and
// the user's git configuration.
func isolateGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
}

// g runs git in dir with a test identity and returns its trimmed stdout.
func g(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return (&testbed.GitRepo{T: t, Dir: dir}).Git(args...)
}

func commit(t *testing.T, dir, file, content string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	g(t, dir, "add", file)
	g(t, dir, "commit", "-q", "-m", "change "+file)
	return g(t, dir, "rev-parse", "HEAD")
}

func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	g(t, dir, "init", "-q", "-b", "main")
	commit(t, dir, "README.md", "hello\n")
	return dir
}

func size(t *testing.T, state string) int64 {
	t.Helper()
	n, err := Size(state)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMergedBranchIsReportedOnce(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	repo := newRepo(t)
	state := filepath.Join(t.TempDir(), "cache", "review.json")

	g(t, repo, "checkout", "-q", "-b", "feature/x")
	head := commit(t, repo, "x.txt", "x\n")
	if err := Observe(ctx, repo, state); err != nil {
		t.Fatal(err)
	}

	t.Run("an observed branch with its own commits is tracked", func(t *testing.T) {
		if n := size(t, state); n != 1 {
			t.Errorf("size = %d, want 1", n)
		}
	})

	t.Run("an unmerged branch is not reported", func(t *testing.T) {
		merged, err := Check(ctx, repo, state, nil)
		if err != nil || len(merged) != 0 {
			t.Errorf("merged = %v, err = %v", merged, err)
		}
	})

	g(t, repo, "checkout", "-q", "main")
	commit(t, repo, "main.txt", "on main\n")
	if err := Observe(ctx, repo, state); err != nil { // on the default branch: not tracked
		t.Fatal(err)
	}
	g(t, repo, "merge", "-q", "--no-ff", "-m", "merge feature/x", "feature/x")

	t.Run("a merged branch is reported with its head", func(t *testing.T) {
		merged, err := Check(ctx, repo, state, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) != 1 || merged[0].Branch != "feature/x" || merged[0].Head != head || merged[0].Into != "main" {
			t.Fatalf("merged = %+v", merged)
		}
		want := "feature/x merged into main (" + head[:7] + ")"
		if got := merged[0].String(); got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if n := size(t, state); n != 0 {
			t.Errorf("size after the report = %d, want 0", n)
		}
	})

	t.Run("a reported branch is not reported again", func(t *testing.T) {
		merged, err := Check(ctx, repo, state, nil)
		if err != nil || len(merged) != 0 {
			t.Errorf("merged = %v, err = %v", merged, err)
		}
	})

	t.Run("a reported branch that moves on is watched again", func(t *testing.T) {
		g(t, repo, "checkout", "-q", "feature/x")
		g(t, repo, "merge", "-q", "main")
		commit(t, repo, "x2.txt", "more\n")
		if err := Observe(ctx, repo, state); err != nil {
			t.Fatal(err)
		}
		if n := size(t, state); n != 1 {
			t.Errorf("size = %d, want 1", n)
		}
		g(t, repo, "checkout", "-q", "main")
		g(t, repo, "merge", "-q", "--ff-only", "feature/x")
		merged, err := Check(ctx, repo, state, nil)
		if err != nil || len(merged) != 1 {
			t.Errorf("after a fast-forward: merged = %v, err = %v", merged, err)
		}
	})

	t.Run("a reported branch is forgotten once deleted", func(t *testing.T) {
		g(t, repo, "branch", "-q", "-d", "feature/x")
		if _, err := Check(ctx, repo, state, nil); err != nil {
			t.Fatal(err)
		}
		s, err := read(state)
		if err != nil || len(s.Branches) != 0 {
			t.Errorf("branches = %v, err = %v", s.Branches, err)
		}
	})

	t.Run("the state file is private", func(t *testing.T) {
		st, err := os.Stat(state)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("stat = %v, %v", st, err)
		}
	})
}

func TestObserveSkips(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, repo string)
	}{
		{"the default branch is not tracked", func(t *testing.T, repo string) {
			commit(t, repo, "a.txt", "a\n")
		}},
		{"a detached HEAD is not tracked", func(t *testing.T, repo string) {
			commit(t, repo, "a.txt", "a\n")
			g(t, repo, "checkout", "-q", "--detach", "HEAD~1")
		}},
		{"a branch without commits of its own is not tracked", func(t *testing.T, repo string) {
			g(t, repo, "checkout", "-q", "-b", "feature/empty")
		}},
		{"master is the default branch when there is no main", func(t *testing.T, repo string) {
			g(t, repo, "branch", "-q", "-m", "main", "master")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newRepo(t)
			state := filepath.Join(t.TempDir(), "review.json")
			tt.setup(t, repo)
			if err := Observe(ctx, repo, state); err != nil {
				t.Fatal(err)
			}
			if n := size(t, state); n != 0 {
				t.Errorf("size = %d, want 0", n)
			}
		})
	}

	t.Run("an unborn branch is not tracked", func(t *testing.T) {
		repo := t.TempDir()
		g(t, repo, "init", "-q", "-b", "main")
		state := filepath.Join(t.TempDir(), "review.json")
		if err := Observe(ctx, repo, state); err != nil {
			t.Fatal(err)
		}
		if n := size(t, state); n != 0 {
			t.Errorf("size = %d", n)
		}
	})
}

func TestOriginHEADIsTheDefaultBranch(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	upstream := newRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	g(t, upstream, "clone", "-q", upstream, work)
	state := filepath.Join(t.TempDir(), "review.json")

	g(t, work, "checkout", "-q", "-b", "feature/y")
	head := commit(t, work, "y.txt", "y\n")
	if err := Observe(ctx, work, state); err != nil {
		t.Fatal(err)
	}
	g(t, work, "push", "-q", "origin", "feature/y")

	// The review merges on the "forge"; the local main never sees it.
	g(t, upstream, "merge", "-q", "--no-ff", "-m", "merge feature/y", "feature/y")

	t.Run("a merge not fetched yet is not reported", func(t *testing.T) {
		merged, err := Check(ctx, work, state, nil)
		if err != nil || len(merged) != 0 {
			t.Errorf("merged = %v, err = %v", merged, err)
		}
	})

	g(t, work, "fetch", "-q", "origin")

	t.Run("a merge into origin's default branch is reported once fetched", func(t *testing.T) {
		merged, err := Check(ctx, work, state, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) != 1 || merged[0].Branch != "feature/y" || merged[0].Into != "main" || merged[0].Head != head {
			t.Errorf("merged = %+v", merged)
		}
	})
}

func TestErrors(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()

	t.Run("a directory outside git is a clear error", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // whatever holds the temp dir
		state := filepath.Join(t.TempDir(), "review.json")
		for name, err := range map[string]error{
			"observe": Observe(ctx, dir, state),
			"check":   func() error { _, err := Check(ctx, dir, state, nil); return err }(),
		} {
			if err == nil || !strings.Contains(err.Error(), "not a git repository") {
				t.Errorf("%s: err = %v", name, err)
			}
		}
	})

	t.Run("a repository without a default branch is a clear error", func(t *testing.T) {
		repo := newRepo(t)
		g(t, repo, "branch", "-q", "-m", "main", "trunk")
		_, err := Check(ctx, repo, filepath.Join(t.TempDir(), "review.json"), nil)
		if err == nil || !strings.Contains(err.Error(), "no default branch") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("a corrupt state file is a clear error", func(t *testing.T) {
		repo := newRepo(t)
		state := filepath.Join(t.TempDir(), "review.json")
		if err := os.WriteFile(state, []byte("nope"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Check(ctx, repo, state, nil); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("a tracked head that no longer exists is dropped", func(t *testing.T) {
		repo := newRepo(t)
		state := filepath.Join(t.TempDir(), "review.json")
		data := `{"version":1,"branches":{"gone":{"head":"deadbeefdeadbeefdeadbeefdeadbeefdeadbeef"}}}`
		if err := os.WriteFile(state, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		merged, err := Check(ctx, repo, state, nil)
		if err != nil || len(merged) != 0 || size(t, state) != 0 {
			t.Errorf("merged = %v, err = %v, size = %d", merged, err, size(t, state))
		}
	})
}

func TestReport(t *testing.T) {
	isolateGit(t)
	repo := newRepo(t)
	state := filepath.Join(t.TempDir(), "review.json")
	ctx := context.Background()

	t.Run("check-review observes the branch and reports its merge", func(t *testing.T) {
		g(t, repo, "checkout", "-q", "-b", "feature/z")
		head := commit(t, repo, "z.txt", "z\n")
		msg, err := Report(ctx, repo, state, nil)
		if err != nil || size(t, state) != 1 || msg != "no review merged (1 branches watched)" {
			t.Errorf("first report: %q, %v, size %d", msg, err, size(t, state))
		}
		g(t, repo, "checkout", "-q", "main")
		g(t, repo, "merge", "-q", "--no-ff", "-m", "merge", "feature/z")
		msg, err = Report(ctx, repo, state, nil)
		if want := "feature/z merged into main (" + head[:7] + ")"; msg != want || err != nil {
			t.Errorf("second report: %q, %v; want %q", msg, err, want)
		}
	})
}
