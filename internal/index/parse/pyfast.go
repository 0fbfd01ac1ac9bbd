package parse

import (
	"strings"
	"sync"
)

// The fast Python path: a recognizer of Python 3's grammar that builds no
// syntax tree. It reads a file once and records what parsePythonTree
// records from tree-sitter's tree: every import statement, and the
// module's functions, classes with their methods, and assignments to
// plain names, first declaration of a name winning.
//
// Tree-sitter reports syntax errors anywhere in a file, deep inside
// function bodies too, and a file with an error keeps what its tree
// recovered; so the fast path checks the whole file, every statement and
// expression, and declines (parsePython then runs tree-sitter) whenever it
// cannot vouch that tree-sitter parses it without an error and into the
// same statements: any syntax error, Python 2, the rarer constructs
// (match and type statements, defaults of type parameters, except * with
// a space), the places where tree-sitter's grammar is narrower than
// Python's (starred expressions other than *name..., a generic type in an
// annotation followed by an operator) or where it may read two lines as
// one (a line that ends with a comma after assignment targets), and the
// lexical corners listed in pyscan.go. TestPythonFastAgreesWithTreeSitter
// and FuzzPythonFast hold the two paths equal.

// parsePythonFast returns the record of a Python file, or the reason the
// fast path declined it.
func parsePythonFast(path string, src []byte) (rec FileRecord, why pyDecline) {
	p := pyFastPool.Get().(*pyFast)
	defer func() {
		if v := recover(); v != nil {
			d, mine := v.(pyDecline)
			if !mine {
				panic(v)
			}
			why = d
			if pyDeclineHook != nil {
				pyDeclineHook(&p.s, d)
			}
		}
		seen := p.seen
		if len(seen) > 4096 {
			seen = map[string]struct{}{}
		}
		clear(seen)
		*p = pyFast{seen: seen}
		pyFastPool.Put(p)
	}()
	p.pipeDepth = -1
	p.s.init(src)
	p.file()
	return FileRecord{Path: path, Lang: LangPython, Imports: p.imports, Symbols: p.syms}, ""
}

// pyDeclineHook, when set (by tests), sees the scanner where the fast
// path declined.
var pyDeclineHook func(s *pyScanner, why pyDecline)

var pyFastPool = sync.Pool{New: func() any { return &pyFast{seen: map[string]struct{}{}} }}

type pyFast struct {
	s    pyScanner
	nest int // expression nesting

	imports []Import
	syms    []Symbol
	seen    map[string]struct{}

	// pipeDepth, if not -1, is the bracket depth at which | ends an
	// expression (typeExpr).
	pipeDepth int

	// The last name atom read, for an assignment's target.
	nameStart, nameEnd, nameLine, nameCol int
}

// Where a statement is: what its definitions declare.
const (
	inBlock  = iota // a function, or a compound statement's body: nothing
	inModule        // functions, classes, variables
	inClass         // methods
)

// pyX describes a parsed expression as far as assignment cares.
type pyX uint8

const (
	pxOther   pyX = iota
	pxName        // a bare name
	pxAttr        // an attribute or subscript
	pxParen       // a parenthesized single target
	pxSeq         // a sequence of targets, parenthesized, bracketed or not
	pxStarred     // *target
)

func (x pyX) target() bool { return x == pxName || x == pxAttr || x == pxParen || x == pxSeq }

func (p *pyFast) next() { p.s.next() }

func (p *pyFast) expect(t ptok) {
	if p.s.tok != t {
		pyGiveUp(pdSyntax)
	}
	p.s.next()
}

func (p *pyFast) expectName() {
	if p.s.tok != ptName {
		pyGiveUp(pdSyntax)
	}
	p.s.next()
}

func (p *pyFast) text() []byte { return p.s.src[p.s.start:p.s.end] }

func (p *pyFast) enter() {
	p.nest++
	if p.nest > 200 {
		pyGiveUp(pdDepth)
	}
}

func (p *pyFast) leave() { p.nest-- }

// add records a symbol; the first of a name wins.
func (p *pyFast) add(name, kind string, line, col int) {
	if _, ok := p.seen[name]; ok {
		return
	}
	p.seen[name] = struct{}{}
	p.syms = append(p.syms, Symbol{Name: name, Kind: kind, Line: line, Col: col})
}

