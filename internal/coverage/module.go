package coverage

import (
	"path"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/manifest"
)

// FindModule returns the Go module that holds dir (relative to root): the
// nearest go.mod at dir or above it, up to the root.
func FindModule(root, dir string) (Module, bool) {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		data, err := fsx.ReadUnder(root, path.Join(d, "go.mod"), MaxFileSize)
		if err == nil {
			if mp := manifest.GoModulePath(data); mp != "" {
				return Module{Path: mp, Dir: d}, true
			}
		}
		if d == "." || d == "/" {
			return Module{}, false
		}
	}
}
