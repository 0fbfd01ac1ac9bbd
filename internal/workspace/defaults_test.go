package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaults: what a target ends up with, given the defaults of its name
// and what it writes itself.
func TestDefaults(t *testing.T) {
	t.Parallel()
	const projects = `
projects:
  util:
    path: libs/util
    targets:
      build: {run: [tsc]}
      test: {run: [vitest]}
  web:
    path: apps/web
    deps: [util]
    targets:
      build: {run: [vite, build], outputs: [out/], deps: []}
      test: {run: [vitest], env: [CI_SHARD]}
  py:
    path: py
    targets:
      test: {run: [python3, -m, pytest]}
`
	tests := []struct {
		name     string
		defaults string
		target   string
		check    func(t *testing.T, tg *Target)
	}{
		{
			name:     "a target takes the keys it does not write",
			defaults: "defaults:\n  build: {deps: [\"^build\"], outputs: [dist/]}\n",
			target:   "util:build",
			check: func(t *testing.T, tg *Target) {
				equal(t, "outputs", tg.Outputs, []string{"dist/"})
				equal(t, "run", tg.Run, []string{"tsc"})
				equal(t, "from defaults", tg.FromDefaults, []string{"deps", "outputs"})
			},
		},
		{
			name:     "what a target writes wins, key by key, and an empty list is written",
			defaults: "defaults:\n  build: {deps: [\"^build\"], outputs: [dist/], env: [NODE_ENV]}\n",
			target:   "web:build",
			check: func(t *testing.T, tg *Target) {
				equal(t, "outputs", tg.Outputs, []string{"out/"})
				equal(t, "deps", tg.Deps, []string(nil))
				equal(t, "env", tg.Env, []string{"NODE_ENV"})
				equal(t, "from defaults", tg.FromDefaults, []string{"env"})
			},
		},
		{
			name:     "^build from a default follows the project's dependencies",
			defaults: "defaults:\n  test: {deps: [\"^build\", build]}\n",
			target:   "web:test",
			check: func(t *testing.T, tg *Target) {
				equal(t, "deps", tg.Deps, []string{"util:build", "web:build"})
			},
		},
		{
			name:     "a default's dependency on a target the project lacks does not apply there",
			defaults: "defaults:\n  test: {deps: [build]}\n",
			target:   "py:test",
			check: func(t *testing.T, tg *Target) {
				equal(t, "deps", tg.Deps, []string(nil))
				equal(t, "from defaults", tg.FromDefaults, []string{"deps"})
			},
		},
		{
			name:     "a default naming a target is not a dependency of that target itself",
			defaults: "defaults:\n  build: {deps: [\"util:build\"]}\n",
			target:   "util:build",
			check: func(t *testing.T, tg *Target) {
				equal(t, "deps", tg.Deps, []string(nil))
			},
		},
		{
			name:     "...but of the others of its name",
			defaults: "defaults:\n  build: {deps: [\"util:build\"]}\n",
			target:   "web:build",
			check: func(t *testing.T, tg *Target) {
				equal(t, "deps", tg.Deps, []string(nil)) // web writes deps: []
			},
		},
		{
			name:     "inputs from a default replace every file of the project, // globs included",
			defaults: "defaults:\n  test: {inputs: [\"src/**\", \"//tsconfig.base.json\"]}\n",
			target:   "util:test",
			check: func(t *testing.T, tg *Target) {
				equal(t, "inputs", tg.Inputs, []string{"src/**"})
				equal(t, "root inputs", tg.RootInputs, []string{"tsconfig.base.json"})
				equal(t, "inputs default", tg.InputsDefault, false)
			},
		},
		{
			name:     "a default can give the run, a coverage among its outputs and every other key",
			defaults: "defaults:\n  test:\n    run: [go, test, -coverprofile=c.out, ./...]\n    outputs: [c.out]\n    coverage: c.out\n    toolchain: [go, version]\n    drift: true\n    dependency_inputs: none\n    pass_env: [GOPROXY]\n",
			target:   "py:test",
			check: func(t *testing.T, tg *Target) {
				equal(t, "run", tg.Run, []string{"python3", "-m", "pytest"})
				equal(t, "coverage", tg.Coverage, "c.out")
				equal(t, "toolchain", tg.Toolchain, []string{"go", "version"})
				equal(t, "drift", tg.Drift, true)
				equal(t, "dependency_inputs", tg.DependencyInputs, DependencyInputsNone)
				equal(t, "pass_env", tg.PassEnv, []string{"GOPROXY"})
				equal(t, "from defaults", tg.FromDefaults, []string{"coverage", "dependency_inputs", "drift", "outputs", "pass_env", "toolchain"})
			},
		},
		{
			name:     "without defaults nothing comes from them",
			defaults: "",
			target:   "util:build",
			check: func(t *testing.T, tg *Target) {
				equal(t, "from defaults", tg.FromDefaults, []string(nil))
				equal(t, "inputs", tg.Inputs, DefaultInputs())
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := mustParse(t, tc.defaults+projects)
			tg := ws.Target(tc.target)
			if tg == nil {
				t.Fatalf("no target %s", tc.target)
			}
			tc.check(t, tg)
		})
	}
}

