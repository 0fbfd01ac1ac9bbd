package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pythonWorkspace is a uv workspace of three packages whose dependencies
// are written only in their pyproject.toml files: app needs lib through
// workspace = true, lib needs util through a Poetry path.
func pythonWorkspace(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	build := func(name string) string {
		return "      build:\n        run: [python3, -c, \"print('built " + name + "')\"]\n        deps: [\"^build\"]\n"
	}
	for path, content := range map[string]string{
		"targets.yaml": "projects:\n" +
			"  app:\n    path: packages/app\n    targets:\n" + build("app") +
			"  lib:\n    path: packages/lib\n    targets:\n" + build("lib") +
			"  util:\n    path: libs/util\n    targets:\n" + build("util"),
		"pyproject.toml":              "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n",
		"uv.lock":                     "version = 1\n",
		"packages/app/pyproject.toml": "[project]\nname = \"app\"\ndependencies = [\"shop-lib\"]\n\n[tool.uv.sources]\nshop-lib = { workspace = true }\n",
		"packages/lib/pyproject.toml": "[project]\nname = \"shop_lib\"\n\n[tool.poetry.dependencies]\nutil = { path = \"../../libs/util\", develop = true }\n",
		"libs/util/pyproject.toml":    "[project]\nname = \"util\"\n",
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	return repo
}

// TestAPythonWorkspaceBuildsInTheOrderItsPyprojectsSay: no dependency is
// declared in targets.yaml; core run orders by the pyproject.toml files,
// the graph has their inferred edges, a broken one is reported at its
// line and column.
func TestAPythonWorkspaceBuildsInTheOrderItsPyprojectsSay(t *testing.T) {
	repo := pythonWorkspace(t)
	first := mustCore(t, repo, nil, "run", "app:build")
	u, l, a := strings.Index(first.Stdout, "built util"), strings.Index(first.Stdout, "built lib"), strings.Index(first.Stdout, "built app")
	if u < 0 || l < u || a < l {
		t.Fatalf("app:build did not run after lib:build after util:build:\n%s%s", first.Stdout, first.Stderr)
	}

	var g struct {
		Edges []struct{ Source, Target, Kind string }
	}
	if err := json.Unmarshal([]byte(mustCore(t, repo, nil, "graph", "--json").Stdout), &g); err != nil {
		t.Fatal(err)
	}
	var inferred []string
	for _, e := range g.Edges {
		if e.Kind == "depends_inferred" {
			inferred = append(inferred, e.Source+" -> "+e.Target)
		}
	}
	want := []string{"project:app -> project:lib", "project:lib -> project:util"}
	if !slices.Equal(inferred, want) {
		t.Errorf("inferred edges %q, want %q", inferred, want)
	}

	writeFileAtomicAt(t, filepath.Join(repo, "libs/util/pyproject.toml"), "[project]\nname = \"util\nversion = \"1\"\n")
	res := runCore(t, repo, nil, "run", "app:build")
	if res.Code == 0 || !strings.Contains(res.Stderr, "libs/util/pyproject.toml:2:") || !strings.Contains(res.Stderr, "not valid TOML") {
		t.Errorf("a broken pyproject.toml is not named with its position:\n%s", res)
	}
}
