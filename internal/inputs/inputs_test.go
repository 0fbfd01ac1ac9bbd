package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/workspace"
)

const fixtureYAML = `projects:
  util:
    path: libs/util
    targets:
      build:
        run: [go, build]
        inputs: ["*.txt"]
        outputs: [out/]
  api:
    path: services/api
    deps: [util]
    targets:
      build:
        run: [go, build]
        deps: ["util:build"]
  root:
    path: .
    targets:
      all:
        run: [echo, all]
        inputs: ["**/*.md"]
  gen:
    path: gen
    targets:
      stamp:
        run: [date]
        outputs: [out/, log.txt]
      named:
        run: [cat, .env, schema/api.json]
        inputs: [.env, schema, "**/*.go"]
`

// fixture writes files under a new root beside targets.yaml and loads it
// with no imports between its projects.
func fixture(t *testing.T, yaml string, files map[string]string) (*workspace.Workspace, *Rule) {
	t.Helper()
	root := t.TempDir()
	files["targets.yaml"] = yaml
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	ws = ws.WithImports(nil)
	return ws, New(ws, root, ignore.New(root, ""))
}

func files() map[string]string {
	return map[string]string{
		"libs/util/src.txt":           "",
		"libs/util/README.md":         "",
		"libs/util/out/x.txt":         "",
		"services/api/main.go":        "",
		"services/api/.gitignore":     "*.log\ntmp/\n",
		"services/api/debug.log":      "",
		"services/api/tmp/t.go":       "",
		"services/api/package.json":   "{}",
		"services/api/sub/.gitignore": "*.tmp\n",
		"services/api/sub/x.tmp":      "",
		"services/api/sub/x.go":       "",
		"gen/input.txt":               "",
		"gen/log.txt":                 "",
		"gen/.gitignore":              ".env\nschema/\n*.go\n",
		"gen/.env":                    "",
		"gen/schema/api.json":         "",
		"gen/gen.go":                  "",
		"go.mod":                      "module example.com/ws\n",
		"README.md":                   "",
	}
}

func TestOwnInputs(t *testing.T) {
	ws, r := fixture(t, fixtureYAML, files())
	cases := []struct {
		name   string
		target string
		file   string
		want   bool
	}{
		{"a file matching an input glob is an input", "util:build", "libs/util/src.txt", true},
		{"a file outside the input globs is not", "util:build", "libs/util/README.md", false},
		{"a target's output directory is not an input", "util:build", "libs/util/out/x.txt", false},
		{"without inputs, every file of the project is one", "api:build", "services/api/main.go", true},
		{"without inputs, a file git ignores is not", "api:build", "services/api/debug.log", false},
		{"without inputs, a file in a directory git ignores is not", "api:build", "services/api/tmp/t.go", false},
		{"a project's manifest is an input", "api:build", "services/api/package.json", true},
		{"without inputs, a file a .gitignore below the project ignores is not", "api:build", "services/api/sub/x.tmp", false},
		{"without inputs, a file beside it that it does not ignore is one", "api:build", "services/api/sub/x.go", true},
		{"a target's output file is not an input", "gen:stamp", "gen/log.txt", false},
		{"a glob without wildcards names an ignored file", "gen:named", "gen/.env", true},
		{"a glob without wildcards names an ignored directory", "gen:named", "gen/schema/api.json", true},
		{"a wildcard does not match what git ignores", "gen:named", "gen/gen.go", false},
		{"node_modules is never an input", "api:build", "services/api/node_modules/x.js", false},
		{".git is never an input", "root:all", ".git/HEAD.md", false},
		{"a root project's glob reaches into nested projects", "root:all", "libs/util/README.md", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := ws.Target(c.target)
			p := ws.Project(tg.Project)
			if got := r.OwnInput(tg, p, c.file, r.Ignored(c.file)); got != c.want {
				t.Errorf("OwnInput(%s, %s) = %v, want %v", c.target, c.file, got, c.want)
			}
		})
	}
	t.Run("listing agrees with OwnInput", func(t *testing.T) {
		for _, id := range ws.TargetIDs() {
			tg := ws.Target(id)
			p := ws.Project(tg.Project)
			listed, err := r.ListOwn(tg, p)
			if err != nil {
				t.Fatal(err)
			}
			for f := range files() {
				rel, inside := relTo(p.Path, f)
				if !inside {
					continue
				}
				if got, want := slices.Contains(listed, rel), r.OwnInput(tg, p, f, r.Ignored(f)); got != want {
					t.Errorf("%s: %s listed %v, OwnInput %v", id, f, got, want)
				}
			}
		}
	})
}

