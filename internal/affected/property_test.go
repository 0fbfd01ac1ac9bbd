package affected

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/internal/workspace"
)

// The property that holds `core affected` and the build cache together:
// after any edit, the targets whose cache keys changed are exactly the
// targets the changed files affect. Workspaces and edits are generated:
// nested projects, targets with and without inputs, outputs, // inputs,
// dependencies declared and imported (cycles too), dependency_inputs:
// none, .gitignore files, manifests above projects, files no project owns.

// genWorkspace is a generated workspace: targets.yaml, its files, and the
// imports between its projects (nil: not read).
type genWorkspace struct {
	yaml    string
	files   map[string]string
	imports map[string][]workspace.InferredDep
	dirs    []string // the projects' directories
}

var (
	genDirs      = []string{".", "p1", "p1/sub", "libs/p2", "libs/p3", "svc"}
	genInputs    = []string{"**/*.go", "src", "*.txt", "docs/", "**/*.log", "//shared/**", "//*.md", "go.mod"}
	genFiles     = []string{"a.go", "src/b.go", "src/deep/c.go", "x.txt", "docs/d.md", "out/o.txt", "gen/g.txt", "node_modules/m.js", "tmp/t.go", "z.log", "go.mod", "package.json", "README.md"}
	genRootFiles = []string{"shared/s.txt", "README.md", "go.mod", "go.sum", "package-lock.json", "loose/l.txt", "loose/l.go"}
)

func generate(rng *rand.Rand) genWorkspace {
	g := genWorkspace{files: map[string]string{}}
	dirs := slices.Clone(genDirs)
	rng.Shuffle(len(dirs), func(i, j int) { dirs[i], dirs[j] = dirs[j], dirs[i] })
	dirs = dirs[:2+rng.IntN(4)]
	g.dirs = dirs
	var y strings.Builder
	y.WriteString("projects:\n")
	var targets []string
	for i, dir := range dirs {
		name := fmt.Sprintf("p%d", i)
		fmt.Fprintf(&y, "  %s:\n    path: %s\n", name, dir)
		var deps []string
		for j := range i {
			if rng.IntN(4) == 0 {
				deps = append(deps, fmt.Sprintf("p%d", j))
			}
		}
		if len(deps) > 0 {
			fmt.Fprintf(&y, "    deps: [%s]\n", strings.Join(deps, ", "))
		}
		n := rng.IntN(4)
		if n > 0 {
			y.WriteString("    targets:\n")
		}
		for k := range n {
			id := fmt.Sprintf("%s:t%d", name, k)
			fmt.Fprintf(&y, "      t%d:\n        run: [\"true\", %q]\n", k, id)
			if rng.IntN(5) > 1 {
				var in []string
				for range 1 + rng.IntN(2) {
					in = append(in, fmt.Sprintf("%q", genInputs[rng.IntN(len(genInputs))]))
				}
				slices.Sort(in)
				fmt.Fprintf(&y, "        inputs: [%s]\n", strings.Join(slices.Compact(in), ", "))
			}
			switch rng.IntN(6) {
			case 0, 1:
				y.WriteString("        outputs: [out/]\n")
			case 2:
				y.WriteString("        outputs: [\"gen/*.txt\"]\n")
			}
			var tdeps []string
			for _, t := range targets {
				if rng.IntN(6) == 0 {
					tdeps = append(tdeps, fmt.Sprintf("%q", t))
				}
			}
			if len(tdeps) > 0 {
				fmt.Fprintf(&y, "        deps: [%s]\n", strings.Join(tdeps, ", "))
			}
			if rng.IntN(6) == 0 {
				y.WriteString("        dependency_inputs: none\n")
			}
			targets = append(targets, id)
		}
		for _, f := range genFiles {
			if rng.IntN(5) < 3 {
				g.files[path.Join(dir, f)] = content(f, 0)
			}
		}
		if rng.IntN(3) == 0 {
			g.files[path.Join(dir, ".gitignore")] = "gen/\n"
		}
	}
	for _, f := range genRootFiles {
		if rng.IntN(2) == 0 {
			g.files[f] = content(f, 0)
		}
	}
	if rng.IntN(2) == 0 {
		g.files[".gitignore"] = "*.log\ntmp/\n"
	}
	g.yaml = y.String()
	if rng.IntN(8) > 0 {
		g.imports = map[string][]workspace.InferredDep{}
		for i := range dirs {
			for j := range dirs {
				if i != j && rng.IntN(5) == 0 {
					from := fmt.Sprintf("p%d", i)
					g.imports[from] = append(g.imports[from], workspace.InferredDep{Project: fmt.Sprintf("p%d", j), From: path.Join(dirs[i], "a.go")})
				}
			}
		}
	}
	return g
}