// TestATargetMayTakeItsRunFromADefault: a target written empty (or with
// run: empty) runs what its default says.
func TestATargetMayTakeItsRunFromADefault(t *testing.T) {
	t.Parallel()
	ws := mustParse(t, `
defaults:
  vet: {run: [go, vet, ./...]}
projects:
  a: {path: a, targets: {vet: }}
  b: {path: b, targets: {vet: {run: }}}
  c: {path: c, targets: {vet: {run: [staticcheck, ./...]}}}
`)
	equal(t, "a", ws.Target("a:vet").Run, []string{"go", "vet", "./..."})
	equal(t, "b", ws.Target("b:vet").Run, []string{"go", "vet", "./..."})
	equal(t, "c", ws.Target("c:vet").Run, []string{"staticcheck", "./..."})
}

// TestDefaultsProblems: each mistake is reported once, where it is
// written, whatever number of targets takes the default.
func TestDefaultsProblems(t *testing.T) {
	t.Parallel()
	const projects = `
projects:
  a:
    path: a
    targets:
      build: {run: [make]}
      test: {run: [make, test]}
  b:
    path: b
    targets:
      build: {run: [make]}
      test: {run: [make, test], outputs: [o/]}
`
	tests := []struct {
		name, src string
		want      []string // each exactly once
	}{
		{
			name: "a target without run whose default gives none",
			src:  "defaults:\n  build: {deps: [\"^build\"]}\n" + strings.Replace(projects, "build: {run: [make]}", "build: {outputs: [o/]}", 1),
			want: []string{`targets.yaml:8:7: projects.a.targets.build: missing run: give the command as an argv list, e.g. run: [go, build, ./...] (defaults.build gives none)`},
		},
		{
			name: "a default of a target no project declares",
			src:  "defaults:\n  biuld: {deps: [\"^build\"]}\n" + projects,
			want: []string{`targets.yaml:2:3: defaults.biuld: no project declares a target "biuld": a default applies to the targets of its name that projects declare (did you mean "build"?)`},
		},
		{
			name: "dependencies a default cannot have",
			src:  "defaults:\n  test: {deps: [tset, test, \"c:build\", \"a:lint\", \"^x y\", build, build]}\n" + projects,
			want: []string{
				`targets.yaml:2:17: defaults.test.deps[0]: no project declares a target "tset" (did you mean "test"?) (targets: build, test)`,
				`targets.yaml:2:23: defaults.test.deps[1]: target "test" cannot depend on itself`,
				`targets.yaml:2:29: defaults.test.deps[2]: unknown project "c" in "c:build" (projects: a, b)`,
				`targets.yaml:2:40: defaults.test.deps[3]: unknown target "a:lint" (a declares: build, test)`,
				`targets.yaml:2:50: defaults.test.deps[4]: malformed dependency "^x y"`,
				`targets.yaml:2:65: defaults.test.deps[6]: "build" is listed twice (also at defaults.test.deps[5])`,
			},
		},
		{
			name: "an unknown key and a run that is a string",
			src:  "defaults:\n  build: {cmd: make, run: make all}\n" + projects,
			want: []string{
				`targets.yaml:2:11: defaults.build.cmd: unknown key "cmd"`,
				`targets.yaml:2:27: defaults.build.run: run must be an argv list, not a string (commands run without a shell): write run: [make, all]`,
			},
		},
		{
			name: "a default that is not a mapping",
			src:  "defaults:\n  build: [make]\n" + projects,
			want: []string{`targets.yaml:2:10: defaults.build: default "build" must be a mapping`},
		},
		{
			name: "a default's coverage that none of its outputs match",
			src:  "defaults:\n  test: {outputs: [dist/], coverage: c.out}\n" + projects,
			want: []string{`targets.yaml:2:38: defaults.test.coverage: coverage "c.out" is not among the target's outputs`},
		},
		{
			name: "a default's coverage that a target's own outputs do not match",
			src:  "defaults:\n  test: {coverage: c.out}\n" + projects,
			want: []string{
				`projects.a.targets.test: the coverage "c.out" it takes from defaults.test is not among the target's outputs`,
				`projects.b.targets.test: the coverage "c.out" it takes from defaults.test is not among the target's outputs`,
			},
		},
		{
			name: "a variable in a default's env and a target's pass_env",
			src:  "defaults:\n  build: {env: [TOKEN]}\n" + strings.Replace(projects, "build: {run: [make]}", "build: {run: [make], pass_env: [TOKEN]}", 1),
			want: []string{`projects.a.targets.build.pass_env: "TOKEN" is in defaults.build.env too, which this target takes from defaults.build`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(FileName, []byte(tc.src))
			if err == nil {
				t.Fatalf("Parse accepted:\n%s", tc.src)
			}
			got := err.Error()
			for _, w := range tc.want {
				if n := strings.Count(got, w); n != 1 {
					t.Errorf("%q appears %d times in:\n%s", w, n, got)
				}
			}
			if n := strings.Count(got, "\n") + 1; n != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", n, len(tc.want), got)
			}
		})
	}
}

// TestTheDocsExamplesParse: every example of docs/targets.md that is a
// whole file (it has projects:) is one core accepts.
func TestTheDocsExamplesParse(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "targets.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		src, _, _ := strings.Cut(block, "```")
		if !strings.Contains(src, "\nprojects:") && !strings.HasPrefix(src, "projects:") {
			continue
		}
		n++
		if _, err := Parse(FileName, []byte(src)); err != nil {
			t.Errorf("docs/targets.md example %d:\n%s\n%v", n, src, err)
		}
	}
	if n < 2 {
		t.Errorf("found %d whole examples in docs/targets.md, want the two", n)
	}
}
