package review

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/workspace"
)

const reviewYAML = `projects:
  mathx:
    path: libs/mathx
    targets:
      build:
        run: [go, build, ./...]
        inputs: ["**/*.go"]
      test:
        run: [go, test, -coverprofile=cover.out, ./...]
        inputs: ["**/*.go"]
        outputs: [cover.out]
        coverage: cover.out
  api:
    path: services/api
    deps: [mathx]
    targets:
      build:
        run: [go, build, ./...]
        inputs: ["**/*.go"]
        outputs: [bin/]
        deps: ["mathx:build"]
`

const addGo = `package mathx

// Add adds.
func Add(a, b int) int {
	return a + b
}

// Sub subtracts.
func Sub(a, b int) int {
	return a - b
}
`

// reviewRepo is a small workspace under git with a change: Add's body is
// edited, a test is added, a doc and a generated file change, and a file
// outside every project appears.
func reviewRepo(t *testing.T) *repo {
	t.Helper()
	r := newRepo(t)
	r.write("targets.yaml", reviewYAML)
	r.write(".gitignore", "cover.out\nbin/\n")
	r.write("go.work", "go 1.22\n\nuse (\n\t./libs/mathx\n\t./services/api\n)\n")
	r.write("libs/mathx/go.mod", "module example.com/mathx\n\ngo 1.22\n")
	r.write("libs/mathx/add.go", addGo)
	r.write("libs/mathx/README.md", "# mathx\n")
	r.write("services/api/go.mod", "module example.com/api\n\ngo 1.22\n")
	r.write("services/api/main.go", "package main\n\nimport \"example.com/mathx\"\n\nfunc main() { println(mathx.Add(1, 2)) }\n")
	r.commit("init")

	r.write("libs/mathx/add.go", replaceLine(addGo, 5, "\treturn b + a // commutes"))
	r.write("libs/mathx/add_test.go", "package mathx\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n")
	r.write("libs/mathx/README.md", "# mathx\n\nAdds.\n")
	r.write("notes.txt", "outside every project\n")
	// The profile of the last test run: Add's body ran, Sub's did not.
	r.write("libs/mathx/cover.out", "mode: set\nexample.com/mathx/add.go:4.24,6.2 1 1\nexample.com/mathx/add.go:9.24,11.2 1 0\n")
	return r
}

// indexedReviewRepo is reviewRepo with its workspace loaded and indexed.
func indexedReviewRepo(t *testing.T) (*repo, *workspace.Workspace, *index.Indexer) {
	t.Helper()
	r := reviewRepo(t)
	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	_, ix, err := live.Build(r.dir, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return r, ws, ix
}

func replaceLine(s string, n int, with string) string {
	lines := strings.Split(s, "\n")
	lines[n-1] = with
	return strings.Join(lines, "\n")
}

func TestAnnotateGivesRolesReachCoverageChainsAndOrder(t *testing.T) {
	r, ws, ix := indexedReviewRepo(t)
	ch := r.read("")
	owners := graph.NewOwners(ws)
	syms := IndexSymbols{Root: r.dir, Index: ix, Owner: func(p string) string {
		if o := owners.Of(p); o != nil {
			return o.Name
		}
		return ""
	}}
	rev, err := Annotate(context.Background(), ws, r.dir, ch, syms)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	files := map[string]ReviewFile{}
	for _, f := range rev.Files {
		order = append(order, f.Path)
		files[f.Path] = f
	}
	// add.go reaches api through its symbol and mathx:build; its test
	// follows it; the doc reaches only mathx; notes.txt nothing.
	if want := []string{"libs/mathx/add.go", "libs/mathx/add_test.go", "libs/mathx/README.md", "notes.txt"}; !slices.Equal(order, want) {
		t.Errorf("reading order = %q, want %q", order, want)
	}
	roles := map[string]string{"libs/mathx/add.go": RoleSource, "libs/mathx/add_test.go": RoleTest, "libs/mathx/README.md": RoleDoc, "notes.txt": RoleUnclaimed}
	for p, want := range roles {
		if files[p].Role != want {
			t.Errorf("%s: role %q, want %q", p, files[p].Role, want)
		}
	}
	add := files["libs/mathx/add.go"]
	if add.Project != "mathx" || len(add.Symbols) != 1 || add.Symbols[0].Name != "Add" || add.Symbols[0].EndLine != 6 {
		t.Fatalf("add.go symbols = %+v", add.Symbols)
	}
	if s := add.Symbols[0]; !slices.Equal(s.Files, []string{"libs/mathx/add_test.go", "services/api/main.go"}) || !slices.Equal(s.Projects, []string{"api", "mathx"}) || s.ID != "symbol:libs/mathx/add.go#Add" {
		t.Errorf("Add's reach = %+v", s)
	}
	if c := add.Coverage; !slices.Equal(c.Covered, []int{5}) || c.From != "libs/mathx/cover.out" || len(c.Uncovered)+len(c.Unknown) != 0 {
		t.Errorf("add.go coverage = %+v", c)
	}
	if c := files["libs/mathx/add_test.go"].Coverage; len(c.Unknown) != 9 || len(c.Covered) != 0 {
		t.Errorf("a test file's lines no profile covers are unknown: %+v", c)
	}
	if c := files["notes.txt"].Coverage; c.From != "" || len(c.Unknown) != 1 {
		t.Errorf("no declared coverage gives unknown: %+v", c)
	}
	chains := map[string][]string{}
	for _, a := range rev.Affected.Targets {
		chains[a.ID] = a.Chain
	}
	if want := []string{"api:build", "depends on mathx:build", "input libs/mathx/add.go changed"}; !slices.Equal(chains["target:api:build"], want) {
		t.Errorf("api:build chain = %q, want %q (all: %v)", chains["target:api:build"], want, chains)
	}
}

func TestCoverageNotYetProducedIsUnknownWithAReason(t *testing.T) {
	r := reviewRepo(t)
	if err := os.Remove(filepath.Join(r.dir, "libs/mathx/cover.out")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Annotate(context.Background(), ws, r.dir, r.read(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rev.Files {
		if f.Path == "libs/mathx/add.go" {
			if c := f.Coverage; len(c.Unknown) != 1 || c.Problem == "" {
				t.Errorf("coverage = %+v", c)
			}
		}
	}
}

func TestACachedReviewIsTheSameAndFollowsEdits(t *testing.T) {
	r, ws, ix := indexedReviewRepo(t)
	cache := &Cache{}
	syms := IndexSymbols{Root: r.dir, Index: ix, Cache: cache}
	first, err := Annotate(context.Background(), ws, r.dir, r.read(""), syms)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Annotate(context.Background(), ws, r.dir, r.read(""), syms)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Error("the cached answer differs from the first")
	}
	// An edit to Sub's body changes the file's hash: Sub is found.
	r.write("libs/mathx/add.go", replaceLine(replaceLine(addGo, 5, "\treturn b + a // commutes"), 10, "\treturn a - b - 0"))
	edited, err := Annotate(context.Background(), ws, r.dir, r.read(""), syms)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range edited.Files {
		if f.Path == "libs/mathx/add.go" {
			for _, s := range f.Symbols {
				names = append(names, s.Name)
			}
		}
	}
	if !slices.Equal(names, []string{"Add", "Sub"}) {
		t.Errorf("symbols after the edit = %v, want [Add Sub]", names)
	}
}
