package inputs

import (
	"os"
	"time"

	"github.com/corehq/core/internal/fsx"
)

// A Listing is a project's part as one walk listed it, with what vouches
// for it later: the identity of every directory the walk read, taken
// before it was read. While each is what it was, the walk would list
// the same files again, since a directory's times change when an entry
// is added, removed or renamed in it. (What the files hold is the hash
// memo's to check, file by file; the .gitignore patterns are read once
// per Rule, so a run sees one version of them either way.)
type Listing struct {
	Files []string // relative to the project's directory, sorted
	Above []string // the files above it the part takes, relative to the root
	dirs  []dirStamp
}

type dirStamp struct {
	abs string
	id  fsx.Identity // zero: changed too recently to vouch (Racy)
}

// Holds reports whether every directory the listing read is as it was
// (a stat each): then Files is what a new walk would list.
func (l *Listing) Holds() bool {
	for _, d := range l.dirs {
		if !d.id.Known() {
			return false
		}
		fi, err := os.Stat(d.abs)
		if err != nil || fsx.IdentityOf(fi) != d.id {
			return false
		}
	}
	return true
}

// stamp records dir's identity for a Listing, as read before the walk
// reads its entries; one that changed within the racy window vouches
// for nothing.
func (w *walker) stamp(abs string, f *os.File) {
	if !w.stamping {
		return
	}
	var id fsx.Identity
	if fi, err := f.Stat(); err == nil {
		id = fsx.IdentityOf(fi)
		if id.Racy(time.Now()) {
			id = fsx.Identity{}
		}
	}
	w.dirs = append(w.dirs, dirStamp{abs: abs, id: id})
}
