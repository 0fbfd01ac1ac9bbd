package live

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/watch"
)

// TestTheGraphShowsTheDependenciesManifestsName: a package.json dependency
// on a sibling package is a depends_inferred edge of the knowledge graph,
// like an import, whose via names the package.json.
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
	want := graph.Edge{Source: graph.ProjectID("app"), Target: graph.ProjectID("ui"), Kind: graph.EdgeDependsInferred, Via: "app/package.json"}
	if !slices.Contains(g.Edges, want) {
		t.Errorf("no %v among the edges: %v", want, g.Edges)
	}
}

// TestAChangedPyprojectReloadsTheWorkspace: a pyproject.toml that starts
// naming a sibling's directory adds the inferred edge on the next change,
// as a package.json or go.mod does.
func TestAChangedPyprojectReloadsTheWorkspace(t *testing.T) {
	root := t.TempDir()
	for p, c := range map[string]string{
		"targets.yaml":        "projects:\n  lib:\n    path: lib\n  app:\n    path: app\n",
		"lib/pyproject.toml":  "[project]\nname = \"lib\"\n",
		"app/pyproject.toml":  "[project]\nname = \"app\"\n",
		"app/app/__init__.py": "\n",
	} {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := New(root, "", nil, zerolog.Nop())
	if _, err := w.Current(); err != nil {
		t.Fatal(err)
	}
	if got := w.InferredDeps(); len(got) != 0 {
		t.Fatalf("inferred before the change: %v", got)
	}
	if err := os.WriteFile(filepath.Join(root, "app/pyproject.toml"), []byte("[project]\nname = \"app\"\ndependencies = [\"lib @ file:../lib\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Changed(watch.Batch{Paths: []string{"app/pyproject.toml"}}); err != nil {
		t.Fatal(err)
	}
	want := graph.Edge{Source: graph.ProjectID("app"), Target: graph.ProjectID("lib"), Kind: graph.EdgeDependsInferred, Via: "app/pyproject.toml"}
	if got := w.InferredDeps(); !slices.Equal(got, []graph.Edge{want}) {
		t.Errorf("inferred after the change: %v, want %v", got, want)
	}
}
