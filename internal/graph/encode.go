package graph

import (
	"cmp"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/corehq/core/internal/jsonx"
)

// Sort orders nodes by id and edges by (source, target, kind, via), and removes
// duplicates: of nodes sharing an id the first one added stays; identical
// edges collapse to one.
func (g *Graph) Sort() {
	sortNodes := func() {
		slices.SortStableFunc(g.Nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
		g.Nodes = slices.CompactFunc(g.Nodes, func(a, b Node) bool { return a.ID == b.ID })
	}
	if len(g.Nodes)+len(g.Edges) < parallelMin {
		sortNodes()
	} else {
		// At 100k files the two sorts are a third of a second each, on
		// the serial path of a cold index; they share nothing.
		done := make(chan struct{})
		go func() { defer close(done); sortNodes() }()
		defer func() { <-done }()
	}
	slices.SortFunc(g.Edges, CompareEdges)
	g.Edges = slices.Compact(g.Edges)
}

// parallelMin is the size of a graph (nodes plus edges) from which Sort
// and Encode use more than one core.
const parallelMin = 50_000

// CompareEdges orders edges by source, target, then kind (then via, which
// the graph never holds two of for one kind): the graph's edge order.
func CompareEdges(a, b Edge) int {
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return cmp.Compare(a.Via, b.Via)
}

// Sorted reports whether g is as Sort leaves it: nodes by id and edges in
// CompareEdges order, each once.
func (g *Graph) Sorted() bool {
	for i := 1; i < len(g.Nodes); i++ {
		if g.Nodes[i-1].ID >= g.Nodes[i].ID {
			return false
		}
	}
	for i := 1; i < len(g.Edges); i++ {
		if CompareEdges(g.Edges[i-1], g.Edges[i]) >= 0 {
			return false
		}
	}
	return true
}

// Encode returns the graph as JSON, {"nodes":[...],"edges":[...]} and a
// newline, sorted as Sort would sort it. It never modifies g (it sorts a copy
// when needed), so a cached graph can be encoded from many goroutines. The
// bytes equal encoding/json's Marshal of the sorted graph (empty lists as []
// rather than null), HTML-safe escaping included, so any client that decodes
// and re-encodes with encoding/json sees the same text.
func (g *Graph) Encode() []byte {
	if !g.Sorted() {
		c := &Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
		c.Sort()
		g = c
	}
	if len(g.Nodes)+len(g.Edges) < parallelMin {
		b := make([]byte, 0, 64+200*len(g.Nodes)+80*len(g.Edges))
		b = append(b, `{"nodes":[`...)
		b = appendNodes(b, g.Nodes, false)
		b = append(b, `],"edges":[`...)
		b = appendEdges(b, g.Edges, false)
		return append(b, "]}\n"...)
	}
	// Big graphs are encoded in pieces on every core and joined: the
	// pieces are independent, and at 100k nodes this is on the path of
	// the server's first snapshot. All pieces at once, not EncodeTo's
	// batches: a batch waits for its slowest piece, and at 100k nodes
	// that cost a fifth more time.
	n := runtime.GOMAXPROCS(0)
	parts := make([][]byte, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		nlo, nhi := len(g.Nodes)*i/n, len(g.Nodes)*(i+1)/n
		elo, ehi := len(g.Edges)*i/n, len(g.Edges)*(i+1)/n
		wg.Go(func() {
			parts[i] = appendNodes(make([]byte, 0, 200*(nhi-nlo)), g.Nodes[nlo:nhi], nlo > 0)
		})
		wg.Go(func() {
			parts[n+i] = appendEdges(make([]byte, 0, 80*(ehi-elo)), g.Edges[elo:ehi], elo > 0)
		})
	}
	wg.Wait()
	size := 32
	for _, p := range parts {
		size += len(p)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"nodes":[`...)
	for i, p := range parts {
		if i == n {
			b = append(b, `],"edges":[`...)
		}
		b = append(b, p...)
	}
	return append(b, "]}\n"...)
}

// EncodeTo writes Encode's bytes to w, a batch of pieces at a time: the
// pieces of a batch are encoded on every core, and no more than a batch
// is held at once. core graph --json writes a big graph so, to the
// terminal and the stored graph at once, rather than holding its whole
// encoding (244 MB of JSON on a 500,000-file workspace, at the largest
// heap of the pass that made it).
func (g *Graph) EncodeTo(w io.Writer) error {
	if !g.Sorted() {
		c := &Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
		c.Sort()
		g = c
	}
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, workers)
	batches := func(n, each int, enc func(b []byte, lo, hi int) []byte) error {
		for lo := 0; lo < n; lo += each * workers {
			var wg sync.WaitGroup
			k := 0
			for ; k < workers && lo+k*each < n; k++ {
				i, plo := k, lo+k*each
				phi := min(plo+each, n)
				wg.Go(func() { bufs[i] = enc(bufs[i][:0], plo, phi) })
			}
			wg.Wait()
			for _, b := range bufs[:k] {
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if _, err := io.WriteString(w, `{"nodes":[`); err != nil {
		return err
	}
	if err := batches(len(g.Nodes), encodePiece/200, func(b []byte, lo, hi int) []byte {
		return appendNodes(b, g.Nodes[lo:hi], lo > 0)
	}); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `],"edges":[`); err != nil {
		return err
	}
	if err := batches(len(g.Edges), encodePiece/80, func(b []byte, lo, hi int) []byte {
		return appendEdges(b, g.Edges[lo:hi], lo > 0)
	}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "]}\n")
	return err
}

// encodePiece is about the bytes of one piece EncodeTo encodes (a node's
// JSON is about 200 bytes, an edge's 80).
const encodePiece = 4 << 20

// appendNodes writes nodes as list elements; comma says whether the first
// one follows another.
func appendNodes(b []byte, nodes []Node, comma bool) []byte {
	for i := range nodes {
		if comma || i > 0 {
			b = append(b, ',')
		}
		b = appendNode(b, &nodes[i])
	}
	return b
}

func appendEdges(b []byte, edges []Edge, comma bool) []byte {
	for i, e := range edges {
		if comma || i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = jsonx.AppendString(b, e.Source)
		b = append(b, `,"target":`...)
		b = jsonx.AppendString(b, e.Target)
		b = append(b, `,"kind":`...)
		b = jsonx.AppendString(b, e.Kind)
		b = appendField(b, "via", e.Via)
		b = append(b, '}')
	}
	return b
}

// appendNode writes the fields in struct order, leaving out what the
// struct's omitempty tags leave out.
func appendNode(b []byte, n *Node) []byte {
	b = append(b, `{"id":`...)
	b = jsonx.AppendString(b, n.ID)
	b = append(b, `,"kind":`...)
	b = jsonx.AppendString(b, n.Kind)
	b = append(b, `,"name":`...)
	b = jsonx.AppendString(b, n.Name)
	b = appendField(b, "path", n.Path)
	b = appendField(b, "project", n.Project)
	b = appendList(b, "command", n.Command)
	b = appendList(b, "inputs", n.Inputs)
	b = appendList(b, "outputs", n.Outputs)
	if n.Drift {
		b = append(b, `,"drift":true`...)
	}
	b = appendField(b, "description", n.Description)
	b = appendField(b, "title", n.Title)
	b = appendField(b, "language", n.Language)
	b = appendField(b, "symbol_kind", n.SymbolKind)
	if n.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(n.Line), 10)
	}
	if n.External {
		b = append(b, `,"external":true`...)
	}
	b = appendField(b, "diagnostic", n.Diagnostic)
	b = appendField(b, "state", n.State)
	if len(n.Holds) > 0 {
		b = append(b, `,"holds":`...)
		b = jsonx.AppendCounts(b, n.Holds)
	}
	return append(b, '}')
}

func appendField(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsonx.AppendString(b, value)
}

func appendList(b []byte, key string, values []string) []byte {
	if len(values) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, v)
	}
	return append(b, ']')
}

// Equal reports whether a and b hold the same nodes and edges in the same
// order. It is how the server tells a rebuilt graph from a changed one
// without encoding either.
func Equal(a, b *Graph) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.Nodes) != len(b.Nodes) || len(a.Edges) != len(b.Edges) {
		return false
	}
	if !slices.Equal(a.Edges, b.Edges) {
		return false
	}
	for i := range a.Nodes {
		if !NodeEqual(&a.Nodes[i], &b.Nodes[i]) {
			return false
		}
	}
	return true
}

// NodeEqual reports whether two nodes have the same fields.
func NodeEqual(x, y *Node) bool {
	return x.ID == y.ID && x.Kind == y.Kind && x.Name == y.Name && x.Path == y.Path && x.Project == y.Project &&
		x.Drift == y.Drift && x.Description == y.Description && x.Title == y.Title && x.Language == y.Language &&
		x.SymbolKind == y.SymbolKind && x.Line == y.Line && x.External == y.External && x.Diagnostic == y.Diagnostic &&
		x.State == y.State && slices.Equal(x.Command, y.Command) && slices.Equal(x.Inputs, y.Inputs) && slices.Equal(x.Outputs, y.Outputs) &&
		maps.Equal(x.Holds, y.Holds)
}
