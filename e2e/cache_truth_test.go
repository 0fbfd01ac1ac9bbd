package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The cache never says "pass" for code that fails: each case builds a
// workspace a new user would have, runs a target that passes, breaks what
// it reads through a dependency, and runs it again with the real tools.

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		writeFileAtomicAt(t, filepath.Join(root, filepath.FromSlash(p)), content)
	}
}

// gitInit commits root as it is, so that core affected has a base.
func gitInit(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "base"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

var runIDRE = regexp.MustCompile(`core runs show (r[0-9A-Za-z.\-]+)`)

func TestAGoPackageRerunsWhenAPackageItImportsChanges(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	goEnv := hostGoEnv(t)
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"go.mod":       "module example.com/ws\n\ngo 1.22\n",
		"a/a.go":       "package a\n\nfunc Double(x int) int { return 2 * x }\n",
		"b/b.go":       "package b\n\nimport \"example.com/ws/a\"\n\nfunc Quad(x int) int { return a.Double(a.Double(x)) }\n",
		"b/b_test.go":  "package b\n\nimport \"testing\"\n\nfunc TestQuad(t *testing.T) {\n\tif Quad(1) != 4 {\n\t\tt.Fatal(\"Quad(1) != 4\")\n\t}\n}\n",
		"targets.yaml": "projects:\n  a:\n    path: a\n    targets:\n      test: {run: [go, test, ./...], inputs: [\"**/*.go\"]}\n  b:\n    path: b\n    targets:\n      test: {run: [go, test, -count=1, ./...], inputs: [\"**/*.go\"]}\n",
	})
	gitInit(t, ws)
	mustCore(t, ws, goEnv, "run", "b:test")
	if r := mustCore(t, ws, goEnv, "run", "b:test"); !strings.Contains(r.Stderr, "cached") {
		t.Fatalf("an unchanged workspace is not replayed:\n%s", r)
	}

	writeFileAtomicAt(t, filepath.Join(ws, "a/a.go"), "package a\n\nfunc Double(x int) int { return 3 * x }\n")
	r := runCore(t, ws, goEnv, "run", "b:test")
	if r.Code != 1 || strings.Contains(r.Stderr, "cached") || !strings.Contains(r.Stdout, "Quad(1) != 4") {
		t.Fatalf("after a change to the package b imports, b:test was not run and failed:\n%s", r)
	}
	if got := mustCore(t, ws, nil, "affected").Stdout; !strings.Contains(got, "b:test") {
		t.Errorf("core affected does not list b:test after a change to a:\n%s", got)
	}
	h := mustCore(t, ws, nil, "hash", "b:test").Stdout
	if !strings.Contains(h, "b depends on a (b/b.go imports it)") || !strings.Contains(h, "a.go") {
		t.Errorf("core hash does not show a's inputs in b:test's key:\n%s", h)
	}

	// core hash --diff names the dependency's file that moved the key.
	writeFileAtomicAt(t, filepath.Join(ws, "a/a.go"), "package a\n\nfunc Double(x int) int { return x + x }\n")
	mustCore(t, ws, goEnv, "run", "b:test")
	runs := mustCore(t, ws, nil, "runs", "--target", "b:test", "--limit", "1").Stdout
	ids := regexp.MustCompile(`(?m)^(r\S+)`).FindAllStringSubmatch(runs, -1)
	var failed string
	if m := runIDRE.FindStringSubmatch(r.Stderr); m != nil {
		failed = m[1]
	}
	if failed == "" || len(ids) == 0 {
		t.Fatalf("no run ids:\n%s\n%s", r, runs)
	}
	latest := ids[0][1]
	if d := mustCore(t, ws, nil, "hash", "--diff", failed, latest).Stdout; !strings.Contains(d, "dependency a: a/a.go changed") {
		t.Errorf("core hash --diff does not name the dependency's file:\n%s", d)
	}

	// A formatter that reads nothing of its dependencies says so.
	writeFileAtomicAt(t, filepath.Join(ws, "targets.yaml"), readFile(t, filepath.Join(ws, "targets.yaml"))+"      fmt: {run: [gofmt, -l, .], inputs: [\"**/*.go\"], dependency_inputs: none}\n")
	mustCore(t, ws, goEnv, "run", "b:fmt")
	writeFileAtomicAt(t, filepath.Join(ws, "a/a.go"), "package a\n\nfunc Double(x int) int { return x * 2 }\n")
	if r := mustCore(t, ws, goEnv, "run", "b:fmt"); !strings.Contains(r.Stderr, "cached") {
		t.Errorf("dependency_inputs: none still keys b:fmt on a:\n%s", r)
	}
}