// variable records the last name atom as a variable.
func (p *pyFast) variable() {
	name := p.s.src[p.nameStart:p.nameEnd]
	if _, ok := p.seen[string(name)]; !ok {
		p.add(string(name), "var", p.nameLine, p.nameCol)
	}
}

// declare records the name token under the cursor as a symbol of kind,
// a method of class if class is not empty.
func (p *pyFast) declare(class, kind string) {
	if p.s.tok != ptName {
		pyGiveUp(pdSyntax)
	}
	var name string
	if class != "" {
		name = class + "." + string(p.text())
	} else if _, ok := p.seen[string(p.text())]; ok {
		return
	} else {
		name = string(p.text())
	}
	p.add(name, kind, p.s.tline, p.s.tcol)
}

func (p *pyFast) file() {
	for p.s.tok != ptEOF {
		p.statement(inModule, "")
	}
}

// --- statements --------------------------------------------------------

func (p *pyFast) statement(where int, class string) {
	switch p.s.tok {
	case ptIf:
		p.next()
		p.namedExpr()
		p.expect(ptColon)
		p.suite(inBlock, "")
		for p.s.tok == ptElif {
			p.next()
			p.namedExpr()
			p.expect(ptColon)
			p.suite(inBlock, "")
		}
		p.elseClause()
	case ptWhile:
		p.next()
		p.namedExpr()
		p.expect(ptColon)
		p.suite(inBlock, "")
		p.elseClause()
	case ptFor:
		p.forStatement()
	case ptTry:
		p.next()
		p.expect(ptColon)
		p.suite(inBlock, "")
		n, groups := 0, 0
		for p.s.tok == ptExcept {
			end := p.s.end
			p.next()
			if p.s.tok == ptStar && p.s.start == end {
				// except* (tree-sitter's token has no space).
				p.next()
				groups++
				if p.s.tok == ptColon {
					pyGiveUp(pdSyntax)
				}
			} else if p.s.tok == ptStar || p.s.tok == ptPow {
				pyGiveUp(pdExceptStar)
			}
			if p.s.tok != ptColon {
				p.expression()
				if p.s.tok == ptAs {
					p.next()
					p.expectName()
				}
			}
			p.expect(ptColon)
			p.suite(inBlock, "")
			n++
		}
		if groups != 0 && groups != n {
			pyGiveUp(pdSyntax)
		}
		if n > 0 {
			p.elseClause()
		}
		if p.s.tok == ptFinally {
			p.next()
			p.expect(ptColon)
			p.suite(inBlock, "")
			n++
		}
		if n == 0 {
			pyGiveUp(pdSyntax)
		}
	case ptWith:
		p.withStatement()
	case ptDef:
		p.funcDef(where, class)
	case ptClass:
		p.classDef(where)
	case ptAt:
		for p.s.tok == ptAt {
			p.next()
			p.namedExpr()
			p.expect(ptNewline)
			if p.s.lowComment < p.s.lineIndent {
				// After a decorator nothing but @, def or class may come,
				// and tree-sitter's scanner then reads a comment line
				// indented less than the block as its end.
				pyGiveUp(pdIndent)
			}
		}
		switch p.s.tok {
		case ptDef:
			p.funcDef(where, class)
		case ptClass:
			p.classDef(where)
		case ptAsync:
			p.next()
			if p.s.tok != ptDef {
				pyGiveUp(pdSyntax)
			}
			p.funcDef(where, class)
		default:
			pyGiveUp(pdSyntax)
		}
	case ptAsync:
		p.next()
		switch p.s.tok {
		case ptDef:
			p.funcDef(where, class)
		case ptFor:
			p.forStatement()
		case ptWith:
			p.withStatement()
		default:
			pyGiveUp(pdSyntax)
		}
	default:
		p.simpleStatements(where)
	}
}

func (p *pyFast) elseClause() {
	if p.s.tok == ptElse {
		p.next()
		p.expect(ptColon)
		p.suite(inBlock, "")
	}
}

// suite is the body of a compound statement: an indented block, or
// simple statements on the same line.
func (p *pyFast) suite(where int, class string) {
	if p.s.tok != ptNewline {
		p.simpleStatements(where)
		return
	}
	p.next()
	p.expect(ptIndent)
	for p.s.tok != ptDedent {
		if p.s.tok == ptEOF {
			pyGiveUp(pdSyntax)
		}
		p.statement(where, class)
	}
	p.next()
}

