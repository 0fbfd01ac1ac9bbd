package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scaffoldRepo writes files under a new root and scaffolds it; runs says
// which commands run (by their argv joined with spaces), nil: all.
func scaffoldRepo(t *testing.T, files map[string]string, runs map[string]bool) (*Scaffolding, *Workspace) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := ScaffoldOptions{}
	if runs != nil {
		o.Runs = func(_ string, argv ...string) bool { return runs[strings.Join(argv, " ")] }
	}
	sc, err := Scaffold(root, o)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := Parse(FileName, []byte(sc.Text))
	if err != nil {
		t.Fatalf("%v\n%s", err, sc.Text)
	}
	return sc, ws
}

func target(t *testing.T, ws *Workspace, id string) *Target {
	t.Helper()
	tg := ws.Target(id)
	if tg == nil {
		t.Fatalf("no target %s; targets: %v", id, ws.TargetIDs())
	}
	return tg
}

// TestInitOnAnNpmWorkspace: builds depend on the builds of the packages
// they depend on, tests on their own build where there is one, each
// build keeps what it writes, all through defaults:.
func TestInitOnAnNpmWorkspace(t *testing.T) {
	t.Parallel()
	sc, ws := scaffoldRepo(t, map[string]string{
		"package.json":      `{"private": true, "workspaces": ["packages/*", "apps/*", "!apps/legacy"]}`,
		"package-lock.json": `{"lockfileVersion": 3}`,
		".gitignore":        "node_modules/\ndist/\nbuild/\n",
		// main and exports name dist/, absent before a build
		"packages/utils/package.json": `{"name": "@acme/utils", "main": "./dist/index.js", "exports": {".": {"types": "./dist/index.d.ts", "require": "./dist/index.js"}, "./package.json": "./package.json"}, "scripts": {"build": "tsc", "test": "vitest run"}}`,
		// tsconfig's outDir, through extends, with comments and trailing commas
		"packages/ui/package.json":        `{"name": "@acme/ui", "dependencies": {"@acme/utils": "*"}, "scripts": {"build": "tsc -p tsconfig.build.json", "lint": "eslint ."}}`,
		"packages/ui/tsconfig.build.json": "{\n  // the build's\n  \"extends\": \"./tsconfig\",\n  \"compilerOptions\": {\"declarationDir\": \"types\",},\n}\n",
		"packages/ui/tsconfig.json":       `{"compilerOptions": {"outDir": "./dist", /* where */ "rootDir": "src"}}`,
		// files names lib/, which git keeps: source, not an output; build/ is ignored
		"packages/log/package.json": `{"name": "@acme/log", "files": ["lib", "build", "README.md"], "main": "index.js", "scripts": {"build": "node build.js", "test": "echo \"Error: no test specified\" && exit 1"}}`,
		"packages/log/lib/x.js":     "",
		"packages/log/build/x.js":   "",
		// no build: its test depends on what it imports being built
		"apps/web/package.json":                `{"name": "web", "dependencies": {"@acme/ui": "*"}, "scripts": {"test": "node --test", "start": "node ."}}`,
		"apps/legacy/package.json":             `{"name": "legacy", "scripts": {"build": "make"}}`,
		"apps/web/node_modules/x/package.json": `{"scripts": {"build": "x"}}`,
	}, nil)

	if got, want := sc.Next(), []string{"build", "test", "lint"}; !slices.Equal(got, want) {
		t.Errorf("next: %v, want %v", got, want)
	}
	if !strings.Contains(strings.Join(sc.Notes, "\n"), "run `npm install` before `core run`") {
		t.Errorf("no note to install the packages: %q", sc.Notes)
	}
	if !strings.Contains(sc.Text, "\ndefaults:\n") {
		t.Errorf("no defaults: block:\n%s", sc.Text)
	}
	for _, c := range []struct {
		id      string
		run     []string
		outputs []string
		from    []string // keys from defaults:
	}{
		{"utils:build", []string{"npm", "run", "build"}, []string{"dist/"}, []string{"deps"}},
		{"utils:test", []string{"npm", "run", "test"}, nil, []string{"deps"}},
		{"ui:build", []string{"npm", "run", "build"}, []string{"dist/", "types/"}, []string{"deps"}},
		{"ui:lint", []string{"npm", "run", "lint"}, nil, []string{"deps"}},
		{"log:build", []string{"npm", "run", "build"}, []string{"build/"}, []string{"deps"}},
		{"web:test", []string{"npm", "run", "test"}, nil, []string{"deps"}},
	} {
		tg := target(t, ws, c.id)
		equal(t, c.id+" run", tg.Run, c.run)
		equal(t, c.id+" outputs", tg.Outputs, c.outputs)
		equal(t, c.id+" from defaults", tg.FromDefaults, c.from)
	}
	for _, id := range []string{"log:test", "web:start", "legacy:build", "x:build"} {
		if ws.Target(id) != nil {
			t.Errorf("init wrote %s", id)
		}
	}
	if !strings.Contains(sc.Text, "# no test target: its test script is npm init's placeholder") {
		t.Errorf("the placeholder test is left out without a word:\n%s", sc.Text)
	}

	// The dependencies, with the ones the manifests name (as Load infers them).
	root := t.TempDir()
	for _, d := range []string{"packages/utils", "packages/ui", "packages/log", "apps/web"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("packages/utils/package.json", `{"name": "@acme/utils"}`)
	write("packages/ui/package.json", `{"name": "@acme/ui", "dependencies": {"@acme/utils": "*"}}`)
	write("packages/log/package.json", `{"name": "@acme/log"}`)
	write("apps/web/package.json", `{"name": "web", "dependencies": {"@acme/ui": "*"}}`)
	write(FileName, sc.Text)
	loaded, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "ui:build deps", loaded.Target("ui:build").Deps, []string{"utils:build"})
	equal(t, "utils:test deps", loaded.Target("utils:test").Deps, []string{"utils:build"})
	equal(t, "web:test deps", loaded.Target("web:test").Deps, []string{"ui:build"})
	equal(t, "ui:lint deps", loaded.Target("ui:lint").Deps, []string{"utils:build"})
}

