package index

import (
	"cmp"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/workspace"
)

// FileID, PackageID and SymbolID are the node ids of the graph contract.
func FileID(p string) string             { return "file:" + p }
func PackageID(importPath string) string { return "package:" + importPath }
func SymbolID(p, name string) string     { return "symbol:" + p + "#" + name }

// resolver answers where imports and links lead. It is built once per
// assembly from the records.
type resolver struct {
	ws       *workspace.Workspace
	files    map[string]*parse.FileRecord
	dirs     map[string]bool              // every directory holding an indexed file
	goMods   map[string]string            // module dir -> module path
	goPkgs   map[string]*goPackage        // import path -> package
	goDirPkg map[string]string            // dir -> import path
	jsPkgs   map[string]*parse.FileRecord // package.json name -> record
	// tsconfigs are the TypeScript and JavaScript project configurations
	// by path.
	tsconfigs map[string]*parse.FileRecord
	nearestTS map[string]*parse.FileRecord // dir -> the config nearest above it (none: absent)
	owners    *graph.Owners
}

type goPackage struct {
	importPath string
	dir        string
	name       string
	files      []string
}

// newResolver indexes files for resolution; paths are the keys of files,
// sorted (callers sort them once for the other passes they make too).
func newResolver(ws *workspace.Workspace, files map[string]*parse.FileRecord, paths []string) *resolver {
	r := &resolver{
		ws: ws, files: files,
		dirs: map[string]bool{}, goMods: map[string]string{}, goPkgs: map[string]*goPackage{},
		goDirPkg: map[string]string{}, jsPkgs: map[string]*parse.FileRecord{}, tsconfigs: map[string]*parse.FileRecord{},
		owners: graph.NewOwners(ws),
	}
	for _, f := range files {
		dir := path.Dir(f.Path)
		for d := dir; ; d = path.Dir(d) {
			if r.dirs[d] {
				break
			}
			r.dirs[d] = true
			if d == "." {
				break
			}
		}
		switch f.Lang {
		case parse.LangGoMod:
			if f.Module != "" {
				r.goMods[dir] = f.Module
			}
		case parse.LangPackageJSON:
			if f.Module != "" {
				if old, dup := r.jsPkgs[f.Module]; !dup || f.Path < old.Path {
					r.jsPkgs[f.Module] = f
				}
			}
		case parse.LangTSConfig:
			r.tsconfigs[f.Path] = f
		}
	}
	if len(r.tsconfigs) > 0 {
		r.nearestTS = nearestConfigs(r.dirs, r.tsconfigs)
	}
	for _, p := range paths {
		f := files[p]
		if f.Lang != parse.LangGo {
			continue
		}
		dir := path.Dir(f.Path)
		ip := r.goImportPath(dir)
		pkg := r.goPkgs[ip]
		if pkg == nil {
			pkg = &goPackage{importPath: ip, dir: dir}
			r.goPkgs[ip] = pkg
			r.goDirPkg[dir] = ip
		}
		pkg.files = append(pkg.files, f.Path)
	}
	for ip := range r.goPkgs {
		r.renamePackage(ip)
	}
	return r
}

// renamePackage names a Go package after the package clause of its first
// file (by path), preferring a file that is not an external test.
func (r *resolver) renamePackage(ip string) {
	pkg := r.goPkgs[ip]
	if pkg == nil {
		return
	}
	pkg.name = ""
	for _, fp := range pkg.files {
		name := r.files[fp].Package
		if pkg.name == "" || (strings.HasSuffix(pkg.name, "_test") && !strings.HasSuffix(name, "_test")) {
			pkg.name = name
		}
	}
}

// goImportPath is the import path of the Go package in dir: the nearest
// go.mod's module path joined with the rest of the directory, or the
// directory itself outside any module.
func (r *resolver) goImportPath(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if mod, ok := r.goMods[d]; ok {
			if d == dir {
				return mod
			}
			rest := dir
			if d != "." {
				rest = strings.TrimPrefix(dir, d+"/")
			}
			return mod + "/" + rest
		}
		if d == "." {
			return dir
		}
	}
}

func (r *resolver) owner(p string) *workspace.Project { return r.owners.Of(p) }

