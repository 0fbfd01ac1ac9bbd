package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const demoDir = "../../testdata/demo"

func mustParse(t *testing.T, src string) *Workspace {
	t.Helper()
	ws, err := Parse(FileName, []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return ws
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, ws *Workspace)
	}{
		{
			name: "inputs default to every file of the project",
			src:  "projects: {api: {path: api, targets: {build: {run: [go, build]}}}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "inputs", ws.Target("api:build").Inputs, []string{"**/*"})
			},
		},
		{
			name: "an empty inputs list means no inputs",
			src:  "projects: {api: {path: api, targets: {build: {run: [go, build], inputs: []}}}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "inputs", ws.Target("api:build").Inputs, []string{})
			},
		},
		{
			name: "docs default when the key is absent",
			src:  "projects: {}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "docs", ws.Docs, []string{"docs/**/*.md", "**/README.md"})
			},
		},
		{
			name: "env and pass_env are read at the top level and on a target, sorted and unique",
			src: `
env: [NODE_ENV, GOFLAGS, NODE_ENV]
pass_env: [HTTPS_PROXY, "AWS_*"]
projects: {api: {path: api, targets: {build: {run: [go, build], env: [GOOS], pass_env: [NPM_TOKEN, GOPRIVATE]}}}}`,
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "top-level env", ws.Env, []string{"GOFLAGS", "NODE_ENV"})
				equal(t, "top-level pass_env", ws.PassEnv, []string{"AWS_*", "HTTPS_PROXY"})
				equal(t, "env", ws.Target("api:build").Env, []string{"GOOS"})
				equal(t, "pass_env", ws.Target("api:build").PassEnv, []string{"GOPRIVATE", "NPM_TOKEN"})
			},
		},
		{
			name: "an empty docs list means no docs",
			src:  "docs: []",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "docs", ws.Docs, []string{})
			},
		},
		{
			name: "^build expands to the build of each dependency project that declares one",
			src: `
projects:
  api:
    path: api
    deps: [util, schemas, docs]
    targets:
      build: {run: [go, build], deps: ["^build"]}
  util: {path: util, targets: {build: {run: [go, build]}}}
  schemas: {path: schemas, targets: {build: {run: [python3, check.py]}}}
  docs: {path: docs, targets: {links: {run: [python3, links.py]}}}
`,
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "deps", ws.Target("api:build").Deps, []string{"schemas:build", "util:build"})
			},
		},
		{
			name: "^build in a project without deps adds nothing",
			src:  "projects: {util: {path: util, targets: {build: {run: [go, build], deps: [\"^build\"]}}}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "deps", ws.Target("util:build").Deps, []string(nil))
			},
		},
		{
			name: "a bare target name refers to the same project",
			src:  "projects: {api: {path: api, targets: {build: {run: [go, build]}, test: {run: [go, test], deps: [build]}}}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "deps", ws.Target("api:test").Deps, []string{"api:build"})
			},
		},
		{
			name: "a dependency reached twice is listed once",
			src: `
projects:
  api: {path: api, deps: [util], targets: {build: {run: [go, build], deps: ["^build", "util:build"]}}}
  util: {path: util, targets: {build: {run: [go, build]}}}
`,
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "deps", ws.Target("api:build").Deps, []string{"util:build"})
			},
		},
		{
			name: "a qualified dependency on a project outside deps is allowed",
			src: `
projects:
  api: {path: api, targets: {build: {run: [go, build], deps: ["util:build"]}}}
  util: {path: util, targets: {build: {run: [go, build]}}}
`,
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "deps", ws.Target("api:build").Deps, []string{"util:build"})
				equal(t, "project deps", ws.Project("api").Deps, []string(nil))
			},
		},
		{
			name: "projects, their deps, targets and spells come out sorted",
			src: `
projects:
  web: {path: web, deps: [util, api], targets: {test: {run: [t]}, build: {run: [b]}}}
  api: {path: api}
  util: {path: util}
spells:
  zz: {run: [z]}
  aa: {run: [a]}
`,
			check: func(t *testing.T, ws *Workspace) {
				var names []string
				for _, p := range ws.Projects {
					names = append(names, p.Name)
				}
				equal(t, "projects", names, []string{"api", "util", "web"})
				equal(t, "deps", ws.Project("web").Deps, []string{"api", "util"})
				equal(t, "targets", []string{ws.Project("web").Targets[0].Name, ws.Project("web").Targets[1].Name}, []string{"build", "test"})
				equal(t, "spells", []string{ws.Spells[0].Name, ws.Spells[1].Name}, []string{"aa", "zz"})
			},
		},
		{
			name: "a project path is cleaned",
			src:  "projects: {api: {path: ./services//api/}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "path", ws.Project("api").Path, "services/api")
			},
		},
		{
			name: "dot is the root project's path",
			src:  "projects: {root: {path: .}, api: {path: api}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "path", ws.Project("root").Path, ".")
			},
		},
		{
			name: "empty sections read as absent",
			src:  "projects:\n  api:\n    path: api\n    deps:\n    targets:\nspells:\n",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "targets", len(ws.Project("api").Targets), 0)
				equal(t, "spells", len(ws.Spells), 0)
			},
		},
		{
			name: "aliases share a list between targets",
			src: `
projects:
  api:
    path: api
    targets:
      build: {run: [go, build], inputs: &go ["**/*.go", go.mod]}
      test: {run: [go, test], inputs: *go}
`,
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "inputs", ws.Target("api:test").Inputs, []string{"**/*.go", "go.mod"})
			},
		},
		{
			name: "numbers and booleans in run are kept as written",
			src:  "spells: {wait: {run: [sleep, 1.50, true], description: 42}}",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "run", ws.Spells[0].Run, []string{"sleep", "1.50", "true"})
				equal(t, "description", ws.Spells[0].Description, "42")
			},
		},
		{
			name: "drift and outputs are read",
			src:  "projects: {api: {path: api, targets: {fmt: {run: [gofmt, -l, .], drift: true, outputs: [bin/]}}}}",
			check: func(t *testing.T, ws *Workspace) {
				tg := ws.Target("api:fmt")
				equal(t, "drift", tg.Drift, true)
				equal(t, "outputs", tg.Outputs, []string{"bin/"})
			},
		},
		{
			name: "lines point at the keys",
			src:  "projects:\n  api:\n    path: api\n    targets:\n      build:\n        run: [go, build]\nspells:\n  fmt:\n    run: [gofmt]\n",
			check: func(t *testing.T, ws *Workspace) {
				equal(t, "project line", ws.Project("api").Line, 2)
				equal(t, "target line", ws.Target("api:build").Line, 5)
				equal(t, "spell line", ws.Spells[0].Line, 8)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, mustParse(t, tt.src))
		})
	}
}

