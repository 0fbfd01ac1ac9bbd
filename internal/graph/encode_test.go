package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEmptyGraphEncodesEmptyLists(t *testing.T) {
	t.Parallel()
	if got := string((&Graph{}).Encode()); got != "{\"nodes\":[],\"edges\":[]}\n" {
		t.Errorf("Encode = %q", got)
	}
}

func TestSortRemovesDuplicatesKeepingTheFirstNode(t *testing.T) {
	t.Parallel()
	g := &Graph{
		Nodes: []Node{{ID: "b", Name: "first"}, {ID: "a"}, {ID: "b", Name: "second"}},
		Edges: []Edge{{Source: "b", Target: "a", Kind: "x"}, {Source: "a", Target: "b", Kind: "y"}, {Source: "a", Target: "b", Kind: "x"}, {Source: "b", Target: "a", Kind: "x"}},
	}
	g.Sort()
	if len(g.Nodes) != 2 || g.Nodes[0].ID != "a" || g.Nodes[1].Name != "first" {
		t.Errorf("nodes = %+v", g.Nodes)
	}
	want := []Edge{{Source: "a", Target: "b", Kind: "x"}, {Source: "a", Target: "b", Kind: "y"}, {Source: "b", Target: "a", Kind: "x"}}
	if len(g.Edges) != len(want) {
		t.Fatalf("edges = %+v", g.Edges)
	}
	for i := range want {
		if g.Edges[i] != want[i] {
			t.Errorf("edges = %+v", g.Edges)
		}
	}
}

func TestEncodingIsDeterministic(t *testing.T) {
	ws := loadDemo(t)
	g := Declared(ws)
	want := g.Encode()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		shuffled := &Graph{Nodes: append([]Node(nil), g.Nodes...), Edges: append([]Edge(nil), g.Edges...)}
		rng.Shuffle(len(shuffled.Nodes), func(i, j int) { shuffled.Nodes[i], shuffled.Nodes[j] = shuffled.Nodes[j], shuffled.Nodes[i] })
		rng.Shuffle(len(shuffled.Edges), func(i, j int) { shuffled.Edges[i], shuffled.Edges[j] = shuffled.Edges[j], shuffled.Edges[i] })
		before := append([]Node(nil), shuffled.Nodes...)
		if got := shuffled.Encode(); !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d encodes differently", i)
		}
		if shuffled.Nodes[0].ID != before[0].ID {
			t.Fatal("Encode reordered the graph it was called on")
		}
		shuffled.Sort()
		if got := shuffled.Encode(); !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d sorts differently", i)
		}
	}
	again := Declared(ws)
	if !bytes.Equal(again.Encode(), want) {
		t.Fatal("two builds encode differently")
	}
}

// randString mixes what JSON escaping has to get right: quotes,
// backslashes, control bytes, HTML characters, multi-byte runes, U+2028,
// U+2029 and invalid UTF-8.
func randString(rng *rand.Rand) string {
	pieces := []string{"a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\x7f",
		"\b", "\f", "\n", "\r", "\t", "é", "漢", "😀", "\u2028", "\u2029", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "project:", "**/*.go"}
	n := rng.IntN(8)
	var b []byte
	for i := 0; i < n; i++ {
		if rng.IntN(4) == 0 {
			b = append(b, byte(rng.IntN(256)))
		} else {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
	}
	return string(b)
}

func randList(rng *rand.Rand) []string {
	switch rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, rng.IntN(4)+1)
	for i := range out {
		out[i] = randString(rng)
	}
	return out
}

func randHolds(rng *rand.Rand) map[string]int {
	if rng.IntN(2) == 0 {
		return nil
	}
	m := map[string]int{}
	for i := rng.IntN(4); i >= 0; i-- {
		m[randString(rng)] = rng.IntN(100000)
	}
	return m
}

func randGraph(rng *rand.Rand) *Graph {
	g := &Graph{Nodes: []Node{}, Edges: []Edge{}}
	for i := rng.IntN(12); i > 0; i-- {
		g.Nodes = append(g.Nodes, Node{
			ID: randString(rng), Kind: randString(rng), Name: randString(rng),
			Path: randString(rng), Project: randString(rng),
			Command: randList(rng), Inputs: randList(rng), Outputs: randList(rng),
			Drift: rng.IntN(2) == 0, Description: randString(rng), Title: randString(rng),
			Holds: randHolds(rng),
		})
	}
	for i := rng.IntN(12); i > 0; i-- {
		g.Edges = append(g.Edges, Edge{Source: randString(rng), Target: randString(rng), Kind: randString(rng), Via: randString(rng)})
	}
	g.Sort()
	return g
}

func TestEncodeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 3000; i++ {
		g := randGraph(rng)
		want, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got := g.Encode()
		if !bytes.Equal(got, want) {
			t.Fatalf("graph %d:\n got %q\nwant %q", i, got, want)
		}
		if !json.Valid(got) || !utf8.Valid(got) {
			t.Fatalf("graph %d: invalid JSON or UTF-8: %q", i, got)
		}
	}
}

func TestEncodeRoundTrips(t *testing.T) {
	t.Parallel()
	ws := loadDemo(t)
	g := Declared(ws)
	var back Graph
	if err := json.Unmarshal(g.Encode(), &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), g.Encode()) {
		t.Fatal("decoding and re-encoding changed the bytes")
	}
}

func BenchmarkEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := &Graph{}
	for i := 0; i < 100; i++ {
		g.Nodes = append(g.Nodes, randGraph(rng).Nodes...)
		g.Edges = append(g.Edges, randGraph(rng).Edges...)
	}
	g.Sort()
	b.ReportAllocs()
	for b.Loop() {
		g.Encode()
	}
}

func TestEqualMatchesTheEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200; i++ {
		a, b := randGraph(rng), randGraph(rng)
		a.Sort()
		b.Sort()
		if Equal(a, b) != bytes.Equal(a.Encode(), b.Encode()) {
			t.Fatalf("Equal disagrees with the encoding on pair %d", i)
		}
		c := &Graph{Nodes: slices.Clone(a.Nodes), Edges: slices.Clone(a.Edges)}
		if !Equal(a, c) {
			t.Fatal("a copy is not equal")
		}
	}
}

func TestBigGraphSortsAndEncodesAsASmallOneWould(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	g := &Graph{}
	for i := 0; i < parallelMin; i++ {
		id := fmt.Sprintf("n%05d", rng.IntN(parallelMin/2)) // duplicates: the first must win
		g.Nodes = append(g.Nodes, Node{ID: id, Kind: "file", Name: fmt.Sprint(i), Title: randString(rng)})
		g.Edges = append(g.Edges, Edge{Source: id, Target: fmt.Sprintf("n%05d", rng.IntN(parallelMin/2)), Kind: randString(rng)})
	}
	want := &Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
	slices.SortStableFunc(want.Nodes, func(a, b Node) int { return strings.Compare(a.ID, b.ID) })
	want.Nodes = slices.CompactFunc(want.Nodes, func(a, b Node) bool { return a.ID == b.ID })
	slices.SortFunc(want.Edges, CompareEdges)
	want.Edges = slices.Compact(want.Edges)

	g.Sort()
	if !reflect.DeepEqual(g, want) {
		t.Fatal("a big graph sorts differently from the serial sort")
	}
	js, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Encode(); !bytes.Equal(got, append(js, '\n')) {
		t.Fatal("a big graph encodes differently from encoding/json")
	}
}

// EncodeTo writes in batches of pieces what Encode returns whole, for a
// graph of many batches, and stops at the writer's first error.
func TestEncodeToWritesWhatEncodeReturnsBatchByBatch(t *testing.T) {
	t.Parallel()
	g := &Graph{}
	nodes := 3*runtime.GOMAXPROCS(0)*(encodePiece/200) + 17
	for i := range nodes {
		id := fmt.Sprintf("n%07d", i)
		g.Nodes = append(g.Nodes, Node{ID: id, Kind: "file", Name: fmt.Sprint(i)})
		g.Edges = append(g.Edges, Edge{Source: id, Target: fmt.Sprintf("n%07d", (i*7)%nodes), Kind: "imports"})
	}
	g.Sort()
	var b bytes.Buffer
	if err := g.EncodeTo(&b); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), append(js, '\n')) {
		t.Fatal("EncodeTo wrote other bytes than encoding/json's")
	}
	broken := errors.New("the terminal went away")
	if err := g.EncodeTo(&failAfter{n: 3, err: broken}); !errors.Is(err, broken) {
		t.Fatalf("EncodeTo to a failing writer: %v", err)
	}
}

// failAfter fails every write after its first n.
type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	f.n--
	return len(p), nil
}
