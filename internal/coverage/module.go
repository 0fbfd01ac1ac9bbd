package coverage

import (
	"os"
	"path"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// FindModule returns the Go module that holds dir (relative to root): the
// nearest go.mod at dir or above it, up to the root.
func FindModule(root, dir string) (Module, bool) {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(d), "go.mod"))
		if err == nil && len(data) <= MaxFileSize {
			if mp := modfile.ModulePath(data); mp != "" {
				return Module{Path: mp, Dir: d}, true
			}
		}
		if d == "." || d == "/" {
			return Module{}, false
		}
	}
}
