package index

import (
	"io/fs"
	"syscall"
)

// changeOf is a file's change time and inode: a chmod, a rename over it,
// or an entry added to or removed from a directory moves one of them.
func changeOf(fi fs.FileInfo) (ctime int64, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano(), st.Ino
	}
	return 0, 0
}