func TestDemoWorkspace(t *testing.T) {
	t.Parallel()
	ws, err := Load(demoDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("root is absolute", func(t *testing.T) {
		if !filepath.IsAbs(ws.Root) {
			t.Errorf("Root = %q", ws.Root)
		}
	})
	t.Run("has eight projects and three spells", func(t *testing.T) {
		equal(t, "projects", len(ws.Projects), 8)
		equal(t, "spells", len(ws.Spells), 3)
	})
	t.Run("api:build waits for the build of every project api depends on", func(t *testing.T) {
		equal(t, "deps", ws.Target("api:build").Deps, []string{"auth:build", "billing:build", "schemas:build", "util:build"})
	})
	t.Run("fmt-check targets are drift targets", func(t *testing.T) {
		equal(t, "util", ws.Target("util:fmt-check").Drift, true)
		equal(t, "api", ws.Target("api:fmt-check").Drift, true)
	})
}

func TestLookups(t *testing.T) {
	t.Parallel()
	ws := mustParse(t, "projects: {api: {path: api, targets: {build: {run: [go, build]}}}}")
	for _, tc := range []struct {
		id    string
		found bool
	}{
		{"api:build", true},
		{"api:test", false},
		{"web:build", false},
		{"api", false},
		{"", false},
		{"api:build:x", false},
	} {
		t.Run(strings.ReplaceAll(tc.id, ":", "_")+"_found="+map[bool]string{true: "yes", false: "no"}[tc.found], func(t *testing.T) {
			got := ws.Target(tc.id)
			if (got != nil) != tc.found {
				t.Fatalf("Target(%q) = %v", tc.id, got)
			}
			if got != nil && got.ID() != tc.id {
				t.Errorf("ID() = %q", got.ID())
			}
		})
	}
	if ws.Project("api") == nil || ws.Project("nope") != nil {
		t.Error("Project lookup is wrong")
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "targets.yaml", Line: 12, Column: 9, Field: "projects.api.targets.build.deps[0]", Message: "unknown target"}, "targets.yaml:12:9: projects.api.targets.build.deps[0]: unknown target"},
		{Problem{File: "targets.yaml", Line: 3, Message: "invalid YAML: x"}, "targets.yaml:3: invalid YAML: x"},
		{Problem{Message: "bare"}, "bare"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	err := &Error{Problems: []Problem{{Line: 1, Message: "a"}, {Line: 2, Message: "b"}}}
	if got := err.Error(); got != "1: a\n2: b" {
		t.Errorf("Error() = %q", got)
	}
}

func TestEveryProblemIsReportedInFileOrder(t *testing.T) {
	t.Parallel()
	_, err := Parse(FileName, []byte("projects:\n  b: {path: b, deps: [nope]}\n  a: {path: a, extra: 1}\n"))
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v", err)
	}
	var lines []int
	for _, p := range perr.Problems {
		lines = append(lines, p.Line)
	}
	equal(t, "lines", lines, []int{2, 3})
}

