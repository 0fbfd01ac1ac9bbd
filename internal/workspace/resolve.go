package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// The resolve pass runs once the whole file has been read, because a
// dependency may name a project or target written further down. It also
// runs when the read pass found problems, on whatever was readable, so one
// run reports everything.

// edge is a dependency with the string that declared it, so a cycle can be
// reported where it is written.
type edge struct {
	to  string
	ref ref
}

func (p *parser) resolve(ws *Workspace, raws []*rawProject) {
	byName := make(map[string]*rawProject, len(raws))
	names := make([]string, 0, len(raws))
	for _, rp := range raws {
		byName[rp.p.Name] = rp
		names = append(names, rp.p.Name)
	}
	sort.Strings(names)

	p.uniquePaths(raws)

	projectEdges := make(map[string][]edge)
	for _, rp := range raws {
		seen := make(map[string]string)
		for _, d := range rp.deps {
			switch {
			case seen[d.value] != "":
				p.at(d.node, d.field, "%s is listed twice (also at %s): remove one", quote.Short(d.value), seen[d.value])
			case d.value == rp.p.Name:
				p.at(d.node, d.field, "project %s cannot depend on itself: remove it from deps", quote.Short(d.value))
			case byName[d.value] == nil:
				p.at(d.node, d.field, "unknown project %s (projects: %s)", quote.Short(d.value), listNames(names))
			default:
				rp.p.Deps = append(rp.p.Deps, d.value)
				projectEdges[rp.p.Name] = append(projectEdges[rp.p.Name], edge{to: d.value, ref: d})
			}
			if seen[d.value] == "" {
				seen[d.value] = d.field
			}
		}
		sort.Strings(rp.p.Deps)
	}
	p.cycles(names, projectEdges)

	targetEdges := make(map[string][]edge)
	var ids []string
	for _, rp := range raws {
		for _, rt := range rp.targets {
			id := rt.t.ID()
			ids = append(ids, id)
			seen := make(map[string]string)
			added := make(map[string]bool)
			for _, d := range rt.deps {
				if seen[d.value] != "" && d.inherited {
					continue // reported once, at the default
				}
				if seen[d.value] != "" {
					p.at(d.node, d.field, "%s is listed twice (also at %s): remove one", quote.Short(d.value), seen[d.value])
					continue
				}
				seen[d.value] = d.field
				for _, to := range p.targetDep(rp, rt, d, byName, names) {
					if added[to] {
						continue
					}
					added[to] = true
					rt.t.Deps = append(rt.t.Deps, to)
					targetEdges[id] = append(targetEdges[id], edge{to: to, ref: d})
				}
			}
			sort.Strings(rt.t.Deps)
		}
	}
	sort.Strings(ids)
	p.cycles(ids, targetEdges)

	for _, rp := range raws {
		for _, rt := range rp.targets {
			rp.p.Targets = append(rp.p.Targets, rt.t)
		}
		sort.Slice(rp.p.Targets, func(i, j int) bool { return rp.p.Targets[i].Name < rp.p.Targets[j].Name })
		ws.Projects = append(ws.Projects, rp.p)
	}
	sort.Slice(ws.Projects, func(i, j int) bool { return ws.Projects[i].Name < ws.Projects[j].Name })
}

func (p *parser) uniquePaths(raws []*rawProject) {
	byPath := make(map[string]string)
	for _, rp := range raws {
		if rp.p.pathLine == 0 {
			continue
		}
		if other, ok := byPath[rp.p.Path]; ok {
			p.problems = append(p.problems, Problem{
				File: p.file, Line: rp.p.pathLine, Column: rp.p.pathColumn,
				Field:   "projects." + rp.p.Name + ".path",
				Message: fmt.Sprintf("path %s is already the directory of project %q: each project needs its own directory", quote.Short(rp.p.Path), other),
			})
			continue
		}
		byPath[rp.p.Path] = rp.p.Name
	}
}

func (rp *rawProject) hasTarget(name string) bool {
	for _, rt := range rp.targets {
		if rt.t.Name == name {
			return true
		}
	}
	return false
}

func (rp *rawProject) targetNames() []string {
	names := make([]string, 0, len(rp.targets))
	for _, rt := range rp.targets {
		names = append(names, rt.t.Name)
	}
	sort.Strings(names)
	return names
}

