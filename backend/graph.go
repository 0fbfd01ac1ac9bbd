package backend

import (
	"cmp"
	"encoding/json"
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

// GraphPage is a page of a query's neighbourhood, for an agent: nodes in
// id order, and the edges among the nodes of the page.
type GraphPage struct {
	Nodes      []graph.Node `json:"nodes"`
	Edges      []graph.Edge `json:"edges"`
	EdgesTotal int          `json:"edges_total" jsonschema:"edges among this page's nodes, shown or not"`
	Paging
}

// The bounds of a query's page of nodes.
var graphLimits = listLimits{def: 200, max: 400}

// QueryPage is a page of the neighbourhood that terms select: at most
// the limit of nodes, and the answer within the budget (nodes first, then
// the edges among them that fit).
func (g *Graph) QueryPage(terms string, r PageRequest) (GraphPage, error) {
	gr, err := g.Query(terms)
	if err != nil {
		return GraphPage{}, err
	}
	nodes, p, err := page(gr.Nodes, question("query_graph", terms), r, graphLimits, listBudget/2,
		"narrow the query: kind:, project:, path:, depth:0")
	if err != nil {
		return GraphPage{}, err
	}
	keep := make(map[string]bool, len(nodes))
	size := 0
	for _, n := range nodes {
		keep[n.ID] = true
		b, _ := json.Marshal(n)
		size += len(b) + 1
	}
	out := GraphPage{Nodes: nodes, Edges: []graph.Edge{}, Paging: p}
	for _, e := range gr.Edges {
		if !keep[e.Source] || !keep[e.Target] {
			continue
		}
		out.EdgesTotal++
		b, _ := json.Marshal(e)
		if size += len(b) + 1; size <= listBudget {
			out.Edges = append(out.Edges, e)
		}
	}
	if len(out.Edges) < out.EdgesTotal {
		out.Note = strings.TrimPrefix(out.Note+fmt.Sprintf("; %d of the %d edges among these nodes shown (the answer's budget is %d KB): explain_node lists one node's edges", len(out.Edges), out.EdgesTotal, AnswerBudget>>10), "; ")
	}
	return out, nil
}

// Explanation is one node with its edges in and out, and the node at the
// other end: a page of them, and how many there are of each kind.
type Explanation struct {
	Node   graph.Node  `json:"node"`
	Counts []EdgeCount `json:"counts" jsonschema:"how many edges the node has, by direction and kind"`
	Edges  []Link      `json:"edges" jsonschema:"a page of its edges: in first, then out, each by kind and node"`
	Paging
}

// EdgeCount counts a node's edges of one direction and kind.
type EdgeCount struct {
	Direction string `json:"direction" jsonschema:"in (the other node points at this one) or out"`
	Kind      string `json:"kind"`
	Count     int    `json:"count"`
}

// Link is an edge of an explained node.
type Link struct {
	Direction string `json:"direction" jsonschema:"in or out"`
	Kind      string `json:"kind"`
	Node      string `json:"node"`
	Name      string `json:"name,omitempty"`
}

// The bounds of a page of a node's edges.
var edgeLimits = listLimits{def: 100, max: 500}

// Explain describes the node id: its edges of kind ("" for all), a page
// of them.
func (g *Graph) Explain(id, kind string, r PageRequest) (Explanation, error) {
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
		return Explanation{}, apierr.NotFound("no node %s: query_graph finds ids (a WORD term matches ids and names), find_symbol finds symbols", quote.Short(id))
	}
	var in, out []Link
	counts := map[EdgeCount]int{}
	for _, ed := range gr.Edges {
		var l Link
		switch id {
		case ed.Target:
			l = Link{"in", ed.Kind, ed.Source, names[ed.Source]}
		case ed.Source:
			l = Link{"out", ed.Kind, ed.Target, names[ed.Target]}
		default:
			continue
		}
		counts[EdgeCount{Direction: l.Direction, Kind: l.Kind}]++
		if kind != "" && l.Kind != kind {
			continue
		}
		if l.Direction == "in" {
			in = append(in, l)
		} else {
			out = append(out, l)
		}
	}
	e.Counts = []EdgeCount{}
	for c, n := range counts {
		c.Count = n
		e.Counts = append(e.Counts, c)
	}
	slices.SortFunc(e.Counts, func(a, b EdgeCount) int {
		return cmp.Or(cmp.Compare(a.Direction, b.Direction), cmp.Compare(a.Kind, b.Kind))
	})
	if kind != "" && !slices.ContainsFunc(e.Counts, func(c EdgeCount) bool { return c.Kind == kind }) {
		return e, apierr.BadRequest("%s has no edge of kind %s: counts lists its kinds", quote.Short(id), quote.Short(kind))
	}
	links := append(in, out...)
	var err error
	if e.Edges, e.Paging, err = page(links, question("explain_node", id, kind), r, edgeLimits, listBudget, "kind keeps one kind of edge (counts lists them)"); err != nil {
		return Explanation{}, err
	}
	if e.Edges == nil {
		e.Edges = []Link{}
	}
	return e, nil
}
