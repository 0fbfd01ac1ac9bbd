package query

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/graph"
)

// fixture is a small workspace graph with a node of every kind but symbol;
// the symbols live in symbolFixture, as they would in @symbols shards.
func fixture() *graph.Graph {
	g := &graph.Graph{
		Nodes: []graph.Node{
			{ID: "project:api", Kind: graph.KindProject, Name: "api", Path: "services/api"},
			{ID: "project:web", Kind: graph.KindProject, Name: "web", Path: "apps/web"},
			{ID: "project:lib", Kind: graph.KindProject, Name: "lib", Path: "libs/lib"},
			{ID: "target:api:build", Kind: graph.KindTarget, Name: "build", Path: "services/api", Project: "api"},
			{ID: "target:api:test", Kind: graph.KindTarget, Name: "test", Path: "services/api", Project: "api"},
			{ID: "target:web:build", Kind: graph.KindTarget, Name: "build", Path: "apps/web", Project: "web"},
			{ID: "spell:deploy", Kind: graph.KindSpell, Name: "deploy", Command: []string{"./deploy.sh"}},
			{ID: "doc:README.md", Kind: graph.KindDoc, Name: "README", Path: "README.md"},
			{ID: "doc:services/api/README.md", Kind: graph.KindDoc, Name: "API guide", Path: "services/api/README.md", Project: "api"},
			{ID: "file:services/api/main.go", Kind: graph.KindFile, Name: "main.go", Path: "services/api/main.go", Project: "api"},
			{ID: "file:services/api/server.go", Kind: graph.KindFile, Name: "server.go", Path: "services/api/server.go", Project: "api"},
			{ID: "file:apps/web/index.ts", Kind: graph.KindFile, Name: "index.ts", Path: "apps/web/index.ts", Project: "web"},
			{ID: "package:github.com/corehq/lib", Kind: graph.KindPackage, Name: "github.com/corehq/lib"},
		},
		Edges: []graph.Edge{
			{Source: "project:api", Target: "target:api:build", Kind: graph.EdgeOwns},
			{Source: "project:api", Target: "target:api:test", Kind: graph.EdgeOwns},
			{Source: "project:api", Target: "doc:services/api/README.md", Kind: graph.EdgeOwns},
			{Source: "project:api", Target: "file:services/api/main.go", Kind: graph.EdgeOwns},
			{Source: "project:api", Target: "file:services/api/server.go", Kind: graph.EdgeOwns},
			{Source: "project:web", Target: "target:web:build", Kind: graph.EdgeOwns},
			{Source: "project:web", Target: "file:apps/web/index.ts", Kind: graph.EdgeOwns},
			{Source: "project:api", Target: "project:lib", Kind: graph.EdgeDependsDeclared},
			{Source: "project:web", Target: "project:api", Kind: graph.EdgeDependsInferred},
			{Source: "target:api:test", Target: "target:api:build", Kind: graph.EdgeDepends},
			{Source: "target:web:build", Target: "target:api:build", Kind: graph.EdgeDepends},
			{Source: "target:web:build", Target: "target:ghost:build", Kind: graph.EdgeDepends},
			{Source: "file:services/api/main.go", Target: "package:github.com/corehq/lib", Kind: graph.EdgeImports},
			{Source: "doc:README.md", Target: "file:services/api/main.go", Kind: graph.EdgeLinks},
			{Source: "doc:README.md", Target: "spell:deploy", Kind: graph.EdgeMentions},
		},
	}
	g.Sort()
	return g
}

func symbolFixture() *graph.Graph {
	const server, main, index = "services/api/server.go", "services/api/main.go", "apps/web/index.ts"
	g := &graph.Graph{
		Nodes: []graph.Node{
			{ID: "symbol:" + server + "#Server", Kind: graph.KindSymbol, Name: "Server", Path: server},
			{ID: "symbol:" + server + "#Server.Start", Kind: graph.KindSymbol, Name: "Server.Start", Path: server},
			{ID: "symbol:" + main + "#Run", Kind: graph.KindSymbol, Name: "Run", Path: main},
			{ID: "symbol:" + index + "#render", Kind: graph.KindSymbol, Name: "render", Path: index},
		},
		Edges: []graph.Edge{
			{Source: "file:" + server, Target: "symbol:" + server + "#Server", Kind: graph.EdgeOwns},
			{Source: "file:" + server, Target: "symbol:" + server + "#Server.Start", Kind: graph.EdgeOwns},
			{Source: "file:" + main, Target: "symbol:" + main + "#Run", Kind: graph.EdgeOwns},
			{Source: "file:" + index, Target: "symbol:" + index + "#render", Kind: graph.EdgeOwns},
			{Source: "symbol:" + main + "#Run", Target: "symbol:" + server + "#Server.Start", Kind: graph.EdgeReferences},
			{Source: "file:" + main, Target: "symbol:" + server + "#Server", Kind: graph.EdgeReferences},
		},
	}
	g.Sort()
	return g
}

