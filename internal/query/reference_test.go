package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/graph"
)

// reference evaluates q the slow, obvious way: merge, scan, BFS over maps,
// graph.Sort.
func reference(q *Query, g, sg *graph.Graph) *graph.Graph {
	var nodes []graph.Node
	seen := map[string]bool{}
	addNodes := func(ns []graph.Node) {
		for _, n := range ns {
			if !seen[n.ID] {
				seen[n.ID] = true
				nodes = append(nodes, n)
			}
		}
	}
	addNodes(g.Nodes)
	es := g.Edges
	if q.NeedsSymbols() && sg != nil {
		addNodes(sg.Nodes)
		es = append(append([]graph.Edge{}, es...), sg.Edges...)
	}
	var edges []graph.Edge
	adj := map[string][]string{}
	for _, e := range es {
		if seen[e.Source] && seen[e.Target] {
			edges = append(edges, e)
			adj[e.Source] = append(adj[e.Source], e.Target)
			adj[e.Target] = append(adj[e.Target], e.Source)
		}
	}
	in := map[string]bool{}
	var frontier []string
	for _, n := range nodes {
		for _, t := range q.terms {
			var hit bool
			switch t.op {
			case opKind:
				hit = n.Kind == t.value
			case opProject, opTarget, opSpell:
				hit = n.ID == t.String()
			case opSymbol:
				hit = n.Kind == graph.KindSymbol && starMatch(t.value, symbolName(&n))
			case opPath:
				ok, _ := doublestar.Match(t.value, n.Path)
				hit = (n.Kind == graph.KindFile || n.Kind == graph.KindDoc) && ok
			case opWord:
				hit = strings.Contains(strings.ToLower(n.ID), t.value) || strings.Contains(strings.ToLower(n.Name), t.value)
			}
			if hit && !in[n.ID] {
				in[n.ID] = true
				frontier = append(frontier, n.ID)
			}
		}
	}
	for range q.Depth() {
		var next []string
		for _, id := range frontier {
			for _, o := range adj[id] {
				if !in[o] {
					in[o] = true
					next = append(next, o)
				}
			}
		}
		frontier = next
	}
	out := &graph.Graph{Nodes: []graph.Node{}, Edges: []graph.Edge{}}
	for _, n := range nodes {
		if in[n.ID] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, e := range edges {
		if in[e.Source] && in[e.Target] {
			out.Edges = append(out.Edges, e)
		}
	}
	out.Sort()
	return out
}

func randomGraph(r *rand.Rand, nodes, edges int, kinds []string) *graph.Graph {
	g := &graph.Graph{}
	var ids []string
	for range nodes {
		k := kinds[r.IntN(len(kinds))]
		name := fmt.Sprintf("N%d", r.IntN(nodes))
		path := fmt.Sprintf("d%d/%s.go", r.IntN(3), name)
		id := k + ":" + path
		if k == graph.KindSymbol {
			id += "#" + name
		}
		ids = append(ids, id)
		g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: k, Name: name, Path: path, Description: fmt.Sprint(r.IntN(5))})
	}
	for range edges {
		if len(ids) == 0 {
			break
		}
		e := graph.Edge{Source: ids[r.IntN(len(ids))], Target: ids[r.IntN(len(ids))], Kind: []string{"owns", "references"}[r.IntN(2)]}
		if r.IntN(20) == 0 {
			e.Target = "file:missing"
		}
		g.Edges = append(g.Edges, e)
	}
	return g
}

func TestEvalAgreesWithTheReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	terms := []string{
		"kind:file", "kind:symbol", "kind:doc", "symbol:N1*", "symbol:N2", "symbol:*3", "path:d1/**", "path:d0/N1*.go",
		"n1", "N2", "#", "project:d0/N1.go", "spell:x", "depth:0", "depth:2", "depth:3",
	}
	for i := range 300 {
		g := randomGraph(r, 1+r.IntN(60), r.IntN(150), []string{"file", "doc", "project", "package"})
		sg := randomGraph(r, r.IntN(60), r.IntN(150), []string{"symbol", "symbol", "file"})
		// Let some symbol-graph edges reach into g.
		for k := range sg.Edges {
			if r.IntN(3) == 0 && len(g.Nodes) > 0 {
				sg.Edges[k].Source = g.Nodes[r.IntN(len(g.Nodes))].ID
			}
		}
		if r.IntN(2) == 0 {
			g.Sort()
		}
		ix := NewIndex(g)
		for range 10 {
			var parts []string
			depth := false
			for range 1 + r.IntN(3) {
				term := terms[r.IntN(len(terms))]
				if strings.HasPrefix(term, "depth:") {
					if depth {
						continue
					}
					depth = true
				}
				parts = append(parts, term)
			}
			parts = append(parts, terms[r.IntN(8)])
			query := strings.Join(parts, " ")
			q, err := Parse(query)
			if err != nil {
				t.Fatalf("%q: %v", query, err)
			}
			got, err := ix.Eval(q, func() (*graph.Graph, error) { return sg, nil })
			if err != nil {
				t.Fatal(err)
			}
			want := reference(q, g, sg)
			if !bytes.Equal(got.Encode(), want.Encode()) {
				t.Fatalf("graph %d, %q:\n got %s\nwant %s", i, query, got.Encode(), want.Encode())
			}
			if !isSorted(got) {
				t.Fatalf("graph %d, %q: result not sorted", i, query)
			}
		}
	}
}