// targetDep resolves one entry of a target's deps to target ids.
func (p *parser) targetDep(rp *rawProject, rt *rawTarget, d ref, byName map[string]*rawProject, names []string) []string {
	s := d.value
	if d.inherited {
		return inheritedDep(rp, rt, d, byName)
	}
	if name, ok := strings.CutPrefix(s, "^"); ok {
		if !validName(name) {
			p.malformed(d)
			return nil
		}
		return caretDeps(rp, rt, name, byName)
	}
	project, name, qualified := strings.Cut(s, ":")
	if !qualified {
		project, name = rp.p.Name, s
	}
	if !validName(project) || !validName(name) {
		p.malformed(d)
		return nil
	}
	dp := byName[project]
	if dp == nil {
		p.at(d.node, d.field, "unknown project %s in %s (projects: %s)", quote.Short(project), quote.Short(s), listNames(names))
		return nil
	}
	if !dp.hasTarget(name) {
		declared := dp.targetNames()
		if len(declared) == 0 {
			p.at(d.node, d.field, "unknown target %s (%s declares no targets)", quote.Short(s), quote.Prefix(project))
		} else {
			p.at(d.node, d.field, "unknown target %s (%s declares: %s)", quote.Short(s), quote.Prefix(project), listNames(declared))
		}
		return nil
	}
	id := project + ":" + name
	if id == rt.t.ID() {
		p.at(d.node, d.field, "target %s cannot depend on itself: remove it from deps", quote.Short(id))
		return nil
	}
	return []string{id}
}

// inheritedDep resolves a dependency rt takes from defaults:, which
// checkDefaults has judged: it resolves, or it does not apply here. A
// target of its own project that this project lacks, and the target
// itself (util:build in the default of build, for util's build), are no
// dependency of it: they are for the targets that have them.
func inheritedDep(rp *rawProject, rt *rawTarget, d ref, byName map[string]*rawProject) []string {
	if name, ok := strings.CutPrefix(d.value, "^"); ok {
		if !validName(name) {
			return nil
		}
		return caretDeps(rp, rt, name, byName)
	}
	project, name, qualified := strings.Cut(d.value, ":")
	if !qualified {
		project, name = rp.p.Name, d.value
	}
	dp := byName[project]
	if dp == nil || !dp.hasTarget(name) || project+":"+name == rt.t.ID() {
		return nil
	}
	return []string{project + ":" + name}
}

// caretDeps are the targets ^name names for rt: name in every project
// rp depends on that declares it (none is fine).
func caretDeps(rp *rawProject, rt *rawTarget, name string, byName map[string]*rawProject) []string {
	rt.t.caret = append(rt.t.caret, name)
	var ids []string
	for _, dep := range rp.p.Deps {
		if byName[dep].hasTarget(name) {
			ids = append(ids, dep+":"+name)
		}
	}
	return ids
}

func (p *parser) malformed(d ref) {
	p.at(d.node, d.field, "malformed dependency %s: write \"target\" (same project), \"project:target\" or \"^target\" (that target in every project listed in deps)", quote.Short(d.value))
}

// cycles reports one cycle per strongly connected component of the graph:
// the shortest cycle through the component's smallest node, written where
// its first edge is declared. One problem per knot keeps the report short
// and still names a path the user can break.
func (p *parser) cycles(nodes []string, edges map[string][]edge) {
	for _, scc := range components(nodes, edges) {
		if len(scc) < 2 {
			continue // self-dependencies are reported where they are written
		}
		in := make(map[string]bool, len(scc))
		for _, n := range scc {
			in[n] = true
		}
		start := scc[0]
		for _, n := range scc {
			if n < start {
				start = n
			}
		}
		path, first := shortestCycle(start, in, edges)
		if path == nil {
			continue
		}
		p.at(first.ref.node, first.ref.field, "cycle: %s", strings.Join(path, " -> "))
	}
}

// shortestCycle finds, by breadth-first search in sorted order, the shortest
// path from start back to start inside the component, and the edge that
// leaves start on it.
func shortestCycle(start string, in map[string]bool, edges map[string][]edge) ([]string, edge) {
	type step struct {
		prev string
		via  edge
	}
	parent := map[string]step{}
	queue := []string{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range sortedEdges(edges[cur]) {
			if !in[e.to] {
				continue
			}
			if e.to == start {
				path := []string{start}
				for n := cur; n != start; n = parent[n].prev {
					path = append(path, n)
				}
				path = append(path, start)
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				first := e
				if cur != start {
					n := cur
					for parent[n].prev != start {
						n = parent[n].prev
					}
					first = parent[n].via
				}
				return path, first
			}
			if _, seen := parent[e.to]; seen {
				continue
			}
			parent[e.to] = step{prev: cur, via: e}
			queue = append(queue, e.to)
		}
	}
	return nil, edge{}
}

func sortedEdges(es []edge) []edge {
	out := append([]edge(nil), es...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].to < out[j].to })
	return out
}

// components returns the strongly connected components (Tarjan), visiting
// nodes and edges in sorted order so the result is deterministic.
func components(nodes []string, edges map[string][]edge) [][]string {
	index := make(map[string]int, len(nodes))
	low := make(map[string]int, len(nodes))
	onStack := make(map[string]bool, len(nodes))
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range sortedEdges(edges[v]) {
			w := e.to
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			out = append(out, scc)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	return out
}
