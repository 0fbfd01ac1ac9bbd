package backend

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/corehq/core/internal/graph"
)

func TestADrawnAnswerLeavesOutTheNestingAndTheFogAndCountsThem(t *testing.T) {
	gr := &graph.Graph{
		Nodes: []graph.Node{
			{ID: "file:a/f1.go", Kind: graph.KindFile, Name: "f1.go", Project: "a"},
			{ID: "file:a/f2.go", Kind: graph.KindFile, Name: "f2.go", Project: "a"},
			{ID: "package:a", Kind: graph.KindPackage, Name: "a", Project: "a"},
			{ID: "project:a", Kind: graph.KindProject, Name: "a"},
			{ID: "project:b", Kind: graph.KindProject, Name: "b"},
		},
		Edges: []graph.Edge{
			{Source: "file:a/f1.go", Target: "package:a", Kind: graph.EdgeImports},
			{Source: "file:a/f2.go", Target: "package:a", Kind: graph.EdgeImports},
			{Source: "package:a", Target: "file:a/f1.go", Kind: graph.EdgeContains},
			{Source: "project:a", Target: "file:a/f1.go", Kind: graph.EdgeOwns},
			{Source: "project:a", Target: "file:a/f2.go", Kind: graph.EdgeOwns},
			{Source: "project:a", Target: "package:a", Kind: graph.EdgeOwns},
			{Source: "project:a", Target: "project:b", Kind: graph.EdgeDependsInferred, Via: "a/go.mod"},
		},
	}
	gr.Sort()
	before := slices.Clone(gr.Edges)
	kinds := func(es []graph.Edge) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Kind)
		}
		return out
	}

	// Two relations among the files, a limit of one: neither is sent.
	d := drawn(gr, 1)
	if got := kinds(d.Edges); !slices.Equal(got, []string{graph.EdgeDependsInferred}) {
		t.Errorf("limit 1: edges %v, want the dependency between the projects alone", got)
	}
	if want := map[string]int{"owns": 3, "contains": 1, "imports": 2}; !maps.Equal(d.Omitted, want) {
		t.Errorf("limit 1: omitted %v, want %v", d.Omitted, want)
	}
	// A limit they fit in: both are sent, the nesting still is not.
	d = drawn(gr, 2)
	if got := kinds(d.Edges); !slices.Equal(got, []string{graph.EdgeImports, graph.EdgeImports, graph.EdgeDependsInferred}) {
		t.Errorf("limit 2: edges %v", got)
	}
	if want := map[string]int{"owns": 3, "contains": 1}; !maps.Equal(d.Omitted, want) {
		t.Errorf("limit 2: omitted %v, want %v", d.Omitted, want)
	}
	if len(d.Nodes) != len(gr.Nodes) {
		t.Errorf("%d nodes of %d", len(d.Nodes), len(gr.Nodes))
	}
	if !slices.Equal(gr.Edges, before) {
		t.Error("the query's answer was changed")
	}

	// The JSON: the graph's, with the counts beside it.
	var doc struct {
		Nodes   []graph.Node
		Edges   []graph.Edge
		Omitted map[string]int
	}
	b := d.Encode()
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(doc.Nodes) != 5 || len(doc.Edges) != 3 || doc.Omitted["owns"] != 3 || b[len(b)-1] != '\n' {
		t.Errorf("the JSON: %s", b)
	}
	if b := drawn(&graph.Graph{}, 0).Encode(); string(b) != `{"nodes":[],"edges":[],"omitted":{}}`+"\n" {
		t.Errorf("an empty answer: %s", b)
	}
}
