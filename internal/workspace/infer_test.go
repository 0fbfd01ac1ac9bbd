package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

const pyTargets = `projects:
  app:
    path: packages/app
    targets:
      build:
        run: [python3, -m, build]
        deps: ["^build"]
  lib:
    path: packages/lib
    targets:
      build:
        run: [python3, -m, build]
  util:
    path: libs/util
    targets:
      build:
        run: [python3, -m, build]
`

// TestPyprojectPathDependenciesAreProjectDependencies: each way a
// pyproject.toml names a sibling's directory, and the ways it does not.
func TestPyprojectPathDependenciesAreProjectDependencies(t *testing.T) {
	const lib = "[project]\nname = \"shop-lib\"\n"
	const util = "[project]\nname = \"Shop_Util\"\n"
	for _, c := range []struct {
		name string
		app  string            // packages/app/pyproject.toml; <ROOT> is the workspace's absolute path
		more map[string]string // other files
		want []string          // projects app depends on
	}{
		{"a PEP 621 file URL relative to the project is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib @ file:../lib\", \"requests>=2\"]\n", nil, []string{"lib"}},
		{"a file URL with extras and a marker is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib[fast] @ file:../lib ; python_version >= '3.9'\"]\n", nil, []string{"lib"}},
		{"an absolute file URL inside the workspace is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"shop-util @ file://<ROOT>/libs/util\"]\n", nil, []string{"util"}},
		{"a file://localhost URL is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"shop-util @ file://localhost<ROOT>/libs/util\"]\n", nil, []string{"util"}},
		{"an absolute file URL outside the workspace is not",
			"[project]\nname = \"app\"\ndependencies = [\"other @ file:///elsewhere/lib\"]\n", nil, nil},
		{"an https URL is not",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib @ https://example.com/shop_lib-1.0.tar.gz\"]\n", nil, nil},
		{"optional dependencies and dependency groups count",
			"[project]\nname = \"app\"\n[project.optional-dependencies]\nfast = [\"shop-lib @ file:../lib\"]\n[dependency-groups]\ndev = [\"shop-util @ file:../../libs/util\", {include-group = \"x\"}]\n", nil, []string{"lib", "util"}},
		{"a bare name of a sibling without a source is not (an index serves it)",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib\"]\n", nil, nil},
		{"a Poetry path dependency is a dependency",
			"[tool.poetry]\nname = \"app\"\n[tool.poetry.dependencies]\npython = \"^3.11\"\nshop-lib = {path = \"../lib\", develop = true}\n", nil, []string{"lib"}},
		{"Poetry group and dev dependencies count, a list of constraints too",
			"[tool.poetry.dev-dependencies]\nshop-lib = [{path = \"../lib\", markers = \"sys_platform == 'linux'\"}, {version = \"1.0\"}]\n[tool.poetry.group.test.dependencies]\nshop-util = {path = \"../../libs/util/\"}\n", nil, []string{"lib", "util"}},
		{"a uv path source of a requirement is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"Shop.Lib\"]\n[tool.uv.sources]\nshop-lib = { path = \"../lib\", editable = true }\n", nil, []string{"lib"}},
		{"a uv source of a name that is not required is not",
			"[project]\nname = \"app\"\ndependencies = []\n[tool.uv.sources]\nshop-lib = { path = \"../lib\" }\n", nil, nil},
		{"a uv workspace = true source resolves among the root's members",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib\", \"shop-util\"]\n[tool.uv.sources]\nshop-lib = { workspace = true }\nshop-util = { workspace = true }\n",
			map[string]string{"pyproject.toml": "[tool.uv.workspace]\nmembers = [\"packages/*\", \"libs/*\"]\n"}, []string{"lib", "util"}},
		{"the uv root's sources apply to its members",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib\"]\n",
			map[string]string{"pyproject.toml": "[project]\nname = \"root\"\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\n[tool.uv.sources]\nshop-lib = { workspace = true }\n"}, []string{"lib"}},
		{"a uv workspace member the root excludes is not resolved",
			"[project]\nname = \"app\"\ndependencies = [\"shop-util\"]\n[tool.uv.sources]\nshop-util = { workspace = true }\n",
			map[string]string{"pyproject.toml": "[tool.uv.workspace]\nmembers = [\"packages/*\", \"libs/*\"]\nexclude = [\"libs/util\"]\n"}, nil},
		{"workspace = true outside a uv workspace is not resolved",
			"[project]\nname = \"app\"\ndependencies = [\"shop-lib\"]\n[tool.uv.sources]\nshop-lib = { workspace = true }\n", nil, nil},
		{"a PDM editable dev dependency under ${PROJECT_ROOT} is a dependency",
			"[project]\nname = \"app\"\n[tool.pdm.dev-dependencies]\ndev = [\"-e file:///${PROJECT_ROOT}/../lib#egg=shop-lib\"]\n", nil, []string{"lib"}},
		{"a Hatch {root:uri} file URL is a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"shop-util @ {root:uri}/../../libs/util\"]\n", nil, []string{"util"}},
		{"a path to the project itself is not a dependency",
			"[project]\nname = \"app\"\ndependencies = [\"app @ file:.\"]\n", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{
				FileName:                      pyTargets,
				"packages/lib/pyproject.toml": lib,
				"libs/util/pyproject.toml":    util,
			}
			for p, s := range c.more {
				files[p] = s
			}
			root := writeTree(t, files)
			app := strings.ReplaceAll(c.app, "<ROOT>", filepath.ToSlash(root))
			if err := os.MkdirAll(filepath.Join(root, "packages/app"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "packages/app/pyproject.toml"), []byte(app), 0o644); err != nil {
				t.Fatal(err)
			}
			ws, err := Load(root)
			if err != nil {
				t.Fatal(err)
			}
			var got, deps []string
			for _, d := range ws.Project("app").Inferred {
				got = append(got, d.Project)
				if d.From != "packages/app/pyproject.toml" {
					t.Errorf("%s inferred from %s", d.Project, d.From)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("app depends on %v, want %v", got, c.want)
			}
			for _, d := range c.want {
				deps = append(deps, d+":build")
			}
			if got := ws.Target("app:build").Deps; !slices.Equal(got, deps) && len(deps) > 0 {
				t.Errorf("^build over the pyproject: %v, want %v", got, deps)
			}
		})
	}
}

// TestAGoWorkReplaceToASiblingIsADependency: a go.work replace points a
// module path at a sibling's directory for every module that requires it.
func TestAGoWorkReplaceToASiblingIsADependency(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"go.work":                   "go 1.22\n\nuse (\n\t./svc/api\n\t./svc/lib\n)\n\nreplace example.com/published/lib => ./svc/lib\n",
		"packages/ui/package.json":  `{"name":"@shop/ui"}`,
		"packages/app/package.json": `{"name":"@shop/app"}`,
		"svc/api/go.mod":            "module example.com/api\n\ngo 1.22\n\nrequire example.com/published/lib v1.2.0\n",
		"svc/lib/go.mod":            "module example.com/lib\n\ngo 1.22\n",
	})
	ws, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws.Project("api").Inferred; len(got) != 1 || got[0] != (InferredDep{Project: "lib", From: "svc/api/go.mod"}) {
		t.Errorf("api inferred %+v", got)
	}
}

// TestABrokenPyprojectNamesItsLineAndColumn: a pyproject.toml that is not
// TOML is a problem at its position, as a broken package.json is.
func TestABrokenPyprojectNamesItsLineAndColumn(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                      pyTargets,
		"packages/app/pyproject.toml": "[project]\nname = \"app\"\ndependencies = [\"shop-lib @ file:../lib\"\n",
		"packages/lib/pyproject.toml": "[project]\nname = \"shop-lib\"\n",
		"libs/util/pyproject.toml":    "[project]\nname = \"util\"\nversion = = 1\n",
	})
	_, err := Load(root)
	var werr *Error
	if !errors.As(err, &werr) {
		t.Fatalf("want an *Error, got %v", err)
	}
	var files []string
	for _, p := range werr.Problems {
		if p.Line == 0 || p.Column == 0 || !strings.Contains(p.Message, "not valid TOML") {
			t.Errorf("problem without a position or reason: %+v", p)
		}
		files = append(files, fmt.Sprintf("%s:%d", p.File, p.Line))
	}
	slices.Sort(files)
	if want := []string{"libs/util/pyproject.toml:3", "packages/app/pyproject.toml:3"}; !slices.Equal(files, want) {
		t.Errorf("problems at %v, want %v\n%v", files, want, err)
	}
}

