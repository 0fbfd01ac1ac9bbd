package affected

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/internal/workspace"
)

const fixtureYAML = `projects:
  util:
    path: libs/util
    targets:
      build:
        run: [go, build, ./...]
        inputs: ["**/*.go"]
      docs:
        run: [echo, docs]
        inputs: ["**/*.md"]
  api:
    path: services/api
    deps: [util]
    targets:
      build:
        run: [go, build, ./...]
        inputs: ["**/*.go"]
        outputs: [bin/]
        deps: ["util:build"]
      test:
        run: [go, test, ./...]
        deps: [build]
  web:
    path: web
    targets:
      build:
        run: [npm, run, build]
  gateway:
    path: services/gateway
    deps: [api]
    targets:
      lint:
        run: [echo, lint]
`

// repo is a git repository in a temporary directory, with no dependence on
// the user's git configuration.
type repo struct {
	*testbed.GitRepo
	t    *testing.T
	root string
}

func newRepo(t *testing.T, branch string) *repo {
	t.Helper()
	g := testbed.NewGitRepo(t, branch)
	return &repo{GitRepo: g, t: t, root: g.Dir}
}

func (r *repo) git(args ...string) string { r.t.Helper(); return r.Git(args...) }
func (r *repo) write(rel, content string) { r.t.Helper(); r.Write(rel, content) }
func (r *repo) commit(msg string)         { r.t.Helper(); r.Commit(msg) }

// baseRepo is a workspace on main with one commit.
func baseRepo(t *testing.T) *repo {
	r := newRepo(t, "main")
	r.write("targets.yaml", fixtureYAML)
	r.write(".gitignore", "*.log\n")
	r.write("libs/util/util.go", "package util\n")
	r.write("libs/util/README.md", "# util\n")
	r.write("services/api/main.go", "package main\n")
	r.write("services/gateway/gw.txt", "gw\n")
	r.write("web/index.js", "1\n")
	r.commit("base")
	return r
}

