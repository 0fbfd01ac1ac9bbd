package index

import (
	"iter"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/workspace"
)

// AssembleSymbols builds the symbol part of the graph from records whose
// Symbols and Refs are present (loaded from the shards): symbol nodes, file
// -> symbol ownership, and references from the symbols (or files) that use
// a name to the symbol it resolves to, within a Go package by name, across
// packages through the file's imports, and for JS/TS/Python through named
// imports.
func AssembleSymbols(ws *workspace.Workspace, files map[string]*parse.FileRecord) *graph.Graph {
	t := newSymbolTables(ws, files)
	return t.assemble(t.paths)
}

// symbolTables hold what resolving the uses of any one file takes: the
// resolver and every Go symbol by package and name (methods also by their
// bare method name). With them, each file's part of the symbol graph is
// built on its own.
type symbolTables struct {
	files map[string]*parse.FileRecord
	r     *resolver

	// Each Go package's symbols, built on first use: a query of a few
	// names needs a few packages, not all of them.
	pkgMu sync.Mutex
	pkgs  map[string]*pkgSymbols

	paths []string // of files, sorted

	// For near: by name the numbers (in paths) of the files that declare
	// it and that may use it. The first call starts building them in the
	// background and scans the records instead until they are ready.
	lookupOnce sync.Once
	lookupDone chan struct{}
	declaredIn map[string][]int32
	usedIn     map[string][]int32
	// renames, built on first use: by name, the other names files offer
	// a symbol of that name under: "default" for a file's default export,
	// b for a JS export {a as b} from.
	renames func() map[string][]string
}

func newSymbolTables(ws *workspace.Workspace, files map[string]*parse.FileRecord) *symbolTables {
	paths := sortedPaths(files)
	t := &symbolTables{files: files, paths: paths, r: newResolver(ws, files, paths), pkgs: map[string]*pkgSymbols{}}
	t.renames = sync.OnceValue(t.buildRenames)
	return t
}

func (t *symbolTables) buildRenames() map[string][]string {
	out := map[string][]string{}
	add := func(name, as string) {
		if !slices.Contains(out[name], as) {
			out[name] = append(out[name], as)
		}
	}
	for _, p := range t.paths {
		f := t.files[p]
		if f.Default != "" {
			add(f.Default, "default")
		}
		for _, imp := range f.Imports {
			for i, as := range imp.As {
				if as != "" {
					add(imp.Names[i], as)
				}
			}
		}
	}
	return out
}

// pkgSymbols are one Go package's symbols by name (the first declaration
// by path wins) and its methods by their bare name.
type pkgSymbols struct {
	names   map[string]string
	methods map[string][]string
}

// pkg returns the symbols of the Go package with import path ip (the
// package's files are those whose directory the resolver maps to ip). It
// is safe for concurrent use.
func (t *symbolTables) pkg(ip string) *pkgSymbols {
	t.pkgMu.Lock()
	defer t.pkgMu.Unlock()
	if p, ok := t.pkgs[ip]; ok {
		return p
	}
	p := &pkgSymbols{names: map[string]string{}, methods: map[string][]string{}}
	candidates := t.paths // a directory the resolver has no package for
	if ip != "" {
		candidates = nil
		if g := t.r.goPkgs[ip]; g != nil {
			candidates = g.files
		}
	}
	for _, fp := range candidates {
		f := t.files[fp]
		if f == nil || f.Lang != parse.LangGo || len(f.Symbols) == 0 || t.r.goDirPkg[path.Dir(fp)] != ip {
			continue
		}
		for _, s := range f.Symbols {
			id := SymbolID(f.Path, s.Name)
			if _, dup := p.names[s.Name]; !dup {
				p.names[s.Name] = id
			}
			if s.Kind == "method" {
				_, m, _ := strings.Cut(s.Name, ".")
				p.methods[m] = append(p.methods[m], id)
			}
		}
	}
	t.pkgs[ip] = p
	return p
}

func (t *symbolTables) part(p string) symbolPart {
	return t.r.symbolPart(t.files[p], t.files, t.pkg)
}

