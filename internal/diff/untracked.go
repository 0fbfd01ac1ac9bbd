package diff

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/gitx"
)

// untracked is the working tree's untracked files (not ignored) as git
// can diff them: a private index, made for the purpose, that holds only
// them, marked intent-to-add. Diffed against the empty tree it shows each
// as a new file, while the tracked files are diffed with the repository's
// own index, which is never written; the two run side by side. (The
// patch needs no private index where core writes the new files itself:
// listUntracked, then newFileWriter.)
type untracked struct {
	root  string
	dir   string // holds the private index
	index string
	paths map[string]bool // relative to root, git's order
	list  []string
	large []File // over TruncateAt: left out of the index, listed as truncated
}

// findUntracked lists the untracked files and indexes them privately.
func findUntracked(ctx context.Context, root string) (*untracked, error) {
	u, err := listUntracked(ctx, root)
	if err != nil {
		return nil, err
	}
	if err := u.indexPrivately(ctx); err != nil {
		return nil, err
	}
	return u, nil
}

// listUntracked lists the untracked files (git ls-files --others), without
// indexing them.
func listUntracked(ctx context.Context, root string) (*untracked, error) {
	others, err := lsOthers(ctx, root)
	if err != nil {
		return nil, err
	}
	return untrackedFrom(root, others), nil
}

// untrackedFrom is the untracked files git ls-files -z --others printed.
func untrackedFrom(root, others string) *untracked {
	u := &untracked{root: root, paths: map[string]bool{}}
	for _, p := range strings.Split(others, "\x00") {
		// A directory (trailing slash) is a nested repository: adding it
		// would record an embedded repository, so it stays out.
		if p == "" || strings.HasSuffix(p, "/") {
			continue
		}
		u.paths[p] = true
		if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && st.Mode().IsRegular() && st.Size() > TruncateAt {
			u.large = append(u.large, File{Path: p, Kind: KindAdded, NewMode: "100644", Untracked: true, Truncated: true, Hunks: []Hunk{}})
			continue
		}
		u.list = append(u.list, p)
	}
	return u
}

// indexPrivately makes the private index of the listed files, each
// intent-to-add.
func (u *untracked) indexPrivately(ctx context.Context) error {
	if len(u.list) == 0 {
		return nil
	}
	var list bytes.Buffer
	for _, p := range u.list {
		list.WriteString(p)
		list.WriteByte(0)
	}
	var err error
	if u.dir, err = os.MkdirTemp("", "core-diff-"); err != nil {
		return err
	}
	u.index = filepath.Join(u.dir, "index")
	cmd := u.git(ctx, "--literal-pathspecs", "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul")
	cmd.Stdin = &list
	res, err := gitx.Exec(ctx, cmd)
	if err != nil {
		u.close()
		return err
	}
	if res.Exit != 0 {
		u.close()
		return res.Describe("add", "--intent-to-add")
	}
	return nil
}

// git is a git command that reads the private index.
func (u *untracked) git(ctx context.Context, args ...string) *exec.Cmd {
	cmd := gitx.Command(ctx, u.root, args...)
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+u.index)
	return cmd
}

func (u *untracked) close() {
	if u.dir != "" {
		_ = os.RemoveAll(u.dir)
	}
}

// diffArgs are the options every reader of the change gives git diff:
// renames found, files over TruncateAt shown as binary (git's
// core.bigFileThreshold), paths relative to root, then tree. (gitx adds
// --no-ext-diff and --no-textconv: the bytes, never a program's view.)
func diffArgs(tree string, args ...string) []string {
	full := []string{"-c", "core.bigFileThreshold=" + strconv.Itoa(TruncateAt), "diff", "--no-color", "--find-renames", "--relative"}
	full = append(full, args...)
	return append(full, tree, "--")
}

// trackedDiff is git diff of the tracked files against tree, through the
// repository's own index (read, never written: GIT_OPTIONAL_LOCKS=0).
func trackedDiff(ctx context.Context, root, tree string, args ...string) *exec.Cmd {
	return gitx.Command(ctx, root, diffArgs(tree, args...)...)
}

// diff is git diff of the untracked files: new files against the empty
// tree; nil when there are none.
func (u *untracked) diff(ctx context.Context, empty string, args ...string) *exec.Cmd {
	if len(u.list) == 0 {
		return nil
	}
	return u.git(ctx, diffArgs(empty, args...)...)
}

// keep leaves out the untracked files only does not keep (nil keeps all).
func (u *untracked) keep(only *PathFilter) {
	if only == nil {
		return
	}
	u.list = slices.DeleteFunc(u.list, func(p string) bool { return !only.Match(p) })
	u.large = slices.DeleteFunc(u.large, func(f File) bool { return !only.Match(f.Path) })
	for p := range u.paths {
		if !only.Match(p) {
			delete(u.paths, p)
		}
	}
}
