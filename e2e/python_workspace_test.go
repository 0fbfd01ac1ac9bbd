package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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
// the graph's inferred edges name them, a broken one is reported at its
// line and column.
func TestAPythonWorkspaceBuildsInTheOrderItsPyprojectsSay(t *testing.T) {
	repo := pythonWorkspace(t)
	first := mustCore(t, repo, nil, "run", "app:build")
	u, l, a := strings.Index(first.Stdout, "built util"), strings.Index(first.Stdout, "built lib"), strings.Index(first.Stdout, "built app")
	if u < 0 || l < u || a < l {
		t.Fatalf("app:build did not run after lib:build after util:build:\n%s%s", first.Stdout, first.Stderr)
	}

	var g struct {
		Edges []struct{ Source, Target, Kind, Via string }
	}
	if err := json.Unmarshal([]byte(mustCore(t, repo, nil, "graph", "--json").Stdout), &g); err != nil {
		t.Fatal(err)
	}
	var inferred []string
	for _, e := range g.Edges {
		if e.Kind == "depends_inferred" {
			inferred = append(inferred, e.Source+" -> "+e.Target+" via "+e.Via)
		}
	}
	want := []string{"project:app -> project:lib via packages/app/pyproject.toml", "project:lib -> project:util via packages/lib/pyproject.toml"}
	if !slices.Equal(inferred, want) {
		t.Errorf("inferred edges %q, want %q", inferred, want)
	}
	if text := mustCore(t, repo, nil, "graph").Stdout; !strings.Contains(text, "depends on: lib (packages/app/pyproject.toml)") {
		t.Errorf("core graph does not say where app's dependency comes from:\n%s", text)
	}

	writeFileAtomicAt(t, filepath.Join(repo, "libs/util/pyproject.toml"), "[project]\nname = \"util\nversion = \"1\"\n")
	res := runCore(t, repo, nil, "run", "app:build")
	if res.Code == 0 || !strings.Contains(res.Stderr, "libs/util/pyproject.toml:2:") || !strings.Contains(res.Stderr, "not valid TOML") {
		t.Errorf("a broken pyproject.toml is not named with its position:\n%s", res)
	}
}

// TestBrowserShowsTheManifestOfAnInferredDependency: the explorer's
// details of a project list its inferred dependency with the manifest
// that names it.
func TestBrowserShowsTheManifestOfAnInferredDependency(t *testing.T) {
	chromiumPath(t)
	repo := pythonWorkspace(t)
	link := mustCore(t, repo, nil, "open", "--print").lastLine()
	b := newBrowser(t)
	b.open(t, link)
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'snapshot'`)
	b.run(t, chromedp.SendKeys("#search", "project:app\n"))
	b.waitFor(t, `document.querySelectorAll('#results li button').length > 0`)
	b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li button')].find(b => b.title === 'project:app').click()`))
	b.waitFor(t, `!document.querySelector('#details').hidden`)
	text := eval[string](t, b, `[...document.querySelectorAll('#details .neighbours li')].map(li => li.textContent).join('\n')`)
	if !strings.Contains(text, "via packages/app/pyproject.toml") {
		t.Errorf("the details of project:app list\n%s\nwant the manifest of its dependency on lib", text)
	}
}
