package query

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/graph"
)

// Index is a graph prepared for querying: nodes and edges in sorted order
// and numbered by it, adjacency in both directions as index slices, nodes
// grouped by kind, and (built on the first bare word) a lower-cased text of
// all ids and names. Build it once per graph version with NewIndex and
// evaluate any number of queries with it, concurrently if need be. The
// graph must not change while the Index is in use; results share node
// slices (Command, Inputs, Outputs) with it.
type Index struct {
	// nodes and edges are the graph's, sorted as graph.Sort sorts them
	// (a sorted copy when the graph was not), so that node and edge
	// numbers are ranks in the result order.
	nodes []graph.Node
	edges []graph.Edge
	ids   map[string]int32

	src, dst      []int32 // per edge, node numbers; -1 when an end is not a node
	outOff, inOff []int32 // CSR offsets, len(nodes)+1
	outE, inE     []int32 // edge numbers by source, by target
	byKind        map[string][]int32
	symbolsByName map[string][]int32

	text wordText // of nodes, for bare words

	marks sync.Pool // of *marks

	// The view merged with the last symbol graph, reused while the symbols
	// stay the same graph (merging half a million symbols per query would
	// cost more than the query).
	symMu   sync.Mutex
	symSeen *graph.Graph
	symView *view
}

// withSymbols returns the view of ix merged with sg, built once per sg.
func (ix *Index) withSymbols(sg *graph.Graph) *view {
	ix.symMu.Lock()
	defer ix.symMu.Unlock()
	if ix.symView != nil && ix.symSeen == sg {
		return ix.symView
	}
	v := &view{Index: ix, n: len(ix.nodes)}
	v.merge(sg)
	ix.symSeen, ix.symView = sg, v
	return v
}

// WarmSymbols merges the symbol graph sg into a view ahead of the first
// query that needs it.
func (ix *Index) WarmSymbols(sg *graph.Graph) { ix.withSymbols(sg) }

// ForgetSymbols drops the view merged with a symbol graph that is no
// longer current, so the garbage collector can have it. A merge under way
// is left alone: its result is replaced by the next query.
func (ix *Index) ForgetSymbols() {
	if !ix.symMu.TryLock() {
		return
	}
	ix.symSeen, ix.symView = nil, nil
	ix.symMu.Unlock()
}

// NewIndex indexes g for querying. A nil g is an empty graph. As with
// graph.Sort, of nodes sharing an id the first stays and identical edges
// count once; edges whose ends are not both nodes of g are never part of a
// result.
func NewIndex(g *graph.Graph) *Index {
	if g == nil {
		g = &graph.Graph{}
	}
	if !isSorted(g) {
		g = &graph.Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
		g.Sort()
	}
	ix := &Index{
		nodes: g.Nodes, edges: g.Edges,
		ids:    make(map[string]int32, len(g.Nodes)),
		byKind: map[string][]int32{}, symbolsByName: map[string][]int32{},
	}
	for i := range ix.nodes {
		nd := &ix.nodes[i]
		ix.ids[nd.ID] = int32(i)
		ix.byKind[nd.Kind] = append(ix.byKind[nd.Kind], int32(i))
		if nd.Kind == graph.KindSymbol {
			name := symbolName(nd)
			ix.symbolsByName[name] = append(ix.symbolsByName[name], int32(i))
		}
	}
	ix.src, ix.dst, ix.outOff, ix.inOff, ix.outE, ix.inE = buildCSR(len(ix.nodes), ix.edges, ix.lookup)
	return ix
}

// isSorted reports whether g is as graph.Sort leaves it: node ids strictly
// increasing, edges strictly increasing.
func isSorted(g *graph.Graph) bool {
	for i := 1; i < len(g.Nodes); i++ {
		if g.Nodes[i-1].ID >= g.Nodes[i].ID {
			return false
		}
	}
	for i := 1; i < len(g.Edges); i++ {
		if graph.CompareEdges(g.Edges[i-1], g.Edges[i]) >= 0 {
			return false
		}
	}
	return true
}

