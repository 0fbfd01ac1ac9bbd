package inputs

import (
	"github.com/corehq/core/internal/fsx"
	"path"

	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/corehq/core/internal/ignore"
)

// walker lists the files of one directory tree that any of its sets
// wants: a target's inputs, or a project's part (the union of its
// targets' inputs, without the directories of projects nested in it).
type walker struct {
	ign  *ignore.Rule
	pats *patternCache
	abs  string // the directory walked
	base string // its path relative to the workspace root ("." for the root)
	sets []*set
	skip map[string]bool // directories (relative to abs) not entered: nested projects
	// gitignore is set when a set has a wildcard glob, whose matches are
	// what git does not ignore: then the walk reads the .gitignore files
	// on its way down.
	gitignore bool
	files     []string
	// stamping records the directories read, for a Listing.
	stamping bool
	dirs     []dirStamp
}

// list walks w.abs and returns the wanted files, slash-separated,
// relative to it, sorted.
func (w *walker) list() ([]string, error) {
	if len(w.sets) == 0 {
		return nil, nil
	}
	for _, s := range w.sets {
		if s.wild {
			w.gitignore = true
		}
	}
	var pats ignore.Patterns
	ignored := false
	if w.gitignore {
		pats, ignored = w.pats.at(w.ign, w.base)
	}
	if err := w.dir("", pats, ignored, false); err != nil {
		return nil, err
	}
	slices.Sort(w.files)
	return w.files, nil
}

// rootRel is rel (relative to the walked directory) relative to the root.
func (w *walker) rootRel(rel string) string {
	if w.base == "." || w.base == "" {
		return rel
	}
	return w.base + "/" + rel
}

// dir walks the directory rel (relative to w.abs), in which the patterns
// pats are in force; with below, they are its parent's, and its own
// .gitignore (when its listing has one) is read here.
func (w *walker) dir(rel string, pats ignore.Patterns, ignored, below bool) error {
	abs := w.abs
	if rel != "" {
		abs = filepath.Join(w.abs, filepath.FromSlash(rel))
	}
	entries, err := w.readDir(abs)
	if err != nil {
		if rel != "" && errors.Is(err, fs.ErrNotExist) { // removed while we walked
			return nil
		}
		return err
	}
	if below && w.gitignore && !ignored {
		pats = w.pats.below(w.ign, pats, w.rootRel(rel), ignore.Listed(entries))
	}
	var m gitignore.Matcher
	if w.gitignore && !ignored && !pats.Empty() {
		m = pats.Matcher()
	}
	for _, e := range entries {
		name := e.Name()
		if ignore.NeverName(name) {
			continue // .git (a submodule's gitfile too) and node_modules
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		if e.IsDir() {
			rootChild := w.rootRel(child)
			if w.ign.NeverChild(rootChild, name) || w.skip[child] {
				continue
			}
			dirIgnored := ignored || m != nil && m.Match(strings.Split(rootChild, "/"), true)
			wanted := false
			for _, s := range w.sets {
				if s.dir(child, dirIgnored) {
					wanted = true
					break
				}
			}
			if !wanted {
				continue
			}
			if err := w.dir(child, pats, dirIgnored, true); err != nil {
				return err
			}
			continue
		}
		if t := e.Type(); !t.IsRegular() && t&fs.ModeSymlink == 0 {
			continue // sockets, devices, pipes
		}
		fileIgnored := ignored || m != nil && m.Match(strings.Split(w.rootRel(child), "/"), false)
		for _, s := range w.sets {
			if s.file(child, fileIgnored) {
				w.files = append(w.files, child)
				break
			}
		}
	}
	return nil
}

// readDir reads a directory's entries, in the order the file system
// gives them (list sorts what it keeps), stamping it first.
func (w *walker) readDir(abs string) ([]os.DirEntry, error) {
	f, err := fsx.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w.stamp(abs, f)
	return f.ReadDir(-1)
}

// patternCache keeps the .gitignore patterns in force in each directory a
// rule's walks have entered: every target of a project walks the same
// directories, and each would otherwise open every .gitignore (or fail to)
// again.
type patternCache struct {
	mu sync.Mutex
	m  map[string]cachedPatterns // by directory, relative to the root
}

type cachedPatterns struct {
	p       ignore.Patterns
	skipped bool
}

func (c *patternCache) get(dir string) (cachedPatterns, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[dir]
	return p, ok
}

func (c *patternCache) put(dir string, p cachedPatterns) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedPatterns{}
	}
	c.m[dir] = p
}

// at is ign.At(dir), once per directory: a directory's patterns are its
// parent's (from the cache) and its own .gitignore, so the root's
// .gitignore is read once for all the projects, not once for each.
func (c *patternCache) at(ign *ignore.Rule, dir string) (ignore.Patterns, bool) {
	if p, ok := c.get(dir); ok {
		return p.p, p.skipped
	}
	var p ignore.Patterns
	skipped := false
	if dir == "." || dir == "" {
		p, skipped = ign.At(dir)
	} else if parent, parentSkipped := c.at(ign, path.Dir(dir)); parentSkipped {
		skipped = true
	} else {
		p, skipped = ign.Step(parent, dir)
	}
	c.put(dir, cachedPatterns{p, skipped})
	return p, skipped
}

// below is ign.Below(parent, dir), once per directory; listed says
// whether dir's listing has a .gitignore (ignore.Listed): without one,
// parent's patterns are dir's.
func (c *patternCache) below(ign *ignore.Rule, parent ignore.Patterns, dir string, listed bool) ignore.Patterns {
	if !listed {
		return parent
	}
	if p, ok := c.get(dir); ok {
		return p.p
	}
	p := ign.Below(parent, dir)
	c.put(dir, cachedPatterns{p: p})
	return p
}

// nestedDirs are the directories, relative to the project at dir, of the
// projects whose directories lie inside it.
func nestedDirs(dir string, projectDirs []string) map[string]bool {
	out := map[string]bool{}
	for _, d := range projectDirs {
		switch {
		case d == dir:
		case dir == ".":
			out[d] = true
		case strings.HasPrefix(d, dir+"/"):
			out[d[len(dir)+1:]] = true
		}
	}
	return out
}

// relTo is the slash path f (relative to the root) relative to the
// directory dir, if f is inside it.
func relTo(dir, f string) (string, bool) { return fsx.Under(dir, f) }

// rootGlobSet is the rule of globs relative to the root (global inputs,
// a target's // inputs): every file they match, ignored or not.
func rootGlobSet(globs []string) *set {
	s := newSet(globs, nil)
	s.manifests = false
	return s
}