func TestAliasExpansionIsBounded(t *testing.T) {
	t.Parallel()
	// 400 projects share 400 targets that share one 400-entry run list:
	// 64 million argv entries if every alias were walked.
	var b strings.Builder
	b.WriteString("x-run: &r [")
	for i := 0; i < 400; i++ {
		b.WriteString("a, ")
	}
	b.WriteString("]\nx-target: &t {run: *r}\nx-targets: &ts {")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "t%d: *t, ", i)
	}
	b.WriteString("}\nprojects:\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "  p%d: {path: p%d, targets: *ts}\n", i, i)
	}
	_, err := Parse(FileName, []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "aliases expand to more than") {
		t.Fatalf("err = %.300v", err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, FileName), "projects: {}\n")
	writeFile(t, filepath.Join(root, "services", "api", "main.go"), "package main\n")

	t.Run("from a nested directory finds the root", func(t *testing.T) {
		got, err := Find(filepath.Join(root, "services", "api"))
		if err != nil || got != root {
			t.Fatalf("Find = %q, %v", got, err)
		}
	})
	t.Run("from a file finds the root", func(t *testing.T) {
		got, err := Find(filepath.Join(root, "services", "api", "main.go"))
		if err != nil || got != root {
			t.Fatalf("Find = %q, %v", got, err)
		}
	})
	t.Run("outside any workspace names the start and suggests --workspace", func(t *testing.T) {
		start := t.TempDir()
		_, err := Find(start)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if msg := err.Error(); !strings.Contains(msg, start) || !strings.Contains(msg, "--workspace") {
			t.Errorf("message %q should name %s and --workspace", msg, start)
		}
	})
	t.Run("outside any workspace it suggests core init, at the top of the repository", func(t *testing.T) {
		plain, repo := t.TempDir(), t.TempDir()
		deep := filepath.Join(repo, "a", "b")
		for _, d := range []string{filepath.Join(repo, ".git"), deep} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for start, want := range map[string]string{plain: "`core init`", repo: "`core init`", deep: "`core init " + repo + "`"} {
			if _, err := Find(start); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("from %s: %v, want it to suggest %s", start, err, want)
			}
		}
	})
	t.Run("a missing start is an error naming it", func(t *testing.T) {
		_, err := Find(filepath.Join(root, "nope"))
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestLoad(t *testing.T) {
	t.Parallel()
	t.Run("a missing project directory is named", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, FileName), "projects:\n  api:\n    path: services/api\n")
		_, err := Load(root)
		want := `targets.yaml:3:11: projects.api.path: project directory "services/api" does not exist under the workspace root ` + root + `: create it or fix path`
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
	})
	t.Run("a project path that is a file is refused", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, FileName), "projects:\n  api:\n    path: api\n")
		writeFile(t, filepath.Join(root, "api"), "not a dir")
		_, err := Load(root)
		if err == nil || !strings.Contains(err.Error(), `project path "api" is a file, not a directory`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("disk problems come with parse problems", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, FileName), "projects:\n  api:\n    path: api\n    oops: 1\n")
		_, err := Load(root)
		var perr *Error
		if !errors.As(err, &perr) || len(perr.Problems) != 2 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a directory without targets.yaml suggests --workspace", func(t *testing.T) {
		_, err := Load(t.TempDir())
		if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "--workspace") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the root project is the root itself", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, FileName), "projects: {root: {path: .}}\n")
		ws, err := Load(root)
		if err != nil || ws.Root != root {
			t.Fatalf("Load = %v, %v", ws, err)
		}
	})
}

// TestProblemsQuoteTheFileShort: a value of 100 KB in targets.yaml is
// quoted short in every problem, and thousands of problems make a
// screenful, so that no diagnostic (logged, in GetStatus, in every
// event: diagnostic) grows with the file.
func TestProblemsQuoteTheFileShort(t *testing.T) {
	huge := strings.Repeat("x", 100<<10)
	t.Run("huge values, keys and names", func(t *testing.T) {
		key := strings.Repeat("k", 1000) // YAML's longest plain key
		yml := "projects:\n  app:\n    path: /" + huge + "\n    deps: [" + huge + "]\n    " + key + ": 1\n    targets:\n      build:\n        run: \"" + huge + " | cat\"\n        deps: [\"" + key + ":x\", " + huge + "]\n      " + key + ":\n        run: [x, " + huge + "]\n  " + key + ":\n    path: b\n"
		_, err := Parse(FileName, []byte(yml))
		if err == nil {
			t.Fatal("accepted")
		}
		if n := len(err.Error()); n > 4<<10 {
			t.Errorf("the error is %d bytes:\n%.600s", n, err.Error())
		}
	})
	t.Run("thousands of problems", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("projects:\n")
		for i := range 5000 {
			fmt.Fprintf(&b, "  p%d:\n    path: /abs%d\n", i, i)
		}
		_, err := Parse(FileName, []byte(b.String()))
		if err == nil || !strings.Contains(err.Error(), "more problems") || len(err.Error()) > 16<<10 {
			t.Errorf("error of %d bytes: %.300s", len(err.Error()), err)
		}
	})
}