// projectOfDir is the project owning the directory dir.
func (r *resolver) projectOfDir(dir string) string {
	if o := r.owners.OfDir(dir); o != nil {
		return o.Name
	}
	return ""
}

func (r *resolver) projectOf(p string) string {
	if o := r.owner(p); o != nil {
		return o.Name
	}
	return ""
}

// Assemble builds the default knowledge graph: what targets.yaml declares,
// plus docs, files, packages, imports, doc links and mentions, and the
// project dependencies the imports imply. It holds no symbols.
func Assemble(ws *workspace.Workspace, files map[string]*parse.FileRecord) *graph.Graph {
	return newAssembly(ws, files).graph
}

// contribution is what one file (or one Go package) adds to the default
// graph. Its nodes and edges belong to it alone; external packages and
// inferred project dependencies may be shared by many, so they are counted.
type contribution struct {
	file      string // the file it is of ("" for a package)
	nodes     []graph.Node
	edges     []graph.Edge
	externals []string
	inferred  [][2]string
}

// assembly is the default graph with the contribution of every file and
// package that made it, so that an edit can replace one file's part
// without rebuilding the rest (see update).
type assembly struct {
	ws       *workspace.Workspace
	r        *resolver
	targets  map[string]bool
	byFile   map[string]contribution
	byPkg    map[string]contribution
	extCount map[string]int
	infCount map[[2]string]int
	// via names the manifest of each inferred dependency one names (the
	// edge's via); impVia the first importing file (by path) of each
	// dependency imports imply, the via of those no manifest names.
	via, impVia map[[2]string]string
	// graph is the base, laid out; pending the changes since it; cur the
	// version both make, with nodes and edges its counts.
	graph        *graph.Graph
	pending      delta
	cur          *Version
	nodes, edges int
}

func newAssembly(ws *workspace.Workspace, files map[string]*parse.FileRecord) *assembly {
	// In path order, the contributions come out nearly sorted, which
	// the sorts at the end of a cold index are much faster on.
	paths := sortedPaths(files)
	a := &assembly{
		ws: ws, r: newResolver(ws, files, paths), targets: map[string]bool{},
		byFile: make(map[string]contribution, len(files)), byPkg: map[string]contribution{},
		extCount: map[string]int{}, infCount: map[[2]string]int{}, via: map[[2]string]string{}, impVia: map[[2]string]string{},
	}
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			a.targets[p.Name+":"+t.Name] = true
		}
	}
	// Contributions only read the resolver, so they are computed on every
	// core; collecting them stays serial.
	recs := make([]*parse.FileRecord, len(paths))
	for i, p := range paths {
		recs[i] = files[p]
	}
	contribs := make([]contribution, len(recs))
	parallel.For(len(recs), func(i int) { contribs[i] = a.fileContribution(recs[i]) })
	for i, f := range recs {
		a.byFile[f.Path] = contribs[i]
	}
	for ip := range a.r.goPkgs {
		a.byPkg[ip] = a.packageContribution(ip)
	}
	// The graph is sized once: growing it by append copied the edges a
	// dozen times, most of the serial part of a cold index.
	g := graph.Declared(ws)
	nodes, edges := 0, 0 // to add to the declared ones
	tally := func(c contribution) {
		nodes += len(c.nodes)
		edges += len(c.edges)
		for _, x := range c.externals {
			a.extCount[x]++
		}
		for _, x := range c.inferred {
			a.infCount[x]++
			if a.impVia[x] == "" { // in path order: the first is the least
				a.impVia[x] = c.file
			}
		}
	}
	for _, c := range contribs {
		tally(c)
	}
	for _, c := range a.byPkg {
		tally(c)
	}
	// The dependencies the projects' manifests name (a package.json
	// dependency on a sibling, a go.mod replace) are inferred edges too,
	// counted once for the life of this workspace, so that no edit of the
	// code's imports ever takes them away.
	for _, p := range ws.Projects {
		for _, d := range p.Inferred {
			pair := [2]string{p.Name, d.Project}
			a.infCount[pair]++
			a.via[pair] = d.From
		}
	}
	g.Nodes = slices.Grow(g.Nodes, nodes+len(a.extCount))
	g.Edges = slices.Grow(g.Edges, edges+len(a.infCount))
	for _, c := range contribs {
		g.Nodes = append(g.Nodes, c.nodes...)
		g.Edges = append(g.Edges, c.edges...)
	}
	for _, c := range a.byPkg {
		g.Nodes = append(g.Nodes, c.nodes...)
		g.Edges = append(g.Edges, c.edges...)
	}
	for id := range a.extCount {
		if !a.isWorkspacePackage(id) {
			g.Nodes = append(g.Nodes, externalNode(id))
		}
	}
	for pair := range a.infCount {
		g.Edges = append(g.Edges, a.inferredEdge(pair))
	}
	g.Sort()
	a.graph, a.cur = g, flat(g)
	a.nodes, a.edges = len(g.Nodes), len(g.Edges)
	return a
}