func TestAGoWorkModuleRebuildsWhenAModuleItRequiresBreaks(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	goEnv := hostGoEnv(t)
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"go.work":         "go 1.22\n\nuse (\n\t./text\n\t./net\n\t./crypto\n)\n",
		"text/go.mod":     "module example.com/text\n\ngo 1.22\n",
		"text/text.go":    "package text\n\nfunc Upper(s string) string { return s }\n",
		"net/go.mod":      "module example.com/net\n\ngo 1.22\n\nrequire (\n\texample.com/text v0.0.0\n\texample.com/crypto v0.0.0\n)\n",
		"net/net.go":      "package net\n\nimport \"example.com/text\"\n\nfunc Host(s string) string { return text.Upper(s) }\n",
		"crypto/go.mod":   "module example.com/crypto\n\ngo 1.22\n\nrequire example.com/net v0.0.0\n",
		"crypto/hash.go":  "package crypto\n\nfunc Sum(b []byte) int { return len(b) }\n",
		"targets.yaml":    "projects:\n  text:\n    path: text\n    targets:\n      build: {run: [go, build, ./...]}\n  net:\n    path: net\n    targets:\n      build: {run: [go, build, ./...]}\n  crypto:\n    path: crypto\n    targets:\n      build: {run: [go, build, ./...]}\n",
		"text/.gitignore": "",
	})
	mustCore(t, ws, goEnv, "run", "net:build", "crypto:build")
	writeFileAtomicAt(t, filepath.Join(ws, "text/text.go"), "package text\n\nfunc Upper(s string) string { return s +  }\n")
	if r := runCore(t, ws, goEnv, "run", "net:build"); r.Code != 1 || strings.Contains(r.Stderr, "cached") {
		t.Fatalf("a compile error in a module net requires left net:build cached:\n%s", r)
	}
	// net and crypto require each other: each key covers the other.
	writeFileAtomicAt(t, filepath.Join(ws, "text/text.go"), "package text\n\nfunc Upper(s string) string { return s }\n")
	mustCore(t, ws, goEnv, "run", "net:build", "crypto:build")
	writeFileAtomicAt(t, filepath.Join(ws, "net/net.go"), "package net\n\nfunc Host(s string) string { return s + 1 }\n")
	if r := runCore(t, ws, goEnv, "run", "crypto:build"); strings.Contains(r.Stderr, "cached") {
		t.Errorf("crypto requires net, which changed, and crypto:build was replayed:\n%s", r)
	}
}

