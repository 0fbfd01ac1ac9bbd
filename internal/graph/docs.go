package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// skipDirs are never searched for docs: version control, core's own cache
// and installed packages.
var skipDirs = map[string]bool{".git": true, ".core": true, "node_modules": true}

// maxTitleBytes is how much of a doc is read to find its title.
const maxTitleBytes = 64 << 10

type doc struct {
	path  string // slash-separated, relative to the root
	title string
}

func (d doc) name() string {
	if d.title != "" {
		return d.title
	}
	return path.Base(d.path)
}

// findDocs walks fsys once and returns the regular files matching any of
// the globs, in walk (lexical) order. Unreadable directories are skipped; a
// doc whose title cannot be read is still listed.
func findDocs(fsys fs.FS, globs []string) ([]doc, error) {
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("graph: invalid doc glob %q", g)
		}
	}
	if len(globs) == 0 {
		return nil, nil
	}
	var docs []doc
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		for _, g := range globs {
			if doublestar.MatchUnvalidated(g, p) {
				docs = append(docs, doc{path: p, title: readTitle(fsys, p)})
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graph: find docs: %w", err)
	}
	return docs, nil
}

func readTitle(fsys fs.FS, p string) string {
	f, err := fsys.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTitleBytes))
	if err != nil {
		return ""
	}
	return Title(data)
}

// Title returns the text of a Markdown document's first level-one ATX
// heading ("# Title"), ignoring YAML front matter and fenced code blocks,
// or "" when it has none.
func Title(md []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 0, 4096), maxTitleBytes)
	first, frontMatter := true, false
	fence := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if first {
			first = false
			if line == "---" {
				frontMatter = true
				continue
			}
		}
		if frontMatter {
			if line == "---" || line == "..." {
				frontMatter = false
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue // indented code
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			continue
		}
		if t, ok := strings.CutPrefix(trimmed, "#"); ok && (t == "" || t[0] == ' ' || t[0] == '\t') {
			if title := headingText(t); title != "" {
				return title
			}
		}
	}
	return ""
}

// fenceOf returns the fence (``` or ~~~, three or more) opening a code
// block on line, or "".
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// headingText strips the optional closing sequence of #s of an ATX heading.
func headingText(t string) string {
	t = strings.TrimSpace(t)
	if end := strings.TrimRight(t, "#"); end != t {
		if end == "" {
			return ""
		}
		if last := end[len(end)-1]; last == ' ' || last == '\t' {
			t = end
		}
	}
	return strings.TrimSpace(t)
}
