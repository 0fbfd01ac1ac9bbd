package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The first hour: core init on a repository core has never seen, then the
// "next:" line it prints, run as printed, succeeds without an edit.

// initThenNext runs core init in repo, checks that its next line names
// core run with targets, runs that line and returns what it printed.
func initThenNext(t *testing.T, repo string, env []string) (initOut, runOut cliResult) {
	t.Helper()
	initOut = mustCore(t, "", env, "init", repo)
	m := regexp.MustCompile(`; next: core run ([a-z0-9 _-]+)\n$`).FindStringSubmatch(initOut.Stdout)
	if m == nil {
		t.Fatalf("core init printed no next line that runs targets:\n%s", initOut)
	}
	args := append([]string{"run"}, strings.Fields(m[1])...)
	res := runCore(t, repo, env, args...)
	if res.Code != 0 {
		t.Fatalf("core %s, as core init said, failed:\n%s\ntargets.yaml:\n%s", strings.Join(args, " "), res, readFile(t, filepath.Join(repo, "targets.yaml")))
	}
	return initOut, res
}

// TestInitOnAnNpmWorkspaceRunsOnTheFirstTry: three workspace packages,
// app importing utils by its package name from utils' built dist/ (so
// app's build fails unless utils' ran first), installed by a real npm
// install; init's next line builds and tests them in order, and a second
// run replays everything, the outputs restored.
func TestInitOnAnNpmWorkspaceRunsOnTheFirstTry(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	repo := t.TempDir()
	test := func(file, expr, want string) string {
		return "const test = require('node:test');\nconst assert = require('node:assert');\n" +
			"test('" + file + "', () => assert.strictEqual(" + expr + ", " + want + "));\n"
	}
	for path, content := range map[string]string{
		"package.json": `{"name": "acme", "private": true, "workspaces": ["packages/*"]}`,
		".gitignore":   "node_modules/\ndist/\nlib/\n",
		// utils: src/ compiled to dist/, which main names
		"packages/utils/package.json": `{"name": "@acme/utils", "version": "1.0.0", "main": "dist/index.js", "files": ["dist"],
			"scripts": {"build": "node build.js", "test": "node --test"}}`,
		"packages/utils/src/index.js":  "exports.slugify = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');\n",
		"packages/utils/build.js":      "const fs = require('fs');\nfs.mkdirSync('dist', {recursive: true});\nfs.copyFileSync('src/index.js', 'dist/index.js');\n",
		"packages/utils/index.test.js": test("slugify", "require('./dist/index.js').slugify('Hello World')", "'hello-world'"),
		// app: its build imports @acme/utils, which resolves to utils' dist/
		"packages/app/package.json": `{"name": "@acme/app", "version": "1.0.0", "main": "lib/index.js", "dependencies": {"@acme/utils": "1.0.0"},
			"scripts": {"build": "node build.js", "test": "node --test"}}`,
		"packages/app/build.js": "const fs = require('fs');\nconst { slugify } = require('@acme/utils');\n" +
			"fs.mkdirSync('lib', {recursive: true});\nfs.writeFileSync('lib/index.js', 'exports.title = ' + JSON.stringify(slugify('Core App')) + ';\\n');\n",
		"packages/app/index.test.js": test("title", "require('./lib/index.js').title", "'core-app'"),
		// docs: no build; its test imports app's built lib/
		"packages/docs/package.json": `{"name": "@acme/docs", "version": "1.0.0", "dependencies": {"@acme/app": "1.0.0"},
			"scripts": {"test": "node --test"}}`,
		"packages/docs/index.test.js": test("docs", "require('@acme/app').title", "'core-app'"),
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	npmInstall(t, repo)

	initOut, first := initThenNext(t, repo, nil)
	if !strings.Contains(initOut.Stdout, "next: core run build test\n") || strings.Contains(initOut.Stdout, "note:") {
		t.Errorf("core init's next line, or a note it should not need:\n%s", initOut.Stdout)
	}
	text := readFile(t, filepath.Join(repo, "targets.yaml"))
	for _, want := range []string{"\ndefaults:\n  build:\n    deps: [\"^build\"]", "outputs: [dist/]", "outputs: [lib/]"} {
		if !strings.Contains(text, want) {
			t.Errorf("targets.yaml lacks %q:\n%s", want, text)
		}
	}
	order := func(before, after string) {
		t.Helper()
		b, a := strings.Index(first.Stderr, "✔ "+before), strings.Index(first.Stderr, "▶ "+after)
		if b < 0 || a < 0 || a < b {
			t.Errorf("%s did not wait for %s:\n%s", after, before, first.Stderr)
		}
	}
	order("utils:build", "app:build")
	order("utils:build", "utils:test")
	order("app:build", "docs:test")
	if !strings.Contains(first.Stderr, "5 targets: 5 succeeded") {
		t.Errorf("the first run:\n%s", first.Stderr)
	}

	if r := mustCore(t, repo, nil, "hash", "app:test"); !strings.Contains(r.Stdout, "defaults  deps from defaults.test") {
		t.Errorf("core hash does not say what app:test takes from defaults:\n%s", r.Stdout)
	}

	// Replayed, with what the builds wrote restored.
	for _, d := range []string{"packages/utils/dist", "packages/app/lib"} {
		if err := os.RemoveAll(filepath.Join(repo, d)); err != nil {
			t.Fatal(err)
		}
	}
	again := mustCore(t, repo, nil, "run", "build", "test")
	if !strings.Contains(again.Stderr, "5 targets: 5 cached") {
		t.Errorf("the second run is not all cached:\n%s", again.Stderr)
	}
	if got := readFile(t, filepath.Join(repo, "packages/app/lib/index.js")); !strings.Contains(got, "core-app") {
		t.Errorf("app's lib/ was not restored: %q", got)
	}
}

// npmInstall runs a real npm install in repo: the workspace's packages
// linked into node_modules, with a cache of the test's own.
func npmInstall(t *testing.T, repo string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = repo
	cmd.Env = isolatedEnv(t, "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(repo, "node_modules/@acme/utils")); err != nil {
		t.Fatalf("npm install did not link the workspace's packages: %v", err)
	}
}

// TestInitOnAGoWorkspaceRunsOnTheFirstTry: a go.work of two modules, app
// importing lib, and a module go.work leaves out (which init names and
// writes no target for, since go would refuse to build it there).
func TestInitOnAGoWorkspaceRunsOnTheFirstTry(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	repo := t.TempDir()
	for path, content := range map[string]string{
		"go.work":         "go 1.22\n\nuse (\n\t./lib\n\t./cmd/app\n)\n",
		"lib/go.mod":      "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go":      "package lib\n\n// Double doubles n.\nfunc Double(n int) int { return 2 * n }\n",
		"lib/lib_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(Double(2))\n\t}\n}\n",
		"cmd/app/go.mod":  "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n",
		"cmd/app/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib\"\n)\n\nfunc main() { fmt.Println(lib.Double(21)) }\n",
		"cmd/app/main_test.go": "package main\n\nimport (\n\t\"testing\"\n\n\t\"example.com/lib\"\n)\n\n" +
			"func TestApp(t *testing.T) {\n\tif lib.Double(21) != 42 {\n\t\tt.Fatal()\n\t}\n}\n",
		"tools/go.mod":             "module example.com/tools\n\ngo 1.22\n",
		"tools/tools.go":           "package tools\n",
		"lib/testdata/x/go.mod":    "module example.com/x\n",
		"lib/testdata/x/broken.go": "package x\n\nthis is not Go\n",
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	env := hostGoEnv(t)
	initOut, res := initThenNext(t, repo, env)
	if !strings.Contains(initOut.Stdout, "next: core run build test vet\n") {
		t.Errorf("core init's next line:\n%s", initOut.Stdout)
	}
	if !strings.Contains(initOut.Stdout, "tools/go.mod is not among go.work's modules") {
		t.Errorf("core init does not say why tools has no project:\n%s", initOut.Stdout)
	}
	if !strings.Contains(res.Stderr, "6 targets: 6 succeeded") {
		t.Errorf("core run:\n%s", res.Stderr)
	}
	if r := mustCore(t, repo, env, "describe", "graph"); strings.Contains(r.Stdout, "tools:") || strings.Contains(r.Stdout, "x:build") {
		t.Errorf("init wrote a target for a module go.work leaves out, or for testdata:\n%s", r.Stdout)
	}
}

// TestInitOnAPythonRepositoryRunsOnTheFirstTry: a project of the src
// layout, not installed, that lists pytest among its development
// dependencies, with unittest tests in a tests/ directory that is no
// package. Where python3 cannot import
// pytest, init writes unittest, which finds them, and says so; where it
// can, pytest. Either runs.
func TestInitOnAPythonRepositoryRunsOnTheFirstTry(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	repo := t.TempDir()
	for path, content := range map[string]string{
		"pyproject.toml":       "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[project.optional-dependencies]\ndev = [\"pytest>=8\"]\n",
		"src/calc/__init__.py": "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py":   "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
		"tests/test_other.py":  "import unittest\n\n\nclass OtherTest(unittest.TestCase):\n    def test_true(self):\n        self.assertTrue(True)\n",
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	initOut, res := initThenNext(t, repo, nil)
	if !strings.Contains(initOut.Stdout, "next: core run test\n") {
		t.Errorf("core init's next line:\n%s", initOut.Stdout)
	}
	text := readFile(t, filepath.Join(repo, "targets.yaml"))
	if exec.Command("python3", "-c", "import pytest").Run() != nil {
		if !strings.Contains(text, "run: [env, PYTHONPATH=src, python3, -m, unittest, discover, -s, tests]") || !strings.Contains(initOut.Stdout, "python3 cannot import") {
			t.Errorf("without pytest, init wrote:\n%s\nand said:\n%s", text, initOut.Stdout)
		}
		if !strings.Contains(res.Stdout+res.Stderr, "Ran 2 tests") {
			t.Errorf("unittest did not run both tests:\n%s", res)
		}
	} else if !strings.Contains(text, "python3, -m, pytest]") {
		t.Errorf("with pytest installed, init wrote:\n%s", text)
	}
	if strings.Contains(text, "build:") || strings.Contains(text, "lint:") {
		t.Errorf("init wrote a target the project cannot run here:\n%s", text)
	}
}
