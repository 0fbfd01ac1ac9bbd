package drift

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/internal/workspace"
)

func isolateGit(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"git", "gofmt", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
}

func g(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return (&testbed.GitRepo{T: t, Dir: dir}).Git(args...)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	formatted   = "package main\n\nfunc main() {}\n"
	unformatted = "package main\nfunc  main( ) {}\n"
)

const targets = `projects:
  app:
    path: app
    targets:
      fmt-check:
        run: [gofmt, -l, .]
        drift: true
      loud:
        run: [sh, -c, "echo not a drift target"]
`

// fixture commits a workspace (at sub inside a new repository) whose app
// project holds main.go with the given content, and returns the repository
// and the loaded workspace.
func fixture(t *testing.T, sub, yaml, mainGo string) (string, *workspace.Workspace) {
	t.Helper()
	repo := t.TempDir()
	g(t, repo, "init", "-q", "-b", "main")
	root := filepath.Join(repo, sub)
	write(t, filepath.Join(root, "targets.yaml"), yaml)
	write(t, filepath.Join(root, "app", "main.go"), mainGo)
	g(t, repo, "add", "-A")
	g(t, repo, "commit", "-q", "-m", "fixture")
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return repo, ws
}

// trackWorktrees records the temporary worktrees Check creates.
func trackWorktrees(t *testing.T) *[]string {
	t.Helper()
	var dirs []string
	afterWorktree = func(dir string) { dirs = append(dirs, dir) }
	t.Cleanup(func() { afterWorktree = nil })
	return &dirs
}

// assertCleanedUp checks that every temporary worktree is gone, from disk
// and from git's list.
func assertCleanedUp(t *testing.T, repo string, dirs []string) {
	t.Helper()
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Dir(d)); !os.IsNotExist(err) {
			t.Errorf("temporary worktree %s left behind (%v)", d, err)
		}
	}
	if list := g(t, repo, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("git still lists extra worktrees:\n%s", list)
	}
}

