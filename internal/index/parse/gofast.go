package parse

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// The fast Go path: a recognizer of Go's grammar that builds no syntax
// tree. It walks a file once, the way go/parser would, and records what
// parseGo records from go/parser's tree: the package name, imports,
// top-level symbols, and the names each declaration uses, with the same
// rules as refCollector. go/parser spends most of its time allocating the
// tree, which the index throws away.
//
// It accepts only what it is sure go/parser accepts, and gives up on
// anything else: any syntax error, a type parameter list it cannot tell from an array length, the rarer
// literal forms, and constructs whose reading needs more look-ahead than
// it keeps. parseGo then parses the file with go/parser, which also writes
// the diagnostic, so a file's record never depends on which path made it.
// TestGoFastAgreesWithGoParser and FuzzGoFast hold the two paths equal.

// parseGoFast returns the record of a Go file, or ok=false if the fast
// path gave up.
func parseGoFast(path string, src []byte) (rec FileRecord, ok bool) {
	rec, why := parseGoFastWhy(path, src)
	return rec, why == ""
}

// parseGoFastWhy is parseGoFast that says where it gave up: the function
// of the fast path that did (goGiveUpSite), "" if it did not.
func parseGoFastWhy(path string, src []byte) (rec FileRecord, why string) {
	p := goFastPool.Get().(*goFast)
	defer func() {
		if v := recover(); v != nil {
			if _, mine := v.(goFastGiveUp); !mine {
				panic(v)
			}
			why = goGiveUpSite()
		}
		p.reset()
		goFastPool.Put(p)
	}()
	p.src = src
	p.s.init(src)
	p.file()
	rec = FileRecord{Path: path, Lang: LangGo, Package: p.pkg, Imports: p.imports, Symbols: p.syms}
	rec.Refs = p.refs.list()
	return rec, ""
}

// goFastPool keeps parsers with their scratch space (the maps and slices
// that do not end up in a record).
var goFastPool = sync.Pool{New: func() any { return &goFast{names: map[string]string{}} }}

func (p *goFast) reset() {
	p.refs.release() // a file given up on never listed its refs
	names, cands, bound := p.names, p.cands[:0], p.bound[:0]
	clear(bound[:cap(bound)]) // they alias the last file's source
	if len(names) > 4096 {
		names = map[string]string{}
	}
	clear(names)
	*p = goFast{names: names, cands: cands, bound: bound}
}

type goFast struct {
	s   goScanner
	src []byte

	exprLev int
	depth   int
	// typeAsserts counts x.(type) expressions, guards those in the guard
	// position of a type switch: go/parser reports the others.
	typeAsserts, guards int

	pkg     string
	imports []Import
	syms    []Symbol
	refs    refSet
	names   map[string]string // interned names

	// The declaration being collected (refCollector.collect).
	inUnit bool
	from   string
	cands  []cand
	bound  []string // alias src; few per declaration, so a list
}

// cand is an identifier that names a declaration unless it turns out to be
// bound in its declaration.
type cand struct {
	start, end, line int32
	dead             bool
}

// xinfo describes a parsed expression as far as the grammar cares.
type xinfo struct {
	kind  xkind
	paren bool
	cand  int // the candidate of a bare identifier, else -1
}

type xkind uint8

const (
	xOther xkind = iota
	xIdent
	xSelector
	xIndex   // an index or instance expression
	xLitType // an array, slice, struct or map type
	xCall
	xTypeSwitch // x.(type)
)

func (p *goFast) next() { p.s.next() }

func (p *goFast) tok() gtok { return p.s.tok }

func (p *goFast) expect(t gtok) {
	if p.s.tok != t {
		giveUp()
	}
	p.s.next()
}

func (p *goFast) expectSemi() {
	switch p.s.tok {
	case tRparen, tRbrace:
	case tSemi:
		p.s.next()
	default:
		giveUp()
	}
}

func (p *goFast) enter() {
	p.depth++
	if p.depth > 500 {
		giveUp()
	}
}

func (p *goFast) leave() { p.depth-- }

// text is the current token's text, aliasing src: for lookups only.
func (p *goFast) text() string {
	return unsafe.String(&p.src[p.s.start], p.s.end-p.s.start)
}

func (p *goFast) intern(b string) string {
	if s, ok := p.names[b]; ok {
		return s
	}
	s := strings.Clone(b)
	p.names[s] = s
	return s
}

// peek returns the token after the current one.
func (p *goFast) peek() gtok {
	saved := p.s
	p.s.next()
	t := p.s.tok
	p.s = saved
	return t
}