// isWorkspacePackage reports whether a package id names a workspace Go
// package (whose own node wins over an external one of the same name).
func (a *assembly) isWorkspacePackage(id string) bool {
	_, ok := a.r.goPkgs[strings.TrimPrefix(id, "package:")]
	return ok
}

// update replaces the parts of the changed files in the graph and returns
// the new version (the current one when nothing changed), leaving the old
// one untouched (a snapshot may be serving it). It handles edits of files
// the assembly already holds; a change to the set of files, or to a go.mod
// or package.json, changes how other files resolve and needs a new
// assembly (ok false).
func (a *assembly) update(files map[string]*parse.FileRecord, changed []*parse.FileRecord) (*Version, bool) {
	for _, f := range changed {
		if _, known := a.byFile[f.Path]; !known || f.Lang == parse.LangGoMod || f.Lang == parse.LangPackageJSON || f.Lang == parse.LangTSConfig {
			return nil, false
		}
	}
	a.r.files = files
	var d delta
	pkgs := map[string]bool{}
	for _, f := range changed {
		old := a.byFile[f.Path]
		next := a.fileContribution(f)
		a.byFile[f.Path] = next
		a.replace(&d, old, next)
		if f.Lang == parse.LangGo {
			pkgs[a.r.goDirPkg[path.Dir(f.Path)]] = true
		}
	}
	for ip := range pkgs {
		a.r.renamePackage(ip)
		old := a.byPkg[ip]
		next := a.packageContribution(ip)
		a.byPkg[ip] = next
		a.replace(&d, old, next)
	}
	if a.pend(&d) {
		a.cur = a.version()
	}
	return a.cur, true
}

// replace records the difference between two contributions, keeping the
// counts of shared nodes and edges.
func (a *assembly) replace(d *delta, old, next contribution) {
	d.nodes(old.nodes, next.nodes)
	d.edges(old.edges, next.edges)
	// The new counts go up before the old go down, so that a shared node
	// or edge both contributions hold (an import the edit kept) never
	// touches zero and reads as dropped and added again.
	for _, x := range next.externals {
		if a.extCount[x]++; a.extCount[x] == 1 && !a.isWorkspacePackage(x) {
			d.nodes(nil, []graph.Node{externalNode(x)})
		}
	}
	for _, x := range old.externals {
		if a.extCount[x]--; a.extCount[x] == 0 {
			delete(a.extCount, x)
			if !a.isWorkspacePackage(x) {
				d.nodes([]graph.Node{externalNode(x)}, nil)
			}
		}
	}
	for _, x := range next.inferred {
		if a.infCount[x]++; a.infCount[x] == 1 {
			a.impVia[x] = next.file
			d.edges(nil, []graph.Edge{a.inferredEdge(x)})
		} else if next.file < a.impVia[x] {
			a.moveVia(d, x, next.file)
		}
	}
	for _, x := range old.inferred {
		if a.infCount[x]--; a.infCount[x] == 0 {
			d.edges([]graph.Edge{a.inferredEdge(x)}, nil)
			delete(a.infCount, x)
			delete(a.impVia, x)
		} else if old.file == a.impVia[x] && !slices.Contains(next.inferred, x) {
			// The first importing file no longer imports it: the next one
			// is the via now.
			first := ""
			for f, c := range a.byFile {
				if (first == "" || f < first) && slices.Contains(c.inferred, x) {
					first = f
				}
			}
			a.moveVia(d, x, first)
		}
	}
}