func TestCheck(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()

	t.Run("a committed unformatted file is reported stale", func(t *testing.T) {
		dirs := trackWorktrees(t)
		repo, ws := fixture(t, ".", targets, unformatted)
		notices, err := Check(ctx, repo, ws, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(notices) != 1 {
			t.Fatalf("notices = %+v, want one (the fmt-check target only)", notices)
		}
		n := notices[0]
		head := g(t, repo, "rev-parse", "HEAD")
		if n.Target != "app:fmt-check" || strings.TrimSpace(n.Output) != "main.go" || n.ExitCode != 0 || n.Commit != head {
			t.Errorf("notice = %+v", n)
		}
		if want := "app:fmt-check is stale at " + head[:7] + " (exit 0): main.go"; n.String() != want {
			t.Errorf("message = %q, want %q", n.String(), want)
		}
		if len(*dirs) != 1 {
			t.Errorf("%d worktrees created, want 1", len(*dirs))
		}
		assertCleanedUp(t, repo, *dirs)
	})

	t.Run("a clean tree gives no notice", func(t *testing.T) {
		dirs := trackWorktrees(t)
		repo, ws := fixture(t, ".", targets, formatted)
		notices, err := Check(ctx, repo, ws, "")
		if err != nil || len(notices) != 0 {
			t.Errorf("notices = %+v, err = %v", notices, err)
		}
		assertCleanedUp(t, repo, *dirs)
	})

	t.Run("HEAD is checked, not the uncommitted working tree", func(t *testing.T) {
		repo, ws := fixture(t, ".", targets, formatted)
		write(t, filepath.Join(repo, "app", "main.go"), unformatted)
		if notices, err := Check(ctx, repo, ws, ""); err != nil || len(notices) != 0 {
			t.Errorf("uncommitted breakage: notices = %+v, err = %v", notices, err)
		}
		repo, ws = fixture(t, ".", targets, unformatted)
		write(t, filepath.Join(repo, "app", "main.go"), formatted)
		if notices, err := Check(ctx, repo, ws, ""); err != nil || len(notices) != 1 {
			t.Errorf("uncommitted fix: notices = %+v, err = %v", notices, err)
		}
	})

	t.Run("a non-zero exit is stale even without output", func(t *testing.T) {
		yaml := "projects:\n  app:\n    path: app\n    targets:\n      gen-check:\n        run: [sh, -c, \"exit 3\"]\n        drift: true\n"
		repo, ws := fixture(t, ".", yaml, formatted)
		notices, err := Check(ctx, repo, ws, "")
		if err != nil || len(notices) != 1 || notices[0].ExitCode != 3 || notices[0].Output != "" {
			t.Errorf("notices = %+v, err = %v", notices, err)
		}
	})

	t.Run("a workspace in a subdirectory of the repository runs in its project", func(t *testing.T) {
		repo, ws := fixture(t, "tools/ws", targets, unformatted)
		notices, err := Check(ctx, filepath.Join(repo, "tools", "ws"), ws, "")
		if err != nil || len(notices) != 1 || strings.TrimSpace(notices[0].Output) != "main.go" {
			t.Errorf("notices = %+v, err = %v", notices, err)
		}
	})

	t.Run("a command that cannot start is an error naming its target, other notices still come", func(t *testing.T) {
		yaml := targets + "      missing:\n        run: [core-no-such-command-xyz]\n        drift: true\n"
		repo, ws := fixture(t, ".", yaml, unformatted)
		notices, err := Check(ctx, repo, ws, "")
		if err == nil || !strings.Contains(err.Error(), "app:missing") {
			t.Errorf("err = %v, want one naming app:missing", err)
		}
		if len(notices) != 1 || notices[0].Target != "app:fmt-check" {
			t.Errorf("notices = %+v", notices)
		}
	})

	t.Run("long output is capped", func(t *testing.T) {
		yaml := "projects:\n  app:\n    path: app\n    targets:\n      noisy:\n        run: [sh, -c, \"yes stale | head -c 100000\"]\n        drift: true\n"
		repo, ws := fixture(t, ".", yaml, formatted)
		notices, err := Check(ctx, repo, ws, "")
		if err != nil || len(notices) != 1 {
			t.Fatalf("notices = %+v, err = %v", notices, err)
		}
		if out := notices[0].Output; len(out) > MaxOutput+100 || !strings.Contains(out, "bytes of output left out") {
			t.Errorf("output of %d bytes is not capped with a marker", len(out))
		}
	})

	t.Run("a workspace without drift targets creates no worktree", func(t *testing.T) {
		dirs := trackWorktrees(t)
		yaml := "projects:\n  app:\n    path: app\n    targets:\n      build:\n        run: [sh, -c, \"echo hi\"]\n"
		repo, ws := fixture(t, ".", yaml, formatted)
		if notices, err := Check(ctx, repo, ws, ""); err != nil || len(notices) != 0 || len(*dirs) != 0 {
			t.Errorf("notices = %+v, err = %v, worktrees = %v", notices, err, *dirs)
		}
	})
}

// snapshot reads every file of the working tree (not .git) with its mode,
// plus the index, HEAD and the stash.
func snapshot(t *testing.T, repo string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		content := ""
		if d.Type().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			content = string(b)
		}
		out[rel] = info.Mode().String() + " " + info.ModTime().String() + " " + content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index", "HEAD", "refs/stash"} {
		b, err := os.ReadFile(filepath.Join(repo, ".git", f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out[".git/"+f] = string(b)
	}
	return out
}

func TestWorkingTreeIsNeverTouched(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()

	t.Run("the working tree and index are byte-identical with uncommitted changes", func(t *testing.T) {
		dirs := trackWorktrees(t)
		repo, ws := fixture(t, ".", targets, unformatted)
		write(t, filepath.Join(repo, "app", "main.go"), formatted)          // unstaged change
		write(t, filepath.Join(repo, "app", "staged.go"), "package main\n") // staged new file
		g(t, repo, "add", "app/staged.go")
		write(t, filepath.Join(repo, "app", "untracked.go"), unformatted) // untracked file
		before := snapshot(t, repo)
		indexBefore, _ := os.ReadFile(filepath.Join(repo, ".git", "index"))

		notices, err := Check(ctx, repo, ws, "")
		if err != nil || len(notices) != 1 {
			t.Errorf("notices = %+v, err = %v", notices, err)
		}
		after := snapshot(t, repo)
		if !reflect.DeepEqual(before, after) {
			for k, v := range after {
				if before[k] != v {
					t.Errorf("%s changed", k)
				}
			}
			for k := range before {
				if _, ok := after[k]; !ok {
					t.Errorf("%s vanished", k)
				}
			}
		}
		if indexAfter, _ := os.ReadFile(filepath.Join(repo, ".git", "index")); !bytes.Equal(indexBefore, indexAfter) {
			t.Error("the index changed")
		}
		assertCleanedUp(t, repo, *dirs)
	})

	t.Run("the worktree is removed after a panic", func(t *testing.T) {
		var dirs []string
		afterWorktree = func(dir string) {
			dirs = append(dirs, dir)
			panic("boom")
		}
		t.Cleanup(func() { afterWorktree = nil })
		repo, ws := fixture(t, ".", targets, unformatted)
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the panic did not propagate")
				}
			}()
			_, _ = Check(ctx, repo, ws, "")
		}()
		if len(dirs) != 1 {
			t.Fatalf("worktrees = %v", dirs)
		}
		assertCleanedUp(t, repo, dirs)
	})

	t.Run("the worktree is removed when the context ends", func(t *testing.T) {
		var dirs []string
		cctx, cancel := context.WithCancel(ctx)
		afterWorktree = func(dir string) {
			dirs = append(dirs, dir)
			cancel()
		}
		t.Cleanup(func() { afterWorktree = nil })
		repo, ws := fixture(t, ".", targets, unformatted)
		if _, err := Check(cctx, repo, ws, ""); err == nil {
			t.Error("no error after cancellation")
		}
		assertCleanedUp(t, repo, dirs)
	})
}

func TestNotARepository(t *testing.T) {
	isolateGit(t)
	t.Run("a root outside git is a clear error", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // whatever holds the temp dir
		write(t, filepath.Join(dir, "targets.yaml"), targets)
		write(t, filepath.Join(dir, "app", "main.go"), formatted)
		ws, err := workspace.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Check(context.Background(), dir, ws, "")
		if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("a repository without commits is a clear error", func(t *testing.T) {
		dir := t.TempDir()
		g(t, dir, "init", "-q")
		write(t, filepath.Join(dir, "targets.yaml"), targets)
		write(t, filepath.Join(dir, "app", "main.go"), formatted)
		ws, err := workspace.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Check(context.Background(), dir, ws, "")
		if err == nil || !strings.Contains(err.Error(), "no commit yet") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestReport(t *testing.T) {
	isolateGit(t)
	t.Run("stale targets are the message, not an error", func(t *testing.T) {
		repo, ws := fixture(t, ".", targets, unformatted)
		msg, notices, err := Report(context.Background(), repo, ws, "")
		if err != nil || !strings.HasPrefix(msg, "1 of 1 drift targets stale: app:fmt-check is stale at") {
			t.Errorf("message %q, err %v", msg, err)
		}
		if len(notices) != 1 || notices[0].Target != "app:fmt-check" || Count(ws) != 1 {
			t.Errorf("notices %+v, count %d", notices, Count(ws))
		}
	})
}
