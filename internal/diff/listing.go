package diff

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
// repositories) are watched too: more than needed, never less. So that
// checking never costs more than listing, a root is no longer watched
// once its tree holds more than maxListedDirs directories, or a check of
// more than minCheckedPaths paths took more than half as long as git's
// listing did.

// maxListedDirs bounds the directories a kept listing watches.
const maxListedDirs = 5000

// minCheckedPaths is how many watched paths a check must hold before its
// cost is compared with the listing's: a few are always cheap to check.
const minCheckedPaths = 1000

// listing is a kept answer of git ls-files --others.
type listing struct {
	out      string // git's output
	watch    []stampedPath
	key      [3]string     // the index, info/exclude and global excludes file it was listed with
	took     time.Duration // how long git took to list
	unwanted bool          // the root is not watched: list afresh every time
}

// stampedPath is a path and what it was: a directory's modification time,
// or a file's size, modification time and inode (absent: exists false).
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
	if kept != nil && kept.key == key {
		checked := time.Now()
		same := kept.unchanged()
		if len(kept.watch) > minCheckedPaths && time.Since(checked) > kept.took/2 {
			keep(root, &listing{unwanted: true})
		}
		if same {
			return kept.out, nil
		}
	}

	started := time.Now()
	var watch []stampedPath
	var walkErr error
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		watch, walkErr = watchedPaths(root)
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
	for _, p := range append(key[:], ancestorIgnores(b)...) {
		if p != "" {
			watch = append(watch, stampPath(p))
		}
	}
	if l := (&listing{out: out, watch: watch, key: key, took: took}); l.settledBefore(started.Add(-settle)) {
		keep(root, l)
	} else {
		keep(root, nil)
	}
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

// watchedPaths stamps every directory under root but .git ones, and every
// .gitignore in them.
func watchedPaths(root string) ([]stampedPath, error) {
	var watch []stampedPath
	dirs := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			if d.Name() == ".gitignore" {
				watch = append(watch, stampPath(p))
			}
			return nil
		}
		if d.Name() == ".git" && p != root {
			return fs.SkipDir
		}
		if dirs++; dirs > maxListedDirs {
			return errTooManyDirs
		}
		watch = append(watch, stampPath(p))
		return nil
	})
	return watch, err
}

// unchanged reports whether every watched path is as it was.
func (l *listing) unchanged() bool {
	for _, w := range l.watch {
		if stampPath(w.path) != w {
			return false
		}
	}
	return true
}

// settledBefore reports whether every watched path was last modified
// before t.
func (l *listing) settledBefore(t time.Time) bool {
	for _, w := range l.watch {
		if w.exists && w.mtime >= t.UnixNano() {
			return false
		}
	}
	return true
}