func (p *pyFast) forStatement() {
	p.next()
	p.targetList()
	p.expect(ptIn)
	p.starExprs()
	p.expect(ptColon)
	p.suite(inBlock, "")
	p.elseClause()
}

func (p *pyFast) withStatement() {
	p.next()
	if p.s.tok == ptLparen && p.withItemsInParens() {
		p.next()
		p.suite(inBlock, "")
		return
	}
	for {
		p.expression()
		if p.s.tok == ptAs {
			p.next()
			if !p.target().target() {
				pyGiveUp(pdSyntax)
			}
		}
		if p.s.tok != ptComma {
			break
		}
		p.next()
	}
	p.expect(ptColon)
	p.suite(inBlock, "")
}

// withItemsInParens reads Python 3.9's with items in parentheses up to
// the colon, which it leaves under the cursor, or, if they are not that
// but an expression that starts with a parenthesis, reads nothing and
// returns false.
func (p *pyFast) withItemsInParens() (ok bool) {
	saved, nest := p.s, p.nest
	defer func() {
		if v := recover(); v != nil {
			if _, mine := v.(pyDecline); !mine {
				panic(v)
			}
			ok = false
		}
		if !ok {
			p.s, p.nest = saved, nest
		}
	}()
	p.next()
	for {
		p.expression()
		if p.s.tok == ptAs {
			p.next()
			if !p.target().target() {
				pyGiveUp(pdSyntax)
			}
		}
		if p.s.tok != ptComma {
			break
		}
		p.next()
		if p.s.tok == ptRparen {
			break
		}
	}
	p.expect(ptRparen)
	return p.s.tok == ptColon
}

func (p *pyFast) funcDef(where int, class string) {
	p.next()
	switch where {
	case inModule:
		p.declare("", "function")
	case inClass:
		p.declare(class, "method")
	}
	p.expectName()
	if p.s.tok == ptLbrack {
		p.typeParams()
	}
	p.expect(ptLparen)
	p.params(ptRparen, false)
	p.expect(ptRparen)
	if p.s.tok == ptArrow {
		p.next()
		p.typeExpr()
	}
	p.expect(ptColon)
	p.suite(inBlock, "")
}

func (p *pyFast) classDef(where int) {
	p.next()
	if p.s.tok != ptName {
		pyGiveUp(pdSyntax)
	}
	var class string
	if where == inModule {
		class = string(p.text())
		p.declare("", "class")
	}
	p.next()
	if p.s.tok == ptLbrack {
		p.typeParams()
	}
	if p.s.tok == ptLparen {
		p.next()
		p.args()
	}
	p.expect(ptColon)
	if where == inModule {
		p.suite(inClass, class)
	} else {
		p.suite(inBlock, "")
	}
}

// typeParams reads Python 3.12's type parameters, without defaults
// (3.13), which tree-sitter's grammar does not have.
func (p *pyFast) typeParams() {
	p.next()
	for {
		switch p.s.tok {
		case ptStar, ptPow:
			p.next()
			p.expectName()
		case ptName:
			p.next()
			if p.s.tok == ptColon {
				p.next()
				p.typeExpr()
			}
		default:
			pyGiveUp(pdTypeParams)
		}
		if p.s.tok != ptComma {
			break
		}
		p.next()
		if p.s.tok == ptRbrack {
			break
		}
	}
	if p.s.tok != ptRbrack {
		pyGiveUp(pdTypeParams)
	}
	p.next()
}

// params reads the parameters of a def or a lambda up to end.
func (p *pyFast) params(end ptok, lambda bool) {
	for p.s.tok != end {
		switch p.s.tok {
		case ptStar:
			p.next()
			if p.s.tok == ptName {
				p.next()
				p.annotation(lambda)
			}
		case ptPow:
			p.next()
			p.expectName()
			p.annotation(lambda)
		case ptBinop:
			if p.s.end-p.s.start != 1 || p.s.src[p.s.start] != '/' {
				pyGiveUp(pdSyntax)
			}
			p.next()
		case ptName:
			p.next()
			p.annotation(lambda)
			if p.s.tok == ptAssign {
				p.next()
				p.expression()
			}
		default:
			pyGiveUp(pdSyntax)
		}
		if p.s.tok != ptComma {
			return
		}
		p.next()
	}
}

