package index

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is a small polyglot workspace: two Go projects in one module, a
// TypeScript project, a Python project and docs.
var fixture = map[string]string{
	"targets.yaml": `projects:
  app:
    path: app
    deps: [lib]
    targets:
      build: {run: [go, build, ./...], deps: ["^build"]}
  lib:
    path: lib
    targets:
      build: {run: [go, build, ./...]}
  web:
    path: web
  py:
    path: py
docs: ["docs/**/*.md", "**/README.md"]
`,
	"go.mod":             "module example.com/fx\n\ngo 1.22\n",
	"app/main.go":        "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/fx/lib\"\n)\n\nfunc main() { fmt.Println(lib.Greet(name())) }\n\nfunc name() string { return lib.Default }\n",
	"lib/lib.go":         "package lib\n\n// Default is the default name.\nconst Default = \"world\"\n\nfunc Greet(n string) string { return prefix + n }\n",
	"lib/util.go":        "package lib\n\nvar prefix = \"hello, \"\n",
	"lib/greeter.go":     "package lib\n\ntype Greeter struct{}\n\nfunc (Greeter) Hello() string { return Default }\n\nfunc (Greeter) String() string { return \"\" }\n\ntype Other struct{}\n\nfunc (Other) String() string { return \"\" }\n",
	"app/use.go":         "package main\n\nimport \"example.com/fx/lib\"\n\nfunc use() string {\n\tg := lib.Greeter{}\n\treturn g.Hello() + g.String() + lib.Greeter{}.Hello()\n}\n",
	"lib/broken.go":      "package lib\n\nfunc Broken( {\n",
	"web/package.json":   `{"name": "@fx/web", "main": "src/index.ts"}`,
	"web/src/index.ts":   "import { render } from './view';\nimport paint from './paint';\nimport React from 'react';\nexport function main() { render(); paint(); }\n",
	"web/src/view.ts":    "export function render() {}\nexport class View { draw() {} }\n",
	"web/src/paint.ts":   "function paint() {}\nfunction unused() {}\nexport default paint;\n",
	"py/pkg/__init__.py": "",
	"py/pkg/core.py":     "from .helpers import clean\nimport os\n\ndef run():\n    return clean()\n",
	"py/pkg/helpers.py":  "def clean():\n    return 1\n",
	"docs/guide.md":      "# Guide\n\nStart with [the app](../app/main.go), see [lib](../lib/) and [web](../web/README.md).\nBuild with `app:build`; `nope:build` is not a target.\n",
	"web/README.md":      "# Web\n\nBack to [the guide](../docs/guide.md).\n",
	"ignored/.keep":      "",
	".gitignore":         "ignored/\n*.gen.go\n",
	"lib/skip.gen.go":    "package lib\n\nfunc Generated() {}\n",
	"ignored/x.go":       "package ignored\n",
}

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newFixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, fixture)
	return root
}

func syncIndex(t testing.TB, ix *Indexer, root string) *graph.Graph {
	t.Helper()
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := ix.Sync(ws)
	if err != nil {
		t.Fatal(err)
	}
	return g.Graph()
}

// cold indexes root from scratch in a fresh cache.
func cold(t testing.TB, root string) *graph.Graph {
	t.Helper()
	return syncIndex(t, New(root, t.TempDir(), Options{}), root)
}

// hasEdge reports whether g has the edge, whatever its via.
func hasEdge(g *graph.Graph, src, dst, kind string) bool {
	return slices.ContainsFunc(g.Edges, func(e graph.Edge) bool { return e.Source == src && e.Target == dst && e.Kind == kind })
}

func node(g *graph.Graph, id string) *graph.Node {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	return nil
}

