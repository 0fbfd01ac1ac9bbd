package index

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/index/parse"
)

// Found is a file the walk will index.
type Found struct {
	Path    string // slash-separated, relative to the root
	Size    int64
	ModTime int64
	Lang    string
}

// Diagnostic is a problem with one path that did not stop the index.
type Diagnostic struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// WalkOptions tune Discover.
type WalkOptions struct {
	// DocGlobs select the markdown files that are docs.
	DocGlobs []string
	// Rule says what is not the workspace's source (package ignore); nil
	// is the rule of a workspace whose cache directory is .core.
	Rule *ignore.Rule
	// MaxFileSize skips larger files (likely generated) with a diagnostic.
	MaxFileSize int64

	// only limits a walk to one entry of the starting directory.
	only string
	// record makes the walk note what it stats (see seenPath).
	record bool
	// found, if set, counts the files found as the walk goes (Progress).
	found *atomic.Int64
}

// DefaultMaxFileSize is the indexing limit per file.
const DefaultMaxFileSize = 2 << 20

// discoverUnder walks the directory rel (slash-separated, "." or "" for the
// root) as Discover would reach it: with the .gitignore patterns of every
// directory above it, and nothing at all if the rule skips rel.
func discoverUnder(root, rel string, opts WalkOptions) ([]Found, []Diagnostic) {
	w := newWalker(root, opts)
	p, skipped := w.rule.At(rel)
	if skipped {
		return nil, nil
	}
	if rel == "." {
		rel = ""
	}
	w.dir(rel, p, false)
	return w.found, w.diags
}

// LangOf returns the language of a file name, or "" if core does not index
// it.
func LangOf(name string) string {
	switch name {
	case "go.mod":
		return parse.LangGoMod
	case "package.json":
		return parse.LangPackageJSON
	}
	if parse.IsTSConfig(name) {
		return parse.LangTSConfig
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return parse.LangGo
	case ".ts", ".tsx", ".mts", ".cts":
		return parse.LangTypeScript
	case ".js", ".jsx", ".mjs", ".cjs":
		return parse.LangJavaScript
	case ".py":
		return parse.LangPython
	case ".md", ".markdown":
		return parse.LangMarkdown
	}
	return ""
}

// Discover walks root and lists the files to index, skipping what the
// ignore rule skips (.git, node_modules, the cache directory, what
// .gitignore files ignore), never following directory symlinks nor a
// symlink whose target is outside root. Paths it cannot use become
// diagnostics.
func Discover(root string, opts WalkOptions) ([]Found, []Diagnostic) {
	w := walk(root, opts)
	return w.found, w.diags
}

// walk walks the whole tree: its findings are the walker's found, diags
// and (with opts.record) seen.
func walk(root string, opts WalkOptions) *walker {
	w := newWalker(root, opts)
	w.dir("", ignore.Patterns{}, true)
	return w
}

type walker struct {
	root  string
	rule  *ignore.Rule
	opts  WalkOptions
	found []Found
	diags []Diagnostic
	seen  []seenPath // with opts.record

	realRoot string // root with its symlinks resolved, once a symlink needs it
	realDone bool
}

func newWalker(root string, opts WalkOptions) *walker {
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	rule := opts.Rule
	if rule == nil {
		rule = ignore.New(root, "")
	}
	return &walker{root: root, rule: rule, opts: opts}
}

func (w *walker) diag(rel, format string, args ...any) {
	w.diags = append(w.diags, Diagnostic{Path: rel, Message: fmt.Sprintf(format, args...)})
}

