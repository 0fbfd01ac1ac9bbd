package index

import (
	"path"
	"sort"
	"strings"

	"github.com/corehq/core/internal/graph"
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
	files    map[string]*FileRecord
	dirs     map[string]bool        // every directory holding an indexed file
	goMods   map[string]string      // module dir -> module path
	goPkgs   map[string]*goPackage  // import path -> package
	goDirPkg map[string]string      // dir -> import path
	jsPkgs   map[string]*FileRecord // package.json name -> record
	owners   *graph.Owners
}

type goPackage struct {
	importPath string
	dir        string
	name       string
	files      []string
}

func newResolver(ws *workspace.Workspace, files map[string]*FileRecord) *resolver {
	r := &resolver{
		ws: ws, files: files,
		dirs: map[string]bool{}, goMods: map[string]string{}, goPkgs: map[string]*goPackage{},
		goDirPkg: map[string]string{}, jsPkgs: map[string]*FileRecord{}, owners: graph.NewOwners(ws),
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
		case LangGoMod:
			if f.Module != "" {
				r.goMods[dir] = f.Module
			}
		case LangPackageJSON:
			if f.Module != "" {
				if old, dup := r.jsPkgs[f.Module]; !dup || f.Path < old.Path {
					r.jsPkgs[f.Module] = f
				}
			}
		}
	}
	for _, p := range sortedPaths(files) {
		f := files[p]
		if f.Lang != LangGo {
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
		if pkg.name == "" || (strings.HasSuffix(pkg.name, "_test") && !strings.HasSuffix(f.Package, "_test")) {
			pkg.name = f.Package
		}
		pkg.files = append(pkg.files, f.Path)
	}
	return r
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
func Assemble(ws *workspace.Workspace, files map[string]*FileRecord) *graph.Graph {
	g := graph.Declared(ws)
	r := newResolver(ws, files)
	targets := map[string]bool{}
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			targets[p.Name+":"+t.Name] = true
		}
	}
	inferred := map[[2]string]bool{}
	infer := func(from, toPath string) {
		a, b := r.projectOf(from), r.projectOf(toPath)
		if a != "" && b != "" && a != b {
			inferred[[2]string{a, b}] = true
		}
	}
	externals := map[string]bool{}

	for _, p := range sortedPaths(files) {
		f := files[p]
		project := r.projectOf(f.Path)
		switch f.Lang {
		case LangMarkdown:
			id := graph.DocID(f.Path)
			name := f.Title
			if name == "" {
				name = path.Base(f.Path)
			}
			g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: graph.KindDoc, Name: name, Path: f.Path, Project: project, Title: f.Title, Diagnostic: f.Diag})
			if project != "" {
				g.Edges = append(g.Edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
			}
			for _, l := range f.Links {
				if to := r.link(f.Path, l); to != "" {
					g.Edges = append(g.Edges, graph.Edge{Source: id, Target: to, Kind: graph.EdgeLinks})
				}
			}
			for _, m := range f.Mentions {
				if targets[m] {
					pr, t, _ := strings.Cut(m, ":")
					g.Edges = append(g.Edges, graph.Edge{Source: id, Target: graph.TargetID(pr, t), Kind: graph.EdgeMentions})
				}
			}
		case LangGo, LangTypeScript, LangJavaScript, LangPython:
			id := FileID(f.Path)
			g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: graph.KindFile, Name: path.Base(f.Path), Path: f.Path, Project: project, Language: f.Lang, Diagnostic: f.Diag})
			if project != "" {
				g.Edges = append(g.Edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
			}
			for _, imp := range f.Imports {
				to, toPath, external := r.importTarget(f, imp)
				if to == "" {
					continue
				}
				g.Edges = append(g.Edges, graph.Edge{Source: id, Target: to, Kind: graph.EdgeImports})
				if external {
					externals[to] = true
				} else {
					infer(f.Path, toPath)
				}
			}
		}
	}
	for _, ip := range sortedKeys(r.goPkgs) {
		pkg := r.goPkgs[ip]
		id := PackageID(ip)
		project := r.projectOfDir(pkg.dir)
		g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: graph.KindPackage, Name: pkg.name, Path: pkg.dir, Project: project, Language: LangGo})
		if project != "" {
			g.Edges = append(g.Edges, graph.Edge{Source: graph.ProjectID(project), Target: id, Kind: graph.EdgeOwns})
		}
		for _, fp := range pkg.files {
			g.Edges = append(g.Edges, graph.Edge{Source: id, Target: FileID(fp), Kind: graph.EdgeContains})
		}
	}
	for id := range externals {
		name := strings.TrimPrefix(id, "package:")
		g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: graph.KindPackage, Name: name, External: true})
	}
	for pair := range inferred {
		g.Edges = append(g.Edges, graph.Edge{Source: graph.ProjectID(pair[0]), Target: graph.ProjectID(pair[1]), Kind: graph.EdgeDependsInferred})
	}
	g.Sort()
	return g
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
func (r *resolver) importTarget(f *FileRecord, imp Import) (id, toPath string, external bool) {
	switch f.Lang {
	case LangGo:
		if pkg, ok := r.goPkgs[imp.Path]; ok {
			return PackageID(imp.Path), pkg.dir + "/x", false
		}
		if imp.Path == "C" {
			return "", "", false
		}
		return PackageID(imp.Path), "", true
	case LangTypeScript, LangJavaScript:
		if t := r.jsImport(f.Path, imp.Path); t != "" {
			return FileID(t), t, false
		}
		if strings.HasPrefix(imp.Path, ".") || strings.HasPrefix(imp.Path, "/") {
			return "", "", false // a relative import of something not indexed
		}
		return PackageID(npmRoot(imp.Path)), "", true
	case LangPython:
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

// jsImport resolves a JS/TS specifier: relative to the importing file, or a
// workspace package by its package.json name (its entry, or index).
func (r *resolver) jsImport(from, spec string) string {
	var base string
	switch {
	case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == "..":
		base = path.Join(path.Dir(from), spec)
	default:
		name, sub := npmRoot(spec), ""
		if len(spec) > len(name) {
			sub = spec[len(name)+1:]
		}
		pkg, ok := r.jsPkgs[name]
		if !ok {
			return ""
		}
		dir := path.Dir(pkg.Path)
		switch {
		case sub != "":
			base = path.Join(dir, sub)
		case pkg.Entry != "":
			base = path.Join(dir, pkg.Entry)
		default:
			base = path.Join(dir, "index")
		}
	}
	if strings.HasPrefix(base, "../") || base == ".." {
		return ""
	}
	// TypeScript lets "./x.js" name "./x.ts".
	trimmed := strings.TrimSuffix(strings.TrimSuffix(base, ".js"), ".mjs")
	for _, cand := range []string{base, trimmed} {
		for _, ext := range jsExtensions {
			if f, ok := r.files[cand+ext]; ok && (f.Lang == LangTypeScript || f.Lang == LangJavaScript) {
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
			if f, ok := r.files[cand]; ok && f.Lang == LangPython {
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
		case LangMarkdown:
			return graph.DocID(p)
		case LangGo, LangTypeScript, LangJavaScript, LangPython:
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
		if f, ok := r.files[path.Join(p, readme)]; ok && f.Lang == LangMarkdown {
			return graph.DocID(f.Path)
		}
	}
	return ""
}

func sortedPaths(files map[string]*FileRecord) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
