//go:build !linux

package fsx

import "io/fs"

// IdentityOf is what a stat says of a file that changes when its content
// may have; where the platform's stat has no change time or inode, its
// size, modification time and mode.
func IdentityOf(fi fs.FileInfo) Identity {
	return Identity{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode()), ok: true}
}
