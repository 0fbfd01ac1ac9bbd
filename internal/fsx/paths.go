package fsx

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The one home of "does this path stay inside": a path read from outside
// (a cache entry, a request, a coverage file, a config) is joined to a
// directory only after it passes.

// Local reports whether the slash path p stays inside the directory it is
// relative to: not empty, not absolute, no backslash, and no ".." that
// climbs out (filepath.IsLocal, which is lexical). "a/../b" is local.
func Local(p string) bool {
	return p != "" && !strings.Contains(p, "\\") && !path.IsAbs(p) && filepath.IsLocal(filepath.FromSlash(p))
}

// CleanLocal reports whether the slash path p is Local and already clean
// ("a/./b" and "a/../b" are not): what a path written by core itself
// looks like, so anything else in a file core wrote was written by hand.
func CleanLocal(p string) bool { return Local(p) && path.Clean(p) == p }

// Under is the slash path f relative to the directory dir ("." for the
// root), if f lies inside it (not dir itself).
func Under(dir, f string) (string, bool) {
	if dir == "." {
		return f, f != ""
	}
	rel, ok := strings.CutPrefix(f, dir+"/")
	if !ok || rel == "" {
		return "", false
	}
	return rel, true
}

// ReadUnder is the one bounded read of a file inside a directory the
// caller names by its root (a workspace): the regular file rel
// (slash-separated) under root, of at most limit bytes (ErrTooLarge
// otherwise, never holding more than limit+1 of them). It goes through an
// os.Root, so a path or a symlinked directory that leads out of root is
// refused, and a path a request or a stored session names never reads a
// file elsewhere. A directory, symlink or device is os.ErrInvalid.
func ReadUnder(root, rel string, limit int64) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ReadIn(r, rel, limit)
}

// ReadIn is ReadUnder through a root the caller opened: what reads many
// files of one directory opens it once.
func ReadIn(r *os.Root, rel string, limit int64) ([]byte, error) {
	name := filepath.FromSlash(rel)
	st, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file", rel, os.ErrInvalid)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", rel, ErrTooLarge, limit)
	}
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, rel, limit)
}
