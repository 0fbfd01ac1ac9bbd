package parse

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// parseGo indexes one Go file without type checking: its package clause,
// imports, top-level declarations and the names each declaration uses. A
// file that does not parse keeps what go/parser recovered, plus a
// diagnostic. Most files take the fast path (gofast.go); the rest, and
// every file with an error, go through go/parser.
func parseGo(path string, src []byte) FileRecord {
	rec, why := parseGoFastWhy(path, src)
	if why == "" {
		countFastPath(LangGo, FastPath)
		return rec
	}
	rec = parseGoParser(path, src)
	if rec.Diag != "" {
		why = SyntaxErrorReason
	}
	countFastPath(LangGo, why)
	return rec
}

// parseGoParser is parseGo by way of go/parser's syntax tree.
func parseGoParser(path string, src []byte) FileRecord {
	rec := FileRecord{Path: path, Lang: LangGo}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		rec.Diag = firstLine(err.Error())
	}
	if f == nil {
		return rec
	}
	if f.Name != nil {
		rec.Package = f.Name.Name
	}
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		imp := Import{Path: p, Line: fset.Position(is.Pos()).Line}
		if is.Name != nil {
			imp.Alias = is.Name.Name
		}
		rec.Imports = append(rec.Imports, imp)
	}
	refs := &refSet{}
	rc := newRefCollector(fset, f, refs)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			kind := "func"
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if recv := ReceiverType(d.Recv.List[0].Type); recv != "" {
					name, kind = recv+"."+name, "method"
				}
			}
			pos := fset.Position(d.Name.Pos())
			if name != "_" {
				rec.Symbols = append(rec.Symbols, Symbol{Name: name, Kind: kind, Line: pos.Line, Col: pos.Column})
			}
			rc.collect(d, name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					pos := fset.Position(s.Name.Pos())
					rec.Symbols = append(rec.Symbols, Symbol{Name: s.Name.Name, Kind: "type", Line: pos.Line, Col: pos.Column})
					rc.collect(s, s.Name.Name)
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					from := ""
					for _, n := range s.Names {
						if n.Name == "_" {
							continue
						}
						pos := fset.Position(n.Pos())
						rec.Symbols = append(rec.Symbols, Symbol{Name: n.Name, Kind: kind, Line: pos.Line, Col: pos.Column})
						if from == "" {
							from = n.Name
						}
					}
					if s.Type != nil {
						rc.collect(s.Type, from)
					}
					for _, v := range s.Values {
						rc.collect(v, from)
					}
				}
			}
		}
	}
	rec.Refs = refs.list()
	return rec
}

// ReceiverType names the type of a method receiver: T, *T, T[P], *T[P]
// (the review's symbol spans name methods the same way).
func ReceiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// refCollector gathers the names each declaration of one file uses, with
// its scratch space kept from one declaration to the next.
type refCollector struct {
	tf    *token.File
	refs  *refSet
	skip  map[*ast.Ident]bool
	bound map[string]bool
	cands []*ast.Ident
}

func newRefCollector(fset *token.FileSet, f *ast.File, refs *refSet) *refCollector {
	return &refCollector{tf: fset.File(f.Pos()), refs: refs, skip: map[*ast.Ident]bool{}, bound: map[string]bool{}}
}

// collect records the names n uses, on behalf of the declaration from:
// `pkg.Name` selections (the qualifier may be an import) and bare
// identifiers (which may name a declaration of the same package). Field
// names, selected members and declared names are not uses, and neither is
// a bare name n binds itself (parameters, results, receivers, local
// variables, types and labels): it names the local, not a declaration of
// the package (this also keeps most unresolvable uses out of the shards).
// One walk finds both; the bound names filter the candidates after it.
func (c *refCollector) collect(n ast.Node, from string) {
	clear(c.skip)
	clear(c.bound)
	c.cands = c.cands[:0]
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, id := range f.Names {
				c.bound[id.Name] = true
			}
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			c.skip[x.Sel] = true
			if id, ok := x.X.(*ast.Ident); ok {
				c.skip[id] = true
				c.refs.add(Ref{From: from, Qual: id.Name, Name: x.Sel.Name, Line: c.tf.Line(x.Sel.Pos())})
			} else {
				// A member of a value (s.store.Get, f().Close): resolved,
				// without types, to the one method of that name in reach.
				c.refs.add(Ref{From: from, Qual: MemberQual, Name: x.Sel.Name, Line: c.tf.Line(x.Sel.Pos())})
			}
		case *ast.Field:
			for _, id := range x.Names {
				c.skip[id] = true
			}
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok {
				c.skip[id] = true // usually a struct field name
			}
		case *ast.FuncDecl:
			c.skip[x.Name] = true
			fields(x.Recv)
		case *ast.TypeSpec:
			fields(x.TypeParams) // type List[T any] struct{ next *List[T] } uses no T of the package
		case *ast.FuncType:
			fields(x.TypeParams)
			fields(x.Params)
			fields(x.Results)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						c.skip[id] = true
						c.bound[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						c.bound[id.Name] = true
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := x.Decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					switch v := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range v.Names {
							c.bound[id.Name] = true
						}
					case *ast.TypeSpec:
						c.bound[v.Name.Name] = true
					}
				}
			}
		case *ast.LabeledStmt:
			c.bound[x.Label.Name] = true
		case *ast.Ident:
			if !c.skip[x] && x.Name != "_" && x.Name != from && !isPredeclared(x.Name) {
				c.cands = append(c.cands, x)
			}
		}
		return true
	})
	for _, id := range c.cands {
		if !c.bound[id.Name] {
			c.refs.add(Ref{From: from, Name: id.Name, Line: c.tf.Line(id.Pos())})
		}
	}
}

