// Package shard splits the targets of one CI run across N machines (the
// jobs of a GitHub Actions matrix, GitLab's parallel:, Buildkite's
// parallelism) and puts their results back together (report.go).
//
// # The plan
//
// Every runner computes the plan alone, with no coordinator, so it is a
// pure function of its inputs: the targets to run (the selection and its
// dependencies, as core run would plan them), each with its dependencies
// and a weight in milliseconds, and N. Ties are broken by target id and
// shard index; nothing depends on map order, the clock or the cache.
//
// The rule, in one paragraph (docs/ci.md says it too): the budget of a
// shard is 1.25 × the lower bound max(total ÷ N, longest dependency
// chain). The weakly connected components of the targets (a target with
// everything it is linked to by dependencies, either way) are taken
// heaviest first, and each goes whole to the least loaded shard when it
// fits within that budget there, so that a shard builds its own
// dependencies and nothing runs twice. A component heavier than the lower
// bound, or one that fits nowhere when its turn comes, is split: its
// targets join the queue, which stays heaviest first, and each goes to the
// shard that already holds most of its neighbours' weight among those
// where it fits, else to the least loaded shard (longest processing time
// first, with an affinity that keeps the cuts few). Then a target of a
// split component moves to another shard when that cuts the weight of
// what shards need from each other and the longest shard does not grow.
// A target whose dependency went to another shard
// "needs" it: the plan lists it, and the shard takes it from the build
// cache (the remote cache, which the other shard fills) or, when the
// cache does not have it yet, builds it too. That is the only way a
// target runs on two shards, and the plan names each such target and its
// cost on a cold cache (ColdMS).
package shard

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxShards bounds N: a GitHub Actions matrix holds at most 256 jobs.
const MaxShards = 256

// Target is one target of the run, as the plan weighs it.
type Target struct {
	ID     string   `json:"id"`
	Deps   []string `json:"deps,omitempty"` // those outside the run are ignored
	Weight int64    `json:"weight_ms"`
	// Source says where Weight came from (see backend: history, name,
	// size).
	Source string `json:"source"`
}

// Plan is the split of one run's targets into N shards.
type Plan struct {
	N      int    `json:"shards"`
	Digest string `json:"digest"` // of the assignment: shards that agree on it ran one plan
	// TotalMS is every target's weight; LowerBoundMS is max(TotalMS ÷ N,
	// ChainMS), under which no split can go; LongestMS is the heaviest
	// shard's work.
	TotalMS      int64    `json:"total_ms"`
	ChainMS      int64    `json:"chain_ms"`
	LowerBoundMS int64    `json:"lower_bound_ms"`
	LongestMS    int64    `json:"longest_ms"`
	Shards       []Shard  `json:"plan"`
	Targets      []Target `json:"targets"`
	// GitHub is the matrix a GitHub Actions job reads with fromJSON;
	// GitLab the same for parallel:matrix.
	GitHub Matrix `json:"github"`
	GitLab GitLab `json:"gitlab"`
}

// Shard is one shard's part of the plan.
type Shard struct {
	Spec    string   `json:"shard"` // "2/4", as core run --shard takes it
	WorkMS  int64    `json:"work_ms"`
	Targets []string `json:"targets"`
	// Needs are the dependencies of its targets that other shards build:
	// it takes them from the cache, or builds them too when the cache does
	// not have them yet, which costs at most ColdMS more (them and what
	// they need in turn, outside this shard).
	Needs  []Need `json:"needs,omitempty"`
	ColdMS int64  `json:"cold_ms,omitempty"`
}

// Need is a dependency a shard takes from another.
type Need struct {
	Target string `json:"target"`
	From   string `json:"from"` // the shard that builds it
	For    string `json:"for"`  // the first of this shard's targets (by id) that needs it
}

// Matrix is GitHub Actions' strategy.matrix: {"include":[{"shard":"1/4"},…]}.
type Matrix struct {
	Include []MatrixEntry `json:"include"`
}

// MatrixEntry is one job of the matrix.
type MatrixEntry struct {
	Shard string `json:"shard"`
}

// GitLab is the parallel: keyword of a GitLab CI job:
// {"parallel":{"matrix":[{"SHARD":["1/4",…]}]}}.
type GitLab struct {
	Parallel struct {
		Matrix []map[string][]string `json:"matrix"`
	} `json:"parallel"`
}

// Spec is "I/N".
func Spec(i, n int) string { return strconv.Itoa(i) + "/" + strconv.Itoa(n) }

// ParseSpec reads --shard I/N.
func ParseSpec(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, erri := strconv.Atoi(a)
	n, errn := strconv.Atoi(b)
	switch {
	case !ok || erri != nil || errn != nil:
		return 0, 0, fmt.Errorf("--shard %q: write I/N, the shard's number and how many there are (e.g. --shard 2/4)", s)
	case n < 1 || n > MaxShards:
		return 0, 0, fmt.Errorf("shard %d of %d: N must be between 1 and %d", i, n, MaxShards)
	case i < 1 || i > n:
		return 0, 0, fmt.Errorf("shard %d of %d: I must be between 1 and N", i, n)
	}
	return i, n, nil
}

