package parse

import (
	"bytes"
	"strconv"
)

// Generated JavaScript is read by machines, not people: a minified bundle,
// or compiled output that names its source map. Parsing it is most of the
// cost of indexing a tree that holds some (it parses at a third of the
// speed of declarations, a megabyte a line), and what it would add is
// noise: one-letter names, or a second copy of every symbol whose source is
// indexed where it lives. Such a file keeps its node, with a diagnostic
// that says why it holds nothing.

// minifiedMinSize is the size under which a file is never called
// minified: a short file parses in no time, and a hand-written one may be
// a single long line.
const minifiedMinSize = 4 << 10

// minifiedLineLength is the average line length above which a file is
// minified. Hand-written JavaScript averages 30 to 50 characters a line;
// Linguist, which GitHub uses to hide generated files, draws its line at 110.
const minifiedLineLength = 110

// generatedJS says why a JavaScript file is generated ("" if it is not).
func generatedJS(src []byte) string {
	if hasSourceMapComment(src) {
		return "not indexed: generated JavaScript (it ends with a sourceMappingURL comment; its source is indexed instead, where the workspace holds it)"
	}
	if len(src) >= minifiedMinSize {
		lines := bytes.Count(src, []byte{'\n'})
		if src[len(src)-1] != '\n' {
			lines++
		}
		if avg := len(src) / lines; avg > minifiedLineLength {
			return "not indexed: minified JavaScript (its lines average " + strconv.Itoa(avg) + " characters)"
		}
	}
	return ""
}

// hasSourceMapComment reports whether one of the last two non-empty lines
// of src is a source map comment, which compilers and bundlers write last.
func hasSourceMapComment(src []byte) bool {
	rest := bytes.TrimRight(src, " \t\r\n")
	for range 2 {
		if len(rest) == 0 {
			return false
		}
		line := rest[bytes.LastIndexByte(rest, '\n')+1:]
		line = bytes.TrimLeft(line, " \t")
		if bytes.HasPrefix(line, []byte("//# sourceMappingURL=")) || bytes.HasPrefix(line, []byte("//@ sourceMappingURL=")) {
			return true
		}
		rest = bytes.TrimRight(rest[:len(rest)-len(line)], " \t\r\n")
	}
	return false
}
