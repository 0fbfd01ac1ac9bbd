// Package ignore is core's one rule for which paths of a workspace are not
// its source. It has two layers, and this comment is the one place that
// says who applies which:
//
//   - Never: version control (.git), dependency trees (node_modules) and
//     core's cache directory, wherever it is (.core by default). No part
//     of core enters them: the index, the file watcher and the runner's
//     input walk all skip them, whatever a glob or a .gitignore says. The
//     watcher would otherwise see core's own writes as edits.
//   - .gitignore: what git ignores is not indexed and not watched, as git
//     reads the files: each .gitignore applies to its directory and below.
//     A target's inputs leave it out too, unless an input glob without a
//     wildcard names it (package inputs says so, and why).
package ignore

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DefaultCacheDir is the cache directory's name when none is configured.
const DefaultCacheDir = ".core"

// Rule is the rule of one workspace.
type Rule struct {
	root     string
	cacheRel string // the cache directory relative to the root; "" when outside it
}

// New returns the rule of the workspace at root whose cache directory is
// cacheDir ("" means root/.core).
func New(root, cacheDir string) *Rule {
	r := &Rule{root: root, cacheRel: DefaultCacheDir}
	if cacheDir != "" {
		r.cacheRel = ""
		if rel, err := filepath.Rel(root, cacheDir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			r.cacheRel = filepath.ToSlash(rel)
		}
	}
	return r
}

// Root is the workspace root.
func (r *Rule) Root() string { return r.root }

// Never reports whether rel (slash-separated, relative to the root) is, or
// is inside, a directory no part of core enters.
func (r *Rule) Never(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if NeverName(seg) {
			return true
		}
	}
	return r.isCache(rel)
}

// NeverChild is Never for a walk that has already checked the parent: the
// entry name of directory childRel.
func (r *Rule) NeverChild(childRel, name string) bool {
	return NeverName(name) || r.isCache(childRel)
}

// NeverName reports whether a directory called name is never entered,
// wherever it is: .git and node_modules. (The cache directory is the
// Rule's: it depends on the configuration.)
func NeverName(name string) bool { return name == ".git" || name == "node_modules" }

// isCache reports whether rel is the cache directory or inside it. The
// default name counts even when the cache lives elsewhere: a .core left
// from an earlier configuration is core's, not source.
func (r *Rule) isCache(rel string) bool {
	under := func(dir string) bool {
		return dir != "" && (rel == dir || strings.HasPrefix(rel, dir+"/"))
	}
	return under(DefaultCacheDir) || under(r.cacheRel)
}

// Patterns are the .gitignore patterns in force in one directory. The zero
// value holds none: the root's parent.
type Patterns struct {
	list []gitignore.Pattern
}

// Below returns the patterns in force in the directory rel (slash-separated,
// "" for the root) whose parent's patterns are p: p's and those of
// rel/.gitignore.
func (r *Rule) Below(p Patterns, rel string) Patterns {
	own := readGitignore(filepath.Join(r.root, filepath.FromSlash(rel)), rel)
	if len(own) == 0 {
		return p
	}
	return Patterns{list: append(append([]gitignore.Pattern(nil), p.list...), own...)}
}

// Listed reports whether a directory's entries hold a .gitignore: a walk
// that has read the directory calls Below only then, instead of opening
// a .gitignore in every directory (most have none).
func Listed(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.Name() == ".gitignore" {
			return true
		}
	}
	return false
}

// Empty reports whether no pattern is in force: nothing is ignored.
func (p Patterns) Empty() bool { return len(p.list) == 0 }

// Matcher matches paths against the patterns. Make it once per directory
// and ask it for each entry.
func (p Patterns) Matcher() gitignore.Matcher { return gitignore.NewMatcher(p.list) }

// At returns the patterns in force in the directory rel, read from the root
// down, and whether rel itself is skipped: by Never, or by a .gitignore
// above it.
func (r *Rule) At(rel string) (Patterns, bool) {
	if rel == "." {
		rel = ""
	}
	p := r.Below(Patterns{}, "")
	if rel == "" {
		return p, false
	}
	if r.Never(rel) {
		return Patterns{}, true
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		skipped := false
		if p, skipped = r.Step(p, strings.Join(parts[:i+1], "/")); skipped {
			return Patterns{}, true
		}
	}
	return p, false
}

// Step is one level of At: the patterns in force in the directory rel and
// whether it is skipped, given p, those of its parent (which is not). A
// walk that keeps what each directory's step gave reads every .gitignore
// once, however many of its walks pass through.
func (r *Rule) Step(p Patterns, rel string) (Patterns, bool) {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	if r.NeverChild(rel, name) || p.Matcher().Match(strings.Split(rel, "/"), true) {
		return Patterns{}, true
	}
	return r.Below(p, rel), false
}

// Skipped reports whether the path rel is not the workspace's source: by
// Never, or ignored by a .gitignore above it. It reads every .gitignore
// from the root down; walks use At, Below and a Matcher instead.
func (r *Rule) Skipped(rel string, isDir bool) bool {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	p, skipped := r.At(dir)
	if skipped || NeverName(name) || r.isCache(rel) {
		return true
	}
	return p.Matcher().Match(strings.Split(rel, "/"), isDir)
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