// TestInitUsesTheWorkspacesPackageManager: pnpm's workspace file and
// lockfile, yarn's lockfile, packageManager.
func TestInitUsesTheWorkspacesPackageManager(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"pnpm-workspace.yaml", map[string]string{"package.json": `{"private": true}`, "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n", "pnpm-lock.yaml": ""}, "pnpm"},
		{"yarn.lock", map[string]string{"package.json": `{"workspaces": ["packages/*"]}`, "yarn.lock": ""}, "yarn"},
		{"packageManager", map[string]string{"package.json": `{"workspaces": {"packages": ["packages/*"]}, "packageManager": "yarn@4.1.0"}`, "package-lock.json": "{}"}, "yarn"},
		{"npm by default", map[string]string{"package.json": `{"workspaces": ["packages/*"]}`}, "npm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.files["packages/a/package.json"] = `{"name": "a", "scripts": {"build": "tsc"}}`
			c.files["packages/a/tsconfig.json"] = `{"compilerOptions": {"outDir": "out"}}`
			sc, ws := scaffoldRepo(t, c.files, map[string]bool{})
			if notes := strings.Join(sc.Notes, "\n"); !strings.Contains(notes, "the targets run "+c.want+", which does not run here") || !strings.Contains(notes, "run `"+c.want+" install` before") {
				t.Errorf("notes: %q", sc.Notes)
			}
			tg := target(t, ws, "a:build")
			equal(t, "run", tg.Run, []string{c.want, "run", "build"})
			equal(t, "outputs", tg.Outputs, []string{"out/"})
		})
	}
}

// TestInitOnAGoWorkspace: build, test and vet per module go.work uses;
// the others are named, not written.
func TestInitOnAGoWorkspace(t *testing.T) {
	t.Parallel()
	sc, ws := scaffoldRepo(t, map[string]string{
		"go.work":                 "go 1.22\n\nuse (\n\t./lib\n\t./cmd/app\n)\n",
		"lib/go.mod":              "module example.com/lib\n",
		"cmd/app/go.mod":          "module example.com/app\n",
		"tools/go.mod":            "module example.com/tools\n",
		"lib/testdata/mod/go.mod": "module example.com/fixture\n",
		"lib/vendor/x/y/go.mod":   "module x/y\n",
	}, nil)
	equal(t, "targets", ws.TargetIDs(), []string{"app:build", "app:test", "app:vet", "lib:build", "lib:test", "lib:vet"})
	equal(t, "vet", target(t, ws, "lib:vet").Run, []string{"go", "vet", "./..."})
	if notes := strings.Join(sc.Notes, "\n"); !strings.Contains(notes, "tools/go.mod is not among go.work's modules") || !strings.Contains(notes, "go work use ./tools") {
		t.Errorf("notes: %q", sc.Notes)
	}
	if got := sc.Next(); !slices.Equal(got, []string{"build", "test", "vet"}) {
		t.Errorf("next: %v", got)
	}
}

