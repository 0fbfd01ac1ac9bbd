package index

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/workspace"
)

// TestSymbolsNearAnswersAsTheWholeSymbolGraph runs the queries SymbolsNear
// serves (every symbol name alone; at depth 0 and in pairs, every name of
// the small workspaces and every tenth of core's; a name nobody declares)
// over the part it returns and over the whole symbol graph, on the
// fixture, the demo workspace and core's own repository: the answers must
// be byte for byte the same.
func TestSymbolsNearAnswersAsTheWholeSymbolGraph(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	roots := map[string]string{"fixture": newFixture(t), "demo": filepath.Join(repo, "testdata", "demo"), "core": repo}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			ix := New(root, t.TempDir(), Options{})
			g := syncIndex(t, ix, root)
			qi := query.NewIndex(g)

			var names []string
			sg, _, err := ix.SymbolsNear([]string{"no-such-symbol"})
			if err != nil {
				t.Fatal(err)
			}
			if len(sg.Nodes) != 0 {
				t.Fatalf("a name nobody declares brought %d nodes", len(sg.Nodes))
			}
			// The names, from the tables SymbolsNear loaded: the whole
			// graph is not built yet.
			tables := ix.tables.Load()
			seen := map[string]bool{}
			for _, f := range tables.v.files {
				for _, s := range f.Symbols {
					if !seen[s.Name] {
						seen[s.Name] = true
						names = append(names, s.Name)
					}
				}
			}
			slices.Sort(names)
			if len(names) < 10 {
				t.Fatalf("only %d symbol names in %s", len(names), root)
			}
			var queries []string
			for i, n := range names {
				if testing.Short() && len(names) > 500 && i%20 != 0 {
					continue // a sample under -short; scripts/test's plain step runs the whole set
				}
				queries = append(queries, "symbol:"+n)
				if len(names) < 500 || i%10 == 0 { // keep core's thousands of names quick under -race
					queries = append(queries, "symbol:"+n+" depth:0")
					if i > 0 {
						queries = append(queries, "symbol:"+n+" symbol:"+names[i-1])
					}
				}
			}
			queries = append(queries, "symbol:no-such-symbol")

			lk := newSymbolTables(tables.v.r.ws, tables.v.files)
			lk.buildLookup()
			near := map[string][]byte{}
			for _, text := range queries {
				q, err := query.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				ns, ok := q.SymbolNames()
				if !ok {
					t.Fatalf("%q: SymbolNames refused it", text)
				}
				scanAgreesWithLookup(t, lk, ns)
				part, ok, err := ix.SymbolsNear(ns)
				if err != nil || !ok {
					t.Fatal(ok, err)
				}
				res, err := qi.EvalPart(q, part)
				if err != nil {
					t.Fatal(err)
				}
				near[text] = res.Encode()
			}
			loads := ix.ShardLoads()
			whole, err := ix.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			wrong := 0
			for _, text := range queries {
				q, _ := query.Parse(text)
				res, err := qi.Eval(q, func() (*graph.Graph, error) { return whole, nil })
				if err != nil {
					t.Fatal(err)
				}
				if want := res.Encode(); !bytes.Equal(near[text], want) {
					if wrong++; wrong <= 3 {
						t.Errorf("%q over the part:\n%s\nover the whole symbol graph:\n%s", text, near[text], want)
					}
				}
			}
			if wrong > 0 {
				t.Fatalf("%d of %d queries differ", wrong, len(queries))
			}
			if loads != int64(len(ix.ws.Projects)+1) {
				t.Errorf("%d queries read %d shards; the first should have read them all and the rest none", len(queries), loads)
			}
			// With the whole graph assembled, SymbolsNear steps aside
			// rather than reading the shards again for tables.
			after := ix.ShardLoads()
			if _, ok, err := ix.SymbolsNear(names[:1]); ok || err != nil || ix.ShardLoads() != after {
				t.Errorf("SymbolsNear beside a whole symbol graph: ok %v, err %v, %d more shard reads", ok, err, ix.ShardLoads()-after)
			}
			t.Logf("%d queries over %d symbol names agree", len(queries), len(names))
		})
	}
}