// peek2 is the token after the next one.
func (p *goFast) peek2() gtok {
	saved := p.s
	p.s.next()
	p.s.next()
	t := p.s.tok
	p.s = saved
	return t
}

// --- collection -----------------------------------------------------------

func (p *goFast) beginUnit(from string) {
	p.inUnit, p.from = true, from
	p.cands = p.cands[:0]
	p.bound = p.bound[:0]
}

// endUnit keeps the unit's candidates that are not bound in it.
func (p *goFast) endUnit() {
	for _, c := range p.cands {
		if c.dead {
			continue
		}
		name := unsafe.String(&p.src[c.start], int(c.end-c.start))
		if name == p.from {
			continue
		}
		if slices.Contains(p.bound, name) {
			continue
		}
		p.refs.add(Ref{From: p.from, Name: p.intern(name), Line: int(c.line)})
	}
	p.inUnit = false
}

// ident consumes an identifier used as a value or type and returns its
// index in cands (-1 outside a unit). Every identifier gets one, dead if
// it can never name a declaration (_ and the predeclared names), so that
// a selector can still read its qualifier.
func (p *goFast) ident() int {
	if p.s.tok != tIdent {
		giveUp()
	}
	i := -1
	if p.inUnit {
		name := p.text()
		i = len(p.cands)
		p.cands = append(p.cands, cand{start: int32(p.s.start), end: int32(p.s.end), line: int32(p.s.tline),
			dead: name == "_" || isPredeclared(name)})
	}
	p.next()
	return i
}

// declName consumes an identifier that declares (a field, a parameter, a
// function's name) and returns its text and position.
func (p *goFast) declName() (name string, line, col int) {
	if p.s.tok != tIdent {
		giveUp()
	}
	name, line, col = p.text(), p.s.tline, p.s.tcol
	p.next()
	return
}

func (p *goFast) bind(name string) {
	if p.inUnit {
		p.bound = append(p.bound, name)
	}
}

func (p *goFast) kill(c int) {
	if c >= 0 {
		p.cands[c].dead = true
	}
}

// --- file and declarations ---------------------------------------------

func (p *goFast) file() {
	p.expect(tPackage)
	name, _, _ := p.declName()
	p.pkg = p.intern(name)
	p.expectSemi()
	for p.tok() == tImport {
		p.next()
		if p.tok() == tLparen {
			p.next()
			for p.tok() != tRparen && p.tok() != tEOF {
				p.importSpec()
			}
			p.expect(tRparen)
			p.expectSemi()
		} else {
			p.importSpec()
		}
	}
	for p.tok() != tEOF {
		switch p.tok() {
		case tFunc:
			p.funcDecl()
		case tVar, tConst:
			p.genDecl(p.topValueSpec)
		case tType:
			p.genDecl(p.topTypeSpec)
		default:
			giveUp() // an import after other declarations, or no declaration
		}
	}
	if p.typeAsserts != p.guards {
		giveUp() // x.(type) outside a type switch's guard
	}
}

func (p *goFast) importSpec() {
	var alias string
	line := 0
	switch p.tok() {
	case tIdent:
		alias, line = p.intern(p.text()), p.s.tline
		p.next()
	case tPeriod:
		alias, line = ".", p.s.tline
		p.next()
	}
	if p.tok() != tString {
		giveUp()
	}
	lit := p.src[p.s.start:p.s.end]
	if lit[0] == '`' {
		for _, b := range lit {
			if b == '\r' {
				giveUp() // go/scanner strips it from the literal
			}
		}
	}
	path, err := strconv.Unquote(string(lit))
	if err != nil {
		giveUp()
	}
	if line == 0 {
		line = p.s.tline
	}
	p.imports = append(p.imports, Import{Path: path, Alias: alias, Line: line})
	p.next()
	p.expectSemi()
}

func (p *goFast) genDecl(spec func(keyword gtok)) {
	keyword := p.tok()
	p.next()
	if p.tok() == tLparen {
		p.next()
		for p.tok() != tRparen && p.tok() != tEOF {
			spec(keyword)
		}
		p.expect(tRparen)
		p.expectSemi()
		return
	}
	spec(keyword)
}

func (p *goFast) topValueSpec(keyword gtok) {
	kind := "var"
	if keyword == tConst {
		kind = "const"
	}
	from := ""
	for {
		name, line, col := p.declName()
		if name != "_" {
			name = p.intern(name)
			p.syms = append(p.syms, Symbol{Name: name, Kind: kind, Line: line, Col: col})
			if from == "" {
				from = name
			}
		}
		if p.tok() != tComma {
			break
		}
		p.next()
	}
	p.valueSpecRest(keyword, func() { p.beginUnit(from) }, p.endUnit)
	p.expectSemi()
}

