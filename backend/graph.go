package backend

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/jsonx"
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

// Drawn is a query's answer as a drawing of it needs it: the nodes, and of
// the edges only those drawn, with how many of each kind were left out
// (Graph.QueryDrawn).
type Drawn struct {
	*graph.Graph
	// Omitted counts the edges left out, by kind.
	Omitted map[string]int
}

// Encode is the graph's JSON with "omitted" beside "nodes" and "edges":
// {"nodes":[...],"edges":[...],"omitted":{"imports":5000,"owns":5101}}.
func (d Drawn) Encode() []byte {
	b := d.Graph.Encode()
	b = b[:len(b)-len("}\n")] // Encode ends every graph so
	b = append(b, `,"omitted":`...)
	b = jsonx.AppendCounts(b, d.Omitted)
	return append(b, "}\n"...)
}

// QueryDrawn is the neighbourhood terms select, as the explorer draws it
// (select=TERMS&edge_limit=N): it leaves out the edges that the drawing
// shows as nesting (owns, contains: a node's project field names its
// owner), keeps the edges with a project at either end (dependencies
// between projects), and keeps the other edges only when there are at
// most limit of them. An open project of thousands of files has a
// relation from each; drawn they are a grey fog, and sent they are most
// of the answer.
func (g *Graph) QueryDrawn(terms string, limit int) (Drawn, error) {
	gr, err := g.Query(terms)
	if err != nil {
		return Drawn{}, err
	}
	return drawn(gr, limit), nil
}

// drawn trims gr's edges as QueryDrawn says, without changing gr (a
// query's answer may be shared).
func drawn(gr *graph.Graph, limit int) Drawn {
	projects := make(map[string]bool)
	for _, n := range gr.Nodes {
		if n.Kind == graph.KindProject {
			projects[n.ID] = true
		}
	}
	omitted := map[string]int{}
	inner := 0
	for _, e := range gr.Edges {
		switch {
		case e.Kind == graph.EdgeOwns || e.Kind == graph.EdgeContains:
		case projects[e.Source] || projects[e.Target]:
		default:
			inner++
		}
	}
	keepInner := inner <= limit
	edges := make([]graph.Edge, 0, len(gr.Edges)-inner+min(inner, limit))
	for _, e := range gr.Edges {
		switch {
		case e.Kind == graph.EdgeOwns || e.Kind == graph.EdgeContains:
		case projects[e.Source] || projects[e.Target], keepInner:
			edges = append(edges, e)
			continue
		}
		omitted[e.Kind]++
	}
	return Drawn{Graph: &graph.Graph{Nodes: gr.Nodes, Edges: edges}, Omitted: omitted}
}

// GraphPage is a page of a query's neighbourhood, for an agent: nodes in
// id order, and the edges among the nodes of the page.
type GraphPage struct {
	Nodes      []graph.Node `json:"nodes"`
	Edges      []graph.Edge `json:"edges"`
	EdgesTotal int          `json:"edges_total" jsonschema:"edges among this page's nodes, shown or not"`
	Paging
}

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