func TestChanged(t *testing.T) {
	ctx := context.Background()
	r := baseRepo(t)
	r.git("checkout", "--quiet", "-b", "feature")
	r.write("libs/util/util.go", "package util // changed\n")
	r.commit("change util")
	// main moves on: its change must not count as the branch's.
	r.git("checkout", "--quiet", "main")
	r.write("web/index.js", "2\n")
	r.commit("main moves")
	r.git("checkout", "--quiet", "feature")

	t.Run("committed changes since the merge-base with the base", func(t *testing.T) {
		got, err := Changed(ctx, r.root, "main")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"libs/util/util.go"}; !slices.Equal(got, want) {
			t.Errorf("Changed = %v, want %v", got, want)
		}
	})
	t.Run("the default base is main", func(t *testing.T) {
		got, err := Changed(ctx, r.root, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"libs/util/util.go"}; !slices.Equal(got, want) {
			t.Errorf("Changed = %v, want %v", got, want)
		}
	})

	r.write("services/api/main.go", "package main // staged\n")
	r.git("add", "services/api/main.go")
	r.write("services/gateway/gw.txt", "unstaged\n")
	r.write("web/new.js", "untracked\n")
	r.write("web/debug.log", "ignored\n")
	if err := os.Remove(filepath.Join(r.root, "libs/util/README.md")); err != nil {
		t.Fatal(err)
	}
	t.Run("staged, unstaged, deleted and untracked files count; ignored ones do not", func(t *testing.T) {
		got, err := Changed(ctx, r.root, "main")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"libs/util/README.md", "libs/util/util.go", "services/api/main.go", "services/gateway/gw.txt", "web/new.js"}
		if !slices.Equal(got, want) {
			t.Errorf("Changed = %v, want %v", got, want)
		}
	})
	t.Run("a workspace below the repository root sees its own files, relative to it", func(t *testing.T) {
		got, err := Changed(ctx, filepath.Join(r.root, "services"), "main")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"api/main.go", "gateway/gw.txt"}; !slices.Equal(got, want) {
			t.Errorf("Changed = %v, want %v", got, want)
		}
	})
	t.Run("an unknown base names itself and the fix", func(t *testing.T) {
		_, err := Changed(ctx, r.root, "no-such-branch")
		if err == nil || !strings.Contains(err.Error(), "no-such-branch") || !strings.Contains(err.Error(), "--base") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestDefaultBase(t *testing.T) {
	ctx := context.Background()
	t.Run("origin/HEAD wins", func(t *testing.T) {
		r := baseRepo(t)
		head := r.git("rev-parse", "HEAD")
		r.git("update-ref", "refs/remotes/origin/trunk", head)
		r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
		if got, err := DefaultBase(ctx, r.root); err != nil || got != "origin/trunk" {
			t.Errorf("DefaultBase = %q, %v", got, err)
		}
	})
	t.Run("master when there is no main", func(t *testing.T) {
		r := newRepo(t, "master")
		r.write("a.txt", "a\n")
		r.commit("first")
		if got, err := DefaultBase(ctx, r.root); err != nil || got != "master" {
			t.Errorf("DefaultBase = %q, %v", got, err)
		}
	})
	t.Run("no default branch is a clear error", func(t *testing.T) {
		r := newRepo(t, "trunk")
		r.write("a.txt", "a\n")
		r.commit("first")
		_, err := Changed(ctx, r.root, "")
		if !errors.Is(err, ErrNoDefaultBranch) || !strings.Contains(err.Error(), "--base") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("outside a repository is a clear error", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		_, err := Changed(ctx, t.TempDir(), "main")
		if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCompute(t *testing.T) {
	ws, err := workspace.Parse("targets.yaml", []byte(fixtureYAML+`  root:
    path: .
    targets:
      check:
        run: [echo, check]
        inputs: ["**/*.md"]
`))
	if err != nil {
		t.Fatal(err)
	}
	ws = ws.WithImports(nil)
	cases := []struct {
		name     string
		changed  []string
		projects []string
		targets  []string
	}{
		{
			name:     "a change in a library affects every target of its dependents, transitively",
			changed:  []string{"libs/util/util.go"},
			projects: []string{"api", "gateway", "util"},
			targets:  []string{"api:build", "api:test", "gateway:lint", "util:build"},
		},
		{
			name:     "of the changed project, only targets whose inputs match are affected",
			changed:  []string{"libs/util/README.md"},
			projects: []string{"api", "gateway", "root", "util"},
			targets:  []string{"api:build", "api:test", "gateway:lint", "root:check", "util:docs"},
		},
		{
			name:     "a file no target of its project reads affects no dependent",
			changed:  []string{"libs/util/notes.txt"},
			projects: []string{"api", "gateway", "util"},
			targets:  []string{},
		},
		{
			name:     "the root lockfile affects every target",
			changed:  []string{"package-lock.json"},
			projects: []string{"api", "gateway", "root", "util", "web"},
			targets:  []string{"api:build", "api:test", "gateway:lint", "root:check", "util:build", "util:docs", "web:build"},
		},
		{
			name:     "a leaf change affects only its own project",
			changed:  []string{"web/index.js"},
			projects: []string{"web"},
			targets:  []string{"web:build"},
		},
		{
			name:     "a target's own outputs do not affect it",
			changed:  []string{"services/api/bin/api.go"},
			projects: []string{"api", "gateway"},
			targets:  []string{"api:test", "gateway:lint"},
		},
		{
			name:     "a file owned by no nested project belongs to the root project",
			changed:  []string{"Makefile"},
			projects: []string{"root"},
			targets:  []string{},
		},
		{
			name:     "nothing changed affects nothing",
			changed:  nil,
			projects: []string{},
			targets:  []string{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Compute(ws, c.changed)
			if !slices.Equal(s.Projects, c.projects) {
				t.Errorf("projects = %v, want %v", s.Projects, c.projects)
			}
			if !slices.Equal(s.Targets, c.targets) {
				t.Errorf("targets = %v, want %v", s.Targets, c.targets)
			}
		})
	}
	t.Run("node ids name projects and targets, sorted", func(t *testing.T) {
		s := Compute(ws, []string{"web/index.js"})
		if got, want := s.NodeIDs(), []string{"project:web", "target:web:build"}; !slices.Equal(got, want) {
			t.Errorf("NodeIDs = %v, want %v", got, want)
		}
	})
}

func TestChangedThenCompute(t *testing.T) {
	r := baseRepo(t)
	r.git("checkout", "--quiet", "-b", "feature")
	r.write("libs/util/util.go", "package util // changed\n")
	r.commit("change util")
	ws, err := workspace.Load(r.root)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Changed(context.Background(), r.root, "main")
	if err != nil {
		t.Fatal(err)
	}
	s := Compute(ws.WithImports(nil), changed)
	if want := []string{"api:build", "api:test", "gateway:lint", "util:build"}; !slices.Equal(s.Targets, want) {
		t.Errorf("targets = %v, want %v", s.Targets, want)
	}
	if want := []string{"api", "gateway", "util"}; !slices.Equal(s.Projects, want) {
		t.Errorf("projects = %v, want %v", s.Projects, want)
	}
}

func TestExplainGivesTheShortestChainBackToAChangedFile(t *testing.T) {
	ws, err := workspace.Parse("targets.yaml", []byte(fixtureYAML))
	if err != nil {
		t.Fatal(err)
	}
	ws = ws.WithImports(nil)
	set, why := Explain(ws, []string{"libs/util/util.go"})
	if !slices.Equal(set.Targets, Compute(ws, []string{"libs/util/util.go"}).Targets) {
		t.Fatal("Explain and Compute disagree")
	}
	for _, c := range []struct {
		chain []string
		want  []string
	}{
		{why.Target("util:build"), []string{"util:build", "input libs/util/util.go changed"}},
		{why.Target("api:build"), []string{"api:build", "depends on util:build", "input libs/util/util.go changed"}},
		{why.Target("api:test"), []string{"api:test", "depends on api:build", "depends on util:build", "input libs/util/util.go changed"}},
		{why.Project("util"), []string{"util", "owns libs/util/util.go, which changed"}},
		{why.Project("gateway"), []string{"gateway", "depends on project api", "depends on project util", "owns libs/util/util.go, which changed"}},
		{why.Target("gateway:lint"), []string{"gateway:lint", "reads the inputs of the projects gateway depends on", "gateway depends on api (targets.yaml)", "api depends on util (targets.yaml)", "libs/util/util.go, an input of project util, changed"}},
		{why.Target("web:build"), nil},
	} {
		if !slices.Equal(c.chain, c.want) {
			t.Errorf("chain = %q, want %q", c.chain, c.want)
		}
	}
}

func TestByFileCountsEachNodeForTheFileItsChainStartsFrom(t *testing.T) {
	ws, err := workspace.Parse("targets.yaml", []byte(fixtureYAML))
	if err != nil {
		t.Fatal(err)
	}
	set, why := Explain(ws.WithImports(nil), []string{"libs/util/util.go", "web/index.js"})
	by := why.ByFile()
	if by["libs/util/util.go"]+by["web/index.js"] != len(set.Projects)+len(set.Targets) {
		t.Errorf("by file = %v, for %d nodes", by, len(set.Projects)+len(set.Targets))
	}
	if by["web/index.js"] != 2 { // web and web:build
		t.Errorf("web/index.js reaches %d nodes, want 2", by["web/index.js"])
	}
}

// TestDefaultsAffectAsIfWrittenInTheProject: a target's inputs, deps and
// dependency_inputs taken from defaults: decide what a change affects as
// they do written in the project (the runner's key reads them the same
// way), so core affected and the cache agree on a workspace with defaults.
func TestDefaultsAffectAsIfWrittenInTheProject(t *testing.T) {
	withDefaults := `defaults:
  build: {run: [go, build, ./...], inputs: ["**/*.go"]}
  test: {deps: [build]}
  lint: {dependency_inputs: none}
projects:
  util:
    path: libs/util
    targets:
      build:
      docs:
        run: [echo, docs]
        inputs: ["**/*.md"]
  api:
    path: services/api
    deps: [util]
    targets:
      build: {outputs: [bin/], deps: ["util:build"]}
      test: {run: [go, test, ./...]}
  web:
    path: web
    targets:
      build: {run: [npm, run, build], inputs: []}
  gateway:
    path: services/gateway
    deps: [api]
    targets:
      lint:
        run: [echo, lint]
`
	inline := strings.Replace(fixtureYAML, "      lint:\n        run: [echo, lint]\n", "      lint:\n        run: [echo, lint]\n        dependency_inputs: none\n", 1)
	inline = strings.Replace(inline, "        run: [npm, run, build]\n", "        run: [npm, run, build]\n        inputs: []\n", 1)
	parse := func(src string) *workspace.Workspace {
		t.Helper()
		ws, err := workspace.Parse("targets.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return ws.WithImports(nil)
	}
	a, b := parse(inline), parse(withDefaults)
	for _, changed := range [][]string{
		{"libs/util/util.go"}, {"libs/util/README.md"}, {"services/api/main.go"},
		{"services/api/README.md"}, {"web/index.js"}, {"services/gateway/x.sh"}, {"go.work"},
	} {
		x, y := Compute(a, changed), Compute(b, changed)
		if !slices.Equal(x.Targets, y.Targets) || !slices.Equal(x.Projects, y.Projects) {
			t.Errorf("%v: written in the projects %v %v, from defaults: %v %v", changed, x.Targets, x.Projects, y.Targets, y.Projects)
		}
	}
}