// valueSpecRest parses what follows a value spec's names: each of the type
// and the values is a unit of its own at top level (begin and end frame
// them).
func (p *goFast) valueSpecRest(keyword gtok, begin, end func()) {
	if keyword == tConst {
		if p.tok() != tEOF && p.tok() != tSemi && p.tok() != tRparen {
			if startsType(p.tok()) {
				begin()
				p.typ()
				end()
			}
			if p.tok() == tAssign {
				p.next()
				p.valueList(begin, end)
			}
		}
		return
	}
	if p.tok() != tAssign {
		begin()
		p.typ()
		end()
	}
	if p.tok() == tAssign {
		p.next()
		p.valueList(begin, end)
	}
}

func (p *goFast) valueList(begin, end func()) {
	for {
		begin()
		p.expr()
		end()
		if p.tok() != tComma {
			return
		}
		p.next()
	}
}

func (p *goFast) topTypeSpec(gtok) {
	name, line, col := p.declName()
	name = p.intern(name)
	p.syms = append(p.syms, Symbol{Name: name, Kind: "type", Line: line, Col: col})
	p.beginUnit(name)
	p.typeSpecRest()
	p.endUnit()
	p.expectSemi()
}

func (p *goFast) typeSpecRest() {
	if p.tok() == tLbrack {
		// A slice (type X []T) or an array of a literal length (type X
		// [4]T) or of a constant's (type X [N]T: a lone name tilts
		// go/parser to an array) is no type parameter list, and a name
		// followed by what cannot end an array length (a name, a comma,
		// ~, interface) is one: go/parser reads both so. Anything else in
		// the brackets may be either, and go/parser decides with more
		// look-ahead.
		switch t := p.peek(); {
		case t == tRbrack, (t == tInt || t == tIdent) && p.peek2() == tRbrack:
		case t == tIdent && typeParamFollows(p.peek2()):
			p.typeParams()
		default:
			giveUp()
		}
	}
	if p.tok() == tAssign {
		p.next()
	}
	p.typ()
}

// typeParamFollows reports whether a token after `type X[P` makes P the
// first type parameter's name.
func typeParamFollows(t gtok) bool {
	switch t {
	case tIdent, tComma, tTilde, tInterface:
		return true
	}
	return false
}

func (p *goFast) funcDecl() {
	p.next() // func
	// The unit is named once the receiver and the name are read.
	p.beginUnit("")
	recv := ""
	if p.tok() == tLparen {
		recv = p.receiver()
	}
	name, line, col := p.declName()
	kind := "func"
	if recv != "" {
		name, kind = recv+"."+name, "method"
	}
	name = p.intern(name)
	p.from = name
	if name != "_" {
		p.syms = append(p.syms, Symbol{Name: name, Kind: kind, Line: line, Col: col})
	}
	if p.tok() == tLbrack {
		if recv != "" {
			giveUp()
		}
		p.typeParams()
	}
	p.signature()
	switch p.tok() {
	case tLbrace:
		p.body()
		p.expectSemi()
	case tSemi:
		p.next()
		if p.tok() == tLbrace {
			giveUp()
		}
	default:
		p.expectSemi()
	}
	p.endUnit()
}

// receiver parses (name T), (name *T), (T), (*T), with optional type
// parameters on T, and returns T's name.
func (p *goFast) receiver() string {
	p.expect(tLparen)
	if p.tok() == tIdent {
		if t := p.peek(); t == tIdent || t == tMul {
			name, _, _ := p.declName()
			p.bind(name)
		}
	}
	if p.tok() == tMul {
		p.next()
	}
	if p.tok() != tIdent {
		giveUp()
	}
	recv := p.text()
	p.ident()
	if p.tok() == tLbrack {
		p.next()
		for {
			p.ident()
			if p.tok() != tComma {
				break
			}
			p.next()
		}
		p.expect(tRbrack)
	}
	p.expect(tRparen)
	return recv
}

// typeParams parses [A, B C, D E] after a function's name: names and
// constraints only.
func (p *goFast) typeParams() {
	p.expect(tLbrack)
	if p.tok() == tRbrack {
		giveUp()
	}
	for p.tok() != tRbrack {
		for {
			name, _, _ := p.declName()
			p.bind(name)
			if p.tok() != tComma {
				break
			}
			p.next()
		}
		if p.tok() == tRbrack || p.tok() == tComma {
			giveUp() // a name with no constraint
		}
		p.typeElem()
		if p.tok() != tComma {
			break
		}
		p.next()
	}
	p.expect(tRbrack)
}