// randomRecords makes a small workspace's records, as the parsers and the
// shards would give them, from rng.
func randomRecords(rng *rand.Rand, adversarial bool) map[string]*parse.FileRecord {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	files := map[string]*parse.FileRecord{}
	files["go.mod"] = &parse.FileRecord{Path: "go.mod", Lang: parse.LangGoMod, Module: "m"}
	files["w/package.json"] = &parse.FileRecord{Path: "w/package.json", Lang: parse.LangPackageJSON, Module: "@w", Entry: "t0.ts"}
	dirs := []string{"d0", "d1", "d2", "p/d3"}
	if adversarial {
		dirs = append(dirs, "d#4")
	}
	plain := []string{"A", "B", "C", "M", "N", "T", "U", "init", "X"}
	methods := []string{"T.M", "U.M", "T.N", "U.A"}
	for range 2 + rng.IntN(8) {
		dir := pick(dirs)
		name := fmt.Sprintf("%s/f%d.go", dir, rng.IntN(6))
		pkg := "pk" + dir[len(dir)-1:]
		if rng.IntN(4) == 0 {
			name = fmt.Sprintf("%s/f%d_test.go", dir, rng.IntN(3))
			if rng.IntN(2) == 0 {
				pkg += "_test"
			}
		}
		f := &parse.FileRecord{Path: name, Lang: parse.LangGo, Package: pkg}
		for range rng.IntN(4) {
			alias := ""
			if rng.IntN(3) == 0 {
				alias = pick([]string{"x", "y", ".", "_", "A"})
			}
			f.Imports = append(f.Imports, parse.Import{Path: "m/" + pick(dirs), Alias: alias})
		}
		for range rng.IntN(5) {
			if rng.IntN(3) == 0 {
				f.Symbols = append(f.Symbols, parse.Symbol{Name: pick(methods), Kind: "method", Line: rng.IntN(9)})
			} else {
				f.Symbols = append(f.Symbols, parse.Symbol{Name: pick(plain), Kind: pick([]string{"func", "type", "var"}), Line: rng.IntN(9)})
			}
		}
		for range rng.IntN(8) {
			from := ""
			if len(f.Symbols) > 0 && rng.IntN(4) != 0 {
				from = f.Symbols[rng.IntN(len(f.Symbols))].Name
			}
			qual := ""
			switch rng.IntN(4) {
			case 1:
				qual = parse.MemberQual
			case 2:
				qual = pick([]string{"pk0", "pk1", "pk2", "pk3", "pk4", "x", "y", "v"})
			}
			rn := pick(plain)
			if adversarial && rng.IntN(5) == 0 {
				rn = pick(methods)
			}
			f.Refs = append(f.Refs, parse.Ref{From: from, Qual: qual, Name: rn})
		}
		files[name] = f
	}
	tsdirs := []string{"w", "w/s"}
	if adversarial {
		tsdirs = append(tsdirs, "w#x")
	}
	for range rng.IntN(6) {
		lang, ext := parse.LangTypeScript, ".ts"
		if rng.IntN(2) == 0 {
			lang, ext = parse.LangJavaScript, ".js"
		}
		p := fmt.Sprintf("%s/t%d%s", pick(tsdirs), rng.IntN(4), ext)
		if rng.IntN(4) == 0 {
			p = pick([]string{"w/s/index.ts", "w/index.js", "w/x/index.ts"})
		}
		f := &parse.FileRecord{Path: p, Lang: lang}
		for range rng.IntN(4) {
			f.Symbols = append(f.Symbols, parse.Symbol{Name: pick([]string{"A", "B", "C", "D", "T", "T.M"}), Kind: "function"})
		}
		if rng.IntN(2) == 0 {
			f.Default = pick([]string{"A", "B", "D", "Z"})
		}
		for range rng.IntN(3) {
			var ns []string
			for range rng.IntN(3) {
				ns = append(ns, pick([]string{"A", "B", "C", "default", "D", "T.M"}))
			}
			var as []string
			if len(ns) > 0 && rng.IntN(2) == 0 { // export {a as b} from
				for range ns {
					as = append(as, pick([]string{"", "A", "B", "E", "default"}))
				}
			}
			if len(ns) == 0 && rng.IntN(2) == 0 {
				ns = []string{parse.ReexportsAll}
			}
			f.Imports = append(f.Imports, parse.Import{Path: pick([]string{"./t0", "./t1", "../w/t2", "./s/t3", "../t0", "./t1.js", "./s", ".", "@w", "@w/t1", "../x"}), Names: ns, As: as})
		}
		files[p] = f
	}
	if rng.IntN(2) == 0 {
		// A barrel that offers names of the files beside it, some
		// renamed, and a file that imports them from it.
		b := &parse.FileRecord{Path: pick([]string{"w/s/index.ts", "w/index.ts"}), Lang: parse.LangTypeScript}
		var beside []*parse.FileRecord
		for _, p := range slices.Sorted(maps.Keys(files)) {
			if f := files[p]; path.Dir(p) == path.Dir(b.Path) && f.Lang != parse.LangGo {
				beside = append(beside, f)
			}
		}
		for range len(beside) * rng.IntN(3) {
			f := beside[rng.IntN(len(beside))]
			name := "default"
			if len(f.Symbols) > 0 && rng.IntN(4) != 0 {
				name = f.Symbols[rng.IntN(len(f.Symbols))].Name
			}
			b.Imports = append(b.Imports, parse.Import{
				Path:  "./" + strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)),
				Names: []string{name},
				As:    []string{pick([]string{"", "A", "B", "C", "default", "E"})},
			})
		}
		files[b.Path] = b
		user := &parse.FileRecord{Path: "w/user.ts", Lang: parse.LangTypeScript}
		for range 1 + rng.IntN(3) {
			user.Imports = append(user.Imports, parse.Import{Path: pick([]string{".", "./s", "./index"}), Names: []string{pick([]string{"A", "B", "C", "D", "E", "default"})}})
		}
		files[user.Path] = user
	}
	for range rng.IntN(5) {
		p := fmt.Sprintf("py/m%d.py", rng.IntN(4))
		if rng.IntN(4) == 0 {
			p = "py/__init__.py"
		}
		f := &parse.FileRecord{Path: p, Lang: parse.LangPython}
		if rng.IntN(4) == 0 {
			f.Default = pick([]string{"A", "B"}) // no parser sets one today; fileReferences would use it
		}
		for range rng.IntN(4) {
			f.Symbols = append(f.Symbols, parse.Symbol{Name: pick([]string{"A", "B", "C", "default", "K.m"}), Kind: "function"})
		}
		for range rng.IntN(3) {
			var ns []string
			for range 1 + rng.IntN(2) {
				ns = append(ns, pick([]string{"A", "B", "C", "default"}))
			}
			f.Imports = append(f.Imports, parse.Import{Path: pick([]string{"py.m0", ".m1", "py.m2", ".m3", ".", "py"}), Names: ns})
		}
		files[p] = f
	}
	return files
}