// symbolsFor returns a symbols func for q: it serves symbolFixture and
// counts its calls when q needs symbols, and fails the test when called
// for any other query.
func symbolsFor(t *testing.T, q *Query, calls *int) func() (*graph.Graph, error) {
	return func() (*graph.Graph, error) {
		*calls++
		if !q.NeedsSymbols() {
			t.Errorf("symbols loaded for %q, which has no symbol: or kind:symbol term", q)
		}
		return symbolFixture(), nil
	}
}

func ids(g *graph.Graph) []string {
	out := []string{}
	for _, n := range g.Nodes {
		out = append(out, n.ID)
	}
	return out
}

// edges returns g's edges as "source -kind-> target", sorted as strings.
func edges(g *graph.Graph) []string {
	out := []string{}
	for _, e := range g.Edges {
		out = append(out, e.Source+" -"+e.Kind+"-> "+e.Target)
	}
	slices.Sort(out)
	return out
}

func sorted(s ...string) []string { return slices.Sorted(slices.Values(s)) }

const (
	srvSym   = "symbol:services/api/server.go#Server"
	startSym = "symbol:services/api/server.go#Server.Start"
	runSym   = "symbol:services/api/main.go#Run"
	rendSym  = "symbol:apps/web/index.ts#render"
	mainGo   = "file:services/api/main.go"
	serverGo = "file:services/api/server.go"
	indexTS  = "file:apps/web/index.ts"
	apiDoc   = "doc:services/api/README.md"
	libPkg   = "package:github.com/corehq/lib"
)

