// Package watch reports changes under a workspace root as debounced batches
// of relative paths. fsnotify watches directories, not trees, so the watcher
// adds every directory it finds (and every one created later), skipping what
// the workspace's ignore rule skips (package ignore): .git, node_modules,
// the cache directory, and directories a .gitignore ignores. When a
// .gitignore changes, the directory it governs is walked again, so that a
// directory it no longer ignores is watched from then on.
package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/corehq/core/internal/ignore"
)

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
	rule     *ignore.Rule
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

// New starts watching the workspace of rule.
func New(rule *ignore.Rule, debounce time.Duration) (*Watcher, error) {
	root := rule.Root()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &Watcher{root: root, rule: rule, debounce: debounce, fsw: fsw, watched: map[string]bool{}}
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

// errLimit stops a walk at the watch limit.
var errLimit = errors.New("watch limit")

// addTree watches dir and every directory below it that the rule does not
// skip.
func (w *Watcher) addTree(dir string) error {
	rel := w.rel(dir)
	p, skipped := w.rule.At(rel)
	if skipped {
		return nil
	}
	err := w.walk(dir, rel, p, func(abs, _ string, isDir bool) error {
		if !isDir {
			return nil
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.watched[abs] {
			return nil
		}
		if err := w.fsw.Add(abs); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				w.limitErr = ErrWatchLimit
				return errLimit
			}
			return nil
		}
		w.watched[abs] = true
		return nil
	})
	if errors.Is(err, errLimit) {
		return nil
	}
	return err
}

// walk calls visit for the directory abs (rel from the root; the patterns
// p in force in it) and everything below it the rule does not skip,
// directories before what they hold. Symlinks are visited, never followed.
// An unreadable directory other than the first is passed over.
func (w *Watcher) walk(abs, rel string, p ignore.Patterns, visit func(abs, rel string, isDir bool) error) error {
	if err := visit(abs, rel, true); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		if abs == w.root {
			return fmt.Errorf("watch %s: %w", abs, err)
		}
		return nil // unreadable or vanished: skip it, the rest still counts
	}
	m := p.Matcher()
	for _, e := range entries {
		childRel := e.Name()
		if rel != "" && rel != "." {
			childRel = rel + "/" + e.Name()
		}
		childAbs := filepath.Join(abs, e.Name())
		if !e.IsDir() {
			if err := visit(childAbs, childRel, false); err != nil {
				return err
			}
			continue
		}
		if w.rule.NeverChild(childRel, e.Name()) || m.Match(strings.Split(childRel, "/"), true) {
			continue
		}
		if err := w.walk(childAbs, childRel, w.rule.Below(p, childRel), visit); err != nil {
			return err
		}
	}
	return nil
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
	if rel == "." || strings.HasPrefix(rel, "../") || w.rule.Never(rel) {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() {
			_ = w.addTree(ev.Name)
			// Files may have landed before the watch did.
			w.collect(ev.Name, pending)
		}
	}
	if path.Base(rel) == ".gitignore" {
		// What it ignores may have changed: watch what it no longer does.
		_ = w.addTree(filepath.Dir(ev.Name))
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

// collect adds what a new directory already holds to pending.
func (w *Watcher) collect(dir string, pending map[string]bool) {
	rel := w.rel(dir)
	p, skipped := w.rule.At(rel)
	if skipped {
		return
	}
	_ = w.walk(dir, rel, p, func(_, rel string, _ bool) error {
		pending[rel] = true
		return nil
	})
}
