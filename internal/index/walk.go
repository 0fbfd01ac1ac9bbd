package index

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

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
	// Skip reports directories (relative, slash-separated) never to enter,
	// beyond .git and node_modules: the cache directory.
	Skip func(rel string) bool
	// MaxFileSize skips larger files (likely generated) with a diagnostic.
	MaxFileSize int64

	// only limits a walk to one entry of the starting directory.
	only string
}

// DefaultMaxFileSize is the indexing limit per file.
const DefaultMaxFileSize = 2 << 20

// discoverUnder walks the directory rel (slash-separated, "." or "" for the
// root) as Discover would reach it: with the .gitignore patterns of every
// directory above it, and nothing at all if one of them ignores rel.
func discoverUnder(root, rel string, opts WalkOptions) ([]Found, []Diagnostic) {
	if rel == "." {
		rel = ""
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	var inherited []gitignore.Pattern
	if rel != "" {
		parts := strings.Split(rel, "/")
		for i := range parts {
			dirRel := strings.Join(parts[:i], "/")
			inherited = append(inherited, readGitignore(filepath.Join(root, filepath.FromSlash(dirRel)), dirRel)...)
			if parts[i] == ".git" || parts[i] == "node_modules" || (opts.Skip != nil && opts.Skip(strings.Join(parts[:i+1], "/"))) ||
				gitignore.NewMatcher(inherited).Match(parts[:i+1], true) {
				return nil, nil
			}
		}
	}
	w := &walker{root: root, opts: opts}
	w.dir(rel, inherited)
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

// Discover walks root and lists the files to index, honouring .gitignore
// files (each applies to its directory and below), never entering .git,
// node_modules or what opts.Skip rejects, and never following directory
// symlinks. Paths it cannot use become diagnostics.
func Discover(root string, opts WalkOptions) ([]Found, []Diagnostic) {
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	w := &walker{root: root, opts: opts}
	w.dir("", nil)
	return w.found, w.diags
}

type walker struct {
	root  string
	opts  WalkOptions
	found []Found
	diags []Diagnostic
}

func (w *walker) diag(rel, format string, args ...any) {
	w.diags = append(w.diags, Diagnostic{Path: rel, Message: fmt.Sprintf(format, args...)})
}

func (w *walker) dir(rel string, inherited []gitignore.Pattern) {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.diag(rel, "directory skipped: %v", unwrapPath(err))
		return
	}
	patterns := inherited
	if own := readGitignore(abs, rel); len(own) > 0 {
		patterns = append(append([]gitignore.Pattern(nil), inherited...), own...)
	}
	matcher := gitignore.NewMatcher(patterns)
	for _, e := range entries {
		name := e.Name()
		if w.opts.only != "" && name != w.opts.only {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		parts := strings.Split(childRel, "/")
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			w.symlink(childRel, parts, matcher)
			continue
		}
		if e.IsDir() {
			if name == ".git" || name == "node_modules" || (w.opts.Skip != nil && w.opts.Skip(childRel)) || matcher.Match(parts, true) {
				continue
			}
			if w.opts.only == "" {
				w.dir(childRel, patterns)
			}
			continue
		}
		if !typ.IsRegular() || matcher.Match(parts, false) {
			continue
		}
		w.file(childRel, e)
	}
}

func (w *walker) symlink(rel string, parts []string, m gitignore.Matcher) {
	st, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(rel)))
	switch {
	case err != nil:
		w.diag(rel, "symlink skipped: %v (a loop, or its target is missing)", unwrapPath(err))
	case st.IsDir():
		if !m.Match(parts, true) {
			w.diag(rel, "symlinked directory not followed (its target is indexed where it lives, if inside the workspace)")
		}
	case st.Mode().IsRegular() && !m.Match(parts, false):
		w.add(rel, st)
	}
}

func (w *walker) file(rel string, e fs.DirEntry) {
	if LangOf(e.Name()) == "" {
		return
	}
	info, err := e.Info()
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
}

func (w *walker) isDoc(rel string) bool {
	for _, g := range w.opts.DocGlobs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// readGitignore parses dir/.gitignore; its patterns apply below rel.
func readGitignore(abs, rel string) []gitignore.Pattern {
	f, err := os.Open(filepath.Join(abs, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var domain []string
	if rel != "" {
		domain = strings.Split(rel, "/")
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
