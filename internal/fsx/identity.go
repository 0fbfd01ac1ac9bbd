package fsx

import "time"

// Identity is a file's stat as IdentityOf reads it.
type Identity struct {
	Size, Mtime, Ctime int64
	Ino                uint64
	Mode               uint32
	ok                 bool
}

// Known reports whether the identity came from a stat.
func (id Identity) Known() bool { return id.ok }

// racyWindow is how close to now a change time must be for an identity
// not to vouch for the content: file systems stamp times from a coarse
// clock (a few ms), so two writes within one tick can leave the same
// identity (git's "racily clean" entries).
const racyWindow = 100 * time.Millisecond

// Racy reports whether the file changed too recently, as of now, for its
// identity to vouch for its content later.
func (id Identity) Racy(now time.Time) bool {
	return !id.ok || now.UnixNano()-max(id.Mtime, id.Ctime) < int64(racyWindow)
}