func TestTheDefaultGraph(t *testing.T) {
	root := newFixture(t)
	g := cold(t, root)
	cases := []struct {
		name string
		ok   bool
	}{
		{"a project owns its files", hasEdge(g, "project:lib", "file:lib/lib.go", graph.EdgeOwns)},
		{"a Go package contains its files", hasEdge(g, "package:example.com/fx/lib", "file:lib/util.go", graph.EdgeContains)},
		{"a Go file imports a workspace package", hasEdge(g, "file:app/main.go", "package:example.com/fx/lib", graph.EdgeImports)},
		{"a Go file imports an external package", hasEdge(g, "file:app/main.go", "package:fmt", graph.EdgeImports) && node(g, "package:fmt").External},
		{"a TS file imports a relative file", hasEdge(g, "file:web/src/index.ts", "file:web/src/view.ts", graph.EdgeImports)},
		{"a TS file imports an npm package", hasEdge(g, "file:web/src/index.ts", "package:react", graph.EdgeImports)},
		{"a Python file imports a relative module", hasEdge(g, "file:py/pkg/core.py", "file:py/pkg/helpers.py", graph.EdgeImports)},
		{"a Python file imports a standard module", hasEdge(g, "file:py/pkg/core.py", "package:os", graph.EdgeImports)},
		{"imports infer a project dependency beside the declared one", hasEdge(g, "project:app", "project:lib", graph.EdgeDependsInferred) && hasEdge(g, "project:app", "project:lib", graph.EdgeDependsDeclared)},
		{"an inferred dependency names its first importing file", slices.Contains(g.Edges, graph.Edge{Source: "project:app", Target: "project:lib", Kind: graph.EdgeDependsInferred, Via: "app/main.go"})},
		{"a doc links to a file", hasEdge(g, "doc:docs/guide.md", "file:app/main.go", graph.EdgeLinks)},
		{"a doc links to a directory that is a project", hasEdge(g, "doc:docs/guide.md", "project:lib", graph.EdgeLinks)},
		{"a doc links to a doc", hasEdge(g, "doc:web/README.md", "doc:docs/guide.md", graph.EdgeLinks)},
		{"a doc mentions a declared target", hasEdge(g, "doc:docs/guide.md", "target:app:build", graph.EdgeMentions)},
		{"a mention of an undeclared target is no edge", !hasEdge(g, "doc:docs/guide.md", "target:nope:build", graph.EdgeMentions)},
		{"a doc is named by its title", node(g, "doc:docs/guide.md") != nil && node(g, "doc:docs/guide.md").Name == "Guide"},
		{"an unparsable file is indexed with a diagnostic", node(g, "file:lib/broken.go") != nil && node(g, "file:lib/broken.go").Diagnostic != ""},
		{".gitignore'd files are not indexed", node(g, "file:lib/skip.gen.go") == nil && node(g, "file:ignored/x.go") == nil},
		{"the default graph holds no symbols", !slices.ContainsFunc(g.Nodes, func(n graph.Node) bool { return n.Kind == graph.KindSymbol })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Fail()
			}
		})
	}
	t.Run("every edge joins two nodes", func(t *testing.T) {
		for _, e := range g.Edges {
			if node(g, e.Source) == nil || node(g, e.Target) == nil {
				t.Errorf("dangling %+v", e)
			}
		}
	})
}

func TestSymbolsLiveInShardsLoadedOnlyOnDemand(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	if n := ix.ShardLoads(); n != 0 {
		t.Fatalf("indexing loaded %d shards", n)
	}
	s, err := ix.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if ix.ShardLoads() == 0 {
		t.Fatal("Symbols loaded no shard")
	}
	cases := []struct {
		name string
		ok   bool
	}{
		{"a file owns its symbols", hasEdge(s, "file:lib/lib.go", "symbol:lib/lib.go#Greet", graph.EdgeOwns)},
		{"a use across packages resolves through the import", hasEdge(s, "symbol:app/main.go#main", "symbol:lib/lib.go#Greet", graph.EdgeReferences)},
		{"a use of a constant across packages resolves", hasEdge(s, "symbol:app/main.go#name", "symbol:lib/lib.go#Default", graph.EdgeReferences)},
		{"a use within a package resolves by name across files", hasEdge(s, "symbol:lib/lib.go#Greet", "symbol:lib/util.go#prefix", graph.EdgeReferences)},
		{"a use within a file resolves", hasEdge(s, "symbol:app/main.go#main", "symbol:app/main.go#name", graph.EdgeReferences)},
		{"a method called on a value resolves when its name is unique in reach", hasEdge(s, "symbol:app/use.go#use", "symbol:lib/greeter.go#Greeter.Hello", graph.EdgeReferences)},
		{"an ambiguous method name stays unresolved", !hasEdge(s, "symbol:app/use.go#use", "symbol:lib/greeter.go#Greeter.String", graph.EdgeReferences) && !hasEdge(s, "symbol:app/use.go#use", "symbol:lib/greeter.go#Other.String", graph.EdgeReferences)},
		{"a TS named import references the symbol", hasEdge(s, "file:web/src/index.ts", "symbol:web/src/view.ts#render", graph.EdgeReferences)},
		{"a TS default import references what the file exports as default", hasEdge(s, "file:web/src/index.ts", "symbol:web/src/paint.ts#paint", graph.EdgeReferences) && !hasEdge(s, "file:web/src/index.ts", "symbol:web/src/paint.ts#unused", graph.EdgeReferences)},
		{"a Python from-import references the symbol", hasEdge(s, "file:py/pkg/core.py", "symbol:py/pkg/helpers.py#clean", graph.EdgeReferences)},
		{"a symbol node has a kind and a line", node(s, "symbol:lib/lib.go#Greet") != nil && node(s, "symbol:lib/lib.go#Greet").SymbolKind == "func" && node(s, "symbol:lib/lib.go#Greet").Line == 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Fail()
			}
		})
	}
	before := ix.ShardLoads()
	if _, err := ix.Symbols(); err != nil || ix.ShardLoads() != before {
		t.Fatal("a second symbol query read the shards again")
	}
}