// dir walks the directory rel, in which the patterns p are in force;
// with below, p are its parent's, and its own .gitignore (if its listing
// has one: most directories have none, and a probe for each is an open
// that fails) is read here.
func (w *walker) dir(rel string, p ignore.Patterns, below bool) {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	if w.opts.record {
		// Before the read, so that an entry added while it runs changes
		// the directory after what was noted. The root is read through
		// a symlink, if it is one: the directory it points at is what an
		// entry added at the top changes.
		w.note(rel, rel == "" || rel == ".")
	}
	entries, err := fsx.ReadDir(abs)
	if err != nil {
		w.diag(rel, "directory skipped: %v", unwrapPath(err))
		return
	}
	if below && ignore.Listed(entries) {
		p = w.rule.Below(p, rel)
	}
	matcher := p.Matcher()
	for _, e := range entries {
		name := e.Name()
		if w.opts.only != "" && name != w.opts.only {
			continue
		}
		typ := e.Type()
		valid := utf8.ValidString(name)
		if w.opts.record && name == ".gitignore" {
			// An edit in place changes what the walk skips, and not
			// the directory.
			w.note(path.Join(rel, name), false)
		}
		if typ.IsRegular() && valid && LangOf(name) == "" {
			// Most files of a tree are in no language the index reads
			// (compiled, data, images): they cost no ignore match.
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		parts := strings.Split(childRel, "/")
		if !valid && !matcher.Match(parts, e.IsDir()) {
			// Node ids are JSON strings: two such names would both read
			// as U+FFFD there and collide, so they stay out, visibly.
			// The diagnostic's path is shown (and sent as a protobuf
			// string), so it is made valid; the message quotes the bytes.
			w.diag(strings.ToValidUTF8(childRel, "\uFFFD"), "skipped: the name %s is not valid UTF-8; rename it to index it", strconv.Quote(name))
			continue
		}
		if typ&fs.ModeSymlink != 0 {
			w.symlink(childRel, parts, matcher)
			continue
		}
		if e.IsDir() {
			if w.rule.NeverChild(childRel, name) || matcher.Match(parts, true) {
				continue
			}
			if w.opts.only == "" {
				w.dir(childRel, p, true)
			}
			continue
		}
		if !typ.IsRegular() || matcher.Match(parts, false) {
			continue
		}
		w.file(childRel, e)
	}
}

// symlink indexes a symlink to a file inside the workspace as that file;
// a symlink whose target resolves outside the workspace root is never
// followed (an untracked `evil.go -> /elsewhere/secret.go` would otherwise
// put another tree's symbols in the graph), and neither is a symlinked
// directory.
func (w *walker) symlink(rel string, parts []string, m gitignore.Matcher) {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	st, err := os.Stat(abs)
	if w.opts.record {
		// The target's identity, inside or not: a link whose target moves
		// out (or in) through a symlink elsewhere changes it.
		w.note(rel, false)
		w.seen = append(w.seen, seenPath{path: rel, follow: true, id: idOf(st, err)})
	}
	switch {
	case err != nil:
		w.diag(rel, "symlink skipped: %v (a loop, or its target is missing)", unwrapPath(err))
	case !w.inside(abs):
		if !m.Match(parts, st.IsDir()) {
			w.diag(rel, "symlink not followed: its target is outside the workspace")
		}
	case st.IsDir():
		if !m.Match(parts, true) {
			w.diag(rel, "symlinked directory not followed (its target is indexed where it lives)")
		}
	case st.Mode().IsRegular() && !m.Match(parts, false):
		w.add(rel, st)
	}
}

// inside reports whether the symlink at abs resolves, through every link
// on the way, to a path within the workspace root (itself resolved). When
// either cannot be resolved, it is not.
func (w *walker) inside(abs string) bool {
	if !w.realDone {
		w.realDone = true
		w.realRoot, _ = filepath.EvalSymlinks(w.root)
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil || w.realRoot == "" {
		return false
	}
	rel, err := filepath.Rel(w.realRoot, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (w *walker) file(rel string, e fs.DirEntry) {
	if LangOf(e.Name()) == "" {
		return
	}
	info, err := e.Info()
	if w.opts.record {
		w.seen = append(w.seen, seenPath{path: rel, id: idOf(info, err)})
	}
	if err != nil {
		w.diag(rel, "file skipped: %v", unwrapPath(err))
		return
	}
	w.add(rel, info)
}

func (w *walker) add(rel string, info fs.FileInfo) {
	lang := LangOf(path.Base(rel))
	if lang == "" {
		return
	}
	if lang == parse.LangMarkdown && !w.isDoc(rel) {
		return
	}
	if info.Size() > w.opts.MaxFileSize {
		w.diag(rel, "file skipped: %d bytes is over the %d-byte indexing limit (generated?)", info.Size(), w.opts.MaxFileSize)
		return
	}
	w.found = append(w.found, Found{Path: rel, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Lang: lang})
	if w.opts.found != nil {
		w.opts.found.Add(1)
	}
}

func (w *walker) isDoc(rel string) bool {
	for _, g := range w.opts.DocGlobs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
