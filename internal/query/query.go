// Package query is the query engine of the knowledge graph: it parses the
// query terms of `core query TERMS` and `GET /api/v1/graph?select=TERMS` and
// evaluates them over a graph.Graph.
//
// The terms are a contract (docs/console-api.md). A query is a
// space-separated list of terms; the seeds are the union of what the terms
// select, and the result is the seeds plus their neighbours within depth:N
// (default 1), following edges in both directions, with the edges among the
// result nodes. The terms:
//
//	kind:K                 every node of kind K (project, target, spell, doc, file, package, symbol)
//	project:NAME           the project node project:NAME
//	target:PROJECT:TARGET  the target node target:PROJECT:TARGET
//	spell:NAME             the spell node spell:NAME
//	symbol:NAME            symbol nodes whose name is NAME; * matches any run of characters (symbol:Server.*)
//	path:GLOB              file and doc nodes whose path matches GLOB (doublestar syntax: *, **, ?, [a-z], {a,b})
//	depth:N                how far to expand from the seeds, 0 to 10; at most once
//	WORD                   nodes whose id or name contains WORD, ignoring case
//
// Symbol nodes live in @symbols shards that are loaded only for queries that
// need them (console-api rule G3): Query.NeedsSymbols reports whether a query
// has a symbol: or kind:symbol term, and Eval calls its symbols function only
// then.
package query

import (
	"strconv"
	"strings"
)

// DefaultDepth is the expansion depth of a query without a depth: term, and
// MaxDepth the largest depth: allowed.
const (
	DefaultDepth = 1
	MaxDepth     = 10
)

// Kinds are the node kinds kind: accepts, in the order error messages list
// them.
var Kinds = []string{"project", "target", "spell", "doc", "file", "package", "symbol"}

// Error is a query that does not parse. Term is the offending term as given
// ("" for an empty query); Message names it and says what is allowed, and
// is what Error returns, fit for a 400 response body.
type Error struct {
	Term    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// op is what a term selects by.
type op uint8

const (
	opKind op = iota
	opProject
	opTarget
	opSpell
	opSymbol
	opPath
	opWord
)

// prefixes are the term prefixes of the selecting ops, indexed by op
// (opWord has none).
var prefixes = [...]string{
	opKind:    "kind:",
	opProject: "project:",
	opTarget:  "target:",
	opSpell:   "spell:",
	opSymbol:  "symbol:",
	opPath:    "path:",
	opWord:    "",
}

// term is one selecting term, normalized.
type term struct {
	op    op
	value string // kind, name, PROJECT:TARGET, glob; the lower-cased word for opWord
	// dir is, for opPath, the literal directory prefix of the glob (the
	// part before its first meta character, cut back to the last '/'):
	// every path the glob matches starts with it.
	dir string
}

func (t term) String() string { return prefixes[t.op] + t.value }

// Query is a parsed query. Build it with Parse; it is immutable and safe
// for concurrent use.
type Query struct {
	terms        []term // sorted by String, no duplicates
	depth        int
	needsSymbols bool
}

// Depth returns how far the query expands from its seeds.
func (q *Query) Depth() int { return q.depth }

// NeedsSymbols reports whether the query has a symbol: or kind:symbol term,
// the only queries for which the @symbols shards are loaded (rule G3).
func (q *Query) NeedsSymbols() bool { return q.needsSymbols }

// SymbolNames returns the names of a query that seeds only on exact symbol
// names (symbol:NAME terms without a glob) and expands at most one step:
// a query that a part of the symbol graph around those names answers (see
// Index.EvalPart).
func (q *Query) SymbolNames() ([]string, bool) {
	if q.depth > 1 {
		return nil, false
	}
	names := make([]string, 0, len(q.terms))
	for _, t := range q.terms {
		if t.op != opSymbol || strings.Contains(t.value, "*") {
			return nil, false
		}
		names = append(names, t.value)
	}
	return names, true
}

// String returns the normalized form of the query: its selecting terms
// sorted and deduplicated, bare words lower-cased, then depth:N when the
// depth is not the default. Queries that select the same thing the same
// way normalize alike, so the form serves as a cache key, and Parse of it
// yields an equal query.
func (q *Query) String() string {
	var b strings.Builder
	for i, t := range q.terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.String())
	}
	if q.depth != DefaultDepth {
		b.WriteString(" depth:")
		b.WriteString(strconv.Itoa(q.depth))
	}
	return b.String()
}
