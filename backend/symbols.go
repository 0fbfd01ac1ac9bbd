package backend

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"
)

// Symbols is what find_symbol answers: the declarations whose names match,
// best first, each with the files that reference it (its neighbours,
// never counted as matches).
type Symbols struct {
	Query   string   `json:"query"`
	Matches []Symbol `json:"matches" jsonschema:"declarations whose name matches, best first"`
	Hint    string   `json:"hint,omitempty" jsonschema:"what to try when nothing matched"`
	Paging
}

// Symbol is a declaration with the files that reference it.
type Symbol struct {
	ID   string `json:"id" jsonschema:"the node id: symbol_context and explain_node take it"`
	Name string `json:"name"`
	Kind string `json:"kind" jsonschema:"func, method, type, const, var, class, function, ..."`
	File string `json:"file"`
	Line int    `json:"line"`
	// Project owns the file.
	Project string `json:"project,omitempty"`
	Score   int    `json:"score" jsonschema:"how well the name matches: 1000 the whole name, 900 its last part (Start for Runner.Start), less for a subsequence"`
	// References are what references it (at most maxReferences),
	// ReferencesTotal how many do.
	References      []string `json:"references" jsonschema:"what references it (at most 20): the declarations (symbol ids) or files (paths) that use it; symbol_context shows the lines"`
	ReferencesTotal int      `json:"references_total"`
}

// The bounds of find_symbol's answers.
var symbolLimits = listLimits{def: 20, max: 100}

const maxReferences = 20

// FindSymbols finds the declarations whose names match pattern: a ranked
// subsequence match of the name or its last part (Start finds
// Runner.Start), or, with a *, a glob of the whole name. kind keeps one
// kind of declaration ("" for all).
func (g *Graph) FindSymbols(pattern, kind string, r PageRequest) (Symbols, error) {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" || strings.ContainsAny(pattern, " \t\n") || len(pattern) > 128 {
		return Symbols{}, apierr.BadRequest("name is required: one word of at most 128 bytes, such as Add, Server.Start, srvst or Serve*")
	}
	terms := "kind:symbol depth:0"
	if strings.Contains(pattern, "*") {
		terms = "symbol:" + pattern + " depth:0"
	}
	gr, err := g.Query(terms)
	if err != nil {
		return Symbols{}, err
	}
	var all []Symbol
	kinds := map[string]bool{}
	for _, n := range gr.Nodes {
		if n.Kind != graph.KindSymbol {
			continue
		}
		kinds[n.SymbolKind] = true
		if kind != "" && n.SymbolKind != kind {
			continue
		}
		score := 500 // a glob's matches rank alike
		if !strings.Contains(pattern, "*") {
			if score = suggest.Fuzzy(pattern, n.Name); score == 0 {
				continue
			}
		}
		file, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "symbol:"), "#")
		all = append(all, Symbol{ID: n.ID, Name: n.Name, Kind: n.SymbolKind, File: file, Line: n.Line, Project: n.Project, Score: score})
	}
	slices.SortStableFunc(all, func(a, b Symbol) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	out := Symbols{Query: pattern}
	if out.Matches, out.Paging, err = page(all, question("find_symbol", pattern, kind), r, symbolLimits, listBudget, "a longer part of the name, or kind, narrows it"); err != nil {
		return Symbols{}, err
	}
	if len(all) == 0 {
		out.Matches = []Symbol{}
		switch {
		case kind != "" && !kinds[kind]:
			out.Hint = fmt.Sprintf("no symbol is of kind %s: leave kind out, or give one of the kinds the index holds", quote.Short(kind))
		case len(kinds) == 0 && !strings.Contains(pattern, "*"):
			out.Hint = "the index holds no symbol yet (it may still be indexing, or no file parses): query_graph with kind:file lists the files"
		default:
			out.Hint = fmt.Sprintf("no symbol name holds the letters of %s in order: try a shorter part of the name, Type.Method for a method, or query_graph with a WORD to search ids and names", quote.Short(pattern))
		}
		return out, nil
	}
	return out, g.references(out.Matches)
}

// references fills in the files that reference each symbol, from one
// query of their names.
func (g *Graph) references(syms []Symbol) error {
	var terms []string
	for _, s := range syms {
		terms = append(terms, "symbol:"+s.Name)
	}
	gr, err := g.Query(strings.Join(slices.Compact(slices.Sorted(slices.Values(terms))), " ") + " depth:1")
	if err != nil {
		return err
	}
	refs := map[string][]string{}
	for _, e := range gr.Edges {
		if e.Kind == graph.EdgeReferences {
			refs[e.Target] = append(refs[e.Target], strings.TrimPrefix(e.Source, "file:"))
		}
	}
	for i := range syms {
		r := slices.Compact(slices.Sorted(slices.Values(refs[syms[i].ID])))
		syms[i].ReferencesTotal = len(r)
		syms[i].References = append([]string{}, r[:min(len(r), maxReferences)]...)
	}
	return nil
}

// SymbolContext is a symbol's definition and its callers, each a snippet
// with the lines that name it, for an agent: what GET
// /api/v1/diff/context answers (the same code), fitted to the budget.
type SymbolContext struct {
	diff.Context
	Note string `json:"note,omitempty" jsonschema:"what was left out, and why"`
}

// SymbolContext is the context of the symbol id (symbol:<path>#<name>),
// or of the one declaration name finds best (an exact name or its last
// part); more than one such declaration is an invalid argument naming
// them.
func (g *Graph) SymbolContext(ctx context.Context, rv *Review, id, name string) (SymbolContext, error) {
	switch {
	case id != "" && name != "":
		return SymbolContext{}, apierr.BadRequest("give id or name, not both")
	case id == "" && name == "":
		return SymbolContext{}, apierr.BadRequest("give id (symbol:<path>#<name>, as find_symbol and read_diff name them) or name")
	case id == "":
		found, err := g.FindSymbols(name, "", PageRequest{Limit: 10})
		if err != nil {
			return SymbolContext{}, err
		}
		var best []Symbol
		for _, s := range found.Matches {
			if s.Score >= 800 && (len(best) == 0 || s.Score == best[0].Score) {
				best = append(best, s)
			}
		}
		switch {
		case len(best) == 1:
			id = best[0].ID
		case len(best) > 1:
			ids := make([]string, len(best))
			for i, s := range best {
				ids[i] = s.ID
			}
			return SymbolContext{}, apierr.BadRequest("%s names %d declarations: give id, one of %s", quote.Short(name), len(best), strings.Join(ids, ", "))
		default:
			hint := found.Hint
			if len(found.Matches) > 0 {
				hint = "closest: " + found.Matches[0].ID
			}
			return SymbolContext{}, apierr.NotFound("no declaration is named %s: %s", quote.Short(name), hint)
		}
	}
	c, err := rv.Context(ctx, id)
	if err != nil {
		return SymbolContext{}, err
	}
	out := SymbolContext{Context: c}
	for len(out.Callers) > 0 && encodedLen(out) > listBudget {
		out.Callers = out.Callers[:len(out.Callers)-1]
		out.Note = fmt.Sprintf("%d of %d callers shown (the answer's budget is %d KB)", len(out.Callers), out.CallersTotal, AnswerBudget>>10)
	}
	if out.Note == "" && out.CallersTotal > len(out.Callers) {
		out.Note = fmt.Sprintf("%d of %d callers shown: find_symbol lists every file that references it", len(out.Callers), out.CallersTotal)
	}
	return out, nil
}
