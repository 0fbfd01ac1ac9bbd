package fsx

import (
	"io/fs"
	"syscall"
)

// IdentityOf is what a stat says of a file that changes when its content
// may have: size, modification and change times, inode and mode. Two
// equal identities of one path mean an unchanged file, unless it was
// written twice within the file system's clock tick (see Racy). The zero
// Identity is no file.
func IdentityOf(fi fs.FileInfo) Identity {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}
	}
	return Identity{Size: s.Size, Mtime: s.Mtim.Nano(), Ctime: s.Ctim.Nano(), Ino: s.Ino, Mode: uint32(s.Mode), ok: true}
}
