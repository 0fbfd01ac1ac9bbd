package diff

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corehq/core/internal/gitx"
)

// Listing the untracked files is a walk of the whole working tree (git
// ls-files --others): on the 20,000-file benchmark it costs a third of
// the CPU of git diff itself. A server answers the same question again
// and again while nothing is created or deleted, so the last answer is
// kept, per root, with what would change it, git's untracked cache done
// in core:
//
//   - the modification time of every directory under root (except .git):
//     a file or directory created, deleted or renamed in one changes it;
//   - the size, modification time and inode of every .gitignore found
//     there, of $GIT_DIR/info/exclude, of the global excludes file
//     (core.excludesFile) and of the index (git add, rm, mv rewrite it).
//
// The answer is reused only when all of these are as they were, and it is
// kept only when each was last modified more than settle before the walk
// began: a file system stamps times with a clock that lags by a tick, so
// a change within that moment could leave a time as it was.
//
// Directories git itself would not enter (ignored ones, nested
// repositories) are watched too: more than needed, never less. The first
// listing of a root walks its directories (beside git's own walk); a later
// one re-reads only the directories whose time changed. So that checking
// never costs more than listing, a root is no longer watched once its tree
// holds more than maxListedDirs directories, or a check of more than
// minCheckedPaths paths took more than half as long as git's listing did.

// maxListedDirs bounds the directories a kept listing watches.
const maxListedDirs = 5000

// minCheckedPaths is how many watched paths a check must hold before its
// cost is compared with the listing's: a few are always cheap to check.
const minCheckedPaths = 1000

// listing is a kept answer of git ls-files --others.
type listing struct {
	out      string                 // git's output
	dirs     map[string]*watchedDir // every directory under root but .git ones
	files    []stampedPath          // the index, info/exclude, the global excludes file, .gitignore files above root
	key      [3]string              // the index, info/exclude and global excludes file it was listed with
	took     time.Duration          // how long git took to list
	settled  bool                   // every path settled before the listing: out may be reused
	unwanted bool                   // the root is not watched: list afresh every time
}

// watchedDir is a directory as it was read: its stamp, its .gitignore's
// (exists false when it had none: creating one changes the directory's
// time) and its subdirectories.
type watchedDir struct {
	stamp, ignore stampedPath
	subdirs       []string
	recent        bool // modified too close to its reading to be trusted: read again next time
}

// stampedPath is a path and what it was: its modification time and inode,
// and a file's size (absent: exists false).
type stampedPath struct {
	path   string
	exists bool
	size   int64
	mtime  int64
	ino    uint64
}

var listings struct {
	sync.Mutex
	byRoot map[string]*listing
}

// othersRuns counts the git ls-files --others that ran (for tests).
var othersRuns atomic.Int64

func stampPath(path string) stampedPath {
	st, err := os.Lstat(path)
	if err != nil {
		return stampedPath{path: path}
	}
	return stampFrom(path, st)
}

func stampFrom(path string, st os.FileInfo) stampedPath {
	s := stampedPath{path: path, exists: true, mtime: st.ModTime().UnixNano()}
	if !st.IsDir() {
		s.size = st.Size()
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = sys.Ino
	}
	return s
}

// untrackedOthers is git ls-files -z --others --exclude-standard in root,
// reused while nothing it depends on changed (see above).
func untrackedOthers(ctx context.Context, root string, b resolved, cfg diffConfig) (string, error) {
	key := [3]string{b.index, b.infoExclude, globalFile(cfg.excludesFile, "ignore")}
	listings.Lock()
	kept := listings.byRoot[root]
	listings.Unlock()
	if kept != nil && kept.unwanted {
		return lsOthers(ctx, root)
	}
	var changed []string
	if kept != nil && kept.key == key {
		checked := time.Now()
		var same bool
		changed, same = kept.check()
		if len(kept.dirs) > minCheckedPaths && time.Since(checked) > kept.took/2 {
			keep(root, &listing{unwanted: true})
		}
		if same {
			return kept.out, nil
		}
	} else {
		kept = nil // walk the whole tree
	}

	started := time.Now()
	cutoff := started.Add(-settle)
	var dirs map[string]*watchedDir
	var walkErr error
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		dirs, walkErr = kept.reread(root, changed, cutoff)
	}()
	out, err := lsOthers(ctx, root)
	took := time.Since(started)
	<-walked
	if err != nil {
		return "", err
	}
	if walkErr != nil {
		keep(root, &listing{unwanted: true})
		return out, nil
	}
	l := &listing{out: out, dirs: dirs, key: key, took: took}
	for _, p := range append(key[:], ancestorIgnores(b)...) {
		if p != "" {
			l.files = append(l.files, stampPath(p))
		}
	}
	// Kept even when something was modified just now: its output is not
	// reused then, but its directories spare the next listing a walk.
	l.settled = l.settledBefore(cutoff)
	keep(root, l)
	return out, nil
}

