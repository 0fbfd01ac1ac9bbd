// Package quote is the one way core quotes outside input in a message: a
// name, value, id or path that a client sent or a file declares. A reply,
// a log line or an event that echoes it holds at most its first MaxRunes
// runes, so that a huge input cannot make a huge answer (a 1 GB spell name
// once made a 1 GB error; a 100 KB value in targets.yaml went into every
// diagnostic event).
package quote

import (
	"strconv"
	"unicode/utf8"
)

// MaxRunes is how much of an input a message quotes.
const MaxRunes = 60

// Prefix is s cut after MaxRunes runes, with "..." when it was longer: for
// input shown without quotes, such as a key in a field path.
func Prefix(s string) string {
	if len(s) <= MaxRunes || utf8.RuneCountInString(s) <= MaxRunes {
		return s
	}
	return s[:cut(s)] + "..."
}

// cut is the byte length of s's first MaxRunes runes.
func cut(s string) int {
	n := 0
	for i := range s {
		if n == MaxRunes {
			return i
		}
		n++
	}
	return len(s)
}

// Short is s as a Go string literal, cut after MaxRunes runes with "..."
// after the closing quote when it is longer.
func Short(s string) string {
	if len(s) <= MaxRunes || utf8.RuneCountInString(s) <= MaxRunes {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cut(s)]) + "..."
}
