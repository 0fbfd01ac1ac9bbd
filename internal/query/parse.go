package query

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/quote"
)

const (
	allowedPrefixes = "kind:, project:, target:, spell:, symbol:, path:, depth:, or a bare word"
	selectingTerms  = "kind:, project:, target:, spell:, symbol:, path:, or a bare word"
	globHelp        = "doublestar syntax: *, **, ?, [a-z], {a,b}, with \\ escaping"
)

// Parse parses a query: terms separated by spaces, already URL-decoded.
// Every error is an *Error naming the offending term and what is allowed:
// an empty query, a term with an unknown prefix (a bare word has no ':'),
// a missing or malformed value, a bad glob, depth: out of range or given
// twice, or a depth: with nothing to expand from.
func Parse(s string) (*Query, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, &Error{Message: "empty query: give at least one term: " + selectingTerms}
	}
	q := &Query{depth: DefaultDepth}
	depthTerm := ""
	for _, raw := range fields {
		prefix, value, found := strings.Cut(raw, ":")
		if !found {
			q.terms = append(q.terms, term{op: opWord, value: strings.ToLower(raw)})
			continue
		}
		switch prefix {
		case "depth":
			if depthTerm != "" {
				return nil, errorf(raw, "depth: given twice (%s and %s); give it at most once", quote.Short(depthTerm), quote.Short(raw))
			}
			d, ok := parseDepth(value)
			if !ok {
				return nil, errorf(raw, "depth:%s must be a number from 0 to %d", quote.Short(value), MaxDepth)
			}
			q.depth, depthTerm = d, raw
		case "kind":
			if !slices.Contains(Kinds, value) {
				return nil, errorf(raw, "kind:%s is not a kind; allowed: %s", quote.Short(value), strings.Join(Kinds, ", "))
			}
			q.terms = append(q.terms, term{op: opKind, value: value})
		case "project", "spell", "symbol":
			if value == "" {
				return nil, errorf(raw, "%s: needs a name, as in %s:NAME", prefix, prefix)
			}
			o := opProject
			switch prefix {
			case "spell":
				o = opSpell
			case "symbol":
				o = opSymbol
			}
			q.terms = append(q.terms, term{op: o, value: value})
		case "target":
			if p, t, ok := strings.Cut(value, ":"); !ok || p == "" || t == "" {
				return nil, errorf(raw, "target:%s must name a project and a target, as in target:PROJECT:TARGET", quote.Short(value))
			}
			q.terms = append(q.terms, term{op: opTarget, value: value})
		case "path":
			if value == "" || !doublestar.ValidatePattern(value) {
				return nil, errorf(raw, "path:%s is not a valid glob (%s)", quote.Short(value), globHelp)
			}
			q.terms = append(q.terms, term{op: opPath, value: value, dir: literalDir(value)})
		default:
			return nil, errorf(raw, "unknown term %s: allowed prefixes are %s", quote.Short(raw), allowedPrefixes)
		}
	}
	if len(q.terms) == 0 {
		return nil, errorf(depthTerm, "%s selects nothing to expand from: add a term: %s", quote.Short(depthTerm), selectingTerms)
	}
	slices.SortFunc(q.terms, func(a, b term) int { return cmp.Compare(a.String(), b.String()) })
	q.terms = slices.CompactFunc(q.terms, func(a, b term) bool { return a.op == b.op && a.value == b.value })
	for _, t := range q.terms {
		if t.op == opSymbol || t.op == opKind && t.value == "symbol" {
			q.needsSymbols = true
		}
	}
	return q, nil
}

func errorf(t, format string, args ...any) *Error {
	return &Error{Term: t, Message: fmt.Sprintf(format, args...)}
}

// parseDepth parses a decimal depth from 0 to MaxDepth; leading zeros are
// fine, signs and spaces are not.
func parseDepth(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > MaxDepth {
			return 0, false
		}
	}
	return n, true
}

// literalDir returns the directory part of the literal prefix of a
// doublestar glob: the text before its first meta or escape character, cut
// back to (and without) the last '/'. Every path the glob matches starts
// with it; "a/**" matches "a" itself, hence no trailing slash.
func literalDir(glob string) string {
	lit := glob
	if i := strings.IndexAny(glob, `*?[{\`); i >= 0 {
		lit = glob[:i]
	}
	if i := strings.LastIndexByte(lit, '/'); i >= 0 {
		return lit[:i]
	}
	return ""
}
