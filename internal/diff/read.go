package diff

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

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
	started := time.Now()
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
	hashFiles(ctx, root, b.format, files)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	if files == nil {
		files = []File{}
	}
	return Change{Base: b.Base, Files: files, Stamp: b.stampRead(root, paths, started)}, nil
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

// hashFiles sets each regular file's Hash: the id git gives a blob of its
// working-tree bytes as they are (no clean filter applied), computed here,
// in parallel, rather than by a git process. Deleted files, symlinks and
// submodules keep "": a viewed mark on them never sticks, the safe side.
func hashFiles(ctx context.Context, root, format string, files []File) {
	newHash := sha1.New
	if format == "sha256" {
		newHash = sha256.New
	}
	EachFile(ctx, files, func(f File) bool { return f.Kind != KindDeleted && f.Kind != KindSubmodule }, func(i int) {
		files[i].Hash = blobID(newHash, filepath.Join(root, filepath.FromSlash(files[i].Path)))
	})
}

// blobID is git's object id of a blob holding the regular file at p
// ("" for anything else, or a file that cannot be read).
func blobID(newHash func() hash.Hash, p string) string {
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return "" // a symlink's blob is its target's name, not its content
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	h := newHash()
	fmt.Fprintf(h, "blob %d\x00", st.Size())
	if n, err := io.Copy(h, f); err != nil || n != st.Size() {
		return "" // changed while read: no id rather than a wrong one
	}
	return hex.EncodeToString(h.Sum(nil))
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