// typeElem parses a constraint: a union of terms, each [~]Type.
func (p *goFast) typeElem() {
	for {
		if p.tok() == tTilde {
			p.next()
		}
		p.typ()
		if p.tok() != tOr {
			return
		}
		p.next()
	}
}

// signature parses parameters and results.
func (p *goFast) signature() {
	p.params()
	switch {
	case p.tok() == tLparen:
		p.params()
	case startsType(p.tok()):
		p.typ()
	}
}

// params parses a parenthesized parameter list. Its entries are all named
// or all unnamed; a bare identifier is a name if any entry is named and a
// type otherwise, so those wait in pending until the list's end decides.
func (p *goFast) params() {
	p.expect(tLparen)
	// Bare identifiers since the last parameter with a type: names of
	// that type if one follows, types if no entry of the list is named.
	type bare struct {
		name string
		cand int
	}
	var open []bare
	named, unnamed := false, false
	for p.tok() != tRparen {
		variadic := false
		if p.tok() == tIdent {
			switch t := p.peek(); {
			case t == tComma || t == tRparen:
				name := p.text()
				open = append(open, bare{name, p.ident()})
			case t == tPeriod || t == tLbrack && p.peek2() != tRbrack && p.bracketsEndAType():
				// pkg.T, or an instance T[X] as a parameter's type.
				p.typ()
				unnamed = true
			case t == tEllipsis || startsType(t):
				// name []T, name [N]T (bracketsEndAType said so) or name T.
				name, _, _ := p.declName()
				p.bind(name)
				for _, b := range open {
					p.bind(b.name)
					p.kill(b.cand)
				}
				if p.tok() == tEllipsis {
					if len(open) > 0 {
						giveUp() // a, b ...T
					}
					p.next()
					variadic = true
				}
				open = open[:0]
				p.typ()
				named = true
			default:
				giveUp()
			}
		} else {
			if p.tok() == tEllipsis {
				p.next()
				variadic = true
			}
			p.typ()
			unnamed = true
		}
		if p.tok() != tComma {
			if variadic && p.tok() != tRparen {
				giveUp()
			}
			break
		}
		p.next()
		if variadic && p.tok() != tRparen {
			giveUp() // ... only with the final parameter
		}
	}
	p.expect(tRparen)
	if named && (unnamed || len(open) > 0) {
		giveUp() // mixed named and unnamed parameters
	}
}

// bracketsEndAType tells, at IDENT [ in a parameter list, an instance
// IDENT[X, ...] (followed by a comma or the list's end: true) from a
// parameter named IDENT of array type [N]T (false), as go/parser does: one
// expression in the brackets and a type after them make an array. It
// gives up on anything else.
func (p *goFast) bracketsEndAType() bool {
	saved := p.s
	defer func() { p.s = saved }()
	p.s.next() // the identifier
	p.s.next() // [
	depth, commas := 0, 0
	for depth > 0 || p.s.tok != tRbrack {
		switch p.s.tok {
		case tLbrack, tLparen, tLbrace:
			depth++
		case tRbrack, tRparen, tRbrace:
			depth--
		case tComma:
			if depth == 0 {
				commas++
			}
		case tEOF:
			giveUp()
		}
		if depth < 0 {
			giveUp()
		}
		p.s.next()
	}
	p.s.next() // ]
	switch t := p.s.tok; {
	case t == tComma || t == tRparen:
		return true
	case commas == 0 && startsType(t) && t != tLparen:
		return false
	}
	giveUp()
	return false
}

func startsType(t gtok) bool {
	switch t {
	case tIdent, tLbrack, tStruct, tMul, tFunc, tInterface, tMap, tChan, tArrow, tLparen:
		return true
	}
	return false
}

// --- types ------------------------------------------------------------------

