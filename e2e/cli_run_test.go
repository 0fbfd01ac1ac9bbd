package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTheCLIRunsWhatPeopleRun drives the run surface a new user reaches
// for: a target in every project, globs, an honest cache (env:, --force,
// --no-cache), the journals, and errors that exit non-zero.
func TestTheCLIRunsWhatPeopleRun(t *testing.T) {
	ws := copyDemo(t)
	// The Go targets (lint is go vet) share the host's build cache: a cold
	// one compiles the standard library and can take minutes on a busy
	// machine.
	goEnv := hostGoEnv(t)
	addProject(t, ws, "envy", "    targets:\n      show:\n        run: [sh, -c, 'echo FOO is $FOO; test \"$FOO\" != fail']\n        env: [FOO]\n")

	t.Run("a bare target name runs in every project that declares it", func(t *testing.T) {
		res := mustCore(t, ws, goEnv, "run", "lint")
		for _, p := range []string{"util", "auth", "billing"} {
			if !strings.Contains(res.Stderr, p+":lint") {
				t.Errorf("core run lint did not run %s:lint:\n%s", p, res.Stderr)
			}
		}
		if res := runCore(t, ws, nil, "run", "lnt"); res.Code == 0 || !strings.Contains(res.Stderr, `did you mean "lint"`) {
			t.Errorf("core run lnt: %s", res)
		}
		if res := mustCore(t, ws, goEnv, "run", "util:*", "--projects", "util"); !strings.Contains(res.Stderr, "util:test") || strings.Contains(res.Stderr, "auth:") {
			t.Errorf("core run 'util:*': %s", res.Stderr)
		}
	})

	t.Run("a declared variable is in the key, --force and --no-cache run anyway", func(t *testing.T) {
		run := func(foo string, args ...string) cliResult {
			return runCore(t, ws, []string{"FOO=" + foo}, append([]string{"run", "envy:show"}, args...)...)
		}
		if r := run("two"); !strings.Contains(r.Stdout, "FOO is two") {
			t.Fatalf("first run: %s", r)
		}
		if r := run("two"); !strings.Contains(r.Stderr, "cached") {
			t.Errorf("the same value did not hit the cache: %s", r)
		}
		if r := run("three"); !strings.Contains(r.Stdout, "FOO is three") || strings.Contains(r.Stderr, "cached") {
			t.Errorf("a new value replayed the old result: %s", r)
		}
		if r := run("three", "--force"); strings.Contains(r.Stderr, "cached") {
			t.Errorf("--force replayed: %s", r)
		}
		if r := run("three", "--no-cache"); strings.Contains(r.Stderr, "cached") {
			t.Errorf("--no-cache replayed: %s", r)
		}
	})

	t.Run("a dry run says what would run and what the cache serves", func(t *testing.T) {
		mustCore(t, ws, goEnv, "run", "util:lint")
		d := mustCore(t, ws, goEnv, "run", "util:lint", "--dry-run", "--json")
		var plan struct {
			Targets []struct {
				Target, Key string
				Hit         bool
			}
		}
		if err := json.Unmarshal([]byte(d.Stdout), &plan); err != nil || len(plan.Targets) != 1 || !plan.Targets[0].Hit || len(plan.Targets[0].Key) != 64 {
			t.Fatalf("core run --dry-run --json: %v %s", err, d.Stdout)
		}
		if d := mustCore(t, ws, nil, "run", "api:build", "--dry-run"); !strings.Contains(d.Stdout, "util:build") || !strings.Contains(d.Stdout, "would run") {
			t.Errorf("core run api:build --dry-run:\n%s", d.Stdout)
		}
		if r := mustCore(t, ws, nil, "runs", "--target", "api:build"); !strings.Contains(r.Stdout, "no runs of api:build") {
			t.Errorf("a dry run ran something: %s", r.Stdout)
		}
	})

	t.Run("core hash explains a key, and a lockfile at the root is in every key", func(t *testing.T) {
		mustCore(t, ws, goEnv, "run", "util:lint")
		h := mustCore(t, ws, nil, "hash", "util:lint")
		if !strings.Contains(h.Stdout, "in the cache: a run would replay it") || !strings.Contains(h.Stdout, "slug.go") {
			t.Fatalf("core hash util:lint:\n%s", h.Stdout)
		}
		writeFileAtomicAt(t, filepath.Join(ws, "package-lock.json"), "{\"lockfileVersion\": 3}\n")
		h = mustCore(t, ws, nil, "hash", "util:lint")
		if !strings.Contains(h.Stdout, "not in the cache") || !strings.Contains(h.Stdout, "package-lock.json") {
			t.Errorf("after the lockfile changed:\n%s", h.Stdout)
		}
		if r := runCore(t, ws, nil, "hash", "util:lnt"); r.Code == 0 || !strings.Contains(r.Stderr, "did you mean") {
			t.Errorf("core hash util:lnt: %s", r)
		}
	})

	t.Run("core hash --diff says why a run missed", func(t *testing.T) {
		runCore(t, ws, []string{"FOO=alpha"}, "run", "envy:show", "--force")
		runCore(t, ws, []string{"FOO=beta"}, "run", "envy:show")
		list := mustCore(t, ws, nil, "runs", "--target", "envy:show", "--limit", "2")
		ids := regexp.MustCompile(`(?m)^(r\S+)\s+envy:show`).FindAllStringSubmatch(list.Stdout, -1)
		if len(ids) != 2 {
			t.Fatalf("core runs:\n%s", list.Stdout)
		}
		d := mustCore(t, ws, nil, "hash", "--diff", ids[1][1], ids[0][1])
		if !strings.Contains(d.Stdout, "env FOO: its value changed") {
			t.Errorf("core hash --diff:\n%s", d.Stdout)
		}
		if strings.Contains(d.Stdout, "alpha") || strings.Contains(d.Stdout, "beta") {
			t.Errorf("a variable's value reached the output:\n%s", d.Stdout)
		}
	})

	t.Run("a failed run's journal is one command away", func(t *testing.T) {
		r := runCore(t, ws, []string{"FOO=fail", "GITHUB_ACTIONS=true"}, "run", "envy:show")
		if r.Code != 1 || !strings.Contains(r.Stderr, "core runs show r") {
			t.Fatalf("a failing target: %s", r)
		}
		if !strings.Contains(r.Stderr, "::group::envy:show failed: its output\nFOO is fail\n::endgroup::") {
			t.Errorf("no GitHub Actions log group for the failure: %s", r.Stderr)
		}
		list := mustCore(t, ws, nil, "runs", "--target", "envy:show", "--limit", "1")
		m := regexp.MustCompile(`(?m)^(r\S+)\s+envy:show\s+failed`).FindStringSubmatch(list.Stdout)
		if m == nil {
			t.Fatalf("core runs does not list the failed run first:\n%s", list.Stdout)
		}
		show := runCore(t, ws, nil, "runs", "show", m[1])
		if show.Code != 1 || !strings.Contains(show.Stdout, "FOO is fail") || !strings.Contains(show.Stdout, "exit 1") || !strings.Contains(show.Stdout, "sh -c") {
			t.Errorf("core runs show: %s", show)
		}
		if r := runCore(t, ws, nil, "runs", "show", "nope"); r.Code == 0 || !strings.Contains(r.Stderr, "not a run id") {
			t.Errorf("core runs show nope: %s", r)
		}
	})

	t.Run("answers read without jq", func(t *testing.T) {
		q := mustCore(t, ws, nil, "query", "symbol:Slugify")
		for _, want := range []string{"Slugify  func  libs/util/slug.go:", "Issue (services/auth/token.go) uses Slugify (libs/util/slug.go)"} {
			if !strings.Contains(q.Stdout, want) {
				t.Errorf("core query symbol:Slugify lacks %q:\n%s", want, q.Stdout)
			}
		}
		if r := runCore(t, ws, nil, "query", "symbol:Nope"); r.Code == 0 || !strings.Contains(r.Stderr, "symbol:'Nope*'") {
			t.Errorf("an empty answer: %s", r)
		}
		if d := mustCore(t, ws, nil, "describe", "graph"); !strings.Contains(d.Stdout, "api:build  <- auth:build") || !strings.Contains(d.Stdout, "dependencies") {
			t.Errorf("core describe graph:\n%s", d.Stdout)
		}
		if d := mustCore(t, ws, nil, "describe", "graph", "--format", "dot"); !strings.Contains(d.Stdout, `"api:build" -> "util:build";`) {
			t.Errorf("--format dot:\n%s", d.Stdout)
		}
		if d := mustCore(t, ws, nil, "describe", "graph", "--format", "mermaid"); !strings.HasPrefix(d.Stdout, "graph LR") || !strings.Contains(d.Stdout, "-->") {
			t.Errorf("--format mermaid:\n%s", d.Stdout)
		}
		if g := mustCore(t, ws, nil, "graph"); !strings.Contains(g.Stdout, "targets: build, lint, test") {
			t.Errorf("core graph:\n%s", g.Stdout)
		}
	})

	t.Run("spells run from the CLI, completion knows the workspace", func(t *testing.T) {
		if r := mustCore(t, ws, nil, "spell"); !strings.Contains(r.Stdout, "go-version") {
			t.Errorf("core spell: %s", r.Stdout)
		}
		if r := mustCore(t, ws, nil, "spell", "go-version"); !strings.Contains(r.Stdout, "go version go1.") {
			t.Errorf("core spell go-version: %s", r)
		}
		if r := runCore(t, ws, nil, "spell", "go-versio"); r.Code == 0 || !strings.Contains(r.Stderr, `did you mean "go-version"`) {
			t.Errorf("a misspelt spell: %s", r)
		}
		if r := mustCore(t, ws, nil, "__complete", "run", ""); !strings.Contains(r.Stdout, "util:lint") || !strings.Contains(r.Stdout, "lint\tin every project") {
			t.Errorf("completion of core run: %s", r.Stdout)
		}
		if r := mustCore(t, ws, nil, "__complete", "query", "project:"); !strings.Contains(r.Stdout, "project:util") {
			t.Errorf("completion of core query project:: %s", r.Stdout)
		}
		if r := mustCore(t, ws, nil, "doctor"); !strings.Contains(r.Stdout, "tool go: ok (go version") {
			t.Errorf("core doctor does not check the toolchains: %s", r.Stdout)
		}
	})

	t.Run("unknown words exit non-zero, version answers", func(t *testing.T) {
		for _, args := range [][]string{{"ls", "runs"}, {"config", "consol"}, {"nosuch"}, {"run", "--nosuch"}} {
			if r := runCore(t, ws, nil, args...); r.Code == 0 {
				t.Errorf("core %s exited 0: %s", strings.Join(args, " "), r)
			}
		}
		if r := runCore(t, ws, nil, "config", "consol"); !strings.Contains(r.Stderr, `did you mean "console"`) {
			t.Errorf("core config consol: %s", r)
		}
		if r := mustCore(t, "", nil, "version"); !strings.HasPrefix(r.Stdout, "core ") || !strings.Contains(r.Stdout, "go1.") {
			t.Errorf("core version: %s", r)
		}
	})
}

