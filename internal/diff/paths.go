package diff

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/quote"
)

// Bounds of a path filter, which comes from outside (an agent's paths).
const (
	MaxFilterPaths = 64
	maxFilterPath  = 1024
)

// PathFilter keeps the files of a change that one of its paths names: a
// file, a directory (and everything under it), or a glob in doublestar's
// syntax without braces (*, **, ?, [a-z]). A renamed file is kept when
// either of its names is. The nil filter keeps everything.
type PathFilter struct {
	paths []string
}

// ParsePaths checks paths (slash-separated, relative to the workspace root,
// inside it) and makes their filter; none makes the nil filter.
func ParsePaths(paths []string) (*PathFilter, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > MaxFilterPaths {
		return nil, fmt.Errorf("%d paths are too many: give at most %d (a directory or a glob such as libs/** covers many files)", len(paths), MaxFilterPaths)
	}
	f := &PathFilter{}
	for _, p := range paths {
		switch {
		case p == "" || len(p) > maxFilterPath || !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\\"):
			return nil, fmt.Errorf("path %s is not a workspace path: write it slash-separated, relative to the workspace root, such as libs/util or libs/**/*_test.go", quote.Short(p))
		case strings.ContainsAny(p, "{}"):
			return nil, fmt.Errorf("path %s: braces are not taken; give each alternative as a path of its own", quote.Short(p))
		}
		clean := strings.TrimSuffix(path.Clean(p), "/")
		if clean == "." {
			return nil, nil // the whole workspace
		}
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, fmt.Errorf("path %s leaves the workspace: write it relative to the workspace root", quote.Short(p))
		}
		if !doublestar.ValidatePattern(clean) {
			return nil, fmt.Errorf("path %s is not a valid glob (*, **, ?, [a-z])", quote.Short(p))
		}
		f.paths = append(f.paths, clean)
	}
	return f, nil
}

// Match reports whether the filter keeps the file at p.
func (f *PathFilter) Match(p string) bool {
	if f == nil {
		return true
	}
	for _, s := range f.paths {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
		if strings.ContainsAny(s, "*?[") {
			if ok, _ := doublestar.Match(s, p); ok {
				return true
			}
			// A glob naming a directory keeps what is under it.
			for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
				if ok, _ := doublestar.Match(s, d); ok {
					return true
				}
			}
		}
	}
	return false
}

// MatchFile reports whether the filter keeps f (by its path or, renamed,
// its old path).
func (f *PathFilter) MatchFile(file File) bool {
	return f.Match(file.Path) || file.OldPath != "" && f.Match(file.OldPath)
}

// Paths are the filter's paths as given (cleaned).
func (f *PathFilter) Paths() []string {
	if f == nil {
		return nil
	}
	return append([]string(nil), f.paths...)
}
