package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const npmTargets = `projects:
  ui:
    path: packages/ui
    targets:
      build:
        run: [npm, run, build]
  app:
    path: packages/app
    targets:
      build:
        run: [npm, run, build]
        deps: ["^build"]
  api:
    path: svc/api
    targets:
      build:
        run: [go, build, ./...]
        deps: ["^build"]
  lib:
    path: svc/lib
    targets:
      build:
        run: [go, build, ./...]
`

func TestManifestsNameTheDependenciesTargetsYAMLDoesNot(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"packages/ui/package.json":  `{"name":"@shop/ui","scripts":{"build":"tsc"}}`,
		"packages/app/package.json": `{"name":"@shop/app","dependencies":{"@shop/ui":"workspace:*","react":"18"},"scripts":{"build":"vite build"}}`,
		"svc/api/go.mod":            "module example.com/api\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n",
		"svc/lib/go.mod":            "module example.com/lib\n",
	})
	ws, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	app := ws.Project("app")
	if len(app.Inferred) != 1 || app.Inferred[0] != (InferredDep{Project: "ui", From: "packages/app/package.json"}) {
		t.Errorf("app inferred %+v", app.Inferred)
	}
	if got := ws.Target("app:build").Deps; strings.Join(got, ",") != "ui:build" {
		t.Errorf("^build over the package.json dependency: %v", got)
	}
	if got := ws.Target("api:build").Deps; strings.Join(got, ",") != "lib:build" {
		t.Errorf("^build over the go.mod replace: %v", got)
	}
	if len(ws.Project("ui").Inferred) != 0 {
		t.Errorf("ui inferred %+v", ws.Project("ui").Inferred)
	}
}

func TestABrokenManifestOrAManifestCycleIsAProblem(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"packages/ui/package.json":  "{\n  \"name\": \"@shop/ui\",\n  \"scripts\": {\"build\": \"tsc\",}\n}",
		"packages/app/package.json": `{"name":"@shop/app"}`,
		"svc/api/go.mod":            "module example.com/api\n",
		"svc/lib/go.mod":            "module example.com/lib\n",
	})
	_, err := Load(root)
	if err == nil || !strings.Contains(err.Error(), "packages/ui/package.json:3:") || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("a broken package.json: %v", err)
	}
	cyc := writeTree(t, map[string]string{
		FileName:                    strings.Replace(npmTargets, "        run: [npm, run, build]\n  app:", "        run: [npm, run, build]\n        deps: [\"^build\"]\n  app:", 1),
		"packages/ui/package.json":  `{"name":"@shop/ui","dependencies":{"@shop/app":"*"}}`,
		"packages/app/package.json": `{"name":"@shop/app","dependencies":{"@shop/ui":"*"}}`,
		"svc/api/go.mod":            "module example.com/api\n",
		"svc/lib/go.mod":            "module example.com/lib\n",
	})
	_, err = Load(cyc)
	if err == nil || !strings.Contains(err.Error(), "dependency cycle through dependencies the manifests name") || !strings.Contains(err.Error(), "packages/ui/package.json") {
		t.Errorf("a cycle the manifests close: %v", err)
	}
}

func TestAGoModGoCannotReadIsGosToReport(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"packages/ui/package.json":  `{"name":"@shop/ui"}`,
		"packages/app/package.json": `{"name":"@shop/app"}`,
		"svc/api/go.mod":            "this is not a go.mod\n",
		"svc/lib/go.mod":            "module example.com/lib\n",
	})
	if _, err := Load(root); err != nil {
		t.Errorf("a go.mod go cannot read stopped the workspace: %v", err)
	}
}

// TestAGoWorkspacesModulesRequireEachOther: with go.work, a module
// requires a sibling by its path and no replace.
func TestAGoWorkspacesModulesRequireEachOther(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"go.work":                   "go 1.22\n\nuse (\n\t./svc/api\n\t./svc/lib\n)\n",
		"packages/ui/package.json":  `{"name":"@shop/ui"}`,
		"packages/app/package.json": `{"name":"@shop/app"}`,
		"svc/api/go.mod":            "module example.com/api\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n",
		"svc/lib/go.mod":            "module example.com/lib\n\ngo 1.22\n",
	})
	ws, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws.Project("api").Inferred; len(got) != 1 || got[0] != (InferredDep{Project: "lib", From: "svc/api/go.mod"}) {
		t.Errorf("api inferred %+v", got)
	}
	if got := ws.Target("api:build").Deps; strings.Join(got, ",") != "lib:build" {
		t.Errorf("^build over the require: %v", got)
	}
}