// TestInitOnPythonWritesWhatRunsHere: the runner the project uses, when
// it runs here; what cannot run is left out with why and the fix.
func TestInitOnPythonWritesWhatRunsHere(t *testing.T) {
	t.Parallel()
	unittestFile := "import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n"
	pytestFile := "def test_x():\n    assert True\n"
	const (
		python  = "python3 --version"
		pytest  = "python3 -c import pytest"
		ruff    = "ruff --version"
		ruffMod = "python3 -m ruff --version"
	)
	for _, c := range []struct {
		name    string
		files   map[string]string
		runs    []string
		test    []string // nil: no test target
		lint    []string
		skipped string
	}{
		{
			name:  "unittest tests in a package",
			files: map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "tests/__init__.py": "", "tests/test_a.py": unittestFile},
			runs:  []string{python, pytest},
			test:  []string{"python3", "-m", "unittest", "discover"},
		},
		{
			name:  "unittest tests in a directory that is no package, named *_test.py",
			files: map[string]string{"setup.py": "", "tests/a_test.py": unittestFile},
			runs:  []string{python},
			test:  []string{"python3", "-m", "unittest", "discover", "-s", "tests", "-p", "*_test.py"},
		},
		{
			name:  "pytest configured and installed",
			files: map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-q\"\n", "tests/test_a.py": unittestFile},
			runs:  []string{python, pytest},
			test:  []string{"python3", "-m", "pytest"},
		},
		{
			name:    "pytest required, not installed, unittest tests",
			files:   map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n[project.optional-dependencies]\ndev = [\"pytest>=8\"]\n", "test_a.py": unittestFile},
			runs:    []string{python},
			test:    []string{"python3", "-m", "unittest", "discover"},
			skipped: "the project names pytest, which python3 cannot import here",
		},
		{
			name:    "pytest tests, pytest not installed",
			files:   map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "tests/test_a.py": pytestFile},
			runs:    []string{python},
			skipped: "no test target: the tests are pytest's",
		},
		{
			name:  "pytest in a Poetry group and a conftest",
			files: map[string]string{"pyproject.toml": "[tool.poetry.group.dev.dependencies]\npytest = \"^8\"\n", "conftest.py": "", "tests/test_a.py": pytestFile},
			runs:  []string{python, pytest},
			test:  []string{"python3", "-m", "pytest"},
		},
		{
			name:    "no tests",
			files:   map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n"},
			runs:    []string{python, pytest},
			skipped: "no test target: no test files",
		},
		{
			name:  "ruff configured and installed",
			files: map[string]string{"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "test_a.py": unittestFile},
			runs:  []string{python, ruff},
			test:  []string{"python3", "-m", "unittest", "discover"},
			lint:  []string{"ruff", "check", "."},
		},
		{
			name:  "ruff required, installed as a module",
			files: map[string]string{"pyproject.toml": "[dependency-groups]\ndev = [\"ruff\"]\n", "test_a.py": unittestFile},
			runs:  []string{python, ruffMod},
			test:  []string{"python3", "-m", "unittest", "discover"},
			lint:  []string{"python3", "-m", "ruff", "check", "."},
		},
		{
			name:    "ruff in requirements, not installed",
			files:   map[string]string{"setup.cfg": "", "requirements-dev.txt": "ruff==0.4\n", "test_a.py": unittestFile},
			runs:    []string{python},
			test:    []string{"python3", "-m", "unittest", "discover"},
			skipped: "no lint target: the project uses ruff, which is not installed here",
		},
		{
			name:  "a src layout not installed",
			files: map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\n", "src/calc/__init__.py": "", "tests/test_a.py": unittestFile},
			runs:  []string{python},
			test:  []string{"env", "PYTHONPATH=src", "python3", "-m", "unittest", "discover", "-s", "tests"},
		},
		{
			name:  "a src layout installed",
			files: map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n", "src/calc/__init__.py": "", "tests/test_a.py": pytestFile},
			runs:  []string{python, pytest, "python3 -c import calc"},
			test:  []string{"python3", "-m", "pytest"},
		},
		{
			name:    "no python3",
			files:   map[string]string{"pyproject.toml": "", "test_a.py": unittestFile},
			skipped: "no targets: python3 does not run here",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runs := map[string]bool{}
			for _, r := range c.runs {
				runs[r] = true
			}
			files := map[string]string{}
			for k, v := range c.files {
				files["svc/py/"+k] = v
			}
			sc, ws := scaffoldRepo(t, files, runs)
			var test, lint []string
			if tg := ws.Target("py:test"); tg != nil {
				test = tg.Run
			}
			if tg := ws.Target("py:lint"); tg != nil {
				lint = tg.Run
			}
			equal(t, "test", test, c.test)
			equal(t, "lint", lint, c.lint)
			if len(ws.Projects) != 1 {
				t.Fatalf("projects: %v", ws.Projects)
			}
			skipped := strings.Join(sc.Projects[0].Skipped, " ")
			if c.skipped == "" && skipped != "" || !strings.Contains(skipped, c.skipped) {
				t.Errorf("skipped %q, want %q", skipped, c.skipped)
			}
			if c.skipped != "" && !strings.Contains(sc.Text, c.skipped) {
				t.Errorf("targets.yaml does not say why:\n%s", sc.Text)
			}
			next := sc.Next()
			for _, n := range next {
				if ws.Target("py:"+n) == nil {
					t.Errorf("next names %s, which init did not write", n)
				}
			}
		})
	}
}