func (p *goFast) typ() {
	p.enter()
	defer p.leave()
	switch p.tok() {
	case tIdent:
		c := p.ident()
		if p.tok() == tPeriod {
			p.next()
			p.qualified(c)
		}
		if p.tok() == tLbrack {
			p.typeArgs()
		}
	case tLbrack:
		p.arrayType()
	case tStruct:
		p.structType()
	case tMul:
		p.next()
		p.typ()
	case tFunc:
		p.next()
		if p.tok() == tLbrack {
			giveUp()
		}
		p.signature()
	case tInterface:
		p.interfaceType()
	case tMap:
		p.next()
		p.expect(tLbrack)
		p.typ()
		p.expect(tRbrack)
		p.typ()
	case tChan:
		p.next()
		if p.tok() == tArrow {
			p.next()
		}
		p.typ()
	case tArrow:
		p.next()
		p.expect(tChan)
		p.typ()
	case tLparen:
		p.next()
		p.typ()
		p.expect(tRparen)
	default:
		giveUp()
	}
}

// qualified reads the selector of x.Sel, the period read; c is x's
// candidate if x is a bare identifier.
func (p *goFast) qualified(c int) {
	if p.tok() != tIdent {
		giveUp()
	}
	if p.inUnit {
		sel := p.intern(p.text())
		if c >= 0 {
			p.kill(c)
			p.refs.add(Ref{From: p.from, Qual: p.intern(p.candText(c)), Name: sel, Line: p.s.tline})
		} else {
			p.refs.add(Ref{From: p.from, Qual: MemberQual, Name: sel, Line: p.s.tline})
		}
	}
	p.next()
}

func (p *goFast) typeArgs() {
	p.expect(tLbrack)
	if p.list(tRbrack, func() bool { p.typ(); return false }) == 0 {
		giveUp()
	}
}

func (p *goFast) arrayType() {
	p.expect(tLbrack)
	p.exprLev++
	switch p.tok() {
	case tEllipsis:
		p.next()
	case tRbrack:
	default:
		p.expr()
	}
	p.exprLev--
	p.expect(tRbrack)
	p.typ()
}

func (p *goFast) structType() {
	p.expect(tStruct)
	p.expect(tLbrace)
	for p.tok() != tRbrace {
		switch p.tok() {
		case tIdent:
			switch t := p.peek(); t {
			case tPeriod:
				c := p.ident()
				p.next()
				p.qualified(c)
				if p.tok() == tLbrack {
					giveUp()
				}
			case tSemi, tRbrace, tString:
				p.ident()
			case tLbrack:
				// A slice or array field (x []T, x [N]T). An embedded
				// instance (x[T]) has no type after its brackets: typ
				// gives up on what follows, and go/parser reads it.
				p.declName()
				p.typ()
			default:
				for {
					p.declName()
					if p.tok() != tComma {
						break
					}
					p.next()
				}
				p.typ()
			}
		case tMul:
			p.next()
			c := p.ident()
			if p.tok() == tPeriod {
				p.next()
				p.qualified(c)
			}
			if p.tok() == tLbrack {
				giveUp()
			}
		default:
			giveUp()
		}
		if p.tok() == tString {
			p.next()
		}
		p.expectSemi()
	}
	p.expect(tRbrace)
}

func (p *goFast) interfaceType() {
	p.expect(tInterface)
	p.expect(tLbrace)
	for p.tok() != tRbrace {
		if p.tok() == tIdent && p.peek() == tLparen {
			p.declName()
			p.signature()
		} else {
			if p.tok() == tIdent && p.peek() == tLbrack {
				giveUp()
			}
			p.typeElem()
		}
		p.expectSemi()
	}
	p.expect(tRbrace)
}

// --- expressions ------------------------------------------------------------

func (p *goFast) expr() xinfo {
	p.enter()
	defer p.leave()
	x := p.unary()
	for {
		switch p.tok() {
		case tBinop, tAdd, tSub, tMul, tAnd, tXor, tOr:
			p.next()
			p.unary()
			x = xinfo{kind: xOther, cand: -1}
		default:
			return x
		}
	}
}

// exprList parses a list of expressions; idents reports whether all are
// bare identifiers.
func (p *goFast) exprList() (n int, first xinfo, idents bool) {
	idents = true
	for {
		x := p.expr()
		if n == 0 {
			first = x
		}
		idents = idents && x.kind == xIdent && !x.paren
		n++
		if p.tok() != tComma {
			return n, first, idents
		}
		p.next()
	}
}

func (p *goFast) unary() xinfo {
	switch p.tok() {
	case tAdd, tSub, tNot, tXor, tAnd, tMul:
		p.enter()
		defer p.leave()
		p.next()
		p.unary()
		return xinfo{kind: xOther, cand: -1}
	case tArrow:
		p.next()
		if p.tok() == tChan {
			giveUp() // <-chan T, a type, needs go/parser's rewriting
		}
		p.unary()
		return xinfo{kind: xOther, cand: -1}
	case tTilde:
		giveUp()
	}
	return p.primary()
}