// assemble builds the parts of the files at paths (sorted) and joins them.
func (t *symbolTables) assemble(paths []string) *graph.Graph {
	// Each file's part only reads the tables, so it is built and sorted on
	// every core. Ids start with the file's path, so the parts, taken in
	// path order, are the sorted graph already: file-sourced edges of
	// every file, then symbol-sourced ones.
	parts := make([]symbolPart, len(paths))
	parallel.For(len(paths), func(i int) { parts[i] = t.part(paths[i]) })
	var nn, ne int
	for i := range parts {
		nn += len(parts[i].nodes)
		ne += len(parts[i].fileEdges) + len(parts[i].symEdges)
	}
	g := &graph.Graph{Nodes: make([]graph.Node, 0, nn), Edges: make([]graph.Edge, 0, ne)}
	for i := range parts {
		g.Nodes = append(g.Nodes, parts[i].nodes...)
		g.Edges = append(g.Edges, parts[i].fileEdges...)
	}
	for i := range parts {
		g.Edges = append(g.Edges, parts[i].symEdges...)
	}
	if !g.Sorted() {
		// A path with a byte below '#' after a common prefix ("a.go" and
		// "a.go!") orders its symbol ids unlike its path.
		g.Sort()
	}
	return g
}

// near assembles the part of the symbol graph that a query seeded on
// exactly these symbol names, with a depth of at most 1, can reach: the
// parts of every file that declares such a symbol, that may use one, or
// that declares a symbol one of them uses. Such a query's result over the
// part equals its result over the whole symbol graph, because
//   - every seed is in it (the files declaring the names);
//   - every edge into a seed is (an edge lives in the part of its
//     source's file, and every file whose uses could resolve to a seed is
//     taken: Go files with a use of the name, or of a method's bare name,
//     and JS/TS/Python files importing the name, a name a re-export
//     offers it under, or a default that resolves to it);
//   - every edge out of a seed is, with its target node (the files of the
//     symbols the seeds use);
//   - so every node of the result is, and so is every edge among them,
//     which lives in the part of a file of the result.
//
// It costs a pass over the records (lookups by name, once the maps the
// first call starts building are ready) and a few files' parts, instead
// of the half a million nodes of a large workspace's whole symbol graph.
func (t *symbolTables) near(names []string) *graph.Graph {
	first := false
	t.lookupOnce.Do(func() {
		t.lookupDone = make(chan struct{})
		first = true
	})
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var take, seeds map[int32]bool
	select {
	case <-t.lookupDone:
		take, seeds = t.lookup(names)
	default:
		take, seeds = t.scan(names)
	}
	if first {
		// Started after the first scan, which it would only slow down.
		go func() {
			defer close(t.lookupDone)
			t.buildLookup()
		}()
	}
	paths := make([]string, 0, len(take))
	for i := range take {
		paths = append(paths, t.paths[i])
	}
	for i := range seeds {
		p := t.paths[i]
		prefix := SymbolID(p, "")
		for _, e := range t.part(p).symEdges {
			if name, ok := strings.CutPrefix(e.Source, prefix); ok && want[name] {
				if target, ok := t.symbolFile(e.Target); ok {
					paths = append(paths, target)
				}
			}
		}
	}
	slices.Sort(paths)
	return t.assemble(slices.Compact(paths))
}

// lookup finds the files near takes for names, and the seeds among them
// (the files declaring a name), in the maps buildLookup made.
func (t *symbolTables) lookup(names []string) (take, seeds map[int32]bool) {
	take, seeds = map[int32]bool{}, map[int32]bool{}
	for _, n := range names {
		for _, i := range t.declaredIn[n] {
			take[i], seeds[i] = true, true
		}
	}
	for _, n := range t.usedNames(names) {
		for _, i := range t.usedIn[n] {
			take[i] = true
		}
	}
	return take, seeds
}

// usedNames are the names whose uses may resolve to a symbol of names:
// the names, a method's bare name (a member use of it), and the names
// re-exports offer them under, renamed (export {a as b} from), also
// after a default export's (export {default as b} from). A use of a
// default resolves to its declaration's name (uses), so "default" itself
// is not one.
func (t *symbolTables) usedNames(names []string) []string {
	used := slices.Clone(names)
	for _, n := range names {
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			used = append(used, n[i+1:])
		}
	}
	renames := t.renames()
	seen := map[string]bool{}
	queue := slices.Clone(names)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, as := range renames[n] {
			if seen[as] || slices.Contains(names, as) {
				continue
			}
			seen[as] = true
			queue = append(queue, as)
			if as != "default" {
				used = append(used, as)
			}
		}
	}
	return used
}

// scan is lookup without the maps: one pass over every record, comparing
// each name it declares or uses with the few names asked for. That costs
// a few milliseconds on a large workspace, against a few hundred for
// building the maps, which only pay off over many queries.
func (t *symbolTables) scan(names []string) (take, seeds map[int32]bool) {
	take, seeds = map[int32]bool{}, map[int32]bool{}
	used := t.usedNames(names)
	for i, p := range t.paths {
		f, i := t.files[p], int32(i)
		for _, s := range f.Symbols {
			if slices.Contains(names, s.Name) {
				take[i], seeds[i] = true, true
			}
		}
		if take[i] {
			continue
		}
		for n := range t.uses(f) {
			if slices.Contains(used, n) {
				take[i] = true
				break
			}
		}
	}
	return take, seeds
}