// keep keeps l as root's listing (nil: none).
func keep(root string, l *listing) {
	listings.Lock()
	defer listings.Unlock()
	if listings.byRoot == nil {
		listings.byRoot = map[string]*listing{}
	}
	if l == nil {
		delete(listings.byRoot, root)
		return
	}
	if kept := listings.byRoot[root]; kept != nil && kept.unwanted {
		return
	}
	listings.byRoot[root] = l
}

// ancestorIgnores are the .gitignore files of the directories from the
// top of the working tree down to root's parent: they apply below root.
func ancestorIgnores(b resolved) []string {
	if b.prefix == "" {
		return nil
	}
	ignores := []string{filepath.Join(b.top, ".gitignore")}
	d := b.top
	parts := strings.Split(strings.TrimSuffix(b.prefix, "/"), "/")
	for _, part := range parts[:len(parts)-1] {
		d = filepath.Join(d, part)
		ignores = append(ignores, filepath.Join(d, ".gitignore"))
	}
	return ignores
}

// lsOthers runs git ls-files --others.
func lsOthers(ctx context.Context, root string) (string, error) {
	othersRuns.Add(1)
	others, err := gitx.Run(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return "", err
	}
	if others.Exit != 0 {
		return "", others.Describe("ls-files", "--others")
	}
	return others.Stdout, nil
}

// errTooManyDirs says a tree is too large to watch.
var errTooManyDirs = errors.New("too many directories to watch")

// check returns the directories to read again (their time or their
// .gitignore changed, or they were read too soon after a change), and
// whether the listing's output may be reused.
func (l *listing) check() (changed []string, same bool) {
	same = l.settled
	for _, f := range l.files {
		if stampPath(f.path) != f {
			same = false
		}
	}
	for dir, d := range l.dirs {
		if d.recent || stampPath(dir) != d.stamp || (d.ignore.exists && stampPath(d.ignore.path) != d.ignore) {
			changed = append(changed, dir)
		}
	}
	return changed, same && len(changed) == 0
}

// reread is the listing's directories with those changed read again (and
// the subtrees of new ones walked, of gone ones dropped); with no listing,
// root's whole tree, walked.
func (l *listing) reread(root string, changed []string, cutoff time.Time) (map[string]*watchedDir, error) {
	dirs := map[string]*watchedDir{}
	if l == nil {
		return dirs, walkInto(dirs, root, cutoff)
	}
	maps.Copy(dirs, l.dirs)
	for _, dir := range changed {
		old := dirs[dir]
		if old == nil {
			continue // dropped with a parent gone
		}
		d, err := readWatchedDir(dir, cutoff)
		if errors.Is(err, os.ErrNotExist) && dir != root {
			dropTree(dirs, dir) // its parent changed too, and is read again
			continue
		}
		if err != nil {
			return nil, err
		}
		dirs[dir] = d
		for _, sub := range old.subdirs {
			if !slices.Contains(d.subdirs, sub) {
				dropTree(dirs, sub)
			}
		}
		for _, sub := range d.subdirs {
			if !slices.Contains(old.subdirs, sub) {
				if err := walkInto(dirs, sub, cutoff); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(dirs) > maxListedDirs {
		return nil, errTooManyDirs
	}
	return dirs, nil
}

// walkInto reads dir and every directory under it but .git ones into dirs.
func walkInto(dirs map[string]*watchedDir, dir string, cutoff time.Time) error {
	stack := []string{dir}
	for len(stack) > 0 {
		if len(dirs) >= maxListedDirs {
			return errTooManyDirs
		}
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d, err := readWatchedDir(dir, cutoff)
		if err != nil {
			return err
		}
		dirs[dir] = d
		stack = append(stack, d.subdirs...)
	}
	return nil
}

// dropTree removes dir and the directories under it from dirs.
func dropTree(dirs map[string]*watchedDir, dir string) {
	if d := dirs[dir]; d != nil {
		delete(dirs, dir)
		for _, sub := range d.subdirs {
			dropTree(dirs, sub)
		}
	}
}

// readWatchedDir reads a directory, unsorted, stamped from its open
// descriptor; recent when it or its .gitignore was modified after cutoff.
func readWatchedDir(dir string, cutoff time.Time) (*watchedDir, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, os.ErrNotExist // replaced by a file: gone as a directory
	}
	d := &watchedDir{stamp: stampFrom(dir, st), ignore: stampedPath{path: filepath.Join(dir, ".gitignore")}}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case e.IsDir() && name != ".git":
			d.subdirs = append(d.subdirs, filepath.Join(dir, name))
		case name == ".gitignore":
			d.ignore = stampPath(d.ignore.path)
		}
	}
	d.recent = d.stamp.mtime >= cutoff.UnixNano() || (d.ignore.exists && d.ignore.mtime >= cutoff.UnixNano())
	return d, nil
}

// settledBefore reports whether every watched path was last modified
// before t.
func (l *listing) settledBefore(t time.Time) bool {
	for _, f := range l.files {
		if f.exists && f.mtime >= t.UnixNano() {
			return false
		}
	}
	for _, d := range l.dirs {
		if d.recent || d.stamp.mtime >= t.UnixNano() || (d.ignore.exists && d.ignore.mtime >= t.UnixNano()) {
			return false
		}
	}
	return true
}
