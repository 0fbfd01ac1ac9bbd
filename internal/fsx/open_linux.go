package fsx

import (
	"io/fs"
	"os"
	"syscall"
)

// openFile is os.OpenFile without its bid for the poller: on Linux,
// os.OpenFile sets every new descriptor non-blocking, asks epoll to watch
// it, and for a regular file or a directory (which epoll refuses) sets it
// blocking again, five system calls that change nothing. A file made by
// os.NewFile from a blocking descriptor skips them (one fcntl to see that
// it blocks). Reads of such files block their thread, as reads of files
// and directories do anyway.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}
