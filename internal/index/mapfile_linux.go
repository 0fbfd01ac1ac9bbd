package index

import (
	"io"
	"os"
	"runtime/debug"
	"syscall"
)

// mapFile maps the file at path read-only. Reading the stored graph this
// way skips copying it into fresh heap pages, each of which faults on
// first touch (a third of a millisecond for the Python library's half
// megabyte, on the path of every warm `core graph --json`). The mapping
// stays until release; the bytes must not be written.
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// A file system that maps nothing (FUSE with direct_io, before
		// Linux 6.6) is read instead.
		data, err = io.ReadAll(f)
		return data, func() {}, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}

// readingMapped makes a fault on a mapped page (the file cut short
// underneath, a failing disk) panic in this goroutine rather than kill the
// process, so that the caller can recover and read it as unreadable. It
// returns the setting to restore.
func readingMapped() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}