func (p *pyFast) annotation(lambda bool) {
	if !lambda && p.s.tok == ptColon {
		p.next()
		p.typeExpr()
	}
}

// typeExpr reads an annotation, which tree-sitter reads by its type rule:
// an expression, or types joined by |, where a name followed by a bracket
// is always a generic type (a static precedence of the grammar), which
// nothing but a member name, | or the end of the annotation may follow.
// Other expressions stop at |, outside brackets.
func (p *pyFast) typeExpr() {
	for {
		if p.s.tok == ptName && p.bracketFollows() {
			p.next()
			p.next()
			for {
				if p.s.tok == ptStar || p.s.tok == ptPow {
					p.next()
					p.expectName()
				} else {
					p.typeExpr()
				}
				if p.s.tok != ptComma {
					break
				}
				p.next()
				if p.s.tok == ptRbrack {
					break
				}
			}
			p.expect(ptRbrack)
			for p.s.tok == ptDot {
				p.next()
				p.expectName()
			}
			switch p.s.tok {
			case ptComma, ptRbrack, ptRparen, ptAssign, ptColon, ptNewline, ptSemi:
			case ptBinop:
				if !p.isPipe() {
					pyGiveUp(pdAnnotation)
				}
			default:
				pyGiveUp(pdAnnotation)
			}
		} else {
			pipe := p.pipeDepth
			p.pipeDepth = p.s.depth
			p.expression()
			p.pipeDepth = pipe
		}
		if !p.isPipe() {
			return
		}
		p.next()
	}
}

// isPipe reports whether the current token is |.
func (p *pyFast) isPipe() bool {
	return p.s.tok == ptBinop && p.s.end-p.s.start == 1 && p.s.src[p.s.start] == '|'
}

// bracketFollows reports whether the name under the cursor is followed by
// an opening bracket.
func (p *pyFast) bracketFollows() bool {
	src := p.s.src
	for i := p.s.end; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\f', '\r', '\\':
		case '\n':
			if p.s.depth == 0 && src[i-1] != '\\' && (i < 2 || src[i-1] != '\r' || src[i-2] != '\\') {
				return false // the end of the statement
			}
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if p.s.depth == 0 {
				return false
			}
		case '[':
			return true
		default:
			return false
		}
	}
	return false
}

func (p *pyFast) simpleStatements(where int) {
	for {
		p.simpleStatement(where)
		if p.s.tok != ptSemi {
			break
		}
		p.next()
		if p.s.tok == ptNewline {
			break
		}
	}
	p.expect(ptNewline)
}

func (p *pyFast) simpleStatement(where int) {
	switch p.s.tok {
	case ptPass, ptBreak, ptContinue:
		p.next()
	case ptReturn:
		p.next()
		if startsExpr(p.s.tok) {
			p.starExprs()
		}
	case ptRaise:
		p.next()
		if startsExpr(p.s.tok) {
			p.expression()
			if p.s.tok == ptFrom {
				p.next()
				p.expression()
			}
		}
	case ptGlobal, ptNonlocal:
		p.next()
		p.expectName()
		for p.s.tok == ptComma {
			p.next()
			p.expectName()
		}
	case ptDel:
		p.next()
		p.starExprs()
	case ptAssert:
		p.next()
		p.expression()
		if p.s.tok == ptComma {
			p.next()
			p.expression()
		}
	case ptImport:
		p.importStatement()
	case ptFrom:
		p.importFrom()
	default:
		p.expressionStatement(where)
	}
}