func (p *goFast) operand() xinfo {
	switch p.tok() {
	case tIdent:
		return xinfo{kind: xIdent, cand: p.ident()}
	case tInt, tFloat, tChar, tString:
		p.next()
		return xinfo{kind: xOther, cand: -1}
	case tLparen:
		p.next()
		p.exprLev++
		x := p.expr()
		p.exprLev--
		p.expect(tRparen)
		return xinfo{kind: x.kind, paren: true, cand: -1}
	case tFunc:
		p.next()
		if p.tok() == tLbrack {
			giveUp()
		}
		p.signature()
		if p.tok() == tLbrace {
			p.exprLev++
			p.body()
			p.exprLev--
		}
		return xinfo{kind: xOther, cand: -1}
	case tLbrack:
		p.arrayType()
		return xinfo{kind: xLitType, cand: -1}
	case tStruct:
		p.structType()
		return xinfo{kind: xLitType, cand: -1}
	case tMap:
		p.typ()
		return xinfo{kind: xLitType, cand: -1}
	case tChan, tInterface:
		p.typ()
		return xinfo{kind: xOther, cand: -1}
	}
	giveUp()
	return xinfo{}
}

func (p *goFast) primary() xinfo {
	x := p.operand()
	for {
		switch p.tok() {
		case tPeriod:
			p.next()
			switch p.tok() {
			case tIdent:
				c := x.cand
				if x.paren {
					c = -1
				}
				p.qualified(c)
				x = xinfo{kind: xSelector, cand: -1}
			case tLparen:
				p.next()
				if p.tok() == tType {
					p.next()
					p.typeAsserts++
					x = xinfo{kind: xTypeSwitch, cand: -1}
				} else {
					p.typ()
					x = xinfo{kind: xOther, cand: -1}
				}
				p.expect(tRparen)
			default:
				giveUp()
			}
		case tLbrack:
			x = p.index()
		case tLparen:
			p.call()
			x = xinfo{kind: xCall, cand: -1}
		case tLbrace:
			switch x.kind {
			case xIdent, xSelector, xIndex:
				if p.exprLev < 0 {
					return x
				}
			case xLitType:
			default:
				return x
			}
			if x.paren {
				giveUp()
			}
			p.literal()
			x = xinfo{kind: xOther, cand: -1}
		default:
			return x
		}
	}
}

func (p *goFast) index() xinfo {
	p.expect(tLbrack)
	if p.tok() == tRbrack {
		giveUp()
	}
	p.exprLev++
	if p.tok() != tColon {
		p.expr()
	}
	kind := xIndex
	switch p.tok() {
	case tColon:
		kind = xOther
		colons := 0
		var has [2]bool
		for p.tok() == tColon && colons < 2 {
			colons++
			p.next()
			if p.tok() != tColon && p.tok() != tRbrack && p.tok() != tEOF {
				p.expr()
				has[colons-1] = true
			}
		}
		if colons == 2 && (!has[0] || !has[1]) {
			giveUp()
		}
	case tComma:
		for p.tok() == tComma {
			p.next()
			if p.tok() != tRbrack && p.tok() != tEOF {
				p.typ()
			}
		}
	}
	p.exprLev--
	p.expect(tRbrack)
	return xinfo{kind: kind, cand: -1}
}

func (p *goFast) call() {
	p.expect(tLparen)
	p.list(tRparen, func() bool {
		p.expr()
		if p.tok() == tEllipsis {
			p.next()
			return true // the list ends after f(xs...)
		}
		return false
	})
}

// list parses what follows an opening bracket: items separated by
// commas, with an optional trailing comma, then closing. item parses one
// and reports whether it must be the last. It returns how many there
// were. go/parser reads these lists with its exprLev raised.
func (p *goFast) list(closing gtok, item func() (last bool)) int {
	p.exprLev++
	n := 0
	for p.tok() != closing && p.tok() != tEOF {
		last := item()
		n++
		if p.tok() != tComma {
			if p.tok() != closing {
				giveUp()
			}
			break
		}
		p.next()
		if last {
			break
		}
	}
	p.exprLev--
	p.expect(closing)
	return n
}

// literal parses a composite literal's braces.
func (p *goFast) literal() {
	p.enter()
	defer p.leave()
	p.expect(tLbrace)
	p.list(tRbrace, func() bool {
		k := p.value()
		if p.tok() == tColon {
			if k.kind == xIdent && !k.paren {
				p.kill(k.cand) // usually a field name
			}
			p.next()
			p.value()
		}
		return false
	})
}

