package index

import (
	"path"
	"slices"
	"strings"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/workspace"
)

// AssembleSymbols builds the symbol part of the graph from records whose
// Symbols and Refs are present (loaded from the shards): symbol nodes, file
// -> symbol ownership, and references from the symbols (or files) that use
// a name to the symbol it resolves to, within a Go package by name, across
// packages through the file's imports, and for JS/TS/Python through named
// imports.
func AssembleSymbols(ws *workspace.Workspace, files map[string]*FileRecord) *graph.Graph {
	r := newResolver(ws, files)
	paths := sortedPaths(files)
	// Symbols by Go package import path, then by name; methods also by
	// their bare method name.
	byPkg := map[string]map[string]string{}
	methods := map[string]map[string][]string{}
	for _, p := range paths {
		f := files[p]
		if f.Lang != LangGo || len(f.Symbols) == 0 {
			continue
		}
		ip := r.goDirPkg[path.Dir(f.Path)]
		table := byPkg[ip]
		if table == nil {
			table = map[string]string{}
			byPkg[ip] = table
		}
		for _, s := range f.Symbols {
			id := SymbolID(f.Path, s.Name)
			if _, dup := table[s.Name]; !dup {
				table[s.Name] = id
			}
			if s.Kind == "method" {
				if methods[ip] == nil {
					methods[ip] = map[string][]string{}
				}
				_, m, _ := strings.Cut(s.Name, ".")
				methods[ip][m] = append(methods[ip][m], id)
			}
		}
	}
	// Each file's part only reads the tables above, so it is built and
	// sorted on every core. Ids start with the file's path, so the parts,
	// taken in path order, are the sorted graph already: file-sourced
	// edges of every file, then symbol-sourced ones.
	parts := make([]symbolPart, len(paths))
	Parallel(len(paths), func(i int) { parts[i] = r.symbolPart(files[paths[i]], files, byPkg, methods) })
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

// symbolPart is one file's share of the symbol graph, each list sorted
// and without duplicates.
type symbolPart struct {
	nodes     []graph.Node
	fileEdges []graph.Edge // from the file node
	symEdges  []graph.Edge // from its symbols
}

func (r *resolver) symbolPart(f *FileRecord, files map[string]*FileRecord, byPkg map[string]map[string]string, methods map[string]map[string][]string) symbolPart {
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
	for _, e := range r.fileReferences(f, files, byPkg, methods) {
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
func (r *resolver) fileReferences(f *FileRecord, files map[string]*FileRecord, byPkg map[string]map[string]string, methods map[string]map[string][]string) []graph.Edge {
	var out []graph.Edge
	switch f.Lang {
	case LangGo:
		ownPkg := r.goDirPkg[path.Dir(f.Path)]
		own := byPkg[ownPkg]
		locals := r.goLocalNames(f)
		for _, ref := range f.Refs {
			var to string
			if ref.Qual == "" {
				to = own[ref.Name]
			} else if ip, ok := locals[ref.Qual]; ok {
				to = byPkg[ip][ref.Name]
			} else {
				to = uniqueMethod(ref.Name, ownPkg, locals, methods)
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
	case LangTypeScript, LangJavaScript, LangPython:
		for _, imp := range f.Imports {
			if len(imp.Names) == 0 {
				continue
			}
			var target string
			if f.Lang == LangPython {
				target = r.pyImport(f.Path, imp.Path)
			} else {
				target = r.jsImport(f.Path, imp.Path)
			}
			t := files[target]
			if t == nil {
				continue
			}
			for _, name := range imp.Names {
				if name == "default" && t.Default != "" {
					name = t.Default
				}
				for _, s := range t.Symbols {
					if s.Name == name {
						out = append(out, graph.Edge{Source: FileID(f.Path), Target: SymbolID(t.Path, s.Name), Kind: graph.EdgeReferences})
						break
					}
				}
			}
		}
	}
	return out
}

// uniqueMethod resolves a member use without types: to the method of that
// name if exactly one type, in the file's own package or a workspace package
// it imports, has one. Ambiguous names stay unresolved rather than guessed.
func uniqueMethod(name, own string, imports map[string]string, methods map[string]map[string][]string) string {
	found := ""
	n := 0
	consider := func(ip string) {
		for _, id := range methods[ip][name] {
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
func (r *resolver) goLocalNames(f *FileRecord) map[string]string {
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
