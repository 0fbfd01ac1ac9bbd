package workspace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// Problem is one thing wrong with targets.yaml, with its position and the
// dotted field path it concerns (e.g. "projects.api.targets.build.deps[0]").
type Problem struct {
	File    string
	Line    int
	Column  int // 0 when only the line is known (YAML syntax errors)
	Field   string
	Message string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteByte(':')
	}
	if p.Line > 0 {
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteByte(':')
		if p.Column > 0 {
			b.WriteString(strconv.Itoa(p.Column))
			b.WriteByte(':')
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error lists every problem found in targets.yaml, in file order.
type Error struct {
	Problems []Problem
}

// maxLines bounds the problems Error lists: a file with thousands of
// mistakes makes a diagnostic of a screenful, not of megabytes.
const maxLines = 50

// Error returns one line per problem, the first maxLines of them.
func (e *Error) Error() string {
	lines := make([]string, 0, min(len(e.Problems), maxLines)+1)
	for i, p := range e.Problems {
		if i == maxLines {
			lines = append(lines, fmt.Sprintf("... and %d more problems", len(e.Problems)-maxLines))
			break
		}
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// newError orders problems by position; problems at the same position keep
// the order they were found in, which is itself deterministic.
func newError(problems []Problem) *Error {
	sort.SliceStable(problems, func(i, j int) bool {
		a, b := problems[i], problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return &Error{Problems: problems}
}

// listNames formats names for "allowed: ..." style hints, capped so a huge
// workspace does not produce a wall of text.
func listNames(names []string) string {
	const max = 20
	parts := make([]string, 0, min(len(names), max))
	for _, n := range names[:min(len(names), max)] {
		parts = append(parts, quote.Prefix(n))
	}
	if len(names) > max {
		return strings.Join(parts, ", ") + fmt.Sprintf(", ... (%d more)", len(names)-max)
	}
	return strings.Join(parts, ", ")
}

// flowList writes argv as a YAML flow sequence, quoting only what needs it,
// for messages that show the fix: run: [go, build]. Like every quote of the
// file's values, it is bounded: the first 10 items, each cut short.
func flowList(items []string) string {
	const max = 10
	parts := make([]string, 0, min(len(items), max)+1)
	for i, s := range items {
		if i == max {
			parts = append(parts, "...")
			break
		}
		switch {
		case quote.Prefix(s) != s: // long: quoted and cut
			parts = append(parts, quote.Short(s))
		case plainSafe(s):
			parts = append(parts, s)
		default:
			parts = append(parts, strconv.Quote(s))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func plainSafe(s string) bool {
	if s == "" || s == "-" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.' || c == '/' || c == '_' || c == '=' || c == '+' || c == '-':
		case (c == '@' || c == '%') && i > 0:
		default:
			return false
		}
	}
	return true
}