func TestAWarmRestartParsesNothing(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	first := syncIndex(t, New(root, cache, Options{}), root)
	ix := New(root, cache, Options{})
	again := syncIndex(t, ix, root)
	if ix.Parsed() != 0 {
		t.Fatalf("a warm restart parsed %d files", ix.Parsed())
	}
	if !bytes.Equal(first.Encode(), again.Encode()) {
		t.Fatal("a warm restart changed the graph")
	}
	if _, err := ix.Symbols(); err != nil {
		t.Fatal(err)
	}
}

// A warm pass assembles the cached records beside its walk, betting that
// nothing changed; a change must lose the bet, whatever it is.
func TestAWarmRestartAfterAChangeGivesTheColdGraph(t *testing.T) {
	later := time.Now().Add(time.Hour)
	changes := []struct {
		fact   string
		change func(t *testing.T, root string)
	}{
		{"an edited file", func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"py/pkg/helpers.py": "import json\n\ndef clean():\n    return 2\n"})
			if err := os.Chtimes(filepath.Join(root, "py/pkg/helpers.py"), later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"a new file", func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{"web/src/extra.ts": "import { render } from './view';\nexport const x = render;\n"})
		}},
		{"a removed file", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "lib/util.go")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range changes {
		t.Run(c.fact, func(t *testing.T) {
			root := newFixture(t)
			cache := t.TempDir()
			syncIndex(t, New(root, cache, Options{}), root)
			c.change(t, root)
			warm := syncIndex(t, New(root, cache, Options{}), root)
			if !bytes.Equal(warm.Encode(), cold(t, root).Encode()) {
				t.Fatal("the warm graph differs from a cold index of the changed tree")
			}
		})
	}
}

func TestATornCacheIsRebuiltNotMisread(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	first := New(root, cache, Options{})
	g := syncIndex(t, first, root)
	want, err := first.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	// A cache file cut short (a full disk, a copy interrupted) must read
	// as missing: cut the index and every shard in half.
	cut := func(p string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b[:len(b)/2], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cut(first.store.filesPath())
	for _, p := range first.store.shardProjects() {
		cut(first.store.shardPath(p))
	}
	ix := New(root, cache, Options{})
	again := syncIndex(t, ix, root)
	if ix.Parsed() == 0 {
		t.Fatal("a torn index cache was read as records")
	}
	if !bytes.Equal(g.Encode(), again.Encode()) {
		t.Fatal("the graph after a torn cache differs")
	}
	got, err := ix.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Encode(), got.Encode()) {
		t.Fatal("the symbols after a torn cache differ")
	}

	// Shards torn under an intact index: the records are read, and the
	// first symbol query parses the shards' files again.
	for _, p := range ix.store.shardProjects() {
		cut(ix.store.shardPath(p))
	}
	warm := New(root, cache, Options{})
	syncIndex(t, warm, root)
	if warm.Parsed() != 0 {
		t.Fatalf("an intact index cache was re-parsed (%d files)", warm.Parsed())
	}
	if got, err = warm.Symbols(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Encode(), got.Encode()) {
		t.Fatal("the symbols after torn shards differ")
	}
	if warm.Parsed() == 0 {
		t.Fatal("torn shards were read as symbols")
	}
}

