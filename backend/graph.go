package backend

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/workspace"
)

// Graph is the knowledge graph area: the current graph, its variants
// (the target graph, the project skeleton) and queries over it.
type Graph struct {
	ws *live.Workspace
}

// Current is the current snapshot of the graph: its bytes, pre-encoded
// once per version, with the ETag that names it.
func (g *Graph) Current() (*live.Snapshot, error) {
	snap, err := g.ws.Current()
	if err != nil {
		return nil, apierr.Unavailable("%v", err)
	}
	return snap, nil
}

// Targets is the target graph (flavor=targets), reparsed from targets.yaml
// on every call (the spec's rule G2).
func (g *Graph) Targets() (*graph.Graph, error) {
	ws, err := workspace.Load(g.ws.Root())
	if err != nil {
		return nil, apierr.Unavailable("%v", err)
	}
	return graph.Targets(ws), nil
}

// Projects is the project skeleton (level=projects), reparsed from
// targets.yaml, with the dependencies the current graph infers and what
// each project holds in it (nodes by kind), so the explorer can open on
// projects without the whole graph.
func (g *Graph) Projects() (*graph.Graph, error) {
	ws, err := workspace.Load(g.ws.Root())
	if err != nil {
		return nil, apierr.Unavailable("%v", err)
	}
	var holds map[string]map[string]int
	if snap, err := g.ws.Current(); err == nil {
		holds = snap.Holds()
	}
	return graph.Projects(ws, g.ws.InferredDeps()...).WithHolds(holds), nil
}

// Query is the neighbourhood query terms select (select=), the same engine
// as `core query`. Terms that do not parse are an invalid argument whose
// message the front door prefixes with the name of its input.
func (g *Graph) Query(terms string) (*graph.Graph, error) {
	q, err := query.Parse(terms)
	if err != nil {
		return nil, apierr.BadRequest("%v", err)
	}
	out, err := g.ws.Query(q)
	if err != nil {
		return nil, apierr.Unavailable("%v", err)
	}
	return out, nil
}

// Capped is a graph answer bounded to max nodes and the edges among them,
// saying how to narrow when it cut: what an agent's context holds.
type Capped struct {
	Nodes     []graph.Node `json:"nodes"`
	Edges     []graph.Edge `json:"edges"`
	Truncated string       `json:"truncated,omitempty"`
}

// Cap bounds g to max nodes.
func Cap(g *graph.Graph, max int) Capped {
	if len(g.Nodes) <= max {
		return Capped{Nodes: g.Nodes, Edges: g.Edges}
	}
	keep := make(map[string]bool, max)
	for _, n := range g.Nodes[:max] {
		keep[n.ID] = true
	}
	var edges []graph.Edge
	for _, e := range g.Edges {
		if keep[e.Source] && keep[e.Target] {
			edges = append(edges, e)
		}
	}
	return Capped{Nodes: g.Nodes[:max], Edges: edges,
		Truncated: fmt.Sprintf("%d of %d nodes shown: narrow the query (kind:, project:, path:, depth:0)", max, len(g.Nodes))}
}

// Explanation is one node with every edge in and out, and the node at the
// other end.
type Explanation struct {
	Node graph.Node `json:"node"`
	In   []Link     `json:"in"`
	Out  []Link     `json:"out"`
}

// Link is an edge of an explained node.
type Link struct {
	Kind string `json:"kind"`
	Node string `json:"node"`
	Name string `json:"name,omitempty"`
}

// Explain describes the node id.
func (g *Graph) Explain(id string) (Explanation, error) {
	if id == "" {
		return Explanation{}, apierr.BadRequest("id is required, such as project:api")
	}
	var gr *graph.Graph
	if rest, ok := strings.CutPrefix(id, "symbol:"); ok {
		_, name, found := strings.Cut(rest, "#")
		if !found || name == "" || strings.ContainsAny(name, " \t\n*") {
			return Explanation{}, apierr.BadRequest("%s is not a symbol id: write symbol:<path>#<name>", quote.Short(id))
		}
		var err error
		if gr, err = g.Query("symbol:" + name); err != nil {
			return Explanation{}, err
		}
	} else {
		snap, err := g.Current()
		if err != nil {
			return Explanation{}, err
		}
		gr = snap.Graph()
	}
	names := make(map[string]string, len(gr.Nodes))
	var e Explanation
	found := false
	for _, n := range gr.Nodes {
		names[n.ID] = n.Name
		if n.ID == id {
			e.Node, found = n, true
		}
	}
	if !found {
		return Explanation{}, apierr.NotFound("no node %s: query_graph finds ids (a WORD term matches ids and names)", quote.Short(id))
	}
	e.In, e.Out = []Link{}, []Link{}
	for _, ed := range gr.Edges {
		switch id {
		case ed.Target:
			e.In = append(e.In, Link{ed.Kind, ed.Source, names[ed.Source]})
		case ed.Source:
			e.Out = append(e.Out, Link{ed.Kind, ed.Target, names[ed.Target]})
		}
	}
	return e, nil
}

// Symbol is a declaration with the files that reference it.
type Symbol struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Project    string   `json:"project,omitempty"`
	References []string `json:"references"`
}

// Symbols finds the declarations of a symbol by name (* globs).
func (g *Graph) Symbols(name string) ([]Symbol, error) {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n") {
		return nil, apierr.BadRequest("name is required, one word such as Add or Server.Start")
	}
	gr, err := g.Query("symbol:" + name)
	if err != nil {
		return nil, err
	}
	refs := map[string][]string{}
	for _, e := range gr.Edges {
		if e.Kind == graph.EdgeReferences {
			refs[e.Target] = append(refs[e.Target], strings.TrimPrefix(e.Source, "file:"))
		}
	}
	out := []Symbol{}
	for _, n := range gr.Nodes {
		if n.Kind != graph.KindSymbol {
			continue
		}
		file, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "symbol:"), "#")
		r := refs[n.ID]
		slices.Sort(r)
		if r == nil {
			r = []string{}
		}
		out = append(out, Symbol{n.ID, n.Name, n.SymbolKind, file, n.Line, n.Project, r})
	}
	return out, nil
}
