package review

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"strings"

	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/index/parse"
)

// MaxReferrers bounds the files listed for one changed symbol; the answer
// says how many there were (SymbolReach.FilesTotal).
const MaxReferrers = 50

// MaxReachFile bounds the files parsed for the declarations a change
// touches: a larger one is almost always generated or minified (a bundle
// of 200 KB takes longer to parse than a hundred source files) and gets no
// symbol reach.
const MaxReachFile = 128 << 10

// Symbols answers which declarations the hunks of the changed files touch
// and who references each.
type Symbols interface {
	Reach(ctx context.Context, files []diff.File) (map[string][]SymbolReach, error)
}

// IndexSymbols answers from the knowledge graph's index. The declarations
// come from parsing each changed file as it is now (the index may be a
// debounce behind the editor), with the index's own parsers; who
// references them comes from the index's symbol graph.
type IndexSymbols struct {
	Root  string
	Index *index.Indexer
	// Owner names a file's project ("" for none).
	Owner func(path string) string
	// Cache, when set, keeps declarations and references between calls.
	Cache *Cache
}

// span is a declaration's lines.
type span struct {
	sym        parse.Symbol
	start, end int
}

// Reach returns, per changed file path, the symbols its hunks touch.
func (s IndexSymbols) Reach(ctx context.Context, files []diff.File) (map[string][]SymbolReach, error) {
	// Each file is read and parsed on its own, so the files are shared
	// out among the CPUs.
	found := make([][]span, len(files))
	diff.EachFile(ctx, files, func(f diff.File) bool {
		return f.Kind != diff.KindDeleted && f.Kind != diff.KindSubmodule && !f.Binary && !f.Truncated && len(f.Hunks) > 0
	}, func(i int) { found[i] = s.touched(files[i]) })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	touched := map[string][]span{}
	var names []string
	for i, sps := range found {
		for _, sp := range sps {
			touched[files[i].Path] = append(touched[files[i].Path], sp)
			names = append(names, sp.sym.Name)
		}
	}
	out := map[string][]SymbolReach{}
	if len(touched) == 0 {
		return out, nil
	}
	refs, err := s.referrers(names)
	if err != nil {
		return nil, err
	}
	for p, sps := range touched {
		for _, sp := range sps {
			id := index.SymbolID(p, sp.sym.Name)
			r := SymbolReach{ID: id, Name: sp.sym.Name, Kind: sp.sym.Kind, Line: sp.start, EndLine: sp.end, Files: []string{}, Projects: []string{}}
			from := refs[id]
			r.FilesTotal = len(from)
			projects := map[string]bool{}
			for _, f := range from {
				if s.Owner != nil {
					if o := s.Owner(f); o != "" {
						projects[o] = true
					}
				}
			}
			r.Files = from[:min(len(from), MaxReferrers)]
			for pr := range projects {
				r.Projects = append(r.Projects, pr)
			}
			sort.Strings(r.Projects)
			out[p] = append(out[p], r)
		}
	}
	return out, nil
}

// referrers maps each symbol id declared under these names to the files
// that reference it (sorted; the declaring file itself left out).
func (s IndexSymbols) referrers(names []string) (map[string][]string, error) {
	if s.Index == nil {
		return map[string][]string{}, nil
	}
	slices.Sort(names)
	names = slices.Compact(names)
	version := s.Index.SymbolsVersion()
	if r, ok := s.Cache.refsOf(version, names); ok {
		return r, nil
	}
	g, ok, err := s.Index.SymbolsNear(names)
	if err == nil && !ok {
		g, err = s.Index.Symbols()
	}
	if err != nil {
		return nil, err
	}
	pathOf := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		if n.Kind == graph.KindSymbol || n.Kind == graph.KindFile {
			pathOf[n.ID] = n.Path
		}
	}
	seen := map[string]map[string]bool{}
	for _, e := range g.Edges {
		if e.Kind != graph.EdgeReferences || !strings.HasPrefix(e.Target, "symbol:") {
			continue
		}
		from, ok := strings.CutPrefix(e.Source, "file:")
		if !ok {
			from = pathOf[e.Source]
		}
		if from == "" || strings.HasPrefix(e.Target, "symbol:"+from+"#") {
			continue
		}
		if seen[e.Target] == nil {
			seen[e.Target] = map[string]bool{}
		}
		seen[e.Target][from] = true
	}
	out := make(map[string][]string, len(seen))
	for id, files := range seen {
		list := make([]string, 0, len(files))
		for f := range files {
			list = append(list, f)
		}
		sort.Strings(list)
		out[id] = list
	}
	s.Cache.keepRefs(version, names, out)
	return out, nil
}

