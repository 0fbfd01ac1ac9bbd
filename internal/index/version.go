package index

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/corehq/core/internal/graph"
)

// Version is one version of the default graph. A version made by an edit
// is the assembly's base graph and the changes since it. Laying it out flat
// copies every edge (21 MB at 100k nodes, and the garbage collector pays
// for it again), so that is left to its first reader (the JSON encoding,
// the query index); the event announcing it needs only its counts.
type Version struct {
	Nodes, Edges int

	edited bool // made by an edit that changed the graph
	once   sync.Once
	base   *graph.Graph
	d      *delta
	g      *graph.Graph
}

// flat is the version of a graph laid out already.
func flat(g *graph.Graph) *Version {
	v := &Version{Nodes: len(g.Nodes), Edges: len(g.Edges), g: g}
	v.once.Do(func() {})
	return v
}

// Edited reports whether an edit made the version and changed the graph
// doing so; a version a full pass made may equal the one before it.
func (v *Version) Edited() bool { return v.edited }

// Graph is the version laid out: sorted nodes and edges. The first call
// builds it; the result is shared and must not be modified.
func (v *Version) Graph() *graph.Graph {
	v.once.Do(func() {
		v.g = v.d.apply(v.base)
		v.base, v.d = nil, nil
	})
	return v.g
}

// rebaseAt is how many pending node and edge changes an assembly keeps
// before it lays out a new base: every version clones the pending changes,
// so they must stay small.
var rebaseAt = 4096

// pend records the effect of d on the current version (base plus pending)
// in a.pending, keeping it normal: an edge is +1 (not in the base, added)
// or -1 (in the base, dropped); a node is added, dropped or both
// (replaced). It reports whether anything changed and keeps the counts.
func (a *assembly) pend(d *delta) bool {
	p := &a.pending
	if p.edgeDelta == nil {
		p.dropNodes, p.addNodes, p.edgeDelta = map[string]bool{}, map[string]graph.Node{}, map[graph.Edge]int{}
	}
	changed := false
	for id := range d.dropNodes {
		if _, readded := d.addNodes[id]; readded || !a.hasNode(id) {
			continue
		}
		changed = true
		a.nodes--
		delete(p.addNodes, id)
		if a.baseHasNode(id) {
			p.dropNodes[id] = true
		}
	}
	for id, n := range d.addNodes {
		if cur, ok := a.node(id); ok && graph.NodeEqual(&cur, &n) {
			continue // dropped and added back as it was
		}
		changed = true
		if !a.hasNode(id) {
			a.nodes++
		}
		if a.baseHasNode(id) {
			p.dropNodes[id] = true // replaced
		}
		p.addNodes[id] = n
	}
	for e, n := range d.edgeDelta {
		switch in := a.hasEdge(e); {
		case n > 0 && !in:
			a.edges++
			changed = true
			if a.baseHasEdge(e) {
				delete(p.edgeDelta, e)
			} else {
				p.edgeDelta[e] = 1
			}
		case n < 0 && in:
			a.edges--
			changed = true
			if a.baseHasEdge(e) {
				p.edgeDelta[e] = -1
			} else {
				delete(p.edgeDelta, e)
			}
		}
	}
	return changed
}

// version is the current version after pend: a new base when the pending
// changes grew large, else the base and a copy of them.
func (a *assembly) version() *Version {
	p := &a.pending
	if len(p.dropNodes)+len(p.addNodes)+len(p.edgeDelta) > rebaseAt {
		a.graph = p.apply(a.graph)
		a.pending = delta{}
		v := flat(a.graph)
		v.edited = true
		return v
	}
	frozen := &delta{dropNodes: maps.Clone(p.dropNodes), addNodes: maps.Clone(p.addNodes), edgeDelta: maps.Clone(p.edgeDelta)}
	return &Version{Nodes: a.nodes, Edges: a.edges, edited: true, base: a.graph, d: frozen}
}

// node is the current version's node id, if it has one.
func (a *assembly) node(id string) (graph.Node, bool) {
	if n, ok := a.pending.addNodes[id]; ok {
		return n, true
	}
	if a.pending.dropNodes[id] {
		return graph.Node{}, false
	}
	i, ok := slices.BinarySearchFunc(a.graph.Nodes, id, func(n graph.Node, id string) int { return strings.Compare(n.ID, id) })
	if !ok {
		return graph.Node{}, false
	}
	return a.graph.Nodes[i], true
}

func (a *assembly) hasNode(id string) bool {
	if _, ok := a.pending.addNodes[id]; ok {
		return true
	}
	return !a.pending.dropNodes[id] && a.baseHasNode(id)
}

func (a *assembly) hasEdge(e graph.Edge) bool {
	switch a.pending.edgeDelta[e] {
	case 1:
		return true
	case -1:
		return false
	}
	return a.baseHasEdge(e)
}

func (a *assembly) baseHasNode(id string) bool {
	_, ok := slices.BinarySearchFunc(a.graph.Nodes, id, func(n graph.Node, id string) int { return strings.Compare(n.ID, id) })
	return ok
}

func (a *assembly) baseHasEdge(e graph.Edge) bool {
	_, ok := slices.BinarySearchFunc(a.graph.Edges, e, graph.CompareEdges)
	return ok
}
