package fsx

import (
	"bytes"
	"os"
	"slices"
	"strings"
)

// Open opens name for reading, as os.Open does, for the walks that open
// thousands of files and directories in a run: see openFile for what it
// leaves out.
func Open(name string) (*os.File, error) { return openFile(name, os.O_RDONLY, 0) }

// ReadDir is os.ReadDir through Open: the entries sorted by name.
func ReadDir(name string) ([]os.DirEntry, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// ReadFile is os.ReadFile through Open.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		b.Grow(int(fi.Size()) + bytes.MinRead)
	}
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}
