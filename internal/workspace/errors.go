package workspace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
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

// Error returns one line per problem.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
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
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(", ... (%d more)", len(names)-max)
	}
	return strings.Join(names, ", ")
}

// flowList writes argv as a YAML flow sequence, quoting only what needs it,
// for messages that show the fix: run: [go, build].
func flowList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		if plainSafe(s) {
			parts[i] = s
		} else {
			parts[i] = strconv.Quote(s)
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