func TestUpdateTouchesOnlyWhatChanged(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	ws, _ := workspace.Load(root)
	step := func(name string, change func(), paths ...string) {
		t.Run(name, func(t *testing.T) {
			change()
			before := ix.Parsed()
			g, st, err := ix.Update(ws, paths)
			if err != nil {
				t.Fatal(err)
			}
			if ix.Parsed()-before > int64(len(paths)) {
				t.Errorf("parsed %d files for %d changed paths", ix.Parsed()-before, len(paths))
			}
			if n, list := ix.DiagnosticCount(), len(ix.Diagnostics()); n != list {
				t.Errorf("DiagnosticCount = %d, but %d diagnostics are listed", n, list)
			}
			want := cold(t, root)
			if !bytes.Equal(g.Graph().Encode(), want.Encode()) {
				t.Errorf("the updated graph differs from a cold index (stats %+v)\n got: %s\nwant: %s", st, g.Graph().Encode(), want.Encode())
			}
			syms, err := ix.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			coldIx := New(root, t.TempDir(), Options{})
			syncIndex(t, coldIx, root)
			wantSyms, _ := coldIx.Symbols()
			if !bytes.Equal(syms.Encode(), wantSyms.Encode()) {
				t.Errorf("the updated symbols differ from a cold index")
			}
		})
	}
	step("an edit re-parses that file alone", func() {
		writeTree(t, root, map[string]string{"lib/util.go": "package lib\n\nvar prefix = \"hi, \"\n\nfunc Extra() {}\n"})
	}, "lib/util.go")
	step("a new file in a new directory is indexed", func() {
		writeTree(t, root, map[string]string{"lib/sub/sub.go": "package sub\n\nfunc Sub() {}\n"})
	}, "lib/sub")
	step("a rename drops the old name and indexes the new", func() {
		if err := os.Rename(filepath.Join(root, "lib/sub/sub.go"), filepath.Join(root, "lib/sub/renamed.go")); err != nil {
			t.Fatal(err)
		}
	}, "lib/sub/sub.go", "lib/sub/renamed.go")
	step("a delete drops the file", func() {
		if err := os.Remove(filepath.Join(root, "web/src/view.ts")); err != nil {
			t.Fatal(err)
		}
	}, "web/src/view.ts")
	step("a removed directory drops everything under it", func() {
		if err := os.RemoveAll(filepath.Join(root, "lib/sub")); err != nil {
			t.Fatal(err)
		}
	}, "lib/sub")
	step("a file that stops parsing gets a diagnostic", func() {
		writeTree(t, root, map[string]string{"lib/util.go": "package lib\n\nfunc Extra( {\n"})
	}, "lib/util.go")
	step("a fixed file loses its diagnostic", func() {
		writeTree(t, root, map[string]string{"lib/broken.go": "package lib\n\nfunc Broken() {}\n"})
	}, "lib/broken.go")
	step("a deleted broken file takes its diagnostic along", func() {
		if err := os.Remove(filepath.Join(root, "lib/util.go")); err != nil {
			t.Fatal(err)
		}
	}, "lib/util.go")
	step("an ignored file stays out", func() {
		writeTree(t, root, map[string]string{"lib/more.gen.go": "package lib\n"})
	}, "lib/more.gen.go")
}

func TestDiscoverSkipsWhatItCannotUse(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.go":              "package a\n",
		"big.go":            "package a\n" + strings.Repeat("// generated\n", 100),
		".core/x.go":        "package cache\n",
		"node_modules/m.js": "x",
		"sub/.gitignore":    "*.py\n!keep.py\n",
		"sub/drop.py":       "",
		"sub/keep.py":       "",
	})
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	found, diags := Discover(root, WalkOptions{MaxFileSize: 200})
	var paths []string
	for _, f := range found {
		paths = append(paths, f.Path)
	}
	if !slices.Equal(paths, []string{"a.go", "sub/keep.py"}) {
		t.Errorf("found %v", paths)
	}
	msgs := map[string]string{}
	for _, d := range diags {
		msgs[d.Path] = d.Message
	}
	for p, want := range map[string]string{"big.go": "over the 200-byte indexing limit", "loop": "a loop", "dirlink": "not followed"} {
		if !strings.Contains(msgs[p], want) {
			t.Errorf("diagnostic for %s = %q, want it to say %q", p, msgs[p], want)
		}
	}
}

