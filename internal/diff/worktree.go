package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/quote"
)

// BaseError says the base asked for cannot be compared against; the
// handler answers 400 with its message, which names the ref and the fix.
type BaseError struct {
	Ref    string
	Reason string
}

func (e *BaseError) Error() string {
	return fmt.Sprintf("base %s %s", quote.Short(e.Ref), e.Reason)
}

// resolved is the base of a change: what the working tree is compared
// against (tree: a commit, or the empty tree before the first commit).
type resolved struct {
	Base
	tree string
}

// resolve finds the commit a change is measured against: HEAD for base ""
// or "HEAD", else the merge base of base and HEAD.
func resolve(ctx context.Context, root, base string) (resolved, error) {
	inside, err := gitx.Run(ctx, root, "rev-parse", "--is-inside-work-tree")
	if err != nil {
		return resolved{}, err
	}
	if inside.Exit != 0 || inside.Text() != "true" {
		return resolved{}, ErrNotRepository
	}
	head, err := revParse(ctx, root, "HEAD^{commit}")
	if err != nil {
		return resolved{}, err
	}
	var r resolved
	if b, err := gitx.Run(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD"); err != nil {
		return resolved{}, err
	} else if b.Exit == 0 {
		r.Branch = b.Text()
	}
	switch base {
	case "", "HEAD":
		r.Ref, r.Commit, r.tree = "HEAD", head, head
	default:
		if strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\x00\n") {
			return resolved{}, &BaseError{Ref: base, Reason: "is not a ref name: pass a branch, tag or commit"}
		}
		commit, err := revParse(ctx, root, base+"^{commit}")
		if err != nil {
			return resolved{}, err
		}
		if commit == "" {
			return resolved{}, &BaseError{Ref: base, Reason: "is not a commit in this repository: pass a branch, tag or commit that exists (git fetch it first if it is remote)"}
		}
		if head == "" {
			return resolved{}, &BaseError{Ref: base, Reason: "has no merge base with HEAD, which has no commit yet: commit once, or leave base out"}
		}
		mb, err := gitx.Run(ctx, root, "merge-base", "--end-of-options", commit, head)
		if err != nil {
			return resolved{}, err
		}
		if mb.Exit != 0 {
			return resolved{}, &BaseError{Ref: base, Reason: "shares no history with HEAD: pass a ref HEAD descends from"}
		}
		r.Ref, r.Commit, r.tree, r.MergeBase = base, mb.Text(), mb.Text(), mb.Text() != commit
	}
	if r.tree == "" {
		// No commit yet: everything is added, against the empty tree of
		// the repository's hash function.
		t, err := gitx.Run(ctx, root, "hash-object", "-t", "tree", "/dev/null")
		if err != nil {
			return resolved{}, err
		}
		if t.Exit != 0 {
			return resolved{}, t.Describe("hash-object", "-t", "tree", "/dev/null")
		}
		r.tree = t.Text()
	}
	return r, nil
}

// revParse returns the object name rev resolves to, or "" when it names
// nothing.
func revParse(ctx context.Context, root, rev string) (string, error) {
	res, err := gitx.Run(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return "", nil
	}
	return res.Text(), nil
}

// worktree is the working tree seen through a private copy of the index
// in which every untracked file (not ignored) is marked intent-to-add, so
// that one git diff shows staged, unstaged and untracked changes together.
// The repository's own index and working tree are never written.
type worktree struct {
	root      string
	dir       string // holds the index copy
	index     string
	untracked map[string]bool // paths relative to root
}

// openWorktree copies the index and adds the untracked files to the copy.
func openWorktree(ctx context.Context, root string) (*worktree, error) {
	gitIndex, err := gitx.Run(ctx, root, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return nil, err
	}
	if gitIndex.Exit != 0 {
		return nil, gitIndex.Describe("rev-parse", "--git-path", "index")
	}
	dir, err := os.MkdirTemp("", "core-diff-")
	if err != nil {
		return nil, err
	}
	w := &worktree{root: root, dir: dir, index: filepath.Join(dir, "index"), untracked: map[string]bool{}}
	if err := copyFile(gitIndex.Text(), w.index); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.close()
		return nil, fmt.Errorf("copy the git index: %w", err)
	}
	others, err := gitx.Run(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		w.close()
		return nil, err
	}
	if others.Exit != 0 {
		w.close()
		return nil, others.Describe("ls-files", "--others")
	}
	var list bytes.Buffer
	for _, p := range strings.Split(others.Stdout, "\x00") {
		// A directory (trailing slash) is a nested repository: adding it
		// would record an embedded repository, so it stays out.
		if p == "" || strings.HasSuffix(p, "/") {
			continue
		}
		w.untracked[p] = true
		list.WriteString(p)
		list.WriteByte(0)
	}
	if len(w.untracked) > 0 {
		cmd := w.git(ctx, "--literal-pathspecs", "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul")
		cmd.Stdin = &list
		res, err := gitx.Exec(ctx, cmd)
		if err != nil {
			w.close()
			return nil, err
		}
		if res.Exit != 0 {
			w.close()
			return nil, res.Describe("add", "--intent-to-add")
		}
	}
	return w, nil
}

// git is a git command that reads the private index.
func (w *worktree) git(ctx context.Context, args ...string) *exec.Cmd {
	cmd := gitx.Command(ctx, w.root, args...)
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+w.index)
	return cmd
}

// diff is `git diff` of the working tree against tree with the options
// every reader of the change shares: renames found, files over TruncateAt
// shown as binary (git's core.bigFileThreshold), paths relative to root.
func (w *worktree) diff(ctx context.Context, tree string, args ...string) *exec.Cmd {
	full := []string{"-c", "core.bigFileThreshold=" + strconv.Itoa(TruncateAt), "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--relative"}
	full = append(full, args...)
	full = append(full, tree, "--")
	return w.git(ctx, full...)
}

func (w *worktree) close() { _ = os.RemoveAll(w.dir) }

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// The copy keeps the index's modification time: git trusts a cached
	// stat only for files older than the index (its "racy git" rule), and
	// a copy made now would make a file edited in the same second as the
	// last commit look unchanged.
	st, err := in.Stat()
	if err != nil {
		return err
	}
	return os.Chtimes(to, st.ModTime(), st.ModTime())
}