// content is a file's content at version v, valid for its kind.
func content(f string, v int) string {
	switch path.Base(f) {
	case "package.json":
		return fmt.Sprintf("{\"name\": %q, \"description\": \"v%d\"}\n", strings.ReplaceAll(path.Dir(f), "/", "-")+"-pkg", v)
	case "go.mod":
		return fmt.Sprintf("module example.com/%s\n\n// v%d\n", strings.ReplaceAll(path.Dir(f), "/", "-"), v)
	}
	return fmt.Sprintf("%s v%d\n", f, v)
}

// edit changes 1 to 3 files: one that exists changes or goes, one that
// does not is created. targets.yaml and .gitignore files stay.
func (g genWorkspace) edit(rng *rand.Rand, root string) []string {
	var pool []string
	for _, d := range g.dirs {
		for _, f := range genFiles {
			pool = append(pool, path.Join(d, f))
		}
	}
	pool = append(pool, genRootFiles...)
	slices.Sort(pool)
	pool = slices.Compact(pool)
	var edited []string
	for range 1 + rng.IntN(3) {
		f := pool[rng.IntN(len(pool))]
		abs := filepath.Join(root, filepath.FromSlash(f))
		if _, err := os.Stat(abs); err == nil && rng.IntN(3) == 0 && path.Base(f) != "package.json" && path.Base(f) != "go.mod" {
			if err := os.Remove(abs); err != nil {
				panic(err)
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				panic(err)
			}
			if err := os.WriteFile(abs, []byte(content(f, 1+rng.IntN(1000))), 0o644); err != nil {
				panic(err)
			}
		}
		edited = append(edited, f)
	}
	return edited
}

func (g genWorkspace) write(t testing.TB, root string) {
	t.Helper()
	for f, c := range g.files {
		abs := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range g.dirs {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, workspace.FileName), []byte(g.yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (g genWorkspace) load(t testing.TB, root string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatalf("%v\n%s", err, g.yaml)
	}
	if g.imports != nil {
		ws = ws.WithImports(g.imports)
	}
	return ws
}

// targetKeys is every target's key as a dry run computes it.
func targetKeys(t testing.TB, ws *workspace.Workspace, cacheDir string) map[string]string {
	t.Helper()
	ids := ws.TargetIDs()
	out := map[string]string{}
	if len(ids) == 0 {
		return out
	}
	planned, err := runner.New(runner.Options{Root: ws.Root, CacheDir: cacheDir}).Plan(context.Background(), ws, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range planned {
		out[p.Target] = p.Key
	}
	return out
}

// checkAgree runs one generated case: keys, edits, keys again, and the
// affected set of what changes computes.
func checkAgree(t testing.TB, seed uint64, useGit bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := generate(rng)
	var root string
	var repo *testbed.GitRepo
	if useGit {
		repo = testbed.NewGitRepo(t, "main")
		root = repo.Dir
	} else {
		root = t.TempDir()
	}
	g.write(t, root)
	if useGit {
		repo.Commit("base")
	}
	cacheDir := t.TempDir()
	ws := g.load(t, root)
	before := targetKeys(t, ws, cacheDir)
	edited := g.edit(rng, root)
	after := targetKeys(t, ws, cacheDir)

	var changed []string
	if useGit {
		var err error
		if changed, err = Changed(context.Background(), root, "main"); err != nil {
			t.Fatal(err)
		}
	} else {
		// What git reports: the files an edit left different that it
		// does not ignore.
		rule := inputs.New(ws, root, ignore.New(root, cacheDir))
		for _, f := range edited {
			now, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
			was, existed := g.files[f]
			if (err == nil) == existed && string(now) == was {
				continue
			}
			if !rule.Ignored(f) && !slices.Contains(changed, f) {
				changed = append(changed, f)
			}
		}
	}
	var moved []string
	for id, k := range after {
		if before[id] != k {
			moved = append(moved, id)
		}
	}
	slices.Sort(moved)
	if moved == nil {
		moved = []string{}
	}
	set, why := Explain(ws, changed)
	if !slices.Equal(set.Targets, moved) {
		var chains []string
		for _, id := range set.Targets {
			chains = append(chains, strings.Join(why.Target(id), " <- "))
		}
		t.Fatalf("seed %d: edited %v (git reports %v)\nkeys changed: %v\naffected:     %v\n%s\nimports: %v\n%s", seed, edited, changed, moved, set.Targets, strings.Join(chains, "\n"), g.imports, g.yaml)
	}
}

func TestTheTargetsWhoseKeysChangedAreTheAffectedTargets(t *testing.T) {
	for seed := range uint64(60) {
		checkAgree(t, seed, false)
	}
}

func TestWhatGitReportsAffectsWhatTheKeysSay(t *testing.T) {
	for seed := range uint64(12) {
		checkAgree(t, 1000+seed, true)
	}
}

// FuzzTheTargetsWhoseKeysChangedAreTheAffectedTargets writes a generated
// tree and runs two dry runs per input, about 20 ms: CI gives it 400.
//
//fuzz:budget 400x
func FuzzTheTargetsWhoseKeysChangedAreTheAffectedTargets(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkAgree(t, seed, false) })
}