// CheckCount checks --shards N.
func CheckCount(n int) error {
	if n < 1 || n > MaxShards {
		return fmt.Errorf("--shards %d: N must be between 1 and %d", n, MaxShards)
	}
	return nil
}

// Of is shard i (1-based) of the plan.
func (p Plan) Of(i int) Shard { return p.Shards[i-1] }

// Make splits targets into n shards by the rule the package comment
// states. The targets must be closed under their dependencies' edges as
// given (a dependency outside them is ignored) and acyclic.
func Make(targets []Target, n int) (Plan, error) {
	if err := CheckCount(n); err != nil {
		return Plan{}, err
	}
	g, err := newGraph(targets)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{N: n, Targets: g.targets}
	for i := range g.targets {
		p.TotalMS += g.targets[i].Weight
		p.ChainMS = max(p.ChainMS, g.chain[i])
	}
	p.LowerBoundMS = max((p.TotalMS+int64(n)-1)/int64(n), p.ChainMS)
	budget := p.LowerBoundMS + p.LowerBoundMS/4

	on := make([]int, len(g.targets)) // shard index (0-based) per target; -1 unplaced
	for i := range on {
		on[i] = -1
	}
	load := make([]int64, n)
	leastLoaded := func(fits func(s int) bool) int {
		best := -1
		for s := range n {
			if fits != nil && !fits(s) {
				continue
			}
			if best < 0 || load[s] < load[best] {
				best = s
			}
		}
		return best
	}
	// Longest processing time first, over items that are whole components
	// or, once a component is split, its targets.
	type item struct {
		weight  int64
		members []int // one target when split
		split   bool
	}
	var queue []item
	push := func(it item) {
		i, _ := slices.BinarySearchFunc(queue, it.weight, func(q item, w int64) int { return cmp.Compare(w, q.weight) })
		for i < len(queue) && queue[i].weight == it.weight {
			i++ // after its equals: the order of arrival breaks ties
		}
		queue = slices.Insert(queue, i, it)
	}
	splitInto := func(c component) {
		for _, m := range c.members {
			push(item{weight: g.targets[m].Weight, members: []int{m}, split: true})
		}
	}
	for _, c := range g.components() {
		if c.weight > p.LowerBoundMS && len(c.members) > 1 {
			splitInto(c) // it would leave its shard no room
			continue
		}
		push(item{weight: c.weight, members: c.members})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		w := it.weight
		if !it.split {
			s := leastLoaded(nil)
			if load[s]+w > budget && len(it.members) > 1 {
				splitInto(component{members: it.members})
				continue
			}
			for _, m := range it.members {
				on[m] = s
			}
			load[s] += w
			continue
		}
		// A split component's target: beside the most of its neighbours'
		// weight where it fits, else where the load is least.
		m := it.members[0]
		near := make([]int64, n)
		for _, nb := range g.neighbours[m] {
			if on[nb] >= 0 {
				near[on[nb]] += g.targets[nb].Weight + 1 // +1: a weightless neighbour still counts
			}
		}
		s := -1
		for t := range n {
			if near[t] > 0 && load[t]+w <= budget && (s < 0 || near[t] > near[s] || near[t] == near[s] && load[t] < load[s]) {
				s = t
			}
		}
		if s < 0 {
			s = leastLoaded(nil)
		}
		on[m] = s
		load[s] += w
	}
	g.mend(on, load)

	p.Shards = make([]Shard, n)
	for s := range n {
		p.Shards[s] = Shard{Spec: Spec(s+1, n), WorkMS: load[s], Targets: []string{}}
		p.LongestMS = max(p.LongestMS, load[s])
		p.GitHub.Include = append(p.GitHub.Include, MatrixEntry{Shard: Spec(s+1, n)})
	}
	p.GitLab.Parallel.Matrix = []map[string][]string{{"SHARD": {}}}
	for s := range n {
		p.GitLab.Parallel.Matrix[0]["SHARD"] = append(p.GitLab.Parallel.Matrix[0]["SHARD"], Spec(s+1, n))
	}
	for i, t := range g.targets { // by id
		sh := &p.Shards[on[i]]
		sh.Targets = append(sh.Targets, t.ID)
	}
	for s := range p.Shards {
		p.Shards[s].Needs, p.Shards[s].ColdMS = g.needs(on, s, n)
	}
	p.Digest = digest(p.Shards)
	return p, nil
}