// moveVia makes file the importing file of the dependency pair, which
// changes its edge unless a manifest names it.
func (a *assembly) moveVia(d *delta, pair [2]string, file string) {
	old := a.inferredEdge(pair)
	a.impVia[pair] = file
	if next := a.inferredEdge(pair); next != old {
		d.edges([]graph.Edge{old}, []graph.Edge{next})
	}
}

// delta is a set of node and edge replacements to apply to a sorted graph.
type delta struct {
	dropNodes map[string]bool
	addNodes  map[string]graph.Node
	edgeDelta map[graph.Edge]int
}

func (d *delta) nodes(old, next []graph.Node) {
	if d.dropNodes == nil {
		d.dropNodes, d.addNodes = map[string]bool{}, map[string]graph.Node{}
	}
	same := map[string]bool{}
	for i := range old {
		for j := range next {
			if graph.NodeEqual(&old[i], &next[j]) {
				same[old[i].ID] = true // unchanged: neither dropped nor added
			}
		}
	}
	for _, n := range old {
		if !same[n.ID] {
			d.dropNodes[n.ID] = true
			delete(d.addNodes, n.ID)
		}
	}
	for _, n := range next {
		if !same[n.ID] {
			d.addNodes[n.ID] = n
		}
	}
}

func (d *delta) edges(old, next []graph.Edge) {
	if d.edgeDelta == nil {
		d.edgeDelta = map[graph.Edge]int{}
	}
	for _, e := range old {
		d.edgeDelta[e]--
	}
	for _, e := range next {
		d.edgeDelta[e]++
	}
}

// apply splices the delta into g's sorted slices: each change is found by
// binary search and the runs between changes are copied whole, so the cost
// is a copy of the graph, not a sort or a hash per node. A slice with no
// change is shared with g, which is never modified.
func (d *delta) apply(g *graph.Graph) *graph.Graph {
	var dropN []string
	for id := range d.dropNodes {
		if _, readded := d.addNodes[id]; !readded {
			dropN = append(dropN, id)
		}
	}
	var addN []graph.Node
	for id, n := range d.addNodes {
		if d.dropNodes[id] {
			dropN = append(dropN, id) // replaced: drop the old, insert the new
		}
		addN = append(addN, n)
	}
	slices.Sort(dropN)
	slices.SortFunc(addN, func(x, y graph.Node) int { return strings.Compare(x.ID, y.ID) })
	nodes := g.Nodes
	if len(dropN) > 0 || len(addN) > 0 {
		nodes = splice(g.Nodes, dropN, addN,
			func(n graph.Node, id string) int { return strings.Compare(n.ID, id) },
			func(n, m graph.Node) int { return strings.Compare(n.ID, m.ID) })
	}

	var dropE, addE []graph.Edge
	for e, n := range d.edgeDelta {
		switch {
		case n > 0:
			addE = append(addE, e)
		case n < 0:
			dropE = append(dropE, e)
		}
	}
	slices.SortFunc(dropE, graph.CompareEdges)
	slices.SortFunc(addE, graph.CompareEdges)
	edges := g.Edges
	if len(dropE) > 0 || len(addE) > 0 {
		edges = splice(g.Edges, dropE, addE, graph.CompareEdges, graph.CompareEdges)
	}
	return &graph.Graph{Nodes: nodes, Edges: edges}
}

// splice returns a new sorted slice: old without the elements drop names
// and with add inserted. drop and add are sorted; an element both dropped
// and added is replaced.
func splice[T, K any](old []T, drop []K, add []T, cmpKey func(T, K) int, cmp func(T, T) int) []T {
	out := make([]T, 0, len(old)-len(drop)+len(add))
	i, di, ai := 0, 0, 0
	for di < len(drop) || ai < len(add) {
		if di < len(drop) && (ai >= len(add) || cmpKey(add[ai], drop[di]) >= 0) {
			k := i + sort.Search(len(old)-i, func(x int) bool { return cmpKey(old[i+x], drop[di]) >= 0 })
			out = append(out, old[i:k]...)
			i = k
			if i < len(old) && cmpKey(old[i], drop[di]) == 0 {
				i++
			}
			di++
			continue
		}
		k := i + sort.Search(len(old)-i, func(x int) bool { return cmp(old[i+x], add[ai]) >= 0 })
		out = append(out, old[i:k]...)
		i = k
		out = append(out, add[ai])
		ai++
	}
	return append(out, old[i:]...)
}