// buildLookup indexes the records by the names near looks for: the files
// declaring each symbol name, and the files that may use each name (Go
// files by the names of their uses, JS/TS/Python files by the names they
// import, a default import by the name of the declaration it resolves to).
func (t *symbolTables) buildLookup() {
	note := func(m map[string][]int32, name string, i int32) {
		if l := m[name]; len(l) == 0 || l[len(l)-1] != i {
			m[name] = append(l, i)
		}
	}
	// Two maps of up to a million names each at the large benchmark's
	// size: built side by side, each sized once.
	var syms, uses int
	for _, f := range t.files {
		syms += len(f.Symbols)
		uses += len(f.Refs)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		t.declaredIn = make(map[string][]int32, syms)
		for i, p := range t.paths {
			for _, s := range t.files[p].Symbols {
				note(t.declaredIn, s.Name, int32(i))
			}
		}
	})
	t.usedIn = make(map[string][]int32, uses/2)
	for i, p := range t.paths {
		for n := range t.uses(t.files[p]) {
			note(t.usedIn, n, int32(i))
		}
	}
	wg.Wait()
}

// uses yields the names f may use, as its references resolve them: a Go
// file's uses by name, a JS/TS/Python file's imported names, and for a
// default import the name of the declaration it resolves to.
func (t *symbolTables) uses(f *parse.FileRecord) iter.Seq[string] {
	return func(yield func(string) bool) {
		switch f.Lang {
		case parse.LangGo:
			for _, r := range f.Refs {
				if !yield(r.Name) {
					return
				}
			}
		case parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
			for _, imp := range f.Imports {
				for _, n := range imp.Names {
					if n == parse.ReexportsAll {
						continue
					}
					if !yield(n) {
						return
					}
					if n == "default" { // as fileReferences resolves it
						if target := t.files[t.r.importedFile(f, imp)]; target != nil {
							if _, d := t.r.declaring(t.files, target, n); d != "" && d != n && !yield(d) {
								return
							}
						}
					}
				}
			}
		}
	}
}

// symbolFile is the indexed file a symbol id names. A '#' may be in the
// path as well as in the name (a TS private member, "C.#x"), so the path
// is the first prefix before a '#' that is a file.
func (t *symbolTables) symbolFile(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "symbol:")
	if !ok {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] == '#' && t.files[rest[:i]] != nil {
			return rest[:i], true
		}
	}
	return "", false
}

// symbolPart is one file's share of the symbol graph, each list sorted
// and without duplicates.
type symbolPart struct {
	nodes     []graph.Node
	fileEdges []graph.Edge // from the file node
	symEdges  []graph.Edge // from its symbols
}

func (r *resolver) symbolPart(f *parse.FileRecord, files map[string]*parse.FileRecord, pkgs func(ip string) *pkgSymbols) symbolPart {
	var p symbolPart
	if len(f.Symbols) > 0 {
		project := r.projectOf(f.Path)
		p.nodes = make([]graph.Node, 0, len(f.Symbols))
		p.fileEdges = make([]graph.Edge, 0, len(f.Symbols))
		for _, s := range f.Symbols {
			id := SymbolID(f.Path, s.Name)
			p.nodes = append(p.nodes, graph.Node{ID: id, Kind: graph.KindSymbol, Name: s.Name, Path: f.Path, Project: project, Language: f.Lang, SymbolKind: s.Kind, Line: s.Line})
			p.fileEdges = append(p.fileEdges, graph.Edge{Source: FileID(f.Path), Target: id, Kind: graph.EdgeOwns})
		}
	}
	fileID := FileID(f.Path)
	for _, e := range r.fileReferences(f, files, pkgs) {
		if e.Source == fileID {
			p.fileEdges = append(p.fileEdges, e)
		} else {
			p.symEdges = append(p.symEdges, e)
		}
	}
	part := graph.Graph{Nodes: p.nodes, Edges: p.fileEdges}
	part.Sort()
	p.nodes, p.fileEdges = part.Nodes, part.Edges
	slices.SortFunc(p.symEdges, graph.CompareEdges)
	p.symEdges = slices.Compact(p.symEdges)
	return p
}