// nearAgreesOn compares, for one random record set, every query of its
// symbol names (alone, at depth 0, in pairs) over the part near builds and
// over the whole symbol graph.
func nearAgreesOn(t *testing.T, seed uint64, adversarial bool) bool {
	rng := rand.New(rand.NewPCG(seed, 7))
	files := randomRecords(rng, adversarial)
	ws := &workspace.Workspace{Root: "/r", Projects: []*workspace.Project{{Name: "p", Path: "p"}}}
	bare := map[string]*parse.FileRecord{}
	for p, r := range files {
		c := *r
		c.Symbols, c.Refs = nil, nil
		bare[p] = &c
	}
	qi := query.NewIndex(Assemble(ws, bare))
	whole := AssembleSymbols(ws, files)
	tb := newSymbolTables(ws, files)
	lk := newSymbolTables(ws, files)
	lk.buildLookup()
	var ns []string
	for _, f := range files {
		for _, s := range f.Symbols {
			ns = append(ns, s.Name)
		}
	}
	ns = append(ns, "M", "A", "default")
	slices.Sort(ns)
	ns = slices.Compact(ns)
	var qs []string
	for i, n := range ns {
		qs = append(qs, "symbol:"+n, "symbol:"+n+" depth:0")
		if i > 0 {
			qs = append(qs, "symbol:"+n+" symbol:"+ns[i-1])
		}
	}
	for _, text := range qs {
		q, err := query.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := q.SymbolNames()
		if !scanAgreesWithLookup(t, lk, names) {
			return false
		}
		a, _ := qi.EvalPart(q, tb.near(names))
		b, _ := qi.Eval(q, func() (*graph.Graph, error) { return whole, nil })
		if !bytes.Equal(a.Encode(), b.Encode()) {
			t.Errorf("seed %d adversarial=%v %q differs\npart:  %s\nwhole: %s", seed, adversarial, text, a.Encode(), b.Encode())
			return false
		}
	}
	return true
}

