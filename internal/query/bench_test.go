package query

import (
	"fmt"
	"testing"

	"github.com/corehq/core/internal/graph"
)

// synthetic returns a workspace-shaped graph of about 103k nodes and 305k
// edges: 100 projects, each with 20 targets in a chain, 5 docs, 1000 files
// importing 2 of the 100 packages each, and 3 project dependencies.
func synthetic() *graph.Graph {
	const projects, targets, docs, files = 100, 20, 5, 1000
	g := &graph.Graph{}
	for p := range projects {
		name := fmt.Sprintf("p%d", p)
		pid := graph.ProjectID(name)
		dir := "services/" + name
		g.Nodes = append(g.Nodes, graph.Node{ID: pid, Kind: graph.KindProject, Name: name, Path: dir})
		pkg := "package:example.com/mono/" + name
		g.Nodes = append(g.Nodes, graph.Node{ID: pkg, Kind: graph.KindPackage, Name: "example.com/mono/" + name})
		for d := 1; d <= 3; d++ {
			g.Edges = append(g.Edges, graph.Edge{Source: pid, Target: graph.ProjectID(fmt.Sprintf("p%d", (p+d*7)%projects)), Kind: graph.EdgeDependsDeclared})
		}
		for t := range targets {
			tid := graph.TargetID(name, fmt.Sprintf("t%d", t))
			g.Nodes = append(g.Nodes, graph.Node{ID: tid, Kind: graph.KindTarget, Name: fmt.Sprintf("t%d", t), Path: dir, Project: name, Command: []string{"make", "t"}})
			g.Edges = append(g.Edges, graph.Edge{Source: pid, Target: tid, Kind: graph.EdgeOwns})
			if t > 0 {
				g.Edges = append(g.Edges, graph.Edge{Source: tid, Target: graph.TargetID(name, fmt.Sprintf("t%d", t-1)), Kind: graph.EdgeDepends})
			}
		}
		for d := range docs {
			path := fmt.Sprintf("%s/docs/guide%d.md", dir, d)
			g.Nodes = append(g.Nodes, graph.Node{ID: graph.DocID(path), Kind: graph.KindDoc, Name: fmt.Sprintf("guide%d", d), Path: path, Project: name})
			g.Edges = append(g.Edges, graph.Edge{Source: pid, Target: graph.DocID(path), Kind: graph.EdgeOwns})
		}
		for f := range files {
			base := fmt.Sprintf("file%d.go", f)
			if f%97 == 0 {
				base = fmt.Sprintf("Handler%d.go", f)
			}
			path := fmt.Sprintf("%s/pkg%d/%s", dir, f%10, base)
			fid := "file:" + path
			g.Nodes = append(g.Nodes, graph.Node{ID: fid, Kind: graph.KindFile, Name: base, Path: path, Project: name})
			g.Edges = append(g.Edges, graph.Edge{Source: pid, Target: fid, Kind: graph.EdgeOwns})
			for i := 1; i <= 2; i++ {
				g.Edges = append(g.Edges, graph.Edge{Source: fid, Target: fmt.Sprintf("package:example.com/mono/p%d", (p+f*i)%projects), Kind: graph.EdgeImports})
			}
		}
	}
	g.Sort()
	return g
}

func BenchmarkEval(b *testing.B) {
	g := synthetic()
	b.Logf("%d nodes, %d edges", len(g.Nodes), len(g.Edges))
	b.Run("NewIndex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewIndex(g)
		}
	})
	ix := NewIndex(g)
	for _, query := range []string{"project:p1 depth:2", "handler", "kind:project depth:0", "path:services/p7/** depth:0"} {
		q, err := Parse(query)
		if err != nil {
			b.Fatal(err)
		}
		res, _ := ix.Eval(q, nil)
		b.Run(query, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Eval(q, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(res.Nodes)), "nodes")
			b.ReportMetric(float64(len(res.Edges)), "edges")
		})
		b.Run(query+" (Eval, indexing each time)", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Eval(q, g, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
