package inputs

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/workspace"
)

// Rule answers what the targets of one workspace read. It is safe for
// concurrent use; build one per run (or per affected computation).
type Rule struct {
	ws     *workspace.Workspace
	root   string
	ign    *ignore.Rule
	owners *graph.Owners
	dirs   []string // every project's directory
	pats   patternCache

	mu        sync.Mutex
	sets      map[*workspace.Target]*set
	closure   map[string][]*Dep
	graph     *projectGraph
	graphOnce sync.Once
	// enclosing memoizes listEnclosing: the targets of a project, and the
	// projects beside it, stat the same files.
	enclosing map[enclosingKey][]string
	users     map[string][]Edge // by project: the projects that depend on it directly
	nestedIn  map[string]map[string]bool
}

// New returns the rule of ws, whose files are under root (ws.Root when
// root is ""), with ign as its ignore rule.
func New(ws *workspace.Workspace, root string, ign *ignore.Rule) *Rule {
	if root == "" {
		root = ws.Root
	}
	r := &Rule{ws: ws, root: root, ign: ign, owners: graph.NewOwners(ws), sets: map[*workspace.Target]*set{}, closure: map[string][]*Dep{}, enclosing: map[enclosingKey][]string{}, nestedIn: map[string]map[string]bool{}}
	for _, p := range ws.Projects {
		r.dirs = append(r.dirs, p.Path)
	}
	return r
}

// Workspace is the rule's workspace.
func (r *Rule) Workspace() *workspace.Workspace { return r.ws }

func (r *Rule) set(t *workspace.Target) *set {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sets[t]
	if !ok {
		s = compile(t)
		r.sets[t] = s
	}
	return s
}

// Edge is a direct dependency of one project on another, and why.
type Edge struct {
	From, To string // project names: From depends on To
	// Kind says who names it: "declared" (targets.yaml), "manifest",
	// "imports", or "unknown" (the workspace's imports were not read).
	Kind string
	Via  string // the manifest or importing file ("" when declared)
}

// Reason is the edge in words, as `core hash` and `core affected` say it.
func (e Edge) Reason() string {
	switch e.Kind {
	case "declared":
		return e.From + " depends on " + e.To + " (targets.yaml)"
	case "manifest":
		return e.From + " depends on " + e.To + " (" + e.Via + ")"
	case "imports":
		return e.From + " depends on " + e.To + " (" + e.Via + " imports it)"
	}
	return e.From + " may depend on " + e.To + " (imports not read)"
}

// Edges are the direct dependencies of project p, sorted by project.
// Dependencies and Users read them once a rule (projectGraph).
func (r *Rule) Edges(p *workspace.Project) []Edge {
	var out []Edge
	if !r.ws.ImportsKnown {
		for _, q := range r.ws.Projects {
			if q.Name != p.Name {
				out = append(out, Edge{From: p.Name, To: q.Name, Kind: "unknown"})
			}
		}
		return out
	}
	for _, d := range p.Deps {
		out = append(out, Edge{From: p.Name, To: d, Kind: "declared"})
	}
	for _, d := range p.Inferred {
		out = append(out, Edge{From: p.Name, To: d.Project, Kind: "manifest", Via: d.From})
	}
	for _, d := range p.Imports {
		out = append(out, Edge{From: p.Name, To: d.Project, Kind: "imports", Via: d.From})
	}
	slices.SortStableFunc(out, func(a, b Edge) int {
		switch {
		case a.To < b.To:
			return -1
		case a.To > b.To:
			return 1
		}
		return 0
	})
	return slices.CompactFunc(out, func(a, b Edge) bool { return a.To == b.To })
}

// Dep is a project a target's project depends on, transitively, with the
// last edge of the chain that leads there from the target's project.
type Dep struct {
	Project *workspace.Project
	Edge    Edge
	from    *Dep // the dependency Edge starts from; nil for a direct one
}

// Chain is the edges from the target's project to the dependency.
func (d *Dep) Chain() []Edge {
	var out []Edge
	for x := d; x != nil; x = x.from {
		out = append(out, x.Edge)
	}
	slices.Reverse(out)
	return out
}

// Dependencies are the projects p depends on, transitively, sorted by
// name: p itself only when a cycle leads back to it. The chain of each is
// the first (shortest) the walk found.
func (r *Rule) Dependencies(p *workspace.Project) []*Dep {
	r.mu.Lock()
	if d, ok := r.closure[p.Name]; ok {
		r.mu.Unlock()
		return d
	}
	r.mu.Unlock()
	g := r.projectGraph()
	reached := make([]*Dep, len(g.edges))
	var queue []int
	step := func(from *Dep, es []indexedEdge) {
		for _, e := range es {
			if reached[e.to] != nil {
				continue
			}
			reached[e.to] = &Dep{Project: r.ws.Projects[e.to], Edge: e.Edge, from: from}
			queue = append(queue, e.to)
		}
	}
	if i, ok := g.at[p.Name]; ok {
		step(nil, g.edges[i])
	} else {
		step(nil, g.indexed(r.Edges(p)))
	}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		step(reached[at], g.edges[at])
	}
	var out []*Dep
	for _, i := range g.byName {
		if reached[i] != nil {
			out = append(out, reached[i])
		}
	}
	r.mu.Lock()
	r.closure[p.Name] = out
	r.mu.Unlock()
	return out
}