// scanAgreesWithLookup checks that the two ways near finds its files, one
// pass over the records and the maps built for later queries, find the
// same ones for names. t's lookup maps must be built.
func scanAgreesWithLookup(t *testing.T, tb *symbolTables, names []string) bool {
	t.Helper()
	take, seeds := tb.lookup(names)
	stake, sseeds := tb.scan(names)
	if !maps.Equal(take, stake) || !maps.Equal(seeds, sseeds) {
		t.Errorf("%q: the scan takes %v (seeds %v), the lookup %v (seeds %v)", names, stake, sseeds, take, seeds)
		return false
	}
	return true
}

// TestSymbolsNearAgreesOnRandomRecords is the same comparison on random
// record sets: Go with aliases, dot and blank imports, _test packages,
// methods and member uses; TS/JS with named and default imports, index
// files and a package.json entry; Python relative and absolute imports;
// and, in the adversarial half, '#' in paths and method names as uses.
// Unlike real repositories, they reach every resolution rule.
func TestSymbolsNearAgreesOnRandomRecords(t *testing.T) {
	t.Parallel()
	for _, adversarial := range []bool{false, true} {
		seeds := uint64(1500)
		if testing.Short() {
			seeds = 150 // a sample under -short; scripts/test's plain step runs all
		}
		for seed := range seeds {
			if !nearAgreesOn(t, seed, adversarial) {
				break
			}
		}
	}
}

// TestTheFirstSymbolQueryAfterASyncReadsTheShardsItWrote: right after a
// Sync, a symbol query is answered from the shards the Sync kept in
// memory (here the files on disk are gone, and it still finds Greet), and
// once an edit has come in it reads the disk and the edit's changes
// instead (a symbol the edit removed and flushed is gone).
func TestTheFirstSymbolQueryAfterASyncReadsTheShardsItWrote(t *testing.T) {
	root := newFixture(t)
	ix := New(root, t.TempDir(), Options{})
	syncIndex(t, ix, root)
	shards, err := filepath.Glob(filepath.Join(ix.store.dir, "*"+shardSuffix))
	if err != nil || len(shards) == 0 {
		t.Fatalf("no shards written: %v", err)
	}
	saved := map[string][]byte{}
	for _, s := range shards {
		saved[s], _ = os.ReadFile(s)
		os.Remove(s)
	}
	part, _, err := ix.SymbolsNear([]string{"Greet"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNode(part, SymbolID("lib/lib.go", "Greet")) {
		t.Fatalf("without the files on disk, the first query found no Greet: %s", part.Encode())
	}
	for s, b := range saved {
		if err := os.WriteFile(s, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"lib/util.go": "package lib\n\nvar prefix = \"hi, \"\n"})
	syncIndex(t, ix, root) // keeps the shard it rewrote, lib's
	writeTree(t, root, map[string]string{"lib/lib.go": "package lib\n\nconst Default = \"world\"\n"})
	if _, _, err := ix.Update(ws, []string{"lib/lib.go"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	part, _, err = ix.SymbolsNear([]string{"Greet"})
	if err != nil {
		t.Fatal(err)
	}
	if hasNode(part, SymbolID("lib/lib.go", "Greet")) {
		t.Errorf("after an edit removed Greet, a query still found it: %s", part.Encode())
	}
}

func hasNode(g *graph.Graph, id string) bool {
	for _, n := range g.Nodes {
		if n.ID == id {
			return true
		}
	}
	return false
}