var evalCases = []struct {
	name      string
	query     string
	wantNodes []string
	wantEdges []string // nil: not checked
}{
	{
		name:  "project: seeds the project and depth 1 adds what it owns and its dependencies both ways",
		query: "project:api",
		wantNodes: sorted("project:api", "target:api:build", "target:api:test", apiDoc, mainGo, serverGo,
			"project:lib", "project:web"),
		wantEdges: sorted(
			"project:api -owns-> target:api:build",
			"project:api -owns-> target:api:test",
			"project:api -owns-> "+apiDoc,
			"project:api -owns-> "+mainGo,
			"project:api -owns-> "+serverGo,
			"project:api -depends_declared-> project:lib",
			"project:web -depends_inferred-> project:api",
			"target:api:test -depends-> target:api:build",
		),
	},
	{
		name:      "depth:0 keeps only the seeds",
		query:     "project:api depth:0",
		wantNodes: []string{"project:api"},
		wantEdges: []string{},
	},
	{
		name:      "depth:2 reaches the neighbours of the neighbours",
		query:     "spell:deploy depth:2",
		wantNodes: sorted("spell:deploy", "doc:README.md", mainGo),
		wantEdges: sorted("doc:README.md -mentions-> spell:deploy", "doc:README.md -links-> "+mainGo),
	},
	{
		name:      "expansion follows edges against their direction",
		query:     "corehq/lib",
		wantNodes: sorted(libPkg, mainGo),
		wantEdges: []string{mainGo + " -imports-> " + libPkg},
	},
	{
		name:      "expansion stops once nothing new is reached",
		query:     "project:lib depth:10",
		wantNodes: ids(fixture()),
	},
	{
		name:      "a bare word matches a substring of the id case-insensitively",
		query:     "CoreHQ depth:0",
		wantNodes: []string{libPkg},
	},
	{
		name:      "a bare word matches a substring of the name case-insensitively",
		query:     "GUIDE depth:0",
		wantNodes: []string{apiDoc},
	},
	{
		name:      "a bare word matches every node that contains it",
		query:     "build depth:0",
		wantNodes: sorted("target:api:build", "target:web:build"),
		wantEdges: []string{"target:web:build -depends-> target:api:build"},
	},
	{
		name:      "kind: selects every node of the kind",
		query:     "kind:target depth:0",
		wantNodes: sorted("target:api:build", "target:api:test", "target:web:build"),
		wantEdges: sorted("target:api:test -depends-> target:api:build", "target:web:build -depends-> target:api:build"),
	},
	{
		name:      "target: selects the one target, and an edge to a missing node is never in the result",
		query:     "target:web:build",
		wantNodes: sorted("target:web:build", "project:web", "target:api:build"),
		wantEdges: sorted("project:web -owns-> target:web:build", "target:web:build -depends-> target:api:build"),
	},
	{
		name:      "path: matches files and docs with ** across directories, never projects",
		query:     "path:services/** depth:0",
		wantNodes: sorted(apiDoc, mainGo, serverGo),
		wantEdges: []string{},
	},
	{
		name:      "path: * stays within one directory",
		query:     "path:*.md depth:0",
		wantNodes: []string{"doc:README.md"},
	},
	{
		name:      "path: takes alternatives",
		query:     "path:{apps,services}/*/*.{ts,md} depth:0",
		wantNodes: sorted(apiDoc, indexTS),
	},
	{
		name:      "the seeds are the union of what the terms select",
		query:     "spell:deploy project:lib depth:0",
		wantNodes: sorted("spell:deploy", "project:lib"),
	},
	{
		name:      "a term that selects nothing yields an empty graph",
		query:     "project:nope",
		wantNodes: []string{},
		wantEdges: []string{},
	},
	{
		name:      "a term that selects nothing leaves the other terms' seeds",
		query:     "project:nope spell:deploy depth:0",
		wantNodes: []string{"spell:deploy"},
	},
	{
		name:      "project: matches the project id exactly, not as a substring",
		query:     "project:ap depth:0",
		wantNodes: []string{},
	},
	{
		name:      "default graph queries never reach symbols",
		query:     "path:services/api/main.go",
		wantNodes: sorted(mainGo, "project:api", libPkg, "doc:README.md"),
	},
	{
		name:      "symbol: matches the exact name",
		query:     "symbol:Server depth:0",
		wantNodes: []string{srvSym},
	},
	{
		name:      "symbol: is case-sensitive",
		query:     "symbol:server depth:0",
		wantNodes: []string{},
	},
	{
		name:      "symbol: globs with *, across the dot of a method",
		query:     "symbol:Server.* depth:0",
		wantNodes: []string{startSym},
	},
	{
		name:      "symbol: * alone selects every symbol",
		query:     "symbol:* depth:0",
		wantNodes: sorted(srvSym, startSym, runSym, rendSym),
	},
	{
		name:      "symbol: seeds expand through the owning file and references",
		query:     "symbol:Run",
		wantNodes: sorted(runSym, mainGo, startSym),
		wantEdges: sorted(mainGo+" -owns-> "+runSym, runSym+" -references-> "+startSym),
	},
	{
		name:      "symbol expansion continues into the default graph",
		query:     "symbol:render depth:2",
		wantNodes: sorted(rendSym, indexTS, "project:web"),
	},
	{
		name:      "kind:symbol loads the symbols and selects them all",
		query:     "kind:symbol depth:0",
		wantNodes: sorted(srvSym, startSym, runSym, rendSym),
		wantEdges: []string{runSym + " -references-> " + startSym},
	},
	{
		name:      "with symbols loaded, a bare word matches symbols too",
		query:     "symbol:render START depth:0",
		wantNodes: sorted(rendSym, startSym),
	},
	{
		name:      "without symbols loaded, a bare word never matches symbols",
		query:     "start depth:0",
		wantNodes: []string{},
	},
	{
		name:      "kind:file does not load symbols",
		query:     "kind:file depth:0",
		wantNodes: sorted(mainGo, serverGo, indexTS),
	},
}

func TestEval(t *testing.T) {
	g := fixture()
	ix := NewIndex(g)
	for _, tc := range evalCases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Parse(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			for _, how := range []string{"Eval", "Index.Eval"} {
				calls := 0
				var got *graph.Graph
				if how == "Eval" {
					got, err = Eval(q, g, symbolsFor(t, q, &calls))
				} else {
					got, err = ix.Eval(q, symbolsFor(t, q, &calls))
				}
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if want := 0; q.NeedsSymbols() {
					want = 1
					if calls != want {
						t.Errorf("%s: symbols called %d times, want %d", how, calls, want)
					}
				}
				if !slices.Equal(ids(got), tc.wantNodes) {
					t.Errorf("%s: nodes\n got %q\nwant %q", how, ids(got), tc.wantNodes)
				}
				if tc.wantEdges != nil && !slices.Equal(edges(got), tc.wantEdges) {
					t.Errorf("%s: edges\n got %q\nwant %q", how, edges(got), tc.wantEdges)
				}
			}
		})
	}
}