func (ix *Index) lookup(id string) int32 {
	if i, ok := ix.ids[id]; ok {
		return i
	}
	return -1
}

// buildCSR numbers the ends of edges with lookup (-1 for unknown ids) and
// returns them with the out- and in-adjacency of n nodes in compressed
// sparse row form: the edges leaving node u are outE[outOff[u]:outOff[u+1]],
// in increasing edge number.
func buildCSR(n int, edges []graph.Edge, lookup func(string) int32) (src, dst, outOff, inOff, outE, inE []int32) {
	src = make([]int32, len(edges))
	dst = make([]int32, len(edges))
	outOff = make([]int32, n+1)
	inOff = make([]int32, n+1)
	// The lookups are most of the work (a million edges on the first
	// symbol query) and only read: they run on every core, in chunks.
	chunks := 1
	if len(edges) >= 1<<16 {
		chunks = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for c := range chunks {
		lo, hi := len(edges)*c/chunks, len(edges)*(c+1)/chunks
		wg.Go(func() {
			prevSource, prevS := "", int32(-1)
			for i := lo; i < hi; i++ {
				e := &edges[i]
				// Sorted edges come in runs of one source: look each up once.
				if i == lo || e.Source != prevSource {
					prevSource, prevS = e.Source, lookup(e.Source)
				}
				s, d := prevS, lookup(e.Target)
				if s < 0 || d < 0 {
					s, d = -1, -1
				}
				src[i], dst[i] = s, d
			}
		})
	}
	wg.Wait()
	kept := 0
	for i, s := range src {
		if s >= 0 {
			outOff[s+1]++
			inOff[dst[i]+1]++
			kept++
		}
	}
	for u := 0; u < n; u++ {
		outOff[u+1] += outOff[u]
		inOff[u+1] += inOff[u]
	}
	outE = make([]int32, kept)
	inE = make([]int32, kept)
	outFill := slices.Clone(outOff[:n])
	inFill := slices.Clone(inOff[:n])
	for i := range edges {
		s, d := src[i], dst[i]
		if s < 0 {
			continue
		}
		outE[outFill[s]] = int32(i)
		outFill[s]++
		inE[inFill[d]] = int32(i)
		inFill[d]++
	}
	return
}

// symbolName is the name a symbol: term matches: the node's Name, or when
// that is empty the part of its id after '#'.
func symbolName(nd *graph.Node) string {
	if nd.Name != "" {
		return nd.Name
	}
	if _, after, ok := strings.Cut(nd.ID, "#"); ok {
		return after
	}
	return ""
}

// Eval runs q over g. When q.NeedsSymbols(), symbols is called once to get
// the symbol part of the graph (symbol nodes and their edges), which is
// merged with g for seeding and expansion; otherwise it is never called. A
// nil symbols func stands for no symbols. The result is sorted. Eval
// indexes g for this one query; to run many over one graph, use NewIndex.
func Eval(q *Query, g *graph.Graph, symbols func() (*graph.Graph, error)) (*graph.Graph, error) {
	if q == nil {
		return nil, errors.New("query: nil query")
	}
	return NewIndex(g).Eval(q, symbols)
}

// Eval runs q over the indexed graph, merged with the graph symbols returns
// when q.NeedsSymbols() (see the package function Eval). Nodes of the
// symbol graph whose ids the indexed graph already has are dropped in
// favour of its own. The result is sorted, so its Encode is deterministic.
func (ix *Index) Eval(q *Query, symbols func() (*graph.Graph, error)) (*graph.Graph, error) {
	if q == nil {
		return nil, errors.New("query: nil query")
	}
	v := &view{Index: ix, n: len(ix.nodes)}
	if q.needsSymbols && symbols != nil {
		sg, err := symbols()
		if err != nil {
			return nil, fmt.Errorf("query: loading symbols: %w", err)
		}
		if sg != nil {
			v = ix.withSymbols(sg)
		}
	}
	return ix.eval(q, v), nil
}

// EvalPart runs q over the indexed graph merged with sg, a part of the
// symbol graph that holds everything q can reach (what
// index.Indexer.SymbolsNear returns for q.SymbolNames). The merged view
// is built for this query alone: a part is small, and the view of the
// whole symbol graph that Eval keeps stays where it is.
func (ix *Index) EvalPart(q *Query, sg *graph.Graph) (*graph.Graph, error) {
	if q == nil {
		return nil, errors.New("query: nil query")
	}
	v := &view{Index: ix, n: len(ix.nodes)}
	if sg != nil {
		v.merge(sg)
	}
	return ix.eval(q, v), nil
}

func (ix *Index) eval(q *Query, v *view) *graph.Graph {
	total := v.n + len(v.xNodes)

	m := ix.getMarks(total)
	defer ix.marks.Put(m)
	var res []int32
	add := func(u int32) {
		if m.stamp[u] != m.epoch {
			m.stamp[u] = m.epoch
			res = append(res, u)
		}
	}
	for _, t := range q.terms {
		v.seed(t, add)
	}
	start, end := 0, len(res)
	for d := 0; d < q.depth && start < end; d++ {
		for _, u := range res[start:end] {
			v.neighbours(u, add)
		}
		start, end = end, len(res)
	}
	return v.result(res, m)
}

// result returns the nodes res and the edges among them, in the order of
// graph.Sort: the indexed graph's nodes and edges are numbered in that
// order already, so they sort as integers; those of the symbol graph are
// sorted as strings and merged in. An edge in both graphs counts once.
func (v *view) result(res []int32, m *marks) *graph.Graph {
	ix := v.Index
	var base, extra []int32
	var baseE []int32
	var extraE []graph.Edge
	base = make([]int32, 0, len(res))
	for _, u := range res {
		if int(u) < v.n {
			base = append(base, u)
			for _, e := range ix.outE[ix.outOff[u]:ix.outOff[u+1]] {
				if m.stamp[ix.dst[e]] == m.epoch {
					baseE = append(baseE, e)
				}
			}
		} else {
			extra = append(extra, u)
		}
		if v.xOutOff != nil {
			for _, e := range v.xOutE[v.xOutOff[u]:v.xOutOff[u+1]] {
				if m.stamp[v.xDst[e]] == m.epoch {
					extraE = append(extraE, v.xEdges[e])
				}
			}
		}
	}
	slices.Sort(base)
	slices.SortFunc(extra, func(a, b int32) int { return strings.Compare(v.node(a).ID, v.node(b).ID) })
	slices.Sort(baseE)
	slices.SortFunc(extraE, graph.CompareEdges)
	extraE = slices.Compact(extraE)

	out := &graph.Graph{Nodes: make([]graph.Node, 0, len(res)), Edges: make([]graph.Edge, 0, len(baseE)+len(extraE))}
	i, j := 0, 0
	for i < len(base) || j < len(extra) {
		if j == len(extra) || i < len(base) && ix.nodes[base[i]].ID < v.node(extra[j]).ID {
			out.Nodes = append(out.Nodes, ix.nodes[base[i]])
			i++
		} else {
			out.Nodes = append(out.Nodes, *v.node(extra[j]))
			j++
		}
	}
	i, j = 0, 0
	for i < len(baseE) || j < len(extraE) {
		c := -1
		if j < len(extraE) {
			c = 1
			if i < len(baseE) {
				c = graph.CompareEdges(ix.edges[baseE[i]], extraE[j])
			}
		}
		switch {
		case c < 0:
			out.Edges = append(out.Edges, ix.edges[baseE[i]])
			i++
		case c > 0:
			out.Edges = append(out.Edges, extraE[j])
			j++
		default:
			out.Edges = append(out.Edges, ix.edges[baseE[i]])
			i++
			j++
		}
	}
	return out
}

// marks is a visited set over node numbers: u is in it when
// stamp[u] == epoch, so reusing it costs a new epoch, not a clear.
type marks struct {
	stamp []uint32
	epoch uint32
}

func (ix *Index) getMarks(n int) *marks {
	m, _ := ix.marks.Get().(*marks)
	if m == nil || len(m.stamp) < n {
		m = &marks{stamp: make([]uint32, n)}
	}
	m.epoch++
	if m.epoch == 0 {
		clear(m.stamp)
		m.epoch = 1
	}
	return m
}

// view is an Index with the symbol graph of one evaluation laid over it:
// its new nodes are numbered from n on, and its edges have their own
// adjacency over all n+len(xNodes) nodes.
type view struct {
	*Index
	n int

	// xNodes point into the symbol graph, which is never modified: half
	// a million copies of a Node would be ~130 MB for the GC to mark.
	xNodes          []*graph.Node
	xIDs            map[string]int32
	xEdges          []graph.Edge
	xSrc, xDst      []int32
	xOutOff, xInOff []int32 // nil without a symbol graph
	xOutE, xInE     []int32
	xSymbolsByName  map[string][]int32
	xByKind         map[string][]int32

	xText wordText // of xNodes
}

func (v *view) merge(sg *graph.Graph) {
	v.xIDs = make(map[string]int32, len(sg.Nodes))
	v.xByKind = map[string][]int32{}
	v.xSymbolsByName = make(map[string][]int32, len(sg.Nodes)/2)
	for i := range sg.Nodes {
		nd := &sg.Nodes[i]
		if _, ok := v.ids[nd.ID]; ok {
			continue
		}
		if _, ok := v.xIDs[nd.ID]; ok {
			continue
		}
		u := int32(v.n + len(v.xNodes))
		v.xIDs[nd.ID] = u
		v.xNodes = append(v.xNodes, nd)
		v.xByKind[nd.Kind] = append(v.xByKind[nd.Kind], u)
		if nd.Kind == graph.KindSymbol {
			name := symbolName(nd)
			v.xSymbolsByName[name] = append(v.xSymbolsByName[name], u)
		}
	}
	v.xEdges = sg.Edges
	v.xSrc, v.xDst, v.xOutOff, v.xInOff, v.xOutE, v.xInE = buildCSR(v.n+len(v.xNodes), sg.Edges, v.lookup)
}

func (v *view) lookup(id string) int32 {
	// An id is in at most one of the two maps (merge skips the ids of the
	// graph); symbol ids are nearly always in the second, so they try it
	// first rather than miss in the first.
	if strings.HasPrefix(id, symbolPrefix) {
		if i, ok := v.xIDs[id]; ok {
			return i
		}
	}
	if i, ok := v.ids[id]; ok {
		return i
	}
	if i, ok := v.xIDs[id]; ok {
		return i
	}
	return -1
}

// symbolPrefix starts the id of every symbol node (graph contract).
const symbolPrefix = "symbol:"

func (v *view) node(u int32) *graph.Node {
	if int(u) < v.n {
		return &v.nodes[u]
	}
	return v.xNodes[int(u)-v.n]
}

// neighbours calls add for every node one edge away from u, either way.
func (v *view) neighbours(u int32, add func(int32)) {
	if int(u) < v.n {
		for _, e := range v.outE[v.outOff[u]:v.outOff[u+1]] {
			add(v.dst[e])
		}
		for _, e := range v.inE[v.inOff[u]:v.inOff[u+1]] {
			add(v.src[e])
		}
	}
	if v.xOutOff != nil {
		for _, e := range v.xOutE[v.xOutOff[u]:v.xOutOff[u+1]] {
			add(v.xDst[e])
		}
		for _, e := range v.xInE[v.xInOff[u]:v.xInOff[u+1]] {
			add(v.xSrc[e])
		}
	}
}

// ofKind calls f for every node of kind k.
func (v *view) ofKind(k string, f func(int32)) {
	for _, u := range v.byKind[k] {
		f(u)
	}
	for _, u := range v.xByKind[k] {
		f(u)
	}
}

// seed calls add for every node t selects.
func (v *view) seed(t term, add func(int32)) {
	switch t.op {
	case opKind:
		v.ofKind(t.value, add)
	case opProject, opTarget, opSpell:
		if u := v.lookup(t.String()); u >= 0 {
			add(u)
		}
	case opSymbol:
		if !strings.Contains(t.value, "*") {
			for _, u := range v.symbolsByName[t.value] {
				add(u)
			}
			for _, u := range v.xSymbolsByName[t.value] {
				add(u)
			}
			return
		}
		v.ofKind(graph.KindSymbol, func(u int32) {
			if starMatch(t.value, symbolName(v.node(u))) {
				add(u)
			}
		})
	case opPath:
		match := func(u int32) {
			p := v.node(u).Path
			if strings.HasPrefix(p, t.dir) && doublestar.MatchUnvalidated(t.value, p) {
				add(u)
			}
		}
		v.ofKind(graph.KindFile, match)
		v.ofKind(graph.KindDoc, match)
	case opWord:
		v.seedWord(t.value, add)
	}
}

// seedWord adds the nodes whose lower-cased id or name contains w, which is
// lower-cased already: of the indexed graph, then of the symbol graph.
func (v *view) seedWord(w string, add func(int32)) {
	v.text.search(w, len(v.nodes), func(u int) *graph.Node { return &v.nodes[u] }, func(u int) { add(int32(u)) })
	v.xText.search(w, len(v.xNodes), func(k int) *graph.Node { return v.xNodes[k] }, func(k int) { add(int32(v.n + k)) })
}

// wordText is the text bare words search in a list of nodes, built on the
// first search: per node lower(id) NUL lower(name) NUL, so that one
// substring search covers every node.
type wordText struct {
	once  sync.Once
	hay   string
	start []int // node k's text starts at start[k]; one more for the end
}

// search calls add for every node k of the n that node gives whose
// lower-cased id or name contains w.
func (t *wordText) search(w string, n int, node func(k int) *graph.Node, add func(k int)) {
	if n == 0 {
		return
	}
	if strings.IndexByte(w, 0) >= 0 {
		// The text separates ids and names with NUL; search node by node.
		for k := range n {
			nd := node(k)
			if strings.Contains(strings.ToLower(nd.ID), w) || strings.Contains(strings.ToLower(nd.Name), w) {
				add(k)
			}
		}
		return
	}
	t.once.Do(func() {
		var b strings.Builder
		t.start = make([]int, n+1)
		for k := range n {
			nd := node(k)
			t.start[k] = b.Len()
			b.WriteString(strings.ToLower(nd.ID))
			b.WriteByte(0)
			b.WriteString(strings.ToLower(nd.Name))
			b.WriteByte(0)
		}
		t.start[n] = b.Len()
		t.hay = b.String()
	})
	for pos := 0; pos < len(t.hay); {
		i := strings.Index(t.hay[pos:], w)
		if i < 0 {
			break
		}
		// The node whose text holds the match: the last start <= pos+i.
		k := sort.Search(n, func(k int) bool { return t.start[k+1] > pos+i })
		add(k)
		pos = t.start[k+1]
	}
}

// starMatch reports whether name matches pattern, in which '*' matches any
// run of bytes and every other byte itself. Linear backtracking to the last
// star keeps it O(len(pattern)*len(name)) at worst.
func starMatch(pattern, name string) bool {
	p, s := 0, 0
	starP, starS := -1, 0
	for s < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			starP, starS = p, s
			p++
		case p < len(pattern) && pattern[p] == name[s]:
			p++
			s++
		case starP >= 0:
			p = starP + 1
			starS++
			s = starS
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
