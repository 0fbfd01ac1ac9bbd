package live

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corehq/core/internal/graph"
)

// TestTheGraphShowsTheDependenciesManifestsName: a package.json dependency
// on a sibling package is a depends_inferred edge of the knowledge graph,
// like an import.
func TestTheGraphShowsTheDependenciesManifestsName(t *testing.T) {
	root := t.TempDir()
	for p, c := range map[string]string{
		"targets.yaml":     "projects:\n  ui:\n    path: ui\n  app:\n    path: app\n",
		"ui/package.json":  `{"name":"@shop/ui"}`,
		"app/package.json": `{"name":"@shop/app","dependencies":{"@shop/ui":"*"}}`,
		"app/index.js":     "console.log(1)\n",
	} {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, _, err := Build(root, filepath.Join(root, ".core"))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Edge{Source: graph.ProjectID("app"), Target: graph.ProjectID("ui"), Kind: graph.EdgeDependsInferred}
	if !slices.Contains(g.Edges, want) {
		t.Errorf("no %v among the edges: %v", want, g.Edges)
	}
}
