package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GitRepo is a real git repository in a temporary directory, for tests:
// git runs in it with a fixed identity, unsigned commits, and neither the
// user's nor the system's configuration.
type GitRepo struct {
	T   testing.TB
	Dir string
}

// NewGitRepo makes an empty repository on branch (git init); the test is
// skipped where git is not installed.
func NewGitRepo(t testing.TB, branch string) *GitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &GitRepo{T: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", branch)
	return r
}

// Git runs git in the repository and returns its trimmed output; a failure
// fails the test.
func (r *GitRepo) Git(args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Core Test", "-c", "user.email=core@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Core Test", "GIT_AUTHOR_EMAIL=core@example.com",
		"GIT_COMMITTER_NAME=Core Test", "GIT_COMMITTER_EMAIL=core@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file (a slash path relative to the repository), making its
// directories.
func (r *GitRepo) Write(rel, content string) {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits it.
func (r *GitRepo) Commit(msg string) {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
}