// expressionStatement is an expression, an assignment (a module's
// variables are the plain names it assigns), an annotated or an augmented
// assignment.
func (p *pyFast) expressionStatement(where int) {
	if p.s.tok == ptYield {
		p.yieldExpr()
		return
	}
	x := p.starExprs()
	switch p.s.tok {
	case ptNewline, ptSemi:
		if x == pxName {
			switch string(p.s.src[p.nameStart:p.nameEnd]) {
			case "print", "exec", "type", "match":
				// Alone, these start a statement of tree-sitter's grammar
				// that may take the next line for their argument.
				pyGiveUp(pdSyntax)
			}
		}
	case ptAssign:
		for p.s.tok == ptAssign {
			if !x.target() {
				pyGiveUp(pdSyntax)
			}
			if x == pxName && where == inModule {
				p.variable()
			}
			p.next()
			if p.s.tok == ptYield {
				p.yieldExpr()
				return
			}
			x = p.starExprs()
		}
	case ptColon:
		if x != pxName && x != pxAttr && x != pxParen {
			pyGiveUp(pdSyntax)
		}
		if x == pxName && where == inModule {
			p.variable()
		}
		p.next()
		p.typeExpr()
		x = pxOther
		if p.s.tok == ptAssign {
			p.next()
			x = p.rightHandSide()
		}
	case ptAugAssign:
		if x != pxName && x != pxAttr {
			pyGiveUp(pdSyntax)
		}
		p.next()
		x = p.rightHandSide()
	}
	if x == pxSeq && p.s.prev == ptComma && p.s.tok == ptNewline {
		// a, NEWLINE b = 1: tree-sitter may join the lines into one
		// assignment (in one of its parses a, is a pattern, which takes
		// the newline for white space), and may pick that parse.
		pyGiveUp(pdComma)
	}
}

func (p *pyFast) rightHandSide() pyX {
	if p.s.tok == ptYield {
		p.yieldExpr()
		return pxOther
	}
	return p.starExprs()
}

func (p *pyFast) importStatement() {
	line := p.s.tline
	p.next()
	for {
		p.imports = append(p.imports, Import{Path: p.dottedName(), Line: line})
		if p.s.tok == ptAs {
			p.next()
			p.expectName()
		}
		if p.s.tok != ptComma {
			return
		}
		p.next()
	}
}

func (p *pyFast) importFrom() {
	line := p.s.tline
	p.next()
	start, dots := p.s.start, 0
	for p.s.tok == ptDot || p.s.tok == ptEllipsis {
		dots += p.s.end - p.s.start
		p.next()
	}
	var path string
	future := false
	switch {
	case p.s.tok == ptName:
		if dots == 0 && string(p.text()) == "__future__" {
			future = true
			p.next()
			if p.s.tok != ptImport {
				pyGiveUp(pdFuture)
			}
			path = "__future__"
		} else {
			mod := p.dottedName()
			if dots > 0 {
				path = p.dots(start, dots) + mod
			} else {
				path = mod
			}
		}
	case dots > 0:
		path = p.dots(start, dots)
	default:
		pyGiveUp(pdSyntax)
	}
	p.expect(ptImport)
	imp := Import{Path: path, Line: line}
	switch p.s.tok {
	case ptStar:
		if future {
			pyGiveUp(pdFuture)
		}
		p.next()
	case ptLparen:
		p.next()
		imp.Names = p.importNames(true)
		p.expect(ptRparen)
	default:
		imp.Names = p.importNames(false)
	}
	p.imports = append(p.imports, imp)
}

// dots is the string of n dots, from the source if they are written
// together.
func (p *pyFast) dots(start, n int) string {
	if s := p.s.src[start : start+n]; strings.Count(string(s), ".") == n {
		return string(s)
	}
	return strings.Repeat(".", n)
}

func (p *pyFast) importNames(paren bool) []string {
	var names []string
	for {
		if p.s.tok != ptName {
			pyGiveUp(pdSyntax)
		}
		names = append(names, string(p.text()))
		p.next()
		if p.s.tok == ptAs {
			p.next()
			p.expectName()
		}
		if p.s.tok != ptComma {
			return names
		}
		p.next()
		if paren && p.s.tok == ptRparen {
			return names
		}
	}
}