// TestInitOnAMixedRepository: the defaults of a name apply to every
// project of the kind that needs them and harm no other; a Go module's
// build writes outputs: [] when the default has some.
func TestInitOnAMixedRepository(t *testing.T) {
	t.Parallel()
	_, ws := scaffoldRepo(t, map[string]string{
		"package.json":            `{"workspaces": ["web/*"]}`,
		"web/a/package.json":      `{"name": "a", "main": "dist/a.js", "scripts": {"build": "tsc", "test": "vitest"}}`,
		"web/b/package.json":      `{"name": "b", "main": "dist/b.js", "scripts": {"build": "tsc"}}`,
		"svc/api/go.mod":          "module example.com/api\n",
		"tools/py/pyproject.toml": "[project]\nname = \"py\"\n",
		"tools/py/test_x.py":      "import unittest\nclass T(unittest.TestCase):\n    pass\n",
	}, nil)
	equal(t, "a outputs", target(t, ws, "a:build").Outputs, []string{"dist/"})
	equal(t, "b outputs", target(t, ws, "b:build").FromDefaults, []string{"deps", "outputs"})
	equal(t, "api outputs", target(t, ws, "api:build").Outputs, []string{})
	equal(t, "api test deps", target(t, ws, "api:test").Deps, []string{"api:build"})
	equal(t, "py test deps", target(t, ws, "py:test").Deps, []string(nil))
}

// TestInitOnLonePackages: without a workspace at the root, each package
// is run by its own package manager, and each one not installed is named.
func TestInitOnLonePackages(t *testing.T) {
	t.Parallel()
	sc, ws := scaffoldRepo(t, map[string]string{
		"console/package.json":    `{"scripts": {"build": "vite build"}}`,
		"console/pnpm-lock.yaml":  "",
		"site/package.json":       `{"scripts": {"build": "hugo"}}`,
		"site/node_modules/.keep": "",
		"tools/gen/package.json":  `{"scripts": {"test": "node --test"}}`,
	}, nil)
	equal(t, "console", target(t, ws, "console:build").Run, []string{"pnpm", "run", "build"})
	equal(t, "site", target(t, ws, "site:build").Run, []string{"npm", "run", "build"})
	equal(t, "notes", sc.Notes, []string{
		"the packages of console are not installed (no node_modules): run `pnpm install` in console before `core run`",
		"the packages of tools/gen are not installed (no node_modules): run `npm install` in tools/gen before `core run`",
	})
}
