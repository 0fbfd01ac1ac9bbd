package graph

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

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
	g, err := Build(ws, os.DirFS(ws.Root))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("knowledge graph", func(t *testing.T) { golden(t, "demo.json", g.Encode()) })
	t.Run("target graph", func(t *testing.T) { golden(t, "demo-targets.json", Targets(ws).Encode()) })
	t.Run("project skeleton", func(t *testing.T) { golden(t, "demo-projects.json", Projects(ws).Encode()) })
}

func TestDemoGraph(t *testing.T) {
	ws := loadDemo(t)
	g, err := Build(ws, os.DirFS(ws.Root))
	if err != nil {
		t.Fatal(err)
	}
	node := func(id string) *Node {
		for i := range g.Nodes {
			if g.Nodes[i].ID == id {
				return &g.Nodes[i]
			}
		}
		return nil
	}
	hasEdge := func(e Edge) bool { return slices.Contains(g.Edges, e) }

	t.Run("a doc with a heading is named by it", func(t *testing.T) {
		n := node("doc:docs/architecture.md")
		if n == nil || n.Name != "Architecture" || n.Title != "Architecture" || n.Project != "docs" {
			t.Fatalf("node = %+v", n)
		}
	})
	t.Run("a doc without a heading is named by its file", func(t *testing.T) {
		n := node("doc:docs/glossary.md")
		if n == nil || n.Name != "glossary.md" || n.Title != "" {
			t.Fatalf("node = %+v", n)
		}
	})
	t.Run("a doc outside every project has no owner", func(t *testing.T) {
		n := node("doc:README.md")
		if n == nil || n.Project != "" {
			t.Fatalf("node = %+v", n)
		}
		for _, e := range g.Edges {
			if e.Target == "doc:README.md" {
				t.Errorf("unexpected edge %+v", e)
			}
		}
	})
	t.Run("a project owns its README", func(t *testing.T) {
		if !hasEdge(Edge{Source: "project:api", Target: "doc:services/api/README.md", Kind: EdgeOwns}) {
			t.Error("missing owns edge")
		}
	})
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

func TestDocs(t *testing.T) {
	t.Parallel()
	ws, err := workspace.Parse(workspace.FileName, []byte(`
projects:
  root: {path: .}
  api: {path: services/api}
  apix: {path: services/apix}
  nested: {path: services/api/internal}
docs: ["**/*.md"]
`))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"README.md":                         {Data: []byte("# Root\n")},
		"services/api/README.md":            {Data: []byte("# API\n")},
		"services/apix/notes.md":            {Data: []byte("text\n")},
		"services/api/internal/doc.md":      {Data: []byte("# Internal\n")},
		".git/info.md":                      {Data: []byte("# no\n")},
		".core/cache.md":                    {Data: []byte("# no\n")},
		"web/node_modules/pkg/README.md":    {Data: []byte("# no\n")},
		"link.md":                           {Data: []byte("README.md"), Mode: 0o777 | os.ModeSymlink},
		"services/api/main.go":              {Data: []byte("package main\n")},
		"docs/sub.md/README.txt":            {Data: []byte("not md\n")},
		"services/api/internal/x/deep/z.md": {Data: []byte("# Deep\n")},
	}
	g, err := Build(ws, fsys)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, n := range g.Nodes {
		if n.Kind == KindDoc {
			owners[n.Path] = n.Project
		}
	}
	want := map[string]string{
		"README.md":                         "root",
		"services/api/README.md":            "api",
		"services/apix/notes.md":            "apix",
		"services/api/internal/doc.md":      "nested",
		"services/api/internal/x/deep/z.md": "nested",
	}
	for p, owner := range want {
		t.Run(p+"_is_owned_by_"+owner, func(t *testing.T) {
			got, ok := owners[p]
			if !ok {
				t.Fatalf("doc not found; docs = %v", owners)
			}
			if got != owner {
				t.Errorf("owner = %q", got)
			}
		})
	}
	t.Run("ignored directories, symlinks and non-matching files are not docs", func(t *testing.T) {
		if len(owners) != len(want) {
			t.Errorf("docs = %v", owners)
		}
	})
}

func TestTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, md, want string }{
		{"first level-one heading", "intro\n# Title\n# Second\n", "Title"},
		{"level-two headings are skipped", "## Sub\n# Main\n", "Main"},
		{"closing hashes are stripped", "# Title ##\n", "Title"},
		{"a hash inside the text stays", "# C# tips\n", "C# tips"},
		{"a heading inside a code fence does not count", "```sh\n# comment\n```\n# Real\n", "Real"},
		{"a tilde fence works too", "~~~\n# comment\n~~~~\n# Real\n", "Real"},
		{"front matter is skipped", "---\ntitle: x\n# not\n---\n# Real\n", "Real"},
		{"up to three spaces of indent are allowed", "   # Indented\n", "Indented"},
		{"four spaces make code", "    # code\n", ""},
		{"no space after the hash is not a heading", "#hashtag\n", ""},
		{"an empty heading is skipped", "#\n# Real\n", "Real"},
		{"windows line endings", "# Title\r\n", "Title"},
		{"no heading at all", "just text\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Title([]byte(tc.md)); got != tc.want {
				t.Errorf("Title = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBuildRefusesAnInvalidDocGlob(t *testing.T) {
	t.Parallel()
	ws := &workspace.Workspace{Docs: []string{"docs/["}}
	if _, err := Build(ws, fstest.MapFS{}); err == nil {
		t.Fatal("Build accepted an invalid glob")
	}
}