// TestCoreInitWritesATargetsFileCoreAccepts: a repository core has never
// seen, with a Go module, an npm workspace package and a Python project.
func TestCoreInitWritesATargetsFileCoreAccepts(t *testing.T) {
	repo := t.TempDir()
	for path, content := range map[string]string{
		"svc/api/go.mod":              "module example.com/api\n\ngo 1.22\n",
		"svc/api/main.go":             "package main\n\nfunc main() {}\n",
		"package.json":                `{"private":true,"workspaces":["web/*"]}`,
		"web/app/package.json":        `{"name":"app","scripts":{"build":"tsc","test":"vitest","start":"node ."}}`,
		"node_modules/x/package.json": `{"scripts":{"build":"x"}}`,
		"tools/py/pyproject.toml":     "[project]\nname = \"py\"\n",
		"tools/py/test_py.py":         "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n",
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	res := mustCore(t, "", nil, "init", repo)
	if !strings.Contains(res.Stdout, "3 projects") {
		t.Fatalf("core init: %s", res)
	}
	d := mustCore(t, repo, nil, "describe", "graph")
	for _, want := range []string{"api:build", "api:test", "app:build", "app:test", "py:test"} {
		if !strings.Contains(d.Stdout, want) {
			t.Errorf("the written targets.yaml lacks %s:\n%s", want, d.Stdout)
		}
	}
	if strings.Contains(d.Stdout, "app:start") || strings.Contains(d.Stdout, "x:build") {
		t.Errorf("init took a script or a package it should not have:\n%s", d.Stdout)
	}
	if r := runCore(t, "", nil, "init", repo); r.Code == 0 || !strings.Contains(r.Stderr, "already exists") {
		t.Errorf("a second init: %s", r)
	}
}

func writeFileAtomicAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