func TestAnNpmPackageRerunsWhenThePackageItDependsOnChanges(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"package.json":                  `{"private":true,"workspaces":["packages/*"]}`,
		"packages/lib/package.json":     `{"name":"lib","main":"src/index.js"}`,
		"packages/lib/src/index.js":     "exports.double = (x) => 2 * x\n",
		"packages/app/package.json":     `{"name":"app","dependencies":{"lib":"*"},"scripts":{"test":"node test/app.test.js"}}`,
		"packages/app/src/app.js":       "const { double } = require('lib')\nexports.quad = (x) => double(double(x))\n",
		"packages/app/test/app.test.js": "const assert = require('node:assert')\nconst { quad } = require('../src/app.js')\nassert.strictEqual(quad(1), 4)\nconsole.log('app ok')\n",
		"targets.yaml": "projects:\n  lib:\n    path: packages/lib\n    targets:\n      test: {run: [node, -e, \"require('./src/index.js')\"], inputs: [\"src/**\"]}\n" +
			"  app:\n    path: packages/app\n    targets:\n      test: {run: [npm, test], inputs: [\"src/**\", \"test/**\"]}\n",
	})
	// node_modules as npm lays out a workspace: a link to the package.
	if err := os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../packages/lib", filepath.Join(ws, "node_modules", "lib")); err != nil {
		t.Fatal(err)
	}
	if r := mustCore(t, ws, nil, "run", "app:test"); !strings.Contains(r.Stdout, "app ok") {
		t.Fatalf("app:test did not pass:\n%s", r)
	}
	writeFileAtomicAt(t, filepath.Join(ws, "packages/lib/src/index.js"), "exports.double = (x) => 3 * x\n")
	if r := runCore(t, ws, nil, "run", "app:test"); r.Code != 1 || strings.Contains(r.Stderr, "cached") {
		t.Fatalf("after a change to lib, app:test was not run and failed:\n%s", r)
	}
}

func TestTheDeclarationIsInTheKeyAndForceReplacesTheEntry(t *testing.T) {
	ws := t.TempDir()
	gen := "projects:\n  gen:\n    path: gen\n    targets:\n      build:\n        run: [sh, -c, \"mkdir -p dist && cat ../counter > dist/out.txt && cat ../counter\"]\n"
	writeTree(t, ws, map[string]string{
		"counter":        "1\n",
		"gen/src.txt":    "src\n",
		"gen/.gitignore": ".turbo/\n",
		"targets.yaml":   gen,
	})
	mustCore(t, ws, nil, "run", "gen:build")

	// outputs: added. The old entry holds no dist/: it must not be replayed.
	writeFileAtomicAt(t, filepath.Join(ws, "targets.yaml"), gen+"        outputs: [dist/]\n")
	if err := os.RemoveAll(filepath.Join(ws, "gen/dist")); err != nil {
		t.Fatal(err)
	}
	if r := mustCore(t, ws, nil, "run", "gen:build"); strings.Contains(r.Stderr, "cached") {
		t.Fatalf("adding outputs kept the key:\n%s", r)
	}
	if err := os.RemoveAll(filepath.Join(ws, "gen/dist")); err != nil {
		t.Fatal(err)
	}
	if r := mustCore(t, ws, nil, "run", "gen:build"); !strings.Contains(r.Stderr, "cached") {
		t.Fatalf("the entry with outputs was not replayed:\n%s", r)
	}
	if got := readFile(t, filepath.Join(ws, "gen/dist/out.txt")); got != "1\n" {
		t.Errorf("dist/out.txt restored as %q", got)
	}

	// A tool's log that git ignores is not an input of a target without
	// inputs.
	writeFileAtomicAt(t, filepath.Join(ws, "gen/.turbo/turbo-build.log"), "a log\n")
	if r := mustCore(t, ws, nil, "run", "gen:build"); !strings.Contains(r.Stderr, "cached") {
		t.Errorf("an ignored log changed the key:\n%s", r)
	}

	// --force runs, and its result replaces the entry.
	writeFileAtomicAt(t, filepath.Join(ws, "counter"), "2\n")
	if r := mustCore(t, ws, nil, "run", "gen:build", "--force"); strings.Contains(r.Stderr, "cached") || !strings.Contains(r.Stdout, "2") {
		t.Fatalf("--force did not run:\n%s", r)
	}
	if r := mustCore(t, ws, nil, "run", "gen:build"); !strings.Contains(r.Stderr, "cached") || !strings.Contains(r.Stdout, "[gen:build] 2") {
		t.Errorf("after --force the cache replays the old entry:\n%s", r)
	}
}
