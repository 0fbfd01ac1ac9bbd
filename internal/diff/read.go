package diff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/corehq/core/internal/gitx"
)

// Read returns the working tree's change against base: staged, unstaged
// and untracked files (.gitignore respected), against HEAD for base "" or
// "HEAD", else against the merge base of base and HEAD. root may be a
// directory inside the repository: paths are relative to it and files
// outside it are left out. The repository is never written.
//
// Errors: ErrNotRepository, *BaseError, gitx.ErrNotInstalled, or a
// failure of git itself.
func Read(ctx context.Context, root, base string) (Change, error) {
	b, err := resolve(ctx, root, base)
	if err != nil {
		return Change{}, err
	}
	// Tracked and untracked files are diffed side by side (see untracked).
	args := []string{"-z", "--raw", "--numstat", "--patch", "--unified=0"}
	var u *untracked
	var ufiles []File
	var uerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if u, uerr = findUntracked(ctx, root); uerr == nil {
			if cmd := u.diff(ctx, b.empty, args...); cmd != nil {
				ufiles, uerr = runDiff(ctx, cmd, b.empty)
			}
		}
	}()
	files, terr := runDiff(ctx, trackedDiff(ctx, root, b.tree, args...), b.tree)
	<-done
	if u != nil {
		defer u.close()
	}
	if err := errors.Join(terr, uerr); err != nil {
		return Change{}, err
	}

	// A file removed from the index but still on disk (git rm --cached)
	// is both a deletion of the tracked side and an untracked new file:
	// it is shown once, as the untracked file it now is.
	for i := range ufiles {
		ufiles[i].Untracked = true
	}
	ufiles = append(ufiles, u.large...)
	fresh := make(map[string]bool, len(ufiles))
	for _, f := range ufiles {
		fresh[f.Path] = true
	}
	files = slices.DeleteFunc(files, func(f File) bool { return f.Kind == KindDeleted && fresh[f.Path] })
	files = append(files, ufiles...)

	for i := range files {
		f := &files[i]
		if !f.Truncated && tooLarge(root, *f) {
			// git shows a file over TruncateAt as binary, except when rename
			// detection has read it whole; either way its hunks are left
			// out and Truncated says why.
			f.Binary, f.Truncated = false, true
			f.Added, f.Deleted, f.Hunks = 0, 0, nil
		}
		if f.Hunks == nil {
			f.Hunks = []Hunk{}
		}
	}
	if err := hashFiles(ctx, root, files); err != nil {
		return Change{}, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	if files == nil {
		files = []File{}
	}
	return Change{Base: b.Base, Files: files}, nil
}

// runDiff runs a git diff of the combined form parseDiff reads.
func runDiff(ctx context.Context, cmd *exec.Cmd, tree string) ([]File, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, gitStartError(err)
	}
	files, perr := parseDiff(out)
	if perr != nil {
		_ = cmd.Process.Kill() // it may be blocked on a full pipe
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case perr != nil:
		return nil, perr
	case werr != nil:
		return nil, gitx.Result{Stderr: strings.TrimSpace(stderr.String()), Exit: cmd.ProcessState.ExitCode()}.Describe("diff", tree)
	}
	return files, nil
}

// hashFiles sets each present file's Hash: the blob id git would give its
// working-tree content (filters applied), in one git process. A path with
// a newline cannot be named on hash-object's input and keeps "".
func hashFiles(ctx context.Context, root string, files []File) error {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	var list bytes.Buffer
	var which []int
	for i, f := range files {
		if f.Kind == KindDeleted || f.Kind == KindSubmodule || strings.ContainsAny(root+f.Path, "\n\r") {
			continue
		}
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil || !st.Mode().IsRegular() {
			// A symlink or something else: no content hash (a viewed
			// mark on it then never sticks, which is the safe side).
			continue
		}
		// Absolute: hash-object reads its paths from the repository's top,
		// not from root.
		list.WriteString(filepath.Join(root, filepath.FromSlash(f.Path)))
		list.WriteByte('\n')
		which = append(which, i)
	}
	if len(which) == 0 {
		return nil
	}
	cmd := gitx.Command(ctx, root, "hash-object", "--stdin-paths")
	cmd.Stdin = &list
	res, err := gitx.Exec(ctx, cmd)
	if err != nil {
		return err
	}
	if res.Exit != 0 {
		return res.Describe("hash-object", "--stdin-paths")
	}
	ids := strings.Fields(res.Stdout)
	if len(ids) != len(which) {
		return nil // a file vanished while hashed: leave the hashes out
	}
	for k, i := range which {
		files[i].Hash = ids[k]
	}
	return nil
}

// gitStartError says git is missing when that is why it did not start.
func gitStartError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return gitx.ErrNotInstalled
	}
	return err
}

// tooLarge reports whether f's working-tree content is over TruncateAt.
func tooLarge(root string, f File) bool {
	if f.Kind == KindDeleted || f.Kind == KindSubmodule {
		return false
	}
	st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path)))
	return err == nil && st.Mode().IsRegular() && st.Size() > TruncateAt
}
