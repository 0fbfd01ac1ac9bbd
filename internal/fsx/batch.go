package fsx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Batch replaces many files the way WriteFileAtomic replaces one, with one
// flush of the file system for all of them instead of two fsyncs per file
// (on Linux, syncfs): a cold index writes hundreds of symbol shards, and
// their fsyncs were most of its time spent writing.
//
// Each file is still replaced whole or not at all: Write puts the data in
// a temporary file; Commit makes every temporary file durable, then renames
// each over its path and makes the renames durable. A crash before Commit
// returns leaves every path with its old content or its new one.
type Batch struct {
	perm os.FileMode
	mu   sync.Mutex
	tmps []batchFile
	err  error
}

type batchFile struct{ tmp, path string }

// NewBatch starts a batch of files written with mode perm.
func NewBatch(perm os.FileMode) *Batch { return &Batch{perm: perm} }

// Write stages data for path. It is safe for concurrent use; the first
// error is also returned by Commit.
func (b *Batch) Write(path string, data []byte) error {
	err := b.stage(path, data)
	if err != nil {
		b.mu.Lock()
		b.err = errors.Join(b.err, err)
		b.mu.Unlock()
	}
	return err
}

func (b *Batch) stage(path string, data []byte) error {
	tmp, err := writeTemp(path, b.perm, false, bytesOf(data))
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.tmps = append(b.tmps, batchFile{tmp, path})
	b.mu.Unlock()
	return nil
}

// Commit makes the staged files durable and puts each in place. After an
// error from Write or from the flush, no path is touched and the temporary
// files are removed.
func (b *Batch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.err
	if err == nil {
		err = syncFiles(b.tmps)
	}
	if err != nil {
		for _, f := range b.tmps {
			_ = os.Remove(f.tmp)
		}
		b.tmps = nil
		return err
	}
	dirs := map[string]bool{}
	for i, f := range b.tmps {
		if err := os.Rename(f.tmp, f.path); err != nil {
			for _, g := range b.tmps[i:] {
				_ = os.Remove(g.tmp)
			}
			b.tmps = nil
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		dirs[filepath.Dir(f.path)] = true
	}
	b.tmps = nil
	for d := range dirs {
		syncDir(d)
	}
	return nil
}

// fsyncEach makes each file durable with its own fsync.
func fsyncEach(files []batchFile) error {
	for _, f := range files {
		fh, err := os.Open(f.tmp)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		err = fh.Sync()
		_ = fh.Close()
		if err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	return nil
}

// Sync makes files already in place (written by ReplaceFile) durable, and
// their directories' entries: one flush of their file systems where it can
// (syncfs on Linux), else an fsync each. Many files replaced and then
// synced once cost one flush, where WriteFileAtomic costs two fsyncs each.
func Sync(paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	files := make([]batchFile, len(paths))
	dirs := map[string]bool{}
	for i, p := range paths {
		files[i] = batchFile{tmp: p, path: p}
		dirs[filepath.Dir(p)] = true
	}
	if err := syncFiles(files); err != nil {
		return err
	}
	for d := range dirs {
		syncDir(d)
	}
	return nil
}