// touched is the declarations of f that its hunks touch.
func (s IndexSymbols) touched(f diff.File) []span {
	all, ok := s.Cache.spansOf(f.Path, f.Hash)
	if !ok {
		all = s.declared(f)
		s.Cache.keepSpans(f.Path, f.Hash, all)
	}
	var out []span
	for _, sp := range all {
		if overlaps(sp, f.Hunks) {
			out = append(out, sp)
		}
	}
	return out
}

// declared is every declaration of f as it is in the working tree.
func (s IndexSymbols) declared(f diff.File) []span {
	lang := index.LangOf(f.Path)
	switch lang {
	case parse.LangGo, parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
	default:
		return nil
	}
	src, err := readBounded(s.Root, f.Path)
	if err != nil || len(src) > MaxReachFile {
		return nil // gone since the diff, or too large to be worth it
	}
	return spans(lang, f.Path, src)
}

// overlaps reports whether any hunk's new lines fall in the span; a hunk
// that only deletes touches the line it deleted after (and the next one).
func overlaps(sp span, hunks []diff.Hunk) bool {
	for _, h := range hunks {
		from, to := h.NewStart, h.NewStart+h.NewLines-1
		if h.NewLines == 0 {
			from, to = h.NewStart, h.NewStart+1
		}
		if from <= sp.end && to >= sp.start {
			return true
		}
	}
	return false
}

// spans are the declarations of a file with their lines. Go's come from
// one go/parser pass, named and kinded as the index's reference parser
// names them (Type.Method; func, method, type, var, const), with their
// exact extent; for the other languages the index's parser finds them and
// a declaration runs to the line before the next one (or the end of the
// file), which is close for top-level declarations and generous for the
// last one.
func spans(lang, p string, src []byte) []span {
	if lang == parse.LangGo {
		if out, ok := goSpans(src); ok {
			return out
		}
	}
	rec := parse.File(lang, p, src)
	syms := slices.Clone(rec.Symbols)
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].Line < syms[j].Line })
	lines := strings.Count(string(src), "\n") + 1
	out := make([]span, 0, len(syms))
	for i, s := range syms {
		end := lines
		if i+1 < len(syms) && syms[i+1].Line > s.Line {
			end = syms[i+1].Line - 1
		}
		out = append(out, span{sym: s, start: s.Line, end: max(end, s.Line)})
	}
	return out
}

// goSpans are a Go file's declarations; false when it does not parse.
func goSpans(src []byte) ([]span, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil || err != nil {
		return nil, false
	}
	var out []span
	add := func(name, kind string, at, end token.Pos) {
		if name == "_" {
			return
		}
		pos := fset.Position(at)
		out = append(out, span{sym: parse.Symbol{Name: name, Kind: kind, Line: pos.Line, Col: pos.Column}, start: pos.Line, end: fset.Position(end).Line})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, kind := d.Name.Name, "func"
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if r := parse.ReceiverType(d.Recv.List[0].Type); r != "" {
					name, kind = r+"."+name, "method"
				}
			}
			add(name, kind, d.Name.Pos(), d.End())
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					add(sp.Name.Name, "type", sp.Name.Pos(), sp.End())
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range sp.Names {
						add(n.Name, kind, n.Pos(), sp.End())
					}
				}
			}
		}
	}
	return out, true
}

// readBounded reads the regular file rel (slash-separated) under root, of
// at most diff.TruncateAt bytes, inside the workspace (fsx.ReadUnder): a
// crafted id or session path never reads a file elsewhere.
func readBounded(root, rel string) ([]byte, error) {
	return fsx.ReadUnder(root, rel, diff.TruncateAt)
}
