//go:build !linux

package index

import (
	"io/fs"
	"os"
	"path/filepath"
)

// idOf is what a walk's stat says of a path where the platform's stat is
// not read here: its mode, size and modification time, so a directory is
// told unchanged by its modification time alone.
func idOf(fi fs.FileInfo, err error) statID {
	if err != nil {
		return statID{missing: true}
	}
	return statID{mode: uint32(fi.Mode()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// statter stats paths under one root for unchanged.
type statter struct{ root string }

func newStatter(root string) (statter, error) { return statter{root}, nil }

func (s statter) stat(rel string, follow bool) statID {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	return idOf(stat(filepath.Join(s.root, filepath.FromSlash(rel))))
}

func (s statter) close() {}
