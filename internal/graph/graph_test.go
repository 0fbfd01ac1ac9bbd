package graph

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden/graph")

const (
	demoDir   = "../../testdata/demo"
	goldenDir = "../../testdata/golden/graph"
)

func loadDemo(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Load(demoDir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n%s", name, got)
	}
}

func TestDemoGolden(t *testing.T) {
	ws := loadDemo(t)
	g := Declared(ws)
	t.Run("declared graph", func(t *testing.T) { golden(t, "demo-declared.json", g.Encode()) })
	t.Run("target graph", func(t *testing.T) { golden(t, "demo-targets.json", Targets(ws).Encode()) })
	t.Run("project skeleton", func(t *testing.T) { golden(t, "demo-projects.json", Projects(ws).Encode()) })
}

func TestDemoGraph(t *testing.T) {
	ws := loadDemo(t)
	g := Declared(ws)
	node := func(id string) *Node {
		for i := range g.Nodes {
			if g.Nodes[i].ID == id {
				return &g.Nodes[i]
			}
		}
		return nil
	}
	hasEdge := func(e Edge) bool { return slices.Contains(g.Edges, e) }

	t.Run("project dependencies are declared edges", func(t *testing.T) {
		if !hasEdge(Edge{Source: "project:api", Target: "project:auth", Kind: EdgeDependsDeclared}) {
			t.Error("missing depends_declared edge")
		}
	})
	t.Run("a target depends on the targets its ^build expands to", func(t *testing.T) {
		if !hasEdge(Edge{Source: "target:web:build", Target: "target:api:build", Kind: EdgeDepends}) {
			t.Error("missing depends edge")
		}
	})
	t.Run("a target node carries its command and project", func(t *testing.T) {
		n := node("target:util:fmt-check")
		if n == nil || !n.Drift || n.Project != "util" || n.Path != "libs/util" || strings.Join(n.Command, " ") != "gofmt -l ." {
			t.Fatalf("node = %+v", n)
		}
	})
	t.Run("spells have no edges", func(t *testing.T) {
		for _, e := range g.Edges {
			if strings.HasPrefix(e.Source, "spell:") || strings.HasPrefix(e.Target, "spell:") {
				t.Errorf("edge %+v", e)
			}
		}
	})
	t.Run("every edge joins two nodes of the graph", func(t *testing.T) {
		for _, e := range g.Edges {
			if node(e.Source) == nil || node(e.Target) == nil {
				t.Errorf("dangling edge %+v", e)
			}
		}
	})
}

func TestVariantsHoldOnlyTheirKinds(t *testing.T) {
	ws := loadDemo(t)
	for _, tc := range []struct {
		name       string
		g          *Graph
		node, edge string
	}{
		{"targets", Targets(ws), KindTarget, EdgeDepends},
		{"projects", Projects(ws), KindProject, EdgeDependsDeclared},
	} {
		t.Run(tc.name+"_has_only_"+tc.node+"_nodes_and_"+tc.edge+"_edges", func(t *testing.T) {
			if len(tc.g.Nodes) == 0 || len(tc.g.Edges) == 0 {
				t.Fatal("empty graph")
			}
			for _, n := range tc.g.Nodes {
				if n.Kind != tc.node {
					t.Errorf("node %s", n.ID)
				}
			}
			for _, e := range tc.g.Edges {
				if e.Kind != tc.edge {
					t.Errorf("edge %+v", e)
				}
			}
		})
	}
}

func TestOwnersAgreeWithOwnerOf(t *testing.T) {
	ws, err := workspace.Parse(workspace.FileName, []byte(`
projects:
  root: {path: .}
  api: {path: services/api}
  apix: {path: services/apix}
  nested: {path: services/api/internal}
`))
	if err != nil {
		t.Fatal(err)
	}
	o := NewOwners(ws)
	for _, p := range []string{"README.md", "services/api/main.go", "services/apix/x.go", "services/api/internal/a/b.go", "services/apifoo/z.go", "services/api"} {
		want, got := OwnerOf(ws, p), o.Of(p)
		if want != got {
			t.Errorf("Of(%s) = %v, OwnerOf says %v", p, got, want)
		}
	}
	if o.OfDir("services/api").Name != "api" || o.OfDir("services/api/internal").Name != "nested" || o.OfDir(".").Name != "root" {
		t.Error("OfDir does not name the project rooted at the directory")
	}
}

func TestHoldsCountsWhatEachProjectOwnsByKind(t *testing.T) {
	t.Parallel()
	g := &Graph{
		Nodes: []Node{
			{ID: "project:a", Kind: KindProject, Name: "a"}, {ID: "project:b", Kind: KindProject, Name: "b"},
			{ID: "file:a/x.go", Kind: KindFile}, {ID: "file:a/y.go", Kind: KindFile}, {ID: "doc:a/README.md", Kind: KindDoc},
			{ID: "target:a:build", Kind: KindTarget},
		},
		Edges: []Edge{
			{Source: "project:a", Target: "file:a/x.go", Kind: EdgeOwns}, {Source: "project:a", Target: "file:a/y.go", Kind: EdgeOwns},
			{Source: "project:a", Target: "doc:a/README.md", Kind: EdgeOwns}, {Source: "project:a", Target: "target:a:build", Kind: EdgeOwns},
			{Source: "file:a/x.go", Target: "file:a/y.go", Kind: EdgeImports}, {Source: "project:a", Target: "project:b", Kind: EdgeDependsDeclared},
		},
	}
	holds := Holds(g)
	if want := map[string]int{KindFile: 2, KindDoc: 1, KindTarget: 1}; !maps.Equal(holds["a"], want) || len(holds) != 1 {
		t.Fatalf("holds %v, want a: %v and nothing for b", holds, want)
	}
	skeleton := (&Graph{Nodes: []Node{{ID: "project:a", Kind: KindProject, Name: "a"}, {ID: "project:b", Kind: KindProject, Name: "b"}}}).WithHolds(holds)
	if got := string(skeleton.Encode()); !strings.Contains(got, `"name":"a","holds":{"doc":1,"file":2,"target":1}}`) || strings.Count(got, "holds") != 1 {
		t.Errorf("the skeleton encodes as %s", got)
	}
}
