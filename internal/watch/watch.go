// Package watch reports changes under a workspace root as debounced batches
// of relative paths. fsnotify watches directories, not trees, so the watcher
// adds every directory it finds (and every one created later), skipping what
// the ignore function rejects: .git, the cache directory, node_modules.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Ignore reports whether a path relative to the root (slash-separated)
// should be neither watched nor reported.
type Ignore func(rel string, isDir bool) bool

// Batch is one debounced set of changes.
type Batch struct {
	// Paths changed, relative to the root, sorted and unique.
	Paths []string
	// Overflow is set when the kernel dropped events: the caller must
	// reconcile everything rather than trust Paths.
	Overflow bool
}

// Watcher watches a tree.
type Watcher struct {
	root     string
	ignore   Ignore
	debounce time.Duration
	fsw      *fsnotify.Watcher

	mu      sync.Mutex
	watched map[string]bool
	// limitErr is set when the inotify watch limit was hit; the watcher
	// keeps going with what it has and the caller reports it.
	limitErr error
}

// ErrWatchLimit explains how to raise the inotify watch limit.
var ErrWatchLimit = errors.New("the inotify watch limit is reached, so some directories are not watched: raise it with `sudo sysctl fs.inotify.max_user_watches=524288` (and add it to /etc/sysctl.conf to keep it)")

// New starts watching root.
func New(root string, ignore Ignore, debounce time.Duration) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &Watcher{root: root, ignore: ignore, debounce: debounce, fsw: fsw, watched: map[string]bool{}}
	if err := w.addTree(root); err != nil {
		_ = fsw.Close()
		return nil, err
	}
	return w, nil
}

// LimitError reports whether the watch limit was hit (nil if not).
func (w *Watcher) LimitError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limitErr
}

func (w *Watcher) rel(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// addTree watches dir and every directory below it that is not ignored.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return fmt.Errorf("watch %s: %w", p, err)
			}
			return nil // unreadable or vanished: skip it, the rest still counts
		}
		if !d.IsDir() {
			return nil
		}
		rel := w.rel(p)
		if rel != "." && w.ignore != nil && w.ignore(rel, true) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.watched[p] {
			return nil
		}
		if err := w.fsw.Add(p); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				w.limitErr = ErrWatchLimit
				return filepath.SkipAll
			}
			return nil
		}
		w.watched[p] = true
		return nil
	})
}

// Run delivers batches to fn until ctx ends. Changes are collected until
// the tree has been quiet for the debounce interval.
func (w *Watcher) Run(ctx context.Context, fn func(Batch)) error {
	defer w.fsw.Close()
	pending := map[string]bool{}
	overflow := false
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var fire <-chan time.Time // nil, so never ready, until a change arms it
	arm := func() {
		timer.Reset(w.debounce)
		fire = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return nil
			}
			if w.note(ev, pending) {
				arm()
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				overflow = true
				arm()
			}
		case <-fire:
			fire = nil
			b := Batch{Overflow: overflow, Paths: make([]string, 0, len(pending))}
			for p := range pending {
				b.Paths = append(b.Paths, p)
			}
			sort.Strings(b.Paths)
			pending, overflow = map[string]bool{}, false
			fn(b)
		}
	}
}

// note records one event in pending and reports whether it counts.
func (w *Watcher) note(ev fsnotify.Event, pending map[string]bool) bool {
	rel := w.rel(ev.Name)
	if rel == "." || strings.HasPrefix(rel, "../") {
		return false
	}
	if w.ignore != nil && w.ignore(rel, false) {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() && (w.ignore == nil || !w.ignore(rel, true)) {
			_ = w.addTree(ev.Name)
			// Files may have landed before the watch did.
			w.collect(ev.Name, pending)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// The directory and everything below it is gone: if it comes back,
		// addTree must watch all of it again.
		w.mu.Lock()
		delete(w.watched, ev.Name)
		for p := range w.watched {
			if strings.HasPrefix(p, ev.Name+string(filepath.Separator)) {
				delete(w.watched, p)
			}
		}
		w.mu.Unlock()
	}
	pending[rel] = true
	return true
}

// collect adds the files already inside a new directory to pending.
func (w *Watcher) collect(dir string, pending map[string]bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel := w.rel(p)
		if w.ignore != nil && w.ignore(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		pending[rel] = true
		return nil
	})
}