// needs are shard s's dependencies on other shards, and what building
// them (and what they need in turn, outside s) costs when none is cached.
func (g *graph) needs(on []int, s, n int) ([]Need, int64) {
	var out []Need
	seen := map[int]bool{}
	var cold int64
	var pull func(d int)
	pull = func(d int) {
		if seen[d] || on[d] == s {
			return
		}
		seen[d] = true
		cold += g.targets[d].Weight
		for _, dd := range g.deps[d] {
			pull(dd)
		}
	}
	for i := range g.targets { // by id, so For is the first by id
		if on[i] != s {
			continue
		}
		for _, d := range g.deps[i] {
			if on[d] == s || seen[d] {
				continue
			}
			out = append(out, Need{Target: g.targets[d].ID, From: Spec(on[d]+1, n), For: g.targets[i].ID})
			pull(d)
		}
	}
	slices.SortFunc(out, func(a, b Need) int { return strings.Compare(a.Target, b.Target) })
	return out, cold
}

// mend moves targets of split components to the shard of their
// dependencies or users when that cuts what shards need from each other
// (the weight of the dependencies a shard would build too on a cold
// cache) without making the longest shard longer: the split above places
// heaviest first, for balance, and a light dependency can land away from
// everything that needs it. Targets in id order, a few passes, so the
// result is as deterministic as the rest.
func (g *graph) mend(on []int, load []int64) {
	var longest int64
	for _, l := range load {
		longest = max(longest, l)
	}
	// cut is what t on shard s costs in needs: each dependency elsewhere
	// (its weight), and t itself for each user elsewhere.
	cut := func(t, s int) int64 {
		var c int64
		for _, d := range g.deps[t] {
			if on[d] != s {
				c += g.targets[d].Weight + 1
			}
		}
		for _, u := range g.users[t] {
			if on[u] != s {
				c += g.targets[t].Weight + 1
			}
		}
		return c
	}
	for range 4 {
		moved := false
		for t := range g.targets {
			here, w := on[t], g.targets[t].Weight
			best, bestCut := here, cut(t, here)
			if bestCut == 0 {
				continue
			}
			for s := range load {
				if s == here || load[s]+w > longest {
					continue
				}
				if c := cut(t, s); c < bestCut {
					best, bestCut = s, c
				}
			}
			if best != here {
				on[t] = best
				load[here] -= w
				load[best] += w
				moved = true
			}
		}
		if !moved {
			return
		}
	}
}

// digest names an assignment: the shards' targets, in order.
func digest(shards []Shard) string {
	h := sha256.New()
	for _, s := range shards {
		fmt.Fprintf(h, "%s\n%s\n", s.Spec, strings.Join(s.Targets, "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// graph is the targets by index, sorted by id, with their edges.
type graph struct {
	targets    []Target
	deps       [][]int // within the run, by index
	users      [][]int // within the run, by index
	neighbours [][]int // deps and users
	chain      []int64 // the heaviest dependency chain ending at each target, itself included
}

func newGraph(targets []Target) (*graph, error) {
	ts := slices.Clone(targets)
	slices.SortFunc(ts, func(a, b Target) int { return strings.Compare(a.ID, b.ID) })
	index := make(map[string]int, len(ts))
	for i, t := range ts {
		if _, dup := index[t.ID]; dup {
			return nil, fmt.Errorf("shard: target %s is listed twice", t.ID)
		}
		if t.Weight < 0 {
			return nil, fmt.Errorf("shard: target %s weighs %dms", t.ID, t.Weight)
		}
		index[t.ID] = i
	}
	g := &graph{targets: ts, deps: make([][]int, len(ts)), neighbours: make([][]int, len(ts)), chain: make([]int64, len(ts))}
	for i, t := range ts {
		for _, d := range t.Deps {
			if j, ok := index[d]; ok && !slices.Contains(g.deps[i], j) {
				g.deps[i] = append(g.deps[i], j)
				g.neighbours[i] = append(g.neighbours[i], j)
				g.neighbours[j] = append(g.neighbours[j], i)
			}
		}
	}
	// Chains in topological order (Kahn's, ready targets by id).
	users := make([][]int, len(ts))
	g.users = users
	indeg := make([]int, len(ts))
	var ready []int
	for i := range ts {
		indeg[i] = len(g.deps[i])
		for _, d := range g.deps[i] {
			users[d] = append(users[d], i)
		}
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	done := 0
	for len(ready) > 0 {
		i := ready[0]
		ready = ready[1:]
		done++
		var longest int64
		for _, d := range g.deps[i] {
			longest = max(longest, g.chain[d])
		}
		g.chain[i] = longest + ts[i].Weight
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if done != len(ts) {
		return nil, errors.New("shard: the targets' dependencies form a cycle")
	}
	return g, nil
}

// component is a weakly connected component: its members by id.
type component struct {
	members []int
	weight  int64
}

// components are the graph's weakly connected components, heaviest first,
// ties by their first member's id.
func (g *graph) components() []component {
	seen := make([]bool, len(g.targets))
	var out []component
	for i := range g.targets {
		if seen[i] {
			continue
		}
		c := component{}
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c.members = append(c.members, m)
			c.weight += g.targets[m].Weight
			for _, nb := range g.neighbours[m] {
				if !seen[nb] {
					seen[nb] = true
					stack = append(stack, nb)
				}
			}
		}
		slices.Sort(c.members)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b component) int { return cmp.Compare(b.weight, a.weight) })
	return out
}
