package fsx

import (
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