func TestInputGlobsSelectFiles(t *testing.T) {
	ws, r := fixture(t, `projects:
  p:
    path: p
    targets:
      t:
        run: [/bin/true]
        inputs: ["*.txt", src, "docs/", "cmd/*/main.go", "**/*.proto"]
        outputs: [src/gen/]
`, map[string]string{
		"p/a.txt":              "",
		"p/sub/b.txt":          "",
		"p/src/x.go":           "",
		"p/src/deep/y.go":      "",
		"p/src/gen/z.go":       "",
		"p/docs/d.md":          "",
		"p/cmd/core/main.go":   "",
		"p/cmd/core/other.go":  "",
		"p/api/v1/api.proto":   "",
		"p/node_modules/m.txt": "",
		"p/other/c.go":         "",
	})
	tg := ws.Target("p:t")
	got, err := r.ListOwn(tg, ws.Project("p"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt", "api/v1/api.proto", "cmd/core/main.go", "docs/d.md", "src/deep/y.go", "src/x.go"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("inputs = %v, want %v", got, want)
	}
	for _, rel := range got {
		if !InputMatch(tg, rel) {
			t.Errorf("listed %s, but InputMatch says it is not an input", rel)
		}
	}
	for _, rel := range []string{"sub/b.txt", "src/gen/z.go", "cmd/core/other.go", "other/c.go", "node_modules/m.txt"} {
		if InputMatch(tg, rel) {
			t.Errorf("InputMatch(%s) = true", rel)
		}
	}
}

func TestAProjectsPartIsWhatItsTargetsRead(t *testing.T) {
	ws, r := fixture(t, fixtureYAML, files())
	cases := []struct {
		name    string
		project string
		files   []string
		above   []string
	}{
		{"the union of its targets' inputs, and the manifests above it", "util", []string{"src.txt"}, []string{"go.mod"}},
		{"what git does not ignore", "api", []string{".gitignore", "main.go", "package.json", "sub/.gitignore", "sub/x.go"}, []string{"go.mod"}},
		{"without the directories of the projects nested in it", "root", []string{"README.md", "go.mod"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := r.ListPart(ws.Project(c.project))
			if err != nil {
				t.Fatal(err)
			}
			files, above := l.Files, l.Above
			if !slices.Equal(files, c.files) || !slices.Equal(above, c.above) {
				t.Errorf("part of %s = %v and %v above, want %v and %v", c.project, files, above, c.files, c.above)
			}
		})
	}
	t.Run("InPart names the owner", func(t *testing.T) {
		if q, ok := r.InPart("libs/util/src.txt", false); !ok || q.Name != "util" {
			t.Errorf("InPart = %v, %v", q, ok)
		}
		if _, ok := r.InPart("libs/util/README.md", false); ok {
			t.Error("a file no target of its project reads is in its part")
		}
		if !r.EnclosingPart(ws.Project("api"), "go.mod") || !r.EnclosingPart(ws.Project("api"), ".gitignore") || r.EnclosingPart(ws.Project("api"), "libs/go.mod") {
			t.Error("a manifest or .gitignore above a project is in its part, and one beside it is not")
		}
	})
}

func TestDependencies(t *testing.T) {
	yaml := `projects:
  a: {path: a}
  b: {path: b, deps: [a]}
  c: {path: c, deps: [b]}
  d: {path: d}
`
	ws, err := workspace.Parse("targets.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	names := func(deps []*Dep) []string {
		var out []string
		for _, d := range deps {
			out = append(out, d.Project.Name)
		}
		return out
	}
	t.Run("transitively, with the chain that leads there", func(t *testing.T) {
		r := New(ws.WithImports(nil), "", ignore.New("", ""))
		deps := r.Dependencies(ws.Project("c"))
		if got := names(deps); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("deps of c = %v", got)
		}
		if got := deps[0].Chain(); len(got) != 2 || got[1].Reason() != "b depends on a (targets.yaml)" {
			t.Errorf("chain to a = %+v", got)
		}
	})
	t.Run("an import is a dependency, and a cycle leads back to the project", func(t *testing.T) {
		ws := ws.WithImports(map[string][]workspace.InferredDep{"a": {{Project: "c", From: "a/x.go"}}})
		r := New(ws, "", ignore.New("", ""))
		if got := names(r.Dependencies(ws.Project("a"))); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("deps of a = %v", got)
		}
		if got := r.Edges(ws.Project("a"))[0].Reason(); got != "a depends on c (a/x.go imports it)" {
			t.Errorf("reason = %q", got)
		}
	})
	t.Run("until the imports are read, every project is a dependency of every other", func(t *testing.T) {
		r := New(ws, "", ignore.New("", ""))
		if got := names(r.Dependencies(ws.Project("d"))); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
			t.Errorf("deps of d = %v", got)
		}
	})
}