// fileReferences resolves the uses one file makes to reference edges.
func (r *resolver) fileReferences(f *parse.FileRecord, files map[string]*parse.FileRecord, pkgs func(ip string) *pkgSymbols) []graph.Edge {
	var out []graph.Edge
	switch f.Lang {
	case parse.LangGo:
		ownPkg := r.goDirPkg[path.Dir(f.Path)]
		locals := r.goLocalNames(f)
		// The file's packages, each asked for once (pkgs takes a lock).
		mine := make(map[string]*pkgSymbols, len(locals)+1)
		get := func(ip string) *pkgSymbols {
			p, ok := mine[ip]
			if !ok {
				p = pkgs(ip)
				mine[ip] = p
			}
			return p
		}
		own := get(ownPkg).names
		for _, ref := range f.Refs {
			var to string
			if ref.Qual == "" {
				to = own[ref.Name]
			} else if ip, ok := locals[ref.Qual]; ok {
				to = get(ip).names[ref.Name]
			} else {
				to = uniqueMethod(ref.Name, ownPkg, locals, get)
			}
			if to == "" {
				continue
			}
			from := FileID(f.Path)
			if ref.From != "" {
				from = SymbolID(f.Path, ref.From)
			}
			if from != to {
				out = append(out, graph.Edge{Source: from, Target: to, Kind: graph.EdgeReferences})
			}
		}
	case parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
		for _, imp := range f.Imports {
			if len(imp.Names) == 0 {
				continue
			}
			t := files[r.importedFile(f, imp)]
			if t == nil {
				continue
			}
			for _, name := range imp.Names {
				if name == parse.ReexportsAll {
					continue
				}
				if decl, declared := r.declaring(files, t, name); decl != "" {
					out = append(out, graph.Edge{Source: FileID(f.Path), Target: SymbolID(decl, declared), Kind: graph.EdgeReferences})
				}
			}
		}
	}
	return out
}

// maxReexports bounds how many files declaring follows from the one
// imported: a package's index that re-exports its modules is one step.
const maxReexports = 16

// declaring is the file that declares name as t offers it, and the name
// it declares it under: t itself, else a file t re-exports it from (export
// {name} from, export {x as name} from, export * from, a Python package's
// from .m import name), breadth first; "" for none. A default export is
// the declaration it names.
func (r *resolver) declaring(files map[string]*parse.FileRecord, t *parse.FileRecord, name string) (file, declared string) {
	type offer struct {
		f    *parse.FileRecord
		name string
	}
	queue := []offer{{t, name}}
	seen := map[string]bool{t.Path: true}
	for len(queue) > 0 && len(seen) <= maxReexports {
		f, name := queue[0].f, queue[0].name
		queue = queue[1:]
		if name == "default" && f.Default != "" {
			name = f.Default
		}
		for _, s := range f.Symbols {
			if s.Name == name {
				return f.Path, name
			}
		}
		for _, imp := range f.Imports {
			from := offered(imp, name)
			if from == "" {
				continue
			}
			if next := files[r.importedFile(f, imp)]; next != nil && !seen[next.Path] {
				seen[next.Path] = true
				queue = append(queue, offer{next, from})
			}
		}
	}
	return "", ""
}

// offered is the name an import takes from its source that its file
// offers as name ("" for none): the name itself, the one an export {x as
// name} renames, or any name through export * from.
func offered(imp parse.Import, name string) string {
	for i, n := range imp.Names {
		switch {
		case n == parse.ReexportsAll:
			return name
		case i < len(imp.As) && imp.As[i] != "":
			if imp.As[i] == name {
				return n
			}
		case n == name:
			return n
		}
	}
	return ""
}

// importedFile is the path of the workspace file a JS/TS/Python import
// names ("" when it names none).
func (r *resolver) importedFile(f *parse.FileRecord, imp parse.Import) string {
	if f.Lang == parse.LangPython {
		return r.pyImport(f.Path, imp.Path)
	}
	return r.jsImport(f.Path, imp.Path)
}

// uniqueMethod resolves a member use without types: to the method of that
// name if exactly one type, in the file's own package or a workspace package
// it imports, has one. Ambiguous names stay unresolved rather than guessed.
func uniqueMethod(name, own string, imports map[string]string, pkgs func(ip string) *pkgSymbols) string {
	found := ""
	n := 0
	consider := func(ip string) {
		for _, id := range pkgs(ip).methods[name] {
			if id != found {
				found = id
				n++
			}
		}
	}
	consider(own)
	for _, ip := range imports {
		if ip != own {
			consider(ip)
		}
	}
	if n == 1 {
		return found
	}
	return ""
}

// goLocalNames maps the names a Go file refers to its workspace imports by
// (the alias, or the imported package's own name) to their import paths.
func (r *resolver) goLocalNames(f *parse.FileRecord) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		pkg, ok := r.goPkgs[imp.Path]
		if !ok {
			continue
		}
		name := imp.Alias
		if name == "" || name == "." || name == "_" {
			if name != "" {
				continue
			}
			name = strings.TrimSuffix(pkg.name, "_test")
		}
		out[name] = imp.Path
	}
	return out
}
