package runner

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/workspace"
)

// plan resolves the requested targets and their dependencies into nodes in
// a stable topological order: dependencies first, ties by id.
func plan(ws *workspace.Workspace, targets []string) ([]*node, error) {
	nodes := map[string]*node{}
	var visit func(id string, stack []string) (*node, error)
	visit = func(id string, stack []string) (*node, error) {
		if n, ok := nodes[id]; ok {
			if n == nil {
				return nil, fmt.Errorf("run: dependency cycle: %s -> %s", strings.Join(stack, " -> "), id)
			}
			return n, nil
		}
		t := ws.Target(id)
		if t == nil {
			return nil, fmt.Errorf("run: %s depends on unknown target %s", stack[len(stack)-1], quote.Short(id))
		}
		nodes[id] = nil // on the stack
		n := &node{t: t, p: ws.Project(t.Project), done: make(chan struct{})}
		for _, d := range t.Deps {
			dn, err := visit(d, append(stack, id))
			if err != nil {
				return nil, err
			}
			n.deps = append(n.deps, dn)
		}
		nodes[id] = n
		return n, nil
	}
	var problems []string
	for _, id := range targets {
		if ws.Target(id) == nil {
			problems = append(problems, unknownTarget(ws, id))
			continue
		}
		if _, err := visit(id, nil); err != nil {
			return nil, err
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	// Kahn's algorithm, ready set kept sorted by id.
	indeg := map[*node]int{}
	users := map[*node][]*node{}
	var ready []*node
	for _, n := range nodes {
		indeg[n] = len(n.deps)
		for _, d := range n.deps {
			users[d] = append(users[d], n)
		}
		if len(n.deps) == 0 {
			ready = append(ready, n)
		}
	}
	byID := func(s []*node) {
		sort.Slice(s, func(i, j int) bool { return s[i].t.ID() < s[j].t.ID() })
	}
	byID(ready)
	order := make([]*node, 0, len(nodes))
	for len(ready) > 0 {
		n := ready[0]
		ready = ready[1:]
		order = append(order, n)
		var next []*node
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				next = append(next, u)
			}
		}
		if len(next) > 0 {
			ready = append(ready, next...)
			byID(ready)
		}
	}
	if len(order) != len(nodes) {
		return nil, errors.New("run: dependency cycle among the planned targets")
	}
	return order, nil
}

// unknownTarget explains a target id that names nothing, with close
// matches.
func unknownTarget(ws *workspace.Workspace, id string) string {
	all := ws.TargetIDs()
	project, name, ok := strings.Cut(id, ":")
	if !ok {
		if p := ws.Project(id); p != nil {
			var names []string
			for _, t := range p.Targets {
				names = append(names, id+":"+t.Name)
			}
			if len(names) == 0 {
				return fmt.Sprintf("%s is a project with no targets: name a target as PROJECT:TARGET", quote.Short(id))
			}
			return fmt.Sprintf("%s is a project, not a target: name one of its targets (%s)", quote.Short(id), strings.Join(names, ", "))
		}
		return fmt.Sprintf("unknown target %s: name targets as PROJECT:TARGET%s", quote.Short(id), closeMatches(id, all))
	}
	if p := ws.Project(project); p == nil {
		return fmt.Sprintf("unknown target %s: there is no project %s%s", quote.Short(id), quote.Short(project), closeMatches(id, all))
	}
	_ = name
	return fmt.Sprintf("unknown target %s%s", quote.Short(id), closeMatches(id, all))
}

// closeMatches lists the target ids nearest to id: the edit-distance
// closest, and those that contain it or share its target name.
func closeMatches(id string, all []string) string {
	var m []string
	if best, ok := suggest.Closest(id, all); ok {
		m = append(m, best)
	}
	_, name, _ := strings.Cut(id, ":")
	for _, a := range all {
		if len(m) >= 5 {
			break
		}
		_, an, _ := strings.Cut(a, ":")
		if (name != "" && an == name) || (len(id) >= 3 && strings.Contains(a, id)) {
			if !slices.Contains(m, a) {
				m = append(m, a)
			}
		}
	}
	if len(m) == 0 {
		if len(all) == 0 {
			return " (the workspace declares no targets)"
		}
		return " (core describe graph lists the targets)"
	}
	return " (did you mean " + strings.Join(m, ", ") + "?)"
}