// dottedName reads a.b.c, written without the white space and line
// continuations Python allows between its tokens.
func (p *pyFast) dottedName() string {
	if p.s.tok != ptName {
		pyGiveUp(pdSyntax)
	}
	start, end := p.s.start, p.s.end
	var b strings.Builder
	spaced := false
	for {
		p.next()
		if p.s.tok != ptDot {
			break
		}
		if p.s.start != end {
			spaced = true
		}
		p.next()
		if p.s.tok != ptName {
			pyGiveUp(pdSyntax)
		}
		if p.s.start != end+1 {
			spaced = true
		}
		end = p.s.end
	}
	if !spaced {
		return string(p.s.src[start:end])
	}
	// Rebuild from the names (rare).
	for _, c := range p.s.src[start:end] {
		switch c {
		case ' ', '\t', '\f', '\r', '\n', '\\':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// --- expressions -------------------------------------------------------

// startsExpr reports whether t can begin an expression.
func startsExpr(t ptok) bool {
	switch t {
	case ptName, ptNumber, ptString, ptLparen, ptLbrack, ptLbrace, ptMinus, ptPlus, ptTilde,
		ptNot, ptAwait, ptLambda, ptStar, ptTrue, ptFalse, ptNone, ptEllipsis:
		return true
	}
	return false
}

// starExprs reads expressions separated by commas, each of them possibly
// starred, as on either side of an assignment.
func (p *pyFast) starExprs() pyX {
	x := p.starExpr()
	if p.s.tok != ptComma {
		if x == pxStarred {
			pyGiveUp(pdStar)
		}
		return x
	}
	seq := x.target() || x == pxStarred
	for p.s.tok == ptComma {
		p.next()
		if !startsExpr(p.s.tok) {
			break
		}
		y := p.starExpr()
		seq = seq && (y.target() || y == pxStarred)
	}
	if seq {
		return pxSeq
	}
	return pxOther
}

// starExpr is an expression or a starred one.
func (p *pyFast) starExpr() pyX {
	if p.s.tok != ptStar {
		return p.expression()
	}
	return p.starred()
}

// starred reads a star and a primary that starts with a name, which is
// all tree-sitter's grammar has outside brackets and calls (its
// list_splat_pattern, followed by any trailers); pxStarred if it can be
// assigned to.
func (p *pyFast) starred() pyX {
	p.next()
	if p.s.tok != ptName {
		pyGiveUp(pdStar)
	}
	x := p.primary()
	if continuesExpr(p.s.tok) {
		pyGiveUp(pdStar)
	}
	if x == pxName || x == pxAttr {
		return pxStarred
	}
	return pxOther
}

// continuesExpr reports whether t after a primary continues the
// expression.
func continuesExpr(t ptok) bool {
	switch t {
	case ptBinop, ptCompare, ptStar, ptPow, ptPlus, ptMinus, ptAt, ptIf, ptAnd, ptOr, ptNot, ptIn, ptIs, ptWalrus:
		return true
	}
	return false
}

// element is an element of a list, tuple or set display: a named
// expression or a starred one.
func (p *pyFast) element() pyX {
	if p.s.tok != ptStar {
		return p.namedExpr()
	}
	p.next()
	x := p.bitOr()
	if x == pxName || x == pxAttr {
		return pxStarred
	}
	return pxOther
}

func (p *pyFast) namedExpr() pyX {
	x := p.expression()
	if p.s.tok != ptWalrus {
		return x
	}
	if p.s.interp && p.s.depth == 0 {
		pyGiveUp(pdFString) // Python reads a format spec that starts with =
	}
	if x != pxName {
		pyGiveUp(pdSyntax)
	}
	p.next()
	p.expression()
	return pxOther
}

func (p *pyFast) expression() pyX {
	if p.s.tok == ptLambda {
		return p.lambda()
	}
	p.enter()
	x := p.disjunction()
	if p.s.tok == ptIf {
		p.next()
		p.disjunction()
		p.expect(ptElse)
		p.expression()
		x = pxOther
	}
	p.leave()
	return x
}

func (p *pyFast) lambda() pyX {
	if p.s.interp && p.s.depth == 0 {
		pyGiveUp(pdLambda) // its colon would start the format spec
	}
	p.next()
	p.params(ptColon, true)
	p.expect(ptColon)
	p.expression()
	return pxOther
}

func (p *pyFast) disjunction() pyX {
	x := p.conjunction()
	for p.s.tok == ptOr {
		p.next()
		p.conjunction()
		x = pxOther
	}
	return x
}

func (p *pyFast) conjunction() pyX {
	x := p.inversion()
	for p.s.tok == ptAnd {
		p.next()
		p.inversion()
		x = pxOther
	}
	return x
}

func (p *pyFast) inversion() pyX {
	if p.s.tok == ptNot {
		p.next()
		p.enter()
		p.inversion()
		p.leave()
		return pxOther
	}
	return p.comparison()
}

func (p *pyFast) comparison() pyX {
	x := p.bitOr()
	for {
		switch p.s.tok {
		case ptCompare, ptIn:
			p.next()
		case ptIs:
			p.next()
			if p.s.tok == ptNot {
				p.next()
			}
		case ptNot:
			p.next()
			p.expect(ptIn)
		default:
			return x
		}
		p.bitOr()
		x = pxOther
	}
}

// bitOr reads the binary operators from | to **; their precedence does
// not change what the statement declares.
func (p *pyFast) bitOr() pyX {
	x := p.factor()
	for {
		switch p.s.tok {
		case ptBinop, ptStar, ptPow, ptPlus, ptMinus, ptAt:
			if p.pipeDepth == p.s.depth && p.isPipe() {
				return x
			}
			p.next()
			p.factor()
			x = pxOther
		default:
			return x
		}
	}
}

func (p *pyFast) factor() pyX {
	switch p.s.tok {
	case ptPlus, ptMinus, ptTilde:
		p.next()
		p.enter()
		p.factor()
		p.leave()
		return pxOther
	case ptAwait:
		p.next()
		p.primary()
		return pxOther
	}
	return p.primary()
}

func (p *pyFast) primary() pyX {
	x := p.atom()
	for {
		switch p.s.tok {
		case ptDot:
			p.next()
			p.expectName()
			x = pxAttr
		case ptLparen:
			p.next()
			p.args()
			x = pxOther
		case ptLbrack:
			p.next()
			p.subscript()
			x = pxAttr
		default:
			return x
		}
	}
}

func (p *pyFast) atom() pyX {
	switch p.s.tok {
	case ptName:
		p.nameStart, p.nameEnd = p.s.start, p.s.end
		p.nameLine, p.nameCol = p.s.tline, p.s.tcol
		p.next()
		return pxName
	case ptNumber, ptTrue, ptFalse, ptNone, ptEllipsis:
		p.next()
		return pxOther
	case ptString:
		for p.s.tok == ptString {
			p.next()
		}
		return pxOther
	case ptLparen:
		return p.parenAtom()
	case ptLbrack:
		return p.listAtom()
	case ptLbrace:
		return p.dictAtom()
	}
	pyGiveUp(pdSyntax)
	return pxOther
}

func (p *pyFast) parenAtom() pyX {
	p.next()
	p.enter()
	defer p.leave()
	switch p.s.tok {
	case ptRparen:
		p.next()
		return pxSeq
	case ptYield:
		p.yieldExpr()
		p.expect(ptRparen)
		return pxOther
	}
	x := p.element()
	switch p.s.tok {
	case ptFor, ptAsync:
		if x == pxStarred {
			pyGiveUp(pdSyntax)
		}
		p.comprehension()
		p.expect(ptRparen)
		return pxOther
	case ptRparen:
		p.next()
		switch x {
		case pxStarred:
			pyGiveUp(pdSyntax)
		case pxName, pxAttr:
			return pxParen
		}
		return x
	}
	return p.sequence(x, ptRparen)
}

// sequence reads the rest of a tuple or list display after its first
// element x, up to and including end.
func (p *pyFast) sequence(x pyX, end ptok) pyX {
	seq := x.target() || x == pxStarred
	for p.s.tok == ptComma {
		p.next()
		if p.s.tok == end {
			break
		}
		y := p.element()
		seq = seq && (y.target() || y == pxStarred)
	}
	p.expect(end)
	if seq {
		return pxSeq
	}
	return pxOther
}

func (p *pyFast) listAtom() pyX {
	p.next()
	p.enter()
	defer p.leave()
	if p.s.tok == ptRbrack {
		p.next()
		return pxSeq
	}
	x := p.element()
	if p.s.tok == ptFor || p.s.tok == ptAsync {
		if x == pxStarred {
			pyGiveUp(pdSyntax)
		}
		p.comprehension()
		p.expect(ptRbrack)
		return pxOther
	}
	return p.sequence(x, ptRbrack)
}

func (p *pyFast) dictAtom() pyX {
	p.next()
	p.enter()
	defer p.leave()
	if p.s.tok == ptRbrace {
		p.next()
		return pxOther
	}
	// The first item says whether this is a dict or a set.
	dict := false
	switch p.s.tok {
	case ptPow:
		p.next()
		p.bitOr()
		dict = true
	case ptStar:
		p.element()
	default:
		p.namedExpr()
		if p.s.tok == ptColon {
			p.next()
			p.expression()
			dict = true
		}
		if p.s.tok == ptFor || p.s.tok == ptAsync {
			p.comprehension()
			p.expect(ptRbrace)
			return pxOther
		}
	}
	for p.s.tok == ptComma {
		p.next()
		if p.s.tok == ptRbrace {
			break
		}
		switch {
		case !dict:
			p.element()
		case p.s.tok == ptPow:
			p.next()
			p.bitOr()
		default:
			p.expression()
			p.expect(ptColon)
			p.expression()
		}
	}
	p.expect(ptRbrace)
	return pxOther
}

// comprehension reads for and if clauses.
func (p *pyFast) comprehension() {
	for {
		if p.s.tok == ptAsync {
			p.next()
		}
		p.expect(ptFor)
		p.targetList()
		p.expect(ptIn)
		p.disjunction()
		for p.s.tok == ptIf {
			p.next()
			p.disjunction()
		}
		if p.s.tok != ptFor && p.s.tok != ptAsync {
			return
		}
	}
}

// targetList reads the targets of a for statement or clause.
func (p *pyFast) targetList() {
	if !p.target().target() && p.s.tok != ptComma {
		pyGiveUp(pdSyntax)
	}
	for p.s.tok == ptComma {
		p.next()
		if p.s.tok == ptIn {
			return
		}
		p.target()
	}
}

// target reads one target: a name, attribute, subscript, a parenthesized
// or bracketed sequence of targets, or a starred name, attribute or
// subscript.
func (p *pyFast) target() pyX {
	if p.s.tok == ptStar {
		p.next()
		if p.s.tok != ptName {
			pyGiveUp(pdStar)
		}
		if x := p.primary(); x != pxName && x != pxAttr {
			pyGiveUp(pdStar)
		}
		return pxStarred
	}
	x := p.primary()
	if !x.target() {
		pyGiveUp(pdSyntax)
	}
	return x
}

// args reads the arguments of a call or class after the parenthesis, up
// to and including the closing one.
func (p *pyFast) args() {
	p.enter()
	defer p.leave()
	for n := 0; p.s.tok != ptRparen; n++ {
		switch p.s.tok {
		case ptStar, ptPow:
			p.next()
			p.expression()
		default:
			x := p.namedExpr()
			switch p.s.tok {
			case ptAssign:
				if x != pxName {
					pyGiveUp(pdSyntax)
				}
				p.next()
				p.expression()
			case ptFor, ptAsync:
				// A generator expression, the only argument.
				if n != 0 {
					pyGiveUp(pdSyntax)
				}
				p.comprehension()
				p.expect(ptRparen)
				return
			}
		}
		if p.s.tok != ptComma {
			break
		}
		p.next()
	}
	p.expect(ptRparen)
}

// subscript reads what is between the brackets of a subscript, and the
// closing bracket.
func (p *pyFast) subscript() {
	p.enter()
	defer p.leave()
	for {
		switch p.s.tok {
		case ptStar:
			p.starred()
		case ptColon:
			p.slice()
		default:
			p.namedExpr()
			if p.s.tok == ptColon {
				p.slice()
			}
		}
		if p.s.tok != ptComma {
			break
		}
		p.next()
		if p.s.tok == ptRbrack {
			break
		}
	}
	p.expect(ptRbrack)
}

// slice reads a slice from its first colon.
func (p *pyFast) slice() {
	p.next()
	if p.s.tok != ptColon && p.s.tok != ptComma && p.s.tok != ptRbrack {
		p.expression()
	}
	if p.s.tok == ptColon {
		p.next()
		if p.s.tok != ptComma && p.s.tok != ptRbrack {
			p.expression()
		}
	}
}

func (p *pyFast) yieldExpr() {
	p.next()
	if p.s.tok == ptFrom {
		p.next()
		p.expression()
		return
	}
	if startsExpr(p.s.tok) {
		p.starExprs()
	}
}

// replacementField parses an f-string's replacement field from its
// expression to its closing brace, which the scanner has read when it
// returns.
func (p *pyFast) replacementField() {
	if p.s.tok == ptYield {
		p.yieldExpr()
	} else {
		p.expression()
		for p.s.tok == ptComma {
			p.next()
			if !startsExpr(p.s.tok) || p.s.tok == ptStar {
				break
			}
			p.expression()
		}
	}
	if p.s.tok == ptAssign {
		p.next()
	}
	if p.s.tok == ptConversion {
		p.next()
	}
	if p.s.tok == ptColon {
		p.s.formatSpec()
	}
	if p.s.tok != ptRbrace || p.s.depth != 0 {
		pyGiveUp(pdFString)
	}
}