// projectGraph is the workspace's projects by index, with each one's
// edges: Dependencies walks it with neither a map nor a search per step
// (a run of 200 projects walks every project's closure).
type projectGraph struct {
	at     map[string]int // by name
	edges  [][]indexedEdge
	byName []int // the indexes in name order
}

type indexedEdge struct {
	Edge
	to int // the index of the project it leads to
}

func (g *projectGraph) indexed(es []Edge) []indexedEdge {
	out := make([]indexedEdge, 0, len(es))
	for _, e := range es {
		// Every edge leads to a project: the workspace's resolution
		// refuses a dependency on one that does not exist.
		if to, ok := g.at[e.To]; ok {
			out = append(out, indexedEdge{Edge: e, to: to})
		}
	}
	return out
}

func (r *Rule) projectGraph() *projectGraph {
	r.graphOnce.Do(func() {
		ps := r.ws.Projects
		g := &projectGraph{at: make(map[string]int, len(ps)), edges: make([][]indexedEdge, len(ps)), byName: make([]int, len(ps))}
		for i, p := range ps {
			g.at[p.Name] = i
			g.byName[i] = i
		}
		slices.SortFunc(g.byName, func(a, b int) int { return strings.Compare(ps[a].Name, ps[b].Name) })
		for i, p := range ps {
			g.edges[i] = g.indexed(r.Edges(p))
		}
		r.graph = g
	})
	return r.graph
}

// Users are the projects that depend on project name directly: the
// reverse of Edges.
func (r *Rule) Users(name string) []Edge {
	g := r.projectGraph() // before the lock: it takes it
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.users == nil {
		r.users = map[string][]Edge{}
		for _, es := range g.edges {
			for _, e := range es {
				r.users[e.To] = append(r.users[e.To], e.Edge)
			}
		}
	}
	return r.users[name]
}

// Ignored reports whether git ignores the file f (relative to the root),
// or core never enters where it lies.
func (r *Rule) Ignored(f string) bool {
	return r.root != "" && r.ign.Skipped(f, false) // a workspace parsed from bytes has no files
}

// OwnInput reports whether the file f (relative to the root) is one of
// t's own inputs (see the package comment); ignored is Ignored(f).
func (r *Rule) OwnInput(t *workspace.Target, p *workspace.Project, f string, ignored bool) bool {
	rel, ok := relTo(p.Path, f)
	if !ok || neverPath(rel) || r.ign.Never(f) {
		return false
	}
	return r.set(t).file(rel, ignored)
}

// GlobalInput reports whether the file f (relative to the root) is a
// global input: in every target's key. ignored is Ignored(f).
func (r *Rule) GlobalInput(f string, ignored bool) bool {
	return !neverPath(f) && !r.ign.Never(f) && rootGlobSet(GlobalInputs(r.ws)).file(f, ignored)
}

// RootInput reports whether the file f (relative to the root) is one of
// t's // inputs. ignored is Ignored(f).
func (r *Rule) RootInput(t *workspace.Target, f string, ignored bool) bool {
	return len(t.RootInputs) > 0 && !neverPath(f) && !r.ign.Never(f) && rootGlobSet(t.RootInputs).file(f, ignored)
}

// InPart reports whether the file f (relative to the root) is in the part
// of the project that owns it, and returns that project.
func (r *Rule) InPart(f string, ignored bool) (*workspace.Project, bool) {
	q := r.owners.Of(f)
	if q == nil {
		return nil, false
	}
	rel, ok := relTo(q.Path, f)
	if !ok || neverPath(rel) || r.ign.Never(f) {
		return q, false
	}
	for _, s := range r.partSets(q) {
		if s.file(rel, ignored) {
			return q, true
		}
	}
	return q, false
}

// partSets are the rules whose union is q's part.
func (r *Rule) partSets(q *workspace.Project) []*set {
	if len(q.Targets) == 0 {
		return []*set{newSet(workspace.DefaultInputs(), nil)}
	}
	sets := make([]*set, len(q.Targets))
	for i, t := range q.Targets {
		sets[i] = r.set(t)
	}
	return sets
}

// Enclosing reports whether the file f (relative to the root) is one of
// the files above p's directory that t reads (see enclosing).
func (r *Rule) Enclosing(t *workspace.Target, p *workspace.Project, f string) bool {
	return enclosing(p.Path, []*set{r.set(t)}, f)
}

// EnclosingPart reports whether the file f (relative to the root) is one
// of the files above q's directory in q's part.
func (r *Rule) EnclosingPart(q *workspace.Project, f string) bool {
	return enclosing(q.Path, r.partSets(q), f)
}

// ListEnclosing lists the files above p's directory that t reads and
// that exist, relative to the root, sorted.
func (r *Rule) ListEnclosing(t *workspace.Target, p *workspace.Project) []string {
	return r.listEnclosing(p.Path, []*set{r.set(t)})
}

