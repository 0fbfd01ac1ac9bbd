package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/query"
)

// maxListed is how many rows of one group a terminal answer lists.
const maxListed = 40

// printKnowledge is the knowledge graph for a terminal: the projects, each
// with its path, targets and what the index found in it.
func printKnowledge(w io.Writer, g *graph.Graph) {
	kinds := map[string]int{}
	inProject := map[string]map[string]int{} // project -> kind -> count
	targets := map[string][]string{}
	for _, n := range g.Nodes {
		kinds[n.Kind]++
		if n.Project != "" && n.Kind != graph.KindTarget {
			if inProject[n.Project] == nil {
				inProject[n.Project] = map[string]int{}
			}
			inProject[n.Project][n.Kind]++
		}
		if n.Kind == graph.KindTarget {
			targets[n.Project] = append(targets[n.Project], n.Name)
		}
	}
	deps := map[string]map[string][]string{} // project id -> project it depends on -> why
	for _, e := range g.Edges {
		if why := depReason(e); why != "" {
			if deps[e.Source] == nil {
				deps[e.Source] = map[string][]string{}
			}
			name := strings.TrimPrefix(e.Target, "project:")
			deps[e.Source][name] = append(deps[e.Source][name], why)
		}
	}
	fmt.Fprintf(w, "%s and %s: %s\n\n", plural(len(g.Nodes), "node"), plural(len(g.Edges), "edge"), counts(kinds))
	for _, n := range g.Nodes {
		if n.Kind != graph.KindProject {
			continue
		}
		fmt.Fprintf(w, "%s  %s\n", n.Name, n.Path)
		if ts := targets[n.Name]; len(ts) > 0 {
			slices.Sort(ts)
			fmt.Fprintf(w, "  targets: %s\n", strings.Join(ts, ", "))
		}
		if d := deps[n.ID]; len(d) > 0 {
			var parts []string
			for _, name := range slices.Sorted(maps.Keys(d)) {
				why := d[name]
				slices.Sort(why)
				parts = append(parts, name+" ("+strings.Join(why, ", ")+")")
			}
			fmt.Fprintf(w, "  depends on: %s\n", strings.Join(parts, ", "))
		}
		if c := inProject[n.Name]; len(c) > 0 {
			fmt.Fprintf(w, "  holds: %s\n", counts(c))
		}
	}
	var spells []string
	for _, n := range g.Nodes {
		if n.Kind == graph.KindSpell {
			spells = append(spells, n.Name)
		}
	}
	if len(spells) > 0 {
		fmt.Fprintf(w, "\nspells: %s\n", strings.Join(spells, ", "))
	}
	fmt.Fprintln(w, "\n`core query TERMS` shows a part with its relations; --json the whole graph")
}

// printQuery is a query's answer for a terminal: the nodes by kind, each
// with where it is, and the relations among them in words.
func printQuery(w io.Writer, g *graph.Graph) {
	byKind := map[string][]graph.Node{}
	names := map[string]string{}
	for _, n := range g.Nodes {
		byKind[n.Kind] = append(byKind[n.Kind], n)
		names[n.ID] = label(n)
	}
	for _, k := range query.Kinds {
		ns := byKind[k]
		if len(ns) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d)\n", kindTitle(k), len(ns))
		for i, n := range ns {
			if i == maxListed {
				fmt.Fprintf(w, "  ... and %d more (--json lists all)\n", len(ns)-maxListed)
				break
			}
			fmt.Fprintf(w, "  %s\n", describeNode(n))
		}
	}
	if len(g.Edges) == 0 {
		return
	}
	fmt.Fprintf(w, "relations (%d)\n", len(g.Edges))
	rels := make([]string, 0, len(g.Edges))
	for _, e := range g.Edges {
		rels = append(rels, fmt.Sprintf("%s %s %s", names[e.Source], relation(e), names[e.Target]))
	}
	slices.Sort(rels)
	for i, r := range rels {
		if i == maxListed {
			fmt.Fprintf(w, "  ... and %d more (--json lists all)\n", len(rels)-maxListed)
			break
		}
		fmt.Fprintf(w, "  %s\n", r)
	}
}

// depReason says where a project dependency edge comes from: declared
// (in targets.yaml), the manifest that names it, or imports; "" for
// other edges.
func depReason(e graph.Edge) string {
	switch {
	case e.Kind == graph.EdgeDependsDeclared:
		return "declared"
	case e.Kind == graph.EdgeDependsInferred && e.Via != "":
		return e.Via
	case e.Kind == graph.EdgeDependsInferred:
		return "imports"
	}
	return ""
}

func kindTitle(k string) string {
	switch k {
	case graph.KindPackage:
		return "packages"
	case graph.KindSymbol:
		return "symbols"
	}
	return k + "s"
}

// label is how a node is named in a relation.
func label(n graph.Node) string {
	switch n.Kind {
	case graph.KindFile, graph.KindDoc:
		return n.Path
	case graph.KindTarget:
		return n.Project + ":" + n.Name
	case graph.KindSymbol:
		file, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "symbol:"), "#")
		return n.Name + " (" + file + ")"
	}
	return n.Name
}