func externalNode(id string) graph.Node {
	return graph.Node{ID: id, Kind: graph.KindPackage, Name: strings.TrimPrefix(id, "package:"), External: true}
}

// inferredEdge is the depends_inferred edge of a pair of projects, with
// the manifest that names it when one does, else its first importing file.
// The manifests' pairs are counted for the life of the assembly, so their
// edges never change their via.
func (a *assembly) inferredEdge(pair [2]string) graph.Edge {
	via := a.via[pair]
	if via == "" {
		via = a.impVia[pair]
	}
	return graph.Edge{Source: graph.ProjectID(pair[0]), Target: graph.ProjectID(pair[1]), Kind: graph.EdgeDependsInferred, Via: via}
}

// fileContribution is one file's part of the default graph: its node, its
// project's ownership, and its links, mentions or imports.
func (a *assembly) fileContribution(f *parse.FileRecord) contribution {
	r := a.r
	c := contribution{file: f.Path}
	project := r.projectOf(f.Path)
	switch f.Lang {
	case parse.LangMarkdown:
		id := graph.DocID(f.Path)
		name := f.Title
		if name == "" {
			name = path.Base(f.Path)
		}
		c.nodes = append(c.nodes, graph.Node{ID: id, Kind: graph.KindDoc, Name: name, Path: f.Path, Project: project, Title: f.Title, Diagnostic: f.Diag})
		if project != "" {
			c.edges = append(c.edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
		}
		for _, l := range f.Links {
			if to := r.link(f.Path, l); to != "" {
				c.edges = append(c.edges, graph.Edge{Source: id, Target: to, Kind: graph.EdgeLinks})
			}
		}
		for _, m := range f.Mentions {
			if a.targets[m] {
				pr, t, _ := strings.Cut(m, ":")
				c.edges = append(c.edges, graph.Edge{Source: id, Target: graph.TargetID(pr, t), Kind: graph.EdgeMentions})
			}
		}
	case parse.LangGo, parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
		id := FileID(f.Path)
		c.nodes = append(c.nodes, graph.Node{ID: id, Kind: graph.KindFile, Name: path.Base(f.Path), Path: f.Path, Project: project, Language: f.Lang, Diagnostic: f.Diag})
		if project != "" {
			c.edges = append(c.edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
		}
		for _, imp := range f.Imports {
			to, toPath, external := r.importTarget(f, imp)
			if to == "" {
				continue
			}
			c.edges = append(c.edges, graph.Edge{Source: id, Target: to, Kind: graph.EdgeImports})
			if external {
				c.externals = append(c.externals, to)
			} else if b := r.projectOf(toPath); project != "" && b != "" && project != b {
				c.inferred = append(c.inferred, [2]string{project, b})
			}
		}
	}
	c.edges = uniqueEdges(c.edges)
	c.externals = uniqueStrings(c.externals)
	c.inferred = uniquePairs(c.inferred)
	return c
}

// packageContribution is a Go package's node, its project's ownership and
// its files.
func (a *assembly) packageContribution(ip string) contribution {
	pkg := a.r.goPkgs[ip]
	id := PackageID(ip)
	project := a.r.projectOfDir(pkg.dir)
	c := contribution{nodes: []graph.Node{{ID: id, Kind: graph.KindPackage, Name: pkg.name, Path: pkg.dir, Project: project, Language: parse.LangGo}}}
	if project != "" {
		c.edges = append(c.edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
	}
	for _, fp := range pkg.files {
		c.edges = append(c.edges, graph.Edge{Source: id, Target: FileID(fp), Kind: graph.EdgeContains})
	}
	return c
}

func uniqueEdges(es []graph.Edge) []graph.Edge {
	if len(es) < 2 {
		return es
	}
	seen := make(map[graph.Edge]bool, len(es))
	out := es[:0]
	for _, e := range es {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

func uniqueStrings(ss []string) []string {
	if len(ss) < 2 {
		return ss
	}
	slices.Sort(ss)
	return slices.Compact(ss)
}

func uniquePairs(ps [][2]string) [][2]string {
	if len(ps) < 2 {
		return ps
	}
	slices.SortFunc(ps, func(x, y [2]string) int {
		if c := strings.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return strings.Compare(x[1], y[1])
	})
	return slices.Compact(ps)
}

// InferredDeps returns the depends_inferred edges of g.
func InferredDeps(g *graph.Graph) []graph.Edge {
	var out []graph.Edge
	for _, e := range g.Edges {
		if e.Kind == graph.EdgeDependsInferred {
			out = append(out, e)
		}
	}
	return out
}

// importTarget resolves one import of f to a node id: a workspace file, a
// workspace Go package, or an external package. toPath is a path inside the
// workspace target (for inferring project dependencies).
func (r *resolver) importTarget(f *parse.FileRecord, imp parse.Import) (id, toPath string, external bool) {
	switch f.Lang {
	case parse.LangGo:
		if pkg, ok := r.goPkgs[imp.Path]; ok {
			return PackageID(imp.Path), pkg.dir + "/x", false
		}
		if imp.Path == "C" {
			return "", "", false
		}
		return PackageID(imp.Path), "", true
	case parse.LangTypeScript, parse.LangJavaScript:
		if t := r.jsImport(f.Path, imp.Path); t != "" {
			return FileID(t), t, false
		}
		if strings.HasPrefix(imp.Path, ".") || strings.HasPrefix(imp.Path, "/") {
			return "", "", false // a relative import of something not indexed
		}
		return PackageID(npmRoot(imp.Path)), "", true
	case parse.LangPython:
		if t := r.pyImport(f.Path, imp.Path); t != "" {
			return FileID(t), t, false
		}
		if strings.HasPrefix(imp.Path, ".") {
			return "", "", false
		}
		root, _, _ := strings.Cut(imp.Path, ".")
		return PackageID(root), "", true
	}
	return "", "", false
}

var jsExtensions = []string{"", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts"}

// jsImport resolves a JS/TS specifier: relative to the importing file; by
// the compilerOptions.paths of the tsconfig nearest to the file (or one it
// extends), as TypeScript does before node_modules; or a workspace package
// by its package.json name, through its exports, else its entry (main,
// module, types), else its index. A package's entry names its build
// output, which is seldom indexed: the source beside it stands for it.
func (r *resolver) jsImport(from, spec string) string {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		return r.jsFile(path.Join(path.Dir(from), spec))
	}
	if t := r.tsPaths(from, spec); t != "" {
		return t
	}
	name := npmRoot(spec)
	pkg, ok := r.jsPkgs[name]
	if !ok {
		return ""
	}
	dir := path.Dir(pkg.Path)
	sub := "."
	if len(spec) > len(name) {
		sub = "./" + spec[len(name)+1:]
	}
	for _, to := range mapped(pkg.Maps, sub) {
		if t := r.jsSource(dir, to); t != "" {
			return t
		}
	}
	switch {
	case sub != ".":
		return r.jsSource(dir, sub)
	case pkg.Entry != "":
		if t := r.jsSource(dir, pkg.Entry); t != "" {
			return t
		}
	}
	if t := r.jsFile(path.Join(dir, "index")); t != "" {
		return t
	}
	return r.jsFile(path.Join(dir, "src", "index"))
}

// buildDirs are where a package's build output usually goes; its source is
// in src/ (or at the package's top).
var buildDirs = map[string]bool{"dist": true, "lib": true, "build": true, "out": true, "esm": true, "cjs": true}

// jsSource is the indexed file a path inside a package directory names:
// the file itself, else, for a build output (dist/x.js), its source
// (src/x.ts, or x.ts).
func (r *resolver) jsSource(dir, rel string) string {
	base := path.Join(dir, rel)
	if base == ".." || strings.HasPrefix(base, "../") {
		return ""
	}
	if t := r.jsFile(base); t != "" {
		return t
	}
	first, rest, ok := strings.Cut(path.Clean(rel), "/")
	if !ok || !buildDirs[first] {
		return ""
	}
	for _, src := range []string{"src", "."} {
		if t := r.jsFile(path.Join(dir, src, rest)); t != "" {
			return t
		}
	}
	return ""
}

// jsOutputExts are the extensions of compiled output that name a source
// file without them ("./x.js" names "./x.ts").
var jsOutputExts = []string{".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx"}

// jsFile is the indexed JS/TS file a path without or with an extension
// names, or the index of the directory it names.
func (r *resolver) jsFile(base string) string {
	if base == ".." || strings.HasPrefix(base, "../") {
		return ""
	}
	cands := []string{base}
	for _, ext := range jsOutputExts {
		if t, ok := strings.CutSuffix(base, ext); ok {
			cands = append(cands, t)
			break
		}
	}
	for _, cand := range cands {
		for _, ext := range jsExtensions {
			if f, ok := r.files[cand+ext]; ok && (f.Lang == parse.LangTypeScript || f.Lang == parse.LangJavaScript) {
				return f.Path
			}
		}
		for _, ext := range jsExtensions[1:] {
			if f, ok := r.files[cand+"/index"+ext]; ok {
				return f.Path
			}
		}
	}
	return ""
}

// tsPaths resolves a bare specifier by the paths of the tsconfig nearest
// to the importing file, or of the first config it extends that has any.
// As in tsc, they are relative to the nearest baseUrl of the chain (a
// project's own baseUrl moves the paths it inherits), else to the config
// that declares them; and with a baseUrl, a specifier no path matches may
// name a file under it.
func (r *resolver) tsPaths(from, spec string) string {
	var withMaps *parse.FileRecord
	baseURL := ""
	cfg := r.tsconfigOf(from)
	for range maxExtends {
		if cfg == nil || withMaps != nil && baseURL != "" {
			break
		}
		if withMaps == nil && len(cfg.Maps) > 0 {
			withMaps = cfg
		}
		if baseURL == "" {
			baseURL = cfg.BaseURL
		}
		cfg = r.tsconfigs[cfg.Extends]
	}
	if withMaps != nil {
		// The parser joined each path to the declaring config's own base.
		own, base := withMaps.BaseURL, baseURL
		if own == "" {
			own = path.Dir(withMaps.Path)
		}
		if base == "" {
			base = path.Dir(withMaps.Path)
		}
		for _, to := range mapped(withMaps.Maps, spec) {
			if base != own {
				to = rebase(to, own, base)
			}
			if t := r.jsFile(to); t != "" {
				return t
			}
		}
	}
	if baseURL != "" {
		// A bare specifier names a file under baseUrl before a package.
		return r.jsFile(path.Join(baseURL, spec))
	}
	return ""
}

// rebase moves p, a path under (or beside) the directory from, to the same
// place relative to the directory to; "" when that leaves the workspace.
func rebase(p, from, to string) string {
	rel, err := filepath.Rel(from, p)
	if err != nil {
		return ""
	}
	j := path.Join(to, filepath.ToSlash(rel))
	if j == ".." || strings.HasPrefix(j, "../") {
		return ""
	}
	return j
}

// maxExtends bounds a chain of tsconfig extends (a cycle included).
const maxExtends = 8

// tsconfigOf is the tsconfig.json (or jsconfig.json) nearest above a file.
func (r *resolver) tsconfigOf(file string) *parse.FileRecord {
	if len(r.tsconfigs) == 0 {
		return nil
	}
	dir := path.Dir(file)
	if f, ok := r.nearestTS[dir]; ok || r.dirs[dir] {
		return f
	}
	for ; ; dir = path.Dir(dir) {
		if f := ownConfig(dir, r.tsconfigs); f != nil {
			return f
		}
		if dir == "." || dir == "/" {
			return nil
		}
	}
}

// ownConfig is the tsconfig.json, else jsconfig.json, of dir.
func ownConfig(dir string, configs map[string]*parse.FileRecord) *parse.FileRecord {
	if f := configs[path.Join(dir, "tsconfig.json")]; f != nil {
		return f
	}
	return configs[path.Join(dir, "jsconfig.json")]
}

// nearestConfigs maps each directory to the config nearest above it (or
// in it), once for every import of the assembly: parents first, each
// directory's own config, else its parent's.
func nearestConfigs(dirs map[string]bool, configs map[string]*parse.FileRecord) map[string]*parse.FileRecord {
	sorted := slices.Sorted(maps.Keys(dirs))
	// A parent sorts before its children, except "." before names that
	// start with a byte below '.'.
	slices.SortStableFunc(sorted, func(a, b string) int { return cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")) })
	out := map[string]*parse.FileRecord{}
	if f := ownConfig(".", configs); f != nil {
		out["."] = f
	}
	for _, d := range sorted {
		if d == "." {
			continue
		}
		f := ownConfig(d, configs)
		if f == nil {
			f = out[path.Dir(d)]
		}
		if f != nil {
			out[d] = f
		}
	}
	return out
}

// mapped is what a name maps to by maps ("from\tto" pairs, see
// parse.FileRecord.Maps), in order: by the exact from, else by the pattern
// with the longest prefix before its "*", the part the "*" matched put in
// place of the target's "*".
func mapped(maps []string, name string) []string {
	best, bestLen, star := "", -1, ""
	for _, m := range maps {
		from, _, _ := strings.Cut(m, "\t")
		if from == name {
			best, bestLen, star = from, len(from)+1, ""
			break
		}
		prefix, suffix, wild := strings.Cut(from, "*")
		if !wild || len(prefix) <= bestLen || len(name) < len(prefix)+len(suffix) ||
			!strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
			continue
		}
		best, bestLen, star = from, len(prefix), name[len(prefix):len(name)-len(suffix)]
	}
	if bestLen < 0 {
		return nil
	}
	var out []string
	for _, m := range maps {
		if from, to, _ := strings.Cut(m, "\t"); from == best {
			out = append(out, strings.Replace(to, "*", star, 1))
		}
	}
	return out
}

// npmRoot is the package part of a bare specifier: "@scope/name" or "name".
func npmRoot(spec string) string {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// pyImport resolves a Python module: relative imports from the importing
// file's package, absolute ones from the file's project root, then the
// workspace root.
func (r *resolver) pyImport(from, module string) string {
	var bases []string
	mod := module
	if strings.HasPrefix(module, ".") {
		dots := len(module) - len(strings.TrimLeft(module, "."))
		dir := path.Dir(from)
		for i := 1; i < dots; i++ {
			dir = path.Dir(dir)
		}
		bases = []string{dir}
		mod = module[dots:]
	} else {
		if o := r.owner(from); o != nil && o.Path != "." {
			bases = append(bases, o.Path)
		}
		bases = append(bases, ".")
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, b := range bases {
		p := path.Join(b, rel)
		if rel == "" {
			p = b
		}
		for _, cand := range []string{p + ".py", p + "/__init__.py"} {
			if f, ok := r.files[cand]; ok && f.Lang == parse.LangPython {
				return f.Path
			}
		}
	}
	return ""
}

// link resolves a doc's link to a node: a doc, a file, or a directory (the
// project rooted there, else the Go package there, else its README).
func (r *resolver) link(from, target string) string {
	var p string
	if strings.HasPrefix(target, "/") {
		p = path.Clean(strings.TrimPrefix(target, "/"))
	} else {
		p = path.Join(path.Dir(from), target)
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	if f, ok := r.files[p]; ok {
		switch f.Lang {
		case parse.LangMarkdown:
			return graph.DocID(p)
		case parse.LangGo, parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
			return FileID(p)
		}
		return ""
	}
	if !r.dirs[p] {
		return ""
	}
	for _, pr := range r.ws.Projects {
		if pr.Path == p {
			return graph.ProjectID(pr.Name)
		}
	}
	if ip, ok := r.goDirPkg[p]; ok {
		return PackageID(ip)
	}
	for _, readme := range []string{"README.md", "readme.md", "index.md"} {
		if f, ok := r.files[path.Join(p, readme)]; ok && f.Lang == parse.LangMarkdown {
			return graph.DocID(f.Path)
		}
	}
	return ""
}

func sortedPaths(files map[string]*parse.FileRecord) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