// enclosing reports whether f lies in a directory above dir (the root
// included) and is read by one of sets: a manifest (go.mod, go.sum,
// package.json, pyproject.toml: the module or workspace a project inside
// builds in) by a set that takes manifests, a .gitignore (which says what
// a wildcard matches) by a set with a wildcard glob.
func enclosing(dir string, sets []*set, f string) bool {
	if dir == "." {
		return false
	}
	fdir, name := path.Split(f)
	fdir = strings.TrimSuffix(fdir, "/")
	if fdir != "" && !strings.HasPrefix(dir, fdir+"/") {
		return false
	}
	manifests, gitignore := enclosingKinds(sets)
	return manifests && slices.Contains(workspace.Manifests, name) || gitignore && name == ".gitignore"
}

func enclosingKinds(sets []*set) (manifests, gitignore bool) {
	for _, s := range sets {
		manifests = manifests || s.manifests
		gitignore = gitignore || s.wild
	}
	return manifests, gitignore
}

func (r *Rule) listEnclosing(dir string, sets []*set) []string {
	manifests, gitignore := enclosingKinds(sets)
	if dir == "." || !manifests && !gitignore {
		return nil
	}
	var out []string
	for d := path.Dir(dir); ; d = path.Dir(d) {
		out = append(out, r.enclosingIn(enclosingKey{d, manifests, gitignore})...)
		if d == "." {
			break
		}
	}
	slices.Sort(out)
	return out
}

// enclosingIn lists the files of one directory above projects that
// listEnclosing takes, once per directory: the projects side by side in
// one directory share every directory above them.
func (r *Rule) enclosingIn(key enclosingKey) []string {
	r.mu.Lock()
	list, ok := r.enclosing[key]
	r.mu.Unlock()
	if ok {
		return list
	}
	var names []string
	if key.manifests {
		names = append(names, workspace.Manifests...)
	}
	if key.gitignore {
		names = append(names, ".gitignore")
	}
	for _, name := range names {
		f := path.Join(key.dir, name)
		if fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(f))); err == nil && !fi.IsDir() {
			list = append(list, f)
		}
	}
	r.mu.Lock()
	r.enclosing[key] = list
	r.mu.Unlock()
	return list
}

// enclosingKey is what enclosingIn lists: the directory, and whether the
// manifests or the .gitignore in it.
type enclosingKey struct {
	dir                  string
	manifests, gitignore bool
}

// ListOwn lists t's own inputs (not its // inputs), relative to its
// project's directory, sorted.
func (r *Rule) ListOwn(t *workspace.Target, p *workspace.Project) ([]string, error) {
	w := &walker{ign: r.ign, pats: &r.pats, abs: r.dir(p), base: p.Path, sets: []*set{r.set(t)}}
	return w.list()
}

// OwnIsPart reports whether target t's own inputs are the whole of
// project p's part: t is p's only target, and no project is nested in p.
// Then one listing (ListPart) is both.
func (r *Rule) OwnIsPart(t *workspace.Target, p *workspace.Project) bool {
	return len(p.Targets) == 1 && p.Targets[0] == t && len(r.nested(p.Path)) == 0
}

// ListPart lists project q's part: its files relative to its directory,
// and the files above it that its part takes (relative to the root), each
// sorted, with what vouches for the listing later (Listing.Holds).
func (r *Rule) ListPart(q *workspace.Project) (*Listing, error) {
	sets := r.partSets(q)
	w := &walker{ign: r.ign, pats: &r.pats, abs: r.dir(q), base: q.Path, sets: sets, skip: r.nested(q.Path), stamping: true}
	files, err := w.list()
	if err != nil {
		return nil, err
	}
	return &Listing{Files: files, Above: r.listEnclosing(q.Path, sets), dirs: w.dirs}, nil
}

// nested is nestedDirs(dir, r.dirs), once per directory: every
// dependent of a project asks again, after each build.
func (r *Rule) nested(dir string) map[string]bool {
	r.mu.Lock()
	m, ok := r.nestedIn[dir]
	r.mu.Unlock()
	if ok {
		return m
	}
	// Outside the lock: it looks at every project, and every project's
	// first target asks at once.
	m = nestedDirs(dir, r.dirs)
	r.mu.Lock()
	r.nestedIn[dir] = m
	r.mu.Unlock()
	return m
}

// ListRoot lists the files under the root that globs (relative to it)
// match, ignored or not, sorted: the global inputs, or a target's //
// inputs.
func (r *Rule) ListRoot(globs []string) ([]string, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	w := &walker{ign: r.ign, pats: &r.pats, abs: r.root, base: ".", sets: []*set{rootGlobSet(globs)}}
	return w.list()
}

// Dir is project p's directory.
func (r *Rule) dir(p *workspace.Project) string {
	return filepath.Join(r.root, filepath.FromSlash(p.Path))
}

// Root is the workspace root the rule reads.
func (r *Rule) Root() string { return r.root }
