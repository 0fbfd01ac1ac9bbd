package insight

import (
	"bytes"
	"os"
	"path/filepath"
	"time"
)

// cxEntry is a file's complexity as last measured, valid while its size
// and modification time stay the same.
type cxEntry struct {
	size  int64
	mtime time.Time
	cx    int
	ok    bool
}

// complexity is a file's indentation-weighted count of non-blank lines:
// each non-blank line counts 1 plus its indentation depth (a tab or four
// spaces per level), a cheap measure that works for any language. ok is
// false for a file that is gone, binary (a NUL in its first 8 KiB) or over
// 1 MiB. e.mu is held.
func (e *Engine) complexity(rel string) (int, bool) {
	abs := filepath.Join(e.root, filepath.FromSlash(rel))
	st, err := os.Lstat(abs)
	if err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	if e.cx == nil {
		e.cx = map[string]cxEntry{}
	}
	if c, ok := e.cx[rel]; ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
		return c.cx, c.ok
	}
	c := cxEntry{size: st.Size(), mtime: st.ModTime()}
	if st.Size() <= complexityFile {
		if data, err := os.ReadFile(abs); err == nil {
			c.cx, c.ok = measure(data)
		}
	}
	e.cx[rel] = c
	return c.cx, c.ok
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