func (p *goFast) value() xinfo {
	if p.tok() == tLbrace {
		p.literal()
		return xinfo{kind: xOther, cand: -1}
	}
	return p.expr()
}

// --- statements -------------------------------------------------------------

func (p *goFast) body() {
	p.expect(tLbrace)
	p.stmtList()
	p.expect(tRbrace)
}

func (p *goFast) stmtList() {
	for p.tok() != tCase && p.tok() != tDefault && p.tok() != tRbrace && p.tok() != tEOF {
		p.stmt()
	}
}

// simple statement kinds
type skind uint8

const (
	sExpr skind = iota
	sAssign
	sSend
	sIncDec
	sLabeled
	sRange
	sGuard // v := x.(type)
)

const (
	modeBasic = iota
	modeLabelOk
	modeRangeOk
)

func (p *goFast) stmt() {
	p.enter()
	defer p.leave()
	switch p.tok() {
	case tConst, tVar:
		p.genDecl(p.localValueSpec)
	case tType:
		p.genDecl(p.localTypeSpec)
	case tIdent, tInt, tFloat, tChar, tString, tFunc, tLparen, tLbrack, tStruct, tMap, tChan, tInterface,
		tAdd, tSub, tMul, tAnd, tXor, tArrow, tNot:
		if k, _ := p.simpleStmt(modeLabelOk); k != sLabeled {
			p.expectSemi()
		}
	case tGo, tDefer:
		p.next()
		if x := p.expr(); x.kind != xCall || x.paren {
			giveUp()
		}
		p.expectSemi()
	case tReturn:
		p.next()
		if p.tok() != tSemi && p.tok() != tRbrace {
			p.exprList()
		}
		p.expectSemi()
	case tBreak, tContinue, tGoto, tFallthrough:
		t := p.tok()
		p.next()
		if t == tGoto || t != tFallthrough && p.tok() == tIdent {
			p.ident()
		}
		p.expectSemi()
	case tLbrace:
		p.body()
		p.expectSemi()
	case tIf:
		p.ifStmt()
	case tSwitch:
		p.switchStmt()
	case tSelect:
		p.selectStmt()
	case tFor:
		p.forStmt()
	case tSemi:
		p.next()
	case tRbrace:
	default:
		giveUp()
	}
}

// simpleStmt parses a simple statement; for an expression statement it
// also returns the expression's description.
func (p *goFast) simpleStmt(mode int) (skind, xinfo) {
	lhsStart := len(p.cands)
	n, x, idents := p.exprList()
	switch p.tok() {
	case tDefine, tAssign, tOpAssign:
		t := p.tok()
		if t == tOpAssign && n > 1 {
			giveUp()
		}
		if t == tDefine {
			p.defineLHS(lhsStart, idents)
		}
		p.next()
		if mode == modeRangeOk && p.tok() == tRange && t != tOpAssign {
			if n > 2 {
				giveUp()
			}
			p.next()
			p.expr()
			return sRange, xinfo{}
		}
		m, y, _ := p.exprList()
		if t == tDefine && n == 1 && m == 1 && y.kind == xTypeSwitch && !y.paren {
			return sGuard, xinfo{}
		}
		return sAssign, xinfo{}
	}
	if n > 1 {
		giveUp()
	}
	switch p.tok() {
	case tColon:
		if mode != modeLabelOk || x.kind != xIdent || x.paren {
			giveUp()
		}
		p.bind(p.candText(lhsStart))
		p.next()
		p.stmt()
		return sLabeled, xinfo{}
	case tArrow:
		p.next()
		p.expr()
		return sSend, xinfo{}
	case tInc, tDec:
		p.next()
		return sIncDec, xinfo{}
	}
	return sExpr, x
}

// defineLHS binds the identifiers on the left of :=, whose candidates are
// those from index from on. go/parser accepts other expressions there
// (the type checker rejects them); the fast path gives up on them.
func (p *goFast) defineLHS(from int, idents bool) {
	if !idents || !p.inUnit {
		giveUp()
	}
	for i := from; i < len(p.cands); i++ {
		p.bind(p.candText(i))
	}
}

func (p *goFast) candText(i int) string {
	c := p.cands[i]
	return unsafe.String(&p.src[c.start], int(c.end-c.start))
}

func (p *goFast) localValueSpec(keyword gtok) {
	for {
		name, _, _ := p.declName()
		p.bind(name)
		if p.tok() != tComma {
			break
		}
		p.next()
	}
	nop := func() {}
	p.valueSpecRest(keyword, nop, nop)
	p.expectSemi()
}