// describeNode is one line per node: its name and where it lives.
func describeNode(n graph.Node) string {
	switch n.Kind {
	case graph.KindSymbol:
		file, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "symbol:"), "#")
		return fmt.Sprintf("%s  %s  %s:%d", n.Name, n.SymbolKind, file, n.Line)
	case graph.KindTarget:
		return fmt.Sprintf("%s:%s  %s", n.Project, n.Name, strings.Join(n.Command, " "))
	case graph.KindProject:
		return fmt.Sprintf("%s  %s", n.Name, n.Path)
	case graph.KindDoc:
		if n.Title != "" {
			return fmt.Sprintf("%s  %q", n.Path, n.Title)
		}
		return n.Path
	case graph.KindFile, graph.KindPackage:
		if n.Project != "" {
			return fmt.Sprintf("%s  (%s)", n.Path, n.Project)
		}
		return n.Path
	}
	return n.Name
}

// relation says an edge's kind as a verb, source first; a dependency a
// manifest names says which manifest.
func relation(e graph.Edge) string {
	if e.Kind == graph.EdgeDependsInferred && e.Via != "" {
		return "depends on (" + e.Via + ")"
	}
	switch e.Kind {
	case graph.EdgeReferences:
		return "uses"
	case graph.EdgeDepends:
		return "depends on"
	case graph.EdgeDependsDeclared:
		return "depends on (declared)"
	case graph.EdgeDependsInferred:
		return "imports from"
	case graph.EdgeOwns:
		return "declares"
	case graph.EdgeContains:
		return "contains"
	case graph.EdgeImports:
		return "imports"
	case graph.EdgeLinks:
		return "links to"
	case graph.EdgeMentions:
		return "mentions"
	}
	return e.Kind
}

// emptyHint says what to try when a query matches nothing.
func emptyHint(q *query.Query) string {
	if names, ok := q.SymbolNames(); ok {
		return fmt.Sprintf("no symbol is named %s; symbol:'%s*' matches names that start so, and a bare word matches any id or name", strings.Join(names, ", "), names[0])
	}
	return "try fewer terms, a bare word (it matches ids and names), or kind:project to see what there is"
}

// symbolHint is, for a query that matched nothing, the symbol: terms its
// bare words would have found: a bare word searches ids and names of the
// graph, not the symbols, so "Slugify" finds nothing where
// symbol:Slugify finds the function. A word is tried as typed and with its
// first letter's case swapped; find runs a query. "" when no symbol has
// such a name.
func symbolHint(args []string, find func(terms string) (*graph.Graph, error)) string {
	var terms []string
	for _, a := range args {
		for _, w := range strings.Fields(a) {
			if strings.Contains(w, ":") || !isIdentifier(w) {
				continue
			}
			terms = append(terms, "symbol:"+w)
			r, size := utf8.DecodeRuneInString(w)
			other := unicode.ToUpper(r)
			if unicode.IsUpper(r) {
				other = unicode.ToLower(r)
			}
			if swapped := string(other) + w[size:]; swapped != w {
				terms = append(terms, "symbol:"+swapped)
			}
		}
	}
	if len(terms) == 0 {
		return ""
	}
	g, err := find(strings.Join(terms, " ") + " depth:0")
	if err != nil || g == nil {
		return ""
	}
	where := map[string][]string{}
	for _, n := range g.Nodes {
		if n.Kind == graph.KindSymbol {
			where[n.Name] = append(where[n.Name], fmt.Sprintf("%s:%d", n.Path, n.Line))
		}
	}
	if len(where) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(where))
	var found []string
	for _, n := range names {
		at := where[n]
		slices.Sort(at)
		if total := len(at); total > 3 {
			at = append(at[:3:3], fmt.Sprintf("%d more", total-3))
		}
		found = append(found, fmt.Sprintf("symbol:%s (%s)", n, strings.Join(at, ", ")))
	}
	return fmt.Sprintf("a bare word searches the ids and names of projects, targets, files and docs, not symbols; %s: core query symbol:%s", strings.Join(found, ", "), names[0])
}

// isIdentifier reports whether w can be (part of) a symbol's name:
// letters, digits, _, $ and the dot of Type.Method.
func isIdentifier(w string) bool {
	if w == "" || len(w) > 128 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '$' && r != '.' {
			return false
		}
	}
	return true
}

// printTargets is the target graph for a terminal: each target with its
// dependencies and command.
func printTargets(w io.Writer, g *graph.Graph) {
	deps := map[string][]string{}
	for _, e := range g.Edges {
		deps[e.Source] = append(deps[e.Source], strings.TrimPrefix(e.Target, "target:"))
	}
	fmt.Fprintf(w, "%s, %s\n", plural(len(g.Nodes), "target"), plural(len(g.Edges), "dependency"))
	for _, n := range g.Nodes {
		line := n.Project + ":" + n.Name
		if d := deps[n.ID]; len(d) > 0 {
			slices.Sort(d)
			line += "  <- " + strings.Join(d, ", ")
		}
		fmt.Fprintf(w, "  %s\n      %s\n", line, strings.Join(n.Command, " "))
	}
}

func printDot(w io.Writer, g *graph.Graph) {
	fmt.Fprintln(w, "digraph targets {\n  rankdir=LR;\n  node [shape=box];")
	for _, n := range g.Nodes {
		fmt.Fprintf(w, "  %q;\n", n.Project+":"+n.Name)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(w, "  %q -> %q;\n", strings.TrimPrefix(e.Source, "target:"), strings.TrimPrefix(e.Target, "target:"))
	}
	fmt.Fprintln(w, "}")
}

func printMermaid(w io.Writer, g *graph.Graph) {
	id := map[string]string{}
	fmt.Fprintln(w, "graph LR")
	for i, n := range g.Nodes {
		id[n.ID] = fmt.Sprintf("t%d", i)
		fmt.Fprintf(w, "  t%d[\"%s:%s\"]\n", i, n.Project, n.Name)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(w, "  %s --> %s\n", id[e.Source], id[e.Target])
	}
}
