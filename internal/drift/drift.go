// Package drift is the check-drift job: notice, without blocking, a commit
// that left generated output or formatting stale. Every target declared with
// `drift: true` runs against HEAD in a temporary git worktree; output or a
// non-zero exit means HEAD is stale.
//
// The working tree and the index are never touched: the commands run in a
// detached worktree under the system temp directory (`git worktree add
// --detach`; gitx runs no hook), which is removed afterwards (`git worktree
// remove --force`, then a plain delete and `git worktree prune` if that
// fails), on success, error, cancellation or panic alike.
//
// Decisions the spec leaves open, taken here:
//   - The workspace root may be a subdirectory of the repository; project
//     directories are found at the same place inside the worktree.
//   - A project directory that does not exist at HEAD (a project not
//     committed yet) is skipped: there is nothing committed to be stale.
//   - Output is stdout and stderr together; blank output counts as none;
//     it is capped at MaxOutput bytes.
//   - A command that cannot start (not installed, say) is not a notice: it
//     is reported in the error, joined with the others, while the notices of
//     the targets that did run are still returned.
//   - Each command runs in its own process group, killed whole when ctx
//     ends, with the environment a run of the target would give it
//     (package targetenv: strict or loose, as the runner's mode).
package drift

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// MaxOutput caps the output a notice keeps, in bytes.
const MaxOutput = 16 << 10

// Notice says a drift target found HEAD stale.
type Notice struct {
	Target   string // "project:target"
	Commit   string // the HEAD commit checked (full hash)
	Output   string // stdout and stderr, capped at MaxOutput
	ExitCode int
}

// String reads "core:fmt-check is stale at abc1234 (exit 0): a.go".
func (n Notice) String() string {
	c := n.Commit
	if len(c) > 7 {
		c = c[:7]
	}
	first, _, _ := strings.Cut(strings.TrimSpace(n.Output), "\n")
	if first == "" {
		return fmt.Sprintf("%s is stale at %s (exit %d)", n.Target, c, n.ExitCode)
	}
	return fmt.Sprintf("%s is stale at %s (exit %d): %s", n.Target, c, n.ExitCode, first)
}

// afterWorktree, when set (tests), is called once the worktree exists.
var afterWorktree func(dir string)

// Check runs every drift target of ws against HEAD of the repository that
// holds root and returns a notice for each that found HEAD stale, in target
// order. envMode is the environment's mode (targetenv; "" is strict).
func Check(ctx context.Context, root string, ws *workspace.Workspace, envMode string) (notices []Notice, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("check-drift: %w", err)
	}
	top, code, stderr, err := git(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		if strings.Contains(stderr, "not a git repository") {
			return nil, fmt.Errorf("check-drift: %s is not inside a git repository: drift is checked against HEAD, so the workspace must be a git checkout", abs)
		}
		return nil, fmt.Errorf("check-drift: git rev-parse --show-toplevel in %s: %s", abs, stderr)
	}
	var targets []*workspace.Target
	dirs := map[string]string{}
	if ws != nil {
		for _, p := range ws.Projects {
			for _, t := range p.Targets {
				if t.Drift && len(t.Run) > 0 {
					targets = append(targets, t)
					dirs[t.ID()] = p.Path
				}
			}
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	head, code, _, err := git(ctx, abs, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("check-drift: %s has no commit yet: there is no HEAD to check", top)
	}
	rel, err := relative(top, abs)
	if err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp("", "core-drift-*")
	if err != nil {
		return nil, fmt.Errorf("check-drift: %w", err)
	}
	wt := filepath.Join(tmp, "tree")
	defer func() {
		if cerr := removeWorktree(top, wt, tmp); cerr != nil && err == nil {
			err = cerr
		}
	}()
	_, code, stderr, err = git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, head)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("check-drift: git worktree add: %s", stderr)
	}
	if afterWorktree != nil {
		afterWorktree(wt)
	}

	var errs []error
	env := targetenv.New(envMode, nil)
	for _, t := range targets {
		dir := filepath.Join(wt, rel, filepath.FromSlash(dirs[t.ID()]))
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			continue // the project is not in HEAD
		}
		out, exit, rerr := runTarget(ctx, dir, t.Run, env.For(dir, targetenv.Lists(ws, t)...))
		if ctx.Err() != nil {
			return notices, ctx.Err()
		}
		if rerr != nil {
			errs = append(errs, fmt.Errorf("check-drift: %s: %w", t.ID(), rerr))
			continue
		}
		if exit != 0 || strings.TrimSpace(out) != "" {
			notices = append(notices, Notice{Target: t.ID(), Commit: head, Output: out, ExitCode: exit})
		}
	}
	return notices, errors.Join(errs...)
}

// relative returns the workspace root's path inside the repository.
func relative(top, root string) (string, error) {
	t, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", fmt.Errorf("check-drift: %w", err)
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("check-drift: %w", err)
	}
	rel, err := filepath.Rel(t, r)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("check-drift: workspace %s is not inside its repository %s", root, top)
	}
	return rel, nil
}

// removeWorktree removes the temporary worktree whatever state it is in,
// with a context of its own: the caller's may have ended. If git cannot
// remove it, the directory is deleted and `git worktree prune` forgets it;
// only a directory left behind is an error.
func removeWorktree(top, wt, tmp string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var gitErr error
	if _, err := os.Stat(wt); err == nil {
		_, code, stderr, err := git(ctx, top, "worktree", "remove", "--force", wt)
		if err == nil && code != 0 {
			err = fmt.Errorf("git worktree remove: %s", stderr)
		}
		gitErr = err
	}
	rmErr := os.RemoveAll(tmp)
	if gitErr != nil || rmErr != nil {
		_, _, _, _ = git(ctx, top, "worktree", "prune")
	}
	if rmErr != nil {
		return fmt.Errorf("check-drift: remove temporary worktree %s: %w", tmp, rmErr)
	}
	return nil
}

// runTarget runs argv in dir with env and returns its capped output and
// exit code; err only when it could not run.
func runTarget(ctx context.Context, dir string, argv, env []string) (string, int, error) {
	out := &execx.Capture{Max: MaxOutput}
	res := execx.Exec(ctx, argv, dir, env, out)
	text, _ := out.Result()
	if res.ExitCode == -1 && res.Err != "" && !res.Interrupted {
		return "", 0, errors.New(res.Err)
	}
	if res.Interrupted {
		return text, -1, ctx.Err()
	}
	return text, res.ExitCode, nil
}

// git runs `git -C dir args...`: trimmed stdout, exit code, trimmed stderr;
// err only when git could not run or ctx ended.
func git(ctx context.Context, dir string, args ...string) (string, int, string, error) {
	res, err := gitx.Run(ctx, dir, args...)
	if err != nil {
		return "", -1, "", fmt.Errorf("check-drift: %w", err)
	}
	return res.Text(), res.Exit, res.Stderr, nil
}
