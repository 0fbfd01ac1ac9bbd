package fsx

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// syncFiles flushes the file systems that hold files with one syncfs
// each, which writes back all their dirty data and commits the journal
// once.
func syncFiles(files []batchFile) error {
	done := map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f.tmp)
		if done[dir] {
			continue
		}
		done[dir] = true
		d, err := os.Open(dir)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		err = unix.Syncfs(int(d.Fd()))
		_ = d.Close()
		if err != nil {
			return fsyncEach(files) // a file system without syncfs
		}
	}
	return nil
}
