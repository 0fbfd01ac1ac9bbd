package index

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/query"
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
			sg, err := ix.SymbolsNear([]string{"no-such-symbol"})
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
			for _, f := range tables.files {
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
				queries = append(queries, "symbol:"+n)
				if len(names) < 500 || i%10 == 0 { // keep core's thousands of names quick under -race
					queries = append(queries, "symbol:"+n+" depth:0")
					if i > 0 {
						queries = append(queries, "symbol:"+n+" symbol:"+names[i-1])
					}
				}
			}
			queries = append(queries, "symbol:no-such-symbol")

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
				part, err := ix.SymbolsNear(ns)
				if err != nil {
					t.Fatal(err)
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
			t.Logf("%d queries over %d symbol names agree", len(queries), len(names))
		})
	}
}