func TestDemoGolden(t *testing.T) {
	root := "../../testdata/demo"
	abs, _ := filepath.Abs(root)
	g := syncIndex(t, New(abs, t.TempDir(), Options{}), abs)
	got := g.Encode()
	golden := "../../testdata/golden/graph/demo.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the demo graph differs from testdata/golden/graph/demo.json (run with -update to accept)")
	}
}

// TestUpdatesAndSymbolQueriesRunTogether is the deadlock a symbol query
// and a change once made by taking the two locks in opposite orders.
func TestUpdatesAndSymbolQueriesRunTogether(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	ws, _ := workspace.Load(root)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			writeTree(t, root, map[string]string{"lib/util.go": fmt.Sprintf("package lib\n\nvar prefix = %q\n", fmt.Sprint(i))})
			if _, _, err := ix.Update(ws, []string{"lib/util.go"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case <-done:
			if _, err := ix.Symbols(); err != nil {
				t.Fatal(err)
			}
			return
		case <-deadline:
			t.Fatal("updates and symbol queries deadlocked")
		default:
			if _, err := ix.Symbols(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAChangeLetsTheStaleSymbolGraphGo(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	if _, err := ix.Symbols(); err != nil {
		t.Fatal(err)
	}
	if ix.symbols.Load() == nil {
		t.Fatal("the assembled symbol graph is not kept for the next query")
	}
	ws, _ := workspace.Load(root)
	writeTree(t, root, map[string]string{"lib/lib.go": fixture["lib/lib.go"] + "\nfunc Added() {}\n"})
	if _, _, err := ix.Update(ws, []string{"lib/lib.go"}); err != nil {
		t.Fatal(err)
	}
	if ix.symbols.Load() != nil {
		t.Fatal("after a change the stale symbol graph is still referenced: the GC must mark it until the next symbol query")
	}
	s, err := ix.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if node(s, "symbol:lib/lib.go#Added") == nil {
		t.Fatal("the next symbol query does not see the change")
	}
}

func TestTheSymbolGraphIsSortedWhateverThePaths(t *testing.T) {
	root := newFixture(t)
	// "a.go!.go" sorts after "a.go" as a path but its symbol ids sort
	// before a.go's ('!' < '#').
	writeTree(t, root, map[string]string{
		"lib/a.go":     "package lib\n\nfunc A() { B() }\n",
		"lib/a.go!.go": "package lib\n\nfunc B() { A() }\n",
	})
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	s, err := ix.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Sorted() {
		t.Fatal("the symbol graph is not sorted")
	}
	if !hasEdge(s, "symbol:lib/a.go#A", "symbol:lib/a.go!.go#B", graph.EdgeReferences) || !hasEdge(s, "symbol:lib/a.go!.go#B", "symbol:lib/a.go#A", graph.EdgeReferences) {
		t.Fatal("the references between the two files are missing")
	}
}

func TestWarmSymbolTablesPreparesTheNextExactQuery(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	if err := ix.WarmSymbolTables(); err != nil {
		t.Fatal(err)
	}
	loads := ix.ShardLoads()
	if loads == 0 {
		t.Fatal("the warm-up read no shard")
	}
	if part, ok, err := ix.SymbolsNear([]string{"Greet"}); !ok || err != nil || node(part, "symbol:lib/lib.go#Greet") == nil {
		t.Fatalf("SymbolsNear after the warm-up: ok %v, err %v", ok, err)
	}
	if ix.ShardLoads() != loads {
		t.Errorf("an exact query after the warm-up read %d more shards", ix.ShardLoads()-loads)
	}
	if _, err := ix.Symbols(); err != nil {
		t.Fatal(err)
	}
	after := ix.ShardLoads()
	if err := ix.WarmSymbolTables(); err != nil || ix.ShardLoads() != after {
		t.Errorf("beside a whole symbol graph the warm-up read %d shards (err %v)", ix.ShardLoads()-after, err)
	}
}

// TestAFileThatGrowsPastTheLimitLeavesWithADiagnostic: while the server
// runs, a file that grows past the size limit leaves the graph with a
// diagnostic (it used to leave silently), and the diagnostic goes when the
// file shrinks back or is deleted.
func TestAFileThatGrowsPastTheLimitLeavesWithADiagnostic(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{MaxFileSize: 4 << 10})
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Sync(ws); err != nil {
		t.Fatal(err)
	}
	has := func(path string) bool {
		for _, d := range ix.Diagnostics() {
			if d.Path == path && strings.Contains(d.Message, "indexing limit") {
				return true
			}
		}
		return false
	}
	update := func() {
		t.Helper()
		if _, _, err := ix.Update(ws, []string{"lib/lib.go"}); err != nil {
			t.Fatal(err)
		}
	}
	before := ix.DiagnosticsVersion()
	writeTree(t, root, map[string]string{"lib/lib.go": "package lib\n\n// " + strings.Repeat("x", 8<<10) + "\n"})
	update()
	if !has("lib/lib.go") || ix.DiagnosticsVersion() == before {
		t.Fatalf("no diagnostic for a file over the limit: %+v", ix.Diagnostics())
	}
	writeTree(t, root, map[string]string{"lib/lib.go": "package lib\n"})
	update()
	if has("lib/lib.go") {
		t.Fatal("the diagnostic stayed after the file shrank")
	}
	writeTree(t, root, map[string]string{"lib/lib.go": "package lib\n\n// " + strings.Repeat("x", 8<<10) + "\n"})
	update()
	if err := os.Remove(filepath.Join(root, "lib", "lib.go")); err != nil {
		t.Fatal(err)
	}
	update()
	if has("lib/lib.go") {
		t.Fatal("the diagnostic stayed after the file was deleted")
	}
}

// TestNamesThatAreNotUTF8StayOutVisibly: two files whose names differ only
// in bytes that are not UTF-8 would collide as node ids (JSON shows both
// as U+FFFD); they are skipped with a diagnostic instead.
func TestNamesThatAreNotUTF8StayOutVisibly(t *testing.T) {
	root := newFixture(t)
	writeTree(t, root, map[string]string{"lib/a\xff.go": "package lib\n", "lib/a\xfe.go": "package lib\n"})
	ix := New(root, t.TempDir(), Options{})
	g := syncIndex(t, ix, root)
	for _, n := range g.Nodes {
		if !utf8.ValidString(n.ID) {
			t.Errorf("node id %q is not UTF-8", n.ID)
		}
	}
	var skipped int
	for _, d := range ix.Diagnostics() {
		if strings.Contains(d.Message, "not valid UTF-8") {
			skipped++
		}
	}
	if skipped != 2 {
		t.Errorf("%d diagnostics for 2 names that are not UTF-8: %+v", skipped, ix.Diagnostics())
	}
}

// TestManifestsGolden: a workspace whose project dependencies are written
// only in its manifests (package.json, go.mod, pyproject.toml); the golden
// graph shows each depends_inferred edge with the manifest in its via.
func TestManifestsGolden(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"targets.yaml":             "projects:\n  web:\n    path: apps/web\n  ui:\n    path: packages/ui\n  api:\n    path: svc/api\n  lib:\n    path: svc/lib\n  ml:\n    path: py/ml\n  feats:\n    path: py/feats\n",
		"apps/web/package.json":    `{"name": "@shop/web", "dependencies": {"@shop/ui": "workspace:*"}}`,
		"apps/web/index.js":        "require('@shop/ui')\n",
		"packages/ui/package.json": `{"name": "@shop/ui", "main": "index.js"}`,
		"packages/ui/index.js":     "module.exports = 1\n",
		"svc/api/go.mod":           "module example.com/api\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n",
		"svc/api/main.go":          "package main\n\nfunc main() {}\n",
		"svc/lib/go.mod":           "module example.com/lib\n\ngo 1.22\n",
		"svc/lib/lib.go":           "package lib\n",
		"pyproject.toml":           "[tool.uv.workspace]\nmembers = [\"py/*\"]\n",
		"py/ml/pyproject.toml":     "[project]\nname = \"ml\"\ndependencies = [\"feats\"]\n\n[tool.uv.sources]\nfeats = { workspace = true }\n",
		"py/feats/pyproject.toml":  "[project]\nname = \"feats\"\n",
	})
	got := cold(t, root).Encode()
	golden := "../../testdata/golden/graph/manifests.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the graph differs from %s (run with -update to accept):\n%s", golden, got)
	}
}
