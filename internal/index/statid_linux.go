package index

import (
	"io/fs"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// idOf is what a walk's stat says of a path, from the kernel's stat: its
// mode, size, modification and change times and inode (a chmod, a rename
// over a file, or an entry added to or removed from a directory moves one
// of them).
func idOf(fi fs.FileInfo, err error) statID {
	if err != nil {
		return statID{missing: true}
	}
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok { // not from a stat: told missing, so never found unchanged
		return statID{missing: true}
	}
	return statID{mode: s.Mode, size: s.Size, mtime: s.Mtim.Nano(), ctime: s.Ctim.Nano(), ino: s.Ino}
}

// statter stats paths under one root for unchanged. It stats each path
// relative to the root's descriptor (fstatat), so the kernel walks only
// the path's components below the root, not the root's own again: a
// third less time per stat at /tmp/x/y depth, more for a root deep in a
// home directory.
type statter struct{ dir int }

func newStatter(root string) (statter, error) {
	// Cleaned as the walk's filepath.Join cleans it: "a/link/../ws" is
	// a/ws to the walk, whatever the link points at.
	fd, err := unix.Open(filepath.Clean(root), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	return statter{fd}, err
}

func (s statter) stat(rel string, follow bool) statID {
	if rel == "" { // the root
		rel = "."
	}
	flags := unix.AT_SYMLINK_NOFOLLOW
	if follow {
		flags = 0
	}
	var st unix.Stat_t
	if unix.Fstatat(s.dir, rel, &st, flags) != nil {
		return statID{missing: true}
	}
	return statID{mode: st.Mode, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}
}

func (s statter) close() { unix.Close(s.dir) }
