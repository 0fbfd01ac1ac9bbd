package insight

import (
	"bytes"
	"os"
	"path/filepath"
)

// cxEntry is a file's complexity as measured.
type cxEntry struct {
	cx  int
	ok  bool
	gen bool // its bytes say it is generated (generatedContent)
}

// measured is a file's complexity, its indentation-weighted count of non-blank lines:
// each non-blank line counts 1 plus its indentation depth (a tab or four
// spaces per level), a cheap measure that works for any language. ok is
// false for a file that is gone, binary (a NUL in its first 8 KiB) or over
// 1 MiB. A file is measured once, from the working tree, and again only
// when a commit read later touches it: the complexity of a hotspot is the
// file's as of its last commit, and one new commit costs a measure of its
// own files, not a stat of every file (update forgets what it touches).
// The same read says whether the file's bytes call it generated. e.mu is
// held.
func (e *Engine) measured(rel string) cxEntry {
	if c, ok := e.cx[rel]; ok {
		return c
	}
	var c cxEntry
	abs := filepath.Join(e.root, filepath.FromSlash(rel))
	if st, err := os.Lstat(abs); err == nil && st.Mode().IsRegular() && st.Size() <= complexityFile {
		if data, err := os.ReadFile(abs); err == nil {
			c.cx, c.ok = measure(data)
			c.gen = c.ok && generatedContent(data)
		}
	}
	if e.cx == nil {
		e.cx = map[string]cxEntry{}
	}
	e.cx[rel] = c
	return c
}

// measure computes the complexity of a file's bytes.
func measure(data []byte) (int, bool) {
	if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		return 0, false
	}
	total := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		cols, rest := 0, line
		for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
			if rest[0] == '\t' {
				cols += 4
			} else {
				cols++
			}
			rest = rest[1:]
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			continue
		}
		total += 1 + cols/4
	}
	return total, true
}