// refSet collects uses and keeps the first of each (from, qual, name):
// appended as found, then sorted and compacted once, which is far cheaper
// than a map keyed by three strings on the indexing hot path. The array
// it appends to comes from refArrays and goes back there in list: every
// use of every identifier passes through it, and a fresh array per file
// was a third of what a cold pass allocated (BENCHMARKS.md, issue 36).
type refSet struct {
	refs []Ref
	buf  *[]Ref // from refArrays, nil until the first add
}

var refArrays = sync.Pool{New: func() any { return new([]Ref) }}

func (s *refSet) add(r Ref) {
	if s.buf == nil {
		s.buf = refArrays.Get().(*[]Ref)
		s.refs = (*s.buf)[:0]
	}
	s.refs = append(s.refs, r)
}

// list is the kept refs, sorted, in an array of their own size (the
// record lives until the pass assembles the graph); the collecting array
// goes back to the pool.
func (s *refSet) list() []Ref {
	if len(s.refs) == 0 {
		return nil
	}
	refs := s.refs
	// Sorted by index: a swap moves 4 bytes, not a Ref's three strings
	// (each with a write barrier while the collector runs), and the
	// order is total (a use's line last), so no stable sort is needed.
	// Moving the Refs themselves was a seventh of a cold pass's CPU.
	// The uses of one declaration come in one run, so the runs are put
	// in the order of their From, and only each From's own uses are
	// sorted: many small sorts, none comparing From.
	idx := refOrders.Get().(*[]int32)
	order := (*idx)[:0]
	var runs [][2]int32
	lo := 0
	for i := 1; i <= len(refs); i++ {
		if i == len(refs) || refs[i].From != refs[lo].From {
			runs = append(runs, [2]int32{int32(lo), int32(i)})
			lo = i
		}
	}
	slices.SortStableFunc(runs, func(a, b [2]int32) int { return compareInterned(refs[a[0]].From, refs[b[0]].From) })
	for _, r := range runs {
		for i := r[0]; i < r[1]; i++ {
			order = append(order, i)
		}
	}
	for g := 0; g < len(order); {
		h := g + 1
		for h < len(order) && refs[order[h]].From == refs[order[g]].From {
			h++
		}
		slices.SortFunc(order[g:h], func(i, j int32) int {
			a, b := &refs[i], &refs[j]
			if c := compareInterned(a.Qual, b.Qual); c != 0 {
				return c
			}
			if c := compareInterned(a.Name, b.Name); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
		g = h
	}
	n := 0
	for k, i := range order {
		if k > 0 {
			r, prev := &refs[i], &refs[order[n-1]]
			if r.From == prev.From && r.Qual == prev.Qual && r.Name == prev.Name {
				continue
			}
		}
		order[n] = i
		n++
	}
	kept := make([]Ref, n)
	for k, i := range order[:n] {
		kept[k] = refs[i]
	}
	if cap(order) <= 1<<16 {
		*idx = order[:0]
		refOrders.Put(idx)
	}
	s.release()
	return kept
}

var refOrders = sync.Pool{New: func() any { return new([]int32) }}

// compareInterned is strings.Compare, at once for the same string: a
// parse interns its names, so equal ones mostly share their bytes.
func compareInterned(a, b string) int {
	if len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) {
		return 0
	}
	return strings.Compare(a, b)
}

// release gives the collecting array back to the pool, unless one huge
// file grew it past what the pool should hold on to.
func (s *refSet) release() {
	if s.buf != nil && cap(s.refs) <= 1<<16 {
		clear(s.refs) // the pooled array must not keep the strings alive
		*s.buf = s.refs[:0]
		refArrays.Put(s.buf)
	}
	s.buf, s.refs = nil, nil
}

// isPredeclared reports whether name is one of Go's predeclared
// identifiers. A switch, not a map: it runs for every identifier indexed.
func isPredeclared(name string) bool {
	switch name {
	case "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8", "int16", "int32", "int64",
		"rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "comparable", "true", "false", "iota", "nil",
		"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover":
		return true
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