func (p *goFast) localTypeSpec(gtok) {
	name, _, _ := p.declName()
	p.bind(name)
	p.typeSpecRest()
	p.expectSemi()
}

// header parses a control clause's simple statement with exprLev -1.
func (p *goFast) header(mode int) (skind, xinfo) {
	prev := p.exprLev
	p.exprLev = -1
	k, x := p.simpleStmt(mode)
	p.exprLev = prev
	return k, x
}

func (p *goFast) ifStmt() {
	p.expect(tIf)
	if p.tok() == tLbrace || p.tok() == tVar {
		giveUp()
	}
	var cond skind = sExpr
	if p.tok() == tSemi {
		p.next()
		if p.tok() == tLbrace {
			giveUp()
		}
		cond, _ = p.header(modeBasic)
	} else {
		k, _ := p.header(modeBasic)
		cond = k
		if p.tok() != tLbrace {
			p.expect(tSemi)
			if p.tok() == tLbrace {
				giveUp()
			}
			cond, _ = p.header(modeBasic)
		}
	}
	if cond != sExpr {
		giveUp()
	}
	p.body()
	if p.tok() == tElse {
		p.next()
		switch p.tok() {
		case tIf:
			p.ifStmt()
		case tLbrace:
			p.body()
			p.expectSemi()
		default:
			giveUp()
		}
		return
	}
	p.expectSemi()
}

func (p *goFast) switchStmt() {
	p.expect(tSwitch)
	if p.tok() != tLbrace {
		asserts := p.typeAsserts
		var k skind = sExpr
		var x xinfo
		has := false
		if p.tok() != tSemi {
			k, x = p.header(modeBasic)
			has = true
		}
		if p.tok() == tSemi {
			p.next()
			has = false
			if p.typeAsserts != asserts {
				giveUp() // x.(type) in the init statement
			}
			k, x = sExpr, xinfo{}
			if p.tok() != tLbrace {
				k, x = p.header(modeBasic)
				has = true
			}
		}
		if has {
			switch {
			case p.typeAsserts == asserts:
				if k != sExpr {
					giveUp()
				}
			case p.typeAsserts == asserts+1 && (k == sExpr && x.kind == xTypeSwitch && !x.paren || k == sGuard):
				p.guards++
			default:
				giveUp()
			}
		}
	}
	p.expect(tLbrace)
	for p.tok() == tCase || p.tok() == tDefault {
		if p.tok() == tCase {
			p.next()
			p.exprList()
		} else {
			p.next()
		}
		p.expect(tColon)
		p.stmtList()
	}
	p.expect(tRbrace)
	p.expectSemi()
}

func (p *goFast) selectStmt() {
	p.expect(tSelect)
	p.expect(tLbrace)
	for p.tok() == tCase || p.tok() == tDefault {
		if p.tok() == tCase {
			p.next()
			lhsStart := len(p.cands)
			n, _, idents := p.exprList()
			switch p.tok() {
			case tArrow:
				if n > 1 {
					giveUp()
				}
				p.next()
				p.expr()
			case tAssign, tDefine:
				if n > 2 {
					giveUp()
				}
				if p.tok() == tDefine {
					p.defineLHS(lhsStart, idents)
				}
				p.next()
				p.expr()
			default:
				if n > 1 {
					giveUp()
				}
			}
		} else {
			p.next()
		}
		p.expect(tColon)
		p.stmtList()
	}
	p.expect(tRbrace)
	p.expectSemi()
}

func (p *goFast) forStmt() {
	p.expect(tFor)
	if p.tok() != tLbrace {
		prev := p.exprLev
		p.exprLev = -1
		isRange := false
		var k skind = sExpr
		has := false
		if p.tok() != tSemi {
			if p.tok() == tRange {
				p.next()
				p.expr()
				isRange = true
			} else {
				k, _ = p.simpleStmt(modeRangeOk)
				isRange = k == sRange
				has = true
			}
		}
		if !isRange && p.tok() == tSemi {
			p.next()
			has = false
			k = sExpr
			if p.tok() != tSemi {
				k, _ = p.simpleStmt(modeBasic)
				has = true
			}
			p.expectSemi()
			if p.tok() != tLbrace {
				p.simpleStmt(modeBasic)
			}
		}
		if has && !isRange && k != sExpr {
			giveUp()
		}
		p.exprLev = prev
	}
	p.body()
	p.expectSemi()
}