// TestACycleThroughPyprojectsNamesTheManifestsOfTheCycle: only the
// manifests whose entries close the cycle are named.
func TestACycleThroughPyprojectsNamesTheManifestsOfTheCycle(t *testing.T) {
	targets := strings.Replace(pyTargets, "        run: [python3, -m, build]\n  util:", "        run: [python3, -m, build]\n        deps: [\"^build\"]\n  util:", 1)
	root := writeTree(t, map[string]string{
		FileName:                      targets,
		"packages/app/pyproject.toml": "[project]\nname = \"app\"\ndependencies = [\"shop-lib @ file:../lib\", \"util @ file:../../libs/util\"]\n",
		"packages/lib/pyproject.toml": "[tool.poetry.dependencies]\napp = {path = \"../app\"}\n",
		"libs/util/pyproject.toml":    "[project]\nname = \"util\"\n",
	})
	_, err := Load(root)
	if err == nil {
		t.Fatal("a cycle loaded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "manifests: packages/app/pyproject.toml, packages/lib/pyproject.toml)") {
		t.Errorf("the cycle's manifests are not named: %v", msg)
	}
}

func TestAManifestThatIsASymlinkIsAProblemNamedFromTheRoot(t *testing.T) {
	// A manifest is read only as a regular file. Each project's
	// manifests are read through its directory opened once; a refusal
	// still names the path from the root, as a read through the root did.
	root := writeTree(t, map[string]string{
		FileName:                   npmTargets,
		"packages/ui/package.json": `{"name":"@shop/ui","scripts":{"build":"tsc"}}`,
		"shared/app-package.json":  `{"name":"@shop/app","scripts":{"build":"vite build"}}`,
		"svc/api/go.mod":           "module example.com/api\n",
		"svc/lib/go.mod":           "module example.com/lib\n",
	})
	if err := os.MkdirAll(filepath.Join(root, "packages", "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "shared", "app-package.json"), filepath.Join(root, "packages", "app", "package.json")); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	if err == nil || !strings.Contains(err.Error(), "packages/app/package.json: cannot read it: packages/app/package.json") || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symlinked package.json: %v", err)
	}
}

// Load keeps the script names of each package.json it reads, for the
// runner's check that a target's script exists (no second read); a
// project without one says so.
func TestLoadKnowsEachPackagesScripts(t *testing.T) {
	root := writeTree(t, map[string]string{
		FileName:                    npmTargets,
		"packages/ui/package.json":  `{"name":"@shop/ui","scripts":{"build":"tsc","lint":"eslint ."}}`,
		"packages/app/package.json": `{"name":"@shop/app","dependencies":{"@shop/ui":"*"}}`,
		"svc/api/go.mod":            "module example.com/api\n",
		"svc/lib/go.mod":            "module example.com/lib\n",
	})
	ws, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		project, script string
		has, known      bool
	}{
		{"ui", "build", true, true},
		{"ui", "lint", true, true},
		{"ui", "test", false, true},
		{"app", "build", false, true},
		{"api", "build", false, false},
	}
	for _, c := range cases {
		if has, known := ws.Project(c.project).Script(c.script); has != c.has || known != c.known {
			t.Errorf("%s.Script(%q) = %v, %v; want %v, %v", c.project, c.script, has, known, c.has, c.known)
		}
	}
}