func TestEvalResult(t *testing.T) {
	g := fixture()
	noSymbols := func() (*graph.Graph, error) {
		t.Error("symbols loaded for a query without symbol terms")
		return nil, nil
	}
	eval := func(t *testing.T, query string, g *graph.Graph, symbols func() (*graph.Graph, error)) *graph.Graph {
		t.Helper()
		q, err := Parse(query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Eval(q, g, symbols)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("an empty result encodes as empty lists", func(t *testing.T) {
		got := eval(t, "project:nope", g, noSymbols).Encode()
		if want := "{\"nodes\":[],\"edges\":[]}\n"; string(got) != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("the result is sorted and encodes to the same bytes whatever the input order", func(t *testing.T) {
		shuffled := fixture()
		slices.Reverse(shuffled.Nodes)
		slices.Reverse(shuffled.Edges)
		a := eval(t, "project:api depth:2", g, noSymbols)
		b := eval(t, "depth:2 project:api", shuffled, noSymbols)
		if !bytes.Equal(a.Encode(), b.Encode()) {
			t.Errorf("encodings differ:\n%s\n%s", a.Encode(), b.Encode())
		}
		c := &graph.Graph{Nodes: slices.Clone(a.Nodes), Edges: slices.Clone(a.Edges)}
		c.Sort()
		if !slices.Equal(ids(a), ids(c)) || !slices.Equal(a.Edges, c.Edges) {
			t.Error("result is not sorted")
		}
	})
	t.Run("nodes keep all their fields", func(t *testing.T) {
		got := eval(t, "spell:deploy depth:0", g, noSymbols)
		if len(got.Nodes) != 1 || !slices.Equal(got.Nodes[0].Command, []string{"./deploy.sh"}) {
			t.Errorf("got %+v", got.Nodes)
		}
	})
	t.Run("of nodes sharing an id the first one stays", func(t *testing.T) {
		dup := fixture()
		dup.Nodes = append(dup.Nodes, graph.Node{ID: "spell:deploy", Kind: graph.KindSpell, Name: "impostor"})
		got := eval(t, "deploy depth:0", dup, noSymbols)
		if len(got.Nodes) != 1 || got.Nodes[0].Name != "deploy" {
			t.Errorf("got %+v", got.Nodes)
		}
		if got := eval(t, "impostor", dup, noSymbols); len(got.Nodes) != 0 {
			t.Errorf("the duplicate was seeded: %+v", got.Nodes)
		}
	})
	t.Run("a node of the symbol graph the graph already has keeps the graph's version", func(t *testing.T) {
		symbols := func() (*graph.Graph, error) {
			sg := symbolFixture()
			sg.Nodes = append(sg.Nodes, graph.Node{ID: mainGo, Kind: graph.KindFile, Name: "shadow"})
			sg.Edges = append(sg.Edges, graph.Edge{Source: "project:api", Target: mainGo, Kind: graph.EdgeOwns})
			return sg, nil
		}
		got := eval(t, "symbol:Run", g, symbols)
		for _, n := range got.Nodes {
			if n.ID == mainGo && n.Name != "main.go" {
				t.Errorf("main.go replaced: %+v", n)
			}
		}
		if want := sorted(runSym, mainGo, startSym); !slices.Equal(ids(got), want) {
			t.Errorf("got %q, want %q", ids(got), want)
		}
		got = eval(t, "symbol:Run depth:2", g, symbols)
		n := 0
		for _, e := range got.Edges {
			if e.Source == "project:api" && e.Target == mainGo {
				n++
			}
		}
		if n != 1 {
			t.Errorf("an edge in both graphs appears %d times, want once", n)
		}
	})
	t.Run("a failure to load symbols is returned as is, not as a query error", func(t *testing.T) {
		boom := errors.New("shard unreadable")
		q, _ := Parse("symbol:Run")
		_, err := Eval(q, g, func() (*graph.Graph, error) { return nil, boom })
		var qe *Error
		if !errors.Is(err, boom) || errors.As(err, &qe) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("a nil symbols func means no symbols", func(t *testing.T) {
		if got := eval(t, "kind:symbol", g, nil); len(got.Nodes) != 0 {
			t.Errorf("got %q", ids(got))
		}
	})
	t.Run("a nil graph is empty", func(t *testing.T) {
		if got := eval(t, "kind:project", nil, noSymbols); len(got.Nodes)+len(got.Edges) != 0 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("a bare word with a NUL byte still matches by substring", func(t *testing.T) {
		odd := &graph.Graph{Nodes: []graph.Node{{ID: "doc:a\x00b", Kind: graph.KindDoc, Name: "x"}}}
		if got := eval(t, "a\x00b", odd, noSymbols); len(got.Nodes) != 1 {
			t.Errorf("got %q", ids(got))
		}
	})
}

func TestIndexIsSafeForConcurrentQueries(t *testing.T) {
	g := fixture()
	ix := NewIndex(g)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				tc := evalCases[(i+j)%len(evalCases)]
				q, err := Parse(tc.query)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := ix.Eval(q, func() (*graph.Graph, error) { return symbolFixture(), nil })
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(ids(got), tc.wantNodes) {
					t.Errorf("%s: got %q, want %q", tc.query, ids(got), tc.wantNodes)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestStarMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"Run", "Run", true},
		{"Run", "Runner", false},
		{"*", "", true},
		{"*", "anything.at.all", true},
		{"Server.*", "Server.Start", true},
		{"Server.*", "Server", false},
		{"*.Start", "Server.Start", true},
		{"S*r*t", "Server.Start", true},
		{"S*r*x", "Server.Start", false},
		{"**a", "bba", true},
		{"a*a*a", "aaaa", true},
		{"a*a*a", "aa", false},
		{"", "", true},
		{"", "x", false},
	} {
		if got := starMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("starMatch(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestLiteralDirIsAPrefixOfEveryMatch(t *testing.T) {
	paths := []string{"a", "a/b", "a/b/c.go", "ab/c", "x/a/b", ".github/ci.yml", "a/{b", "README.md"}
	globs := []string{"a/**", "a/**/c.go", "a/b/*", "a*/c", "**/b", "a/{b,c}/c.go", "a/b/c.go", `a/\{b`, "*.md", ".github/*"}
	for _, glob := range globs {
		dir := literalDir(glob)
		for _, p := range paths {
			if ok, _ := doublestar.Match(glob, p); ok && !strings.HasPrefix(p, dir) {
				t.Errorf("%q matches %q, which does not start with %q", glob, p, dir)
			}
		}
	}
}

func TestForgetSymbolsLetsTheMergedViewGo(t *testing.T) {
	ix := NewIndex(fixture())
	sg := symbolFixture()
	q, err := Parse("kind:symbol")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ix.Eval(q, func() (*graph.Graph, error) { return sg, nil })
	if err != nil {
		t.Fatal(err)
	}
	if ix.symView == nil {
		t.Fatal("a symbol query keeps no merged view to reuse")
	}
	ix.ForgetSymbols()
	if ix.symView != nil || ix.symSeen != nil {
		t.Fatal("ForgetSymbols kept the merged view")
	}
	got, err := ix.Eval(q, func() (*graph.Graph, error) { return sg, nil })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), ids(want)) {
		t.Fatalf("after ForgetSymbols the query answers %q, want %q", ids(got), ids(want))
	}
}

func TestCSROfABigGraphMatchesANaiveAdjacency(t *testing.T) {
	t.Parallel()
	const n = 5000
	rng := rand.New(rand.NewPCG(1, 9))
	ids := map[string]int32{}
	for i := range n {
		ids[fmt.Sprintf("n%04d", i)] = int32(i)
	}
	lookup := func(id string) int32 {
		if u, ok := ids[id]; ok {
			return u
		}
		return -1
	}
	var edges []graph.Edge
	for range 1 << 17 { // above the size that splits the lookups
		s, d := rng.IntN(n+50), rng.IntN(n+50) // some ends are not nodes
		edges = append(edges, graph.Edge{Source: fmt.Sprintf("n%04d", s), Target: fmt.Sprintf("n%04d", d), Kind: "x"})
	}
	slices.SortFunc(edges, graph.CompareEdges)
	src, dst, outOff, inOff, outE, inE := buildCSR(n, edges, lookup)
	var wantOut, wantIn [n][]int32
	for i, e := range edges {
		s, d := lookup(e.Source), lookup(e.Target)
		if s < 0 || d < 0 {
			if src[i] != -1 || dst[i] != -1 {
				t.Fatalf("edge %d has an end that is not a node but src, dst = %d, %d", i, src[i], dst[i])
			}
			continue
		}
		if src[i] != s || dst[i] != d {
			t.Fatalf("edge %d: src, dst = %d, %d, want %d, %d", i, src[i], dst[i], s, d)
		}
		wantOut[s] = append(wantOut[s], int32(i))
		wantIn[d] = append(wantIn[d], int32(i))
	}
	for u := range n {
		if got := outE[outOff[u]:outOff[u+1]]; !slices.Equal(got, wantOut[u]) {
			t.Fatalf("out-edges of %d = %v, want %v", u, got, wantOut[u])
		}
		if got := inE[inOff[u]:inOff[u+1]]; !slices.Equal(got, wantIn[u]) {
			t.Fatalf("in-edges of %d = %v, want %v", u, got, wantIn[u])
		}
	}
}
