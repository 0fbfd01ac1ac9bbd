package parse

import (
	"slices"
	"sort"
	"sync"
)

// The fast JavaScript path: a recognizer of JavaScript's grammar that
// builds no syntax tree. It reads a file once and records what parseJS
// records from tree-sitter's tree: the imports (static ones, re-exports,
// and import() and require() calls with a literal specifier anywhere), the
// members a namespace import uses, the top-level functions, classes with
// their methods, and variables, and the name exported as default.
//
// Tree-sitter reports a syntax error anywhere in a file, and a file with
// one keeps what its tree recovered; so the fast path checks every
// statement and expression, and declines (parseJavaScript then runs
// tree-sitter) whenever it cannot vouch that tree-sitter parses the file
// without an error and into the same statements: any syntax error, JSX,
// decorators, reserved words as names, a line break where tree-sitter's
// automatic semicolons differ from the language's (before a template, or
// before a ( or [ after return), and the lexical corners listed in
// jsscan.go. TestJavaScriptFastAgreesWithTreeSitter,
// TestJavaScriptFastAgreesOnMutatedFiles and FuzzJavaScriptFast hold the
// two paths equal.

// parseJavaScriptFast returns the record of a JavaScript file, or the
// reason the fast path declined it.
func parseJavaScriptFast(path string, src []byte) (FileRecord, jsDecline) {
	return runJSFast(path, src, false)
}

// runJSFast reads src with a pooled recognizer, as JavaScript or as a
// TypeScript declaration file (ts), and returns its record or the reason
// it declined.
func runJSFast(path string, src []byte, ts bool) (rec FileRecord, why jsDecline) {
	p := jsFastPool.Get().(*jsFast)
	defer func() {
		if v := recover(); v != nil {
			d, mine := v.(jsDecline)
			if !mine {
				panic(v)
			}
			why = d
			if jsDeclineHook != nil {
				jsDeclineHook(&p.s, d)
			}
		}
		seen := p.seen
		if len(seen) > 4096 {
			seen = map[string]struct{}{}
		}
		clear(seen)
		*p = jsFast{seen: seen}
		jsFastPool.Put(p)
	}()
	p.ts = ts
	p.s.init(src)
	for p.s.tok != jtEOF {
		if ts {
			p.tsStatement(true)
		} else {
			p.statement(true)
		}
	}
	rec = p.record(path)
	if ts {
		rec.Lang = LangTypeScript
	}
	return rec, ""
}

// jsDeclineHook, when set (by tests), sees the scanner where the fast
// path declined.
var jsDeclineHook func(s *jsScanner, why jsDecline)

var jsFastPool = sync.Pool{New: func() any { return &jsFast{seen: map[string]struct{}{}} }}

type jsFast struct {
	s    jsScanner
	nest int

	imports     []offImport
	namespaces  []namespaceImport
	nsIndex     map[string]int // a namespace import's name → its members' index
	members     [][]string     // the members used, by namespace name
	syms        []Symbol
	seen        map[string]struct{}
	defaultName string
	code        bool // a top-level statement other than an import came
	cover       bool // an object literal holds a shorthand default (`{a = 1}`), which only a pattern may
	ts          bool // a TypeScript declaration file
	blocks      int  // TypeScript: the namespace and module bodies the statement is in

	// The last identifier read as an expression: its bytes and line.
	nameStart, nameEnd, nameLine int
	// parenDepth is how many parentheses enclose a jxParenFn.
	parenDepth int
	// lastPat says how far the last array or object literal read, or the
	// target of the last jxAssignPat, may be a pattern.
	lastPat uint8
}

// jsX describes a parsed expression as far as its context cares.
type jsX uint8

const (
	jxOther     jsX = iota
	jxName          // a bare identifier
	jxMember        // a member or subscript expression
	jxParen         // a parenthesized expression
	jxParenFn       // a parenthesized function (depth in jsFast.parenDepth)
	jxObject        // an object literal
	jxArray         // an array literal
	jxFunc          // a function, generator or arrow function
	jxArrowHead     // parameters that an => follows
	jxAssignPat     // name = value, where name may be a pattern: a parameter with a default
)

// record builds the file's record from what the walk found.
func (p *jsFast) record(path string) FileRecord {
	for i, members := range p.members {
		slices.Sort(members)
		p.members[i] = slices.Compact(members)
	}
	for _, ns := range p.namespaces {
		imp := &p.imports[ns.imp].Import
		imp.Names = append(imp.Names, p.members[p.nsIndex[ns.name]]...)
	}
	var imports []Import
	if len(p.imports) > 0 {
		if !sort.SliceIsSorted(p.imports, func(i, j int) bool { return p.imports[i].off < p.imports[j].off }) {
			sort.SliceStable(p.imports, func(i, j int) bool { return p.imports[i].off < p.imports[j].off })
		}
		imports = make([]Import, len(p.imports))
		for i, imp := range p.imports {
			imports[i] = imp.Import
		}
	}
	return FileRecord{Path: path, Lang: LangJavaScript, Imports: imports, Symbols: p.syms, Default: p.defaultName}
}

func (p *jsFast) expect(t jsTok) {
	if p.s.tok != t {
		jsGiveUp(jdSyntax)
	}
	p.s.next()
}

func (p *jsFast) expectWord(w string) {
	if !p.s.is(w) {
		jsGiveUp(jdSyntax)
	}
	p.s.next()
}

func (p *jsFast) enter() {
	p.nest++
	if p.nest > 400 {
		jsGiveUp(jdDepth)
	}
}

func (p *jsFast) leave() { p.nest-- }

// add records a symbol at the current token; the first of a name wins.
func (p *jsFast) add(name, kind string, line, col int) {
	if _, ok := p.seen[name]; ok {
		return
	}
	p.seen[name] = struct{}{}
	p.syms = append(p.syms, Symbol{Name: name, Kind: kind, Line: line, Col: col})
}

// declare reads the name of a declaration (a function, class, interface,
// type or enum): a symbol of that kind at top level, and the name
// exported as default if def.
func (p *jsFast) declare(top, def bool, kind string) string {
	s := &p.s
	if s.tok != jtName || jsReserved(s.text()) {
		jsGiveUp(jdSyntax)
	}
	name := string(s.text())
	if top {
		p.add(name, kind, s.tline, s.tcol)
		if def {
			p.defaultName = name
		}
	}
	s.next()
	return name
}

// jsReserved are the words that may not name a binding or be read as one;
// the contextual keywords (async, get, set, static, of, from, as, let,
// target, meta) are names to tree-sitter wherever their keyword is not
// expected, and let is handled where it starts a declaration.
func jsReserved(w []byte) bool {
	switch string(w) {
	case "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
		"do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in",
		"instanceof", "new", "return", "super", "switch", "this", "throw", "try", "typeof", "var",
		"void", "while", "with", "yield", "await", "enum", "null", "true", "false", "let":
		return true
	}
	return false
}

// semi ends a statement: at a semicolon, before a }, at the end of the
// file, or at a line break where tree-sitter's scanner inserts one too.
func (p *jsFast) semi() {
	s := &p.s
	switch s.tok {
	case jtSemi:
		s.next()
		return
	case jtRBrace, jtEOF:
		return
	}
	if s.nl && p.tsASI() {
		return
	}
	if s.nl || s.blockNL {
		jsGiveUp(jdASI)
	}
	jsGiveUp(jdSyntax)
}

// tsASI reports whether tree-sitter-javascript's scanner inserts a
// semicolon at the line break before the current token: it does unless
// the next line starts with a character that may continue an expression
// (scanner.c, scan_automatic_semicolon).
func (p *jsFast) tsASI() bool {
	s := &p.s
	if s.tok == jtEOF {
		return true
	}
	src, i := s.src, s.start
	at := func(k int) byte {
		if i+k < len(src) {
			return src[i+k]
		}
		return 0
	}
	alpha := func(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }
	switch src[i] {
	case ',', ':', ';', '*', '%', '>', '<', '=', '[', '(', '?', '^', '|', '&', '/':
		return false
	case '.':
		return '0' <= at(1) && at(1) <= '9'
	case '+', '-':
		return at(1) == src[i]
	case '!':
		return at(1) != '='
	case 'i':
		if at(1) != 'n' {
			return true
		}
		if !alpha(at(2)) {
			return false
		}
		const rest = "stanceof"
		for k := 0; k < len(rest); k++ {
			if at(2+k) != rest[k] {
				return true
			}
		}
		return alpha(at(2 + len(rest)))
	}
	return true
}

// restricted checks the token after a word no line break may follow
// (return, break, continue): where one does, the language inserts a
// semicolon, and tree-sitter must too.
func (p *jsFast) restricted() bool {
	s := &p.s
	if s.blockNL && !s.nl {
		jsGiveUp(jdASI)
	}
	if s.nl && !p.tsASI() {
		jsGiveUp(jdASI)
	}
	return s.nl
}

// statement reads one statement; top says it is a child of the program,
// whose declarations are the file's symbols.
func (p *jsFast) statement(top bool) {
	s := &p.s
	p.enter()
	defer p.leave()
	if top && !s.is("import") && !s.is("export") {
		p.code = true
	}
	switch s.tok {
	case jtLBrace:
		p.block()
		return
	case jtSemi:
		s.next()
		return
	case jtName:
	default:
		p.expressionStatement()
		return
	}
	switch string(s.text()) {
	case "var", "const":
		s.next()
		p.declarations(top, false)
		p.semi()
	case "let":
		save := *s
		s.next()
		if s.nl || s.blockNL || s.tok != jtName && s.tok != jtLBrack && s.tok != jtLBrace {
			*s = save
			jsGiveUp(jdReserved)
		}
		p.declarations(top, false)
		p.semi()
	case "function":
		p.function(top, false)
	case "async":
		save := *s
		s.next()
		if s.is("function") && !s.nl {
			p.function(top, false)
			return
		}
		*s = save
		p.expressionStatement()
	case "class":
		p.class(top, false)
	case "if":
		s.next()
		p.parenthesized()
		p.statement(false)
		if s.is("else") {
			s.next()
			p.statement(false)
		}
	case "for":
		p.forStatement()
	case "while":
		s.next()
		p.parenthesized()
		p.statement(false)
	case "do":
		s.next()
		p.statement(false)
		p.expectWord("while")
		p.parenthesized()
		if s.tok == jtSemi {
			s.next()
		}
	case "return":
		s.next()
		if !p.restricted() && p.startsExpression() {
			p.expression(false)
		}
		p.semi()
	case "break", "continue":
		s.next()
		if !p.restricted() && s.tok == jtName && !jsReserved(s.text()) {
			s.next()
		}
		p.semi()
	case "throw":
		s.next()
		if s.nl || s.blockNL {
			jsGiveUp(jdASI)
		}
		p.expression(false)
		p.semi()
	case "try":
		s.next()
		p.block()
		handled := false
		if s.is("catch") {
			s.next()
			if s.tok == jtLParen {
				s.next()
				p.binding()
				p.expect(jtRParen)
			}
			p.block()
			handled = true
		}
		if s.is("finally") {
			s.next()
			p.block()
			handled = true
		}
		if !handled {
			jsGiveUp(jdSyntax)
		}
	case "switch":
		s.next()
		p.parenthesized()
		p.expect(jtLBrace)
		for s.tok != jtRBrace {
			switch {
			case s.is("case"):
				s.next()
				p.expression(false)
			case s.is("default"):
				s.next()
			default:
				jsGiveUp(jdSyntax)
			}
			p.expect(jtColon)
			for s.tok != jtRBrace && !s.is("case") && !s.is("default") {
				p.statement(false)
			}
		}
		s.next()
	case "with":
		s.next()
		p.parenthesized()
		p.statement(false)
	case "debugger":
		s.next()
		p.semi()
	case "import":
		save := *s
		s.next()
		if s.tok == jtLParen || s.tok == jtDot {
			*s = save
			p.expressionStatement()
			return
		}
		if !top {
			jsGiveUp(jdSyntax)
		}
		*s = save
		p.importStatement()
	case "export":
		if !top {
			jsGiveUp(jdSyntax)
		}
		p.exportStatement()
	default:
		p.expressionStatement()
	}
}

// expressionStatement reads an expression statement, or a labeled
// statement.
func (p *jsFast) expressionStatement() {
	s := &p.s
	x := p.expression(false)
	if x == jxName && s.tok == jtColon {
		s.next()
		p.statement(false)
		return
	}
	p.semi()
}

// lastName is the text of the last identifier read as an expression.
func (p *jsFast) lastName() []byte {
	return p.s.src[p.nameStart:p.nameEnd]
}

func (p *jsFast) block() { p.braced(p.statement) }

// braced reads `{ statements }`, each with stmt.
func (p *jsFast) braced(stmt func(top bool)) {
	s := &p.s
	p.expect(jtLBrace)
	for s.tok != jtRBrace {
		if s.tok == jtEOF {
			jsGiveUp(jdSyntax)
		}
		stmt(false)
	}
	s.next()
}

func (p *jsFast) parenthesized() {
	p.expect(jtLParen)
	p.expression(false)
	p.expect(jtRParen)
}

// declarations reads the declarators of a var, let or const; at top level
// each plain name is a symbol, a function if its value is one. It reports
// whether there was one declarator without a value (what a for-in or
// for-of may declare).
func (p *jsFast) declarations(top, noIn bool) (single bool) {
	s := &p.s
	single = true
	for {
		nameTok := s.tok == jtName
		line, col, start, end := s.tline, s.tcol, s.start, s.end
		p.binding()
		kind := "var"
		if s.tok == jtAssign {
			single = false
			s.next()
			if p.isFunction(p.assign(noIn, false)) {
				kind = "function"
			}
		}
		if top && nameTok {
			p.add(string(s.src[start:end]), kind, line, col)
		}
		if s.tok != jtComma {
			return single
		}
		single = false
		s.next()
	}
}

// isFunction reports whether a declarator's value is a function as
// parseJS sees it: through at most three parentheses.
func (p *jsFast) isFunction(x jsX) bool {
	return x == jxFunc || x == jxParenFn && p.parenDepth <= 3
}

// binding reads a binding target: a name, or an array or object pattern.
func (p *jsFast) binding() {
	s := &p.s
	p.enter()
	defer p.leave()
	switch s.tok {
	case jtName:
		if jsReserved(s.text()) {
			jsGiveUp(jdReserved)
		}
		s.next()
	case jtLBrack:
		s.next()
		for s.tok != jtRBrack {
			switch s.tok {
			case jtComma:
				s.next()
				continue
			case jtEllipsis:
				s.next()
				p.binding()
			default:
				p.binding()
				p.initializer()
			}
			if s.tok != jtComma {
				break
			}
			s.next()
		}
		p.expect(jtRBrack)
	case jtLBrace:
		s.next()
		for s.tok != jtRBrace {
			if s.tok == jtEllipsis {
				s.next()
				p.binding()
			} else {
				shorthand := s.tok == jtName
				if shorthand && jsReserved(s.text()) {
					shorthand = false
				}
				p.propertyName()
				if s.tok == jtColon {
					s.next()
					p.binding()
				} else if !shorthand {
					jsGiveUp(jdSyntax)
				}
				p.initializer()
			}
			if s.tok != jtComma {
				break
			}
			s.next()
		}
		p.expect(jtRBrace)
	default:
		jsGiveUp(jdSyntax)
	}
}

// initializer reads an optional `= value`.
func (p *jsFast) initializer() {
	if p.s.tok == jtAssign {
		p.s.next()
		p.assign(false, false)
	}
}

// propertyName reads the name of a property or method: a word, a string,
// a number, a private name or a computed [name].
func (p *jsFast) propertyName() {
	s := &p.s
	switch s.tok {
	case jtName, jtStr, jtNum, jtPrivate:
		s.next()
	case jtLBrack:
		s.next()
		p.assign(false, false)
		p.expect(jtRBrack)
	default:
		jsGiveUp(jdSyntax)
	}
}

// params reads a parameter list.
func (p *jsFast) params() {
	s := &p.s
	p.expect(jtLParen)
	for s.tok != jtRParen {
		if s.tok == jtEllipsis {
			s.next()
			p.binding()
			break
		}
		p.binding()
		p.initializer()
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRParen)
}

// function reads a function declaration from its function keyword (after
// async); at top level its name is a symbol, and the default export's
// name if def.
func (p *jsFast) function(top, def bool) {
	s := &p.s
	s.next()
	if s.tok == jtBinary && s.text()[0] == '*' && s.end-s.start == 1 {
		s.next()
	}
	p.declare(top, def, "function")
	p.params()
	p.block()
}

// class reads a class declaration; at top level its name and its methods'
// are symbols.
func (p *jsFast) class(top, def bool) {
	p.s.next()
	name := p.declare(top, def, "class")
	if !top {
		name = ""
	}
	p.classTail(name)
}

// classTail reads a class's heritage and body; methods are symbols of a
// named class (class not "").
func (p *jsFast) classTail(class string) {
	s := &p.s
	if s.is("extends") {
		s.next()
		p.lhs()
	}
	p.expect(jtLBrace)
	for s.tok != jtRBrace {
		p.classMember(class)
	}
	s.next()
}

// classMember reads one member of a class body.
func (p *jsFast) classMember(class string) {
	s := &p.s
	if s.tok == jtSemi {
		s.next()
		return
	}
	modified := false
	// A modifier is a word another name follows; before ( = ; } it is the
	// name itself.
	modifier := func() bool {
		save := *s
		s.next()
		switch s.tok {
		case jtLParen, jtAssign, jtSemi, jtRBrace:
			*s = save
			return false
		}
		if s.nl || s.blockNL {
			jsGiveUp(jdASI)
		}
		return true
	}
	if s.is("static") && modifier() {
		if s.tok == jtLBrace {
			p.block()
			return
		}
	}
	if s.is("async") && modifier() {
		modified = true
	}
	if s.tok == jtBinary && s.end-s.start == 1 && s.src[s.start] == '*' {
		s.next()
		modified = true
	}
	if !modified && (s.is("get") || s.is("set")) && modifier() {
		modified = true
	}
	named := s.tok == jtName || s.tok == jtPrivate
	line, col, start, end := s.tline, s.tcol, s.start, s.end
	p.propertyName()
	if s.tok == jtLParen {
		if class != "" && named {
			p.add(class+"."+string(s.src[start:end]), "method", line, col)
		}
		p.params()
		p.block()
		return
	}
	if modified {
		jsGiveUp(jdSyntax)
	}
	p.initializer()
	p.semi()
}

// forStatement reads a for, for-in, for-of or for await.
func (p *jsFast) forStatement() {
	s := &p.s
	s.next()
	await := s.is("await")
	if await {
		s.next()
	}
	p.expect(jtLParen)
	target := jxName // a declaration's
	single := true   // one declarator, without a value
	switch {
	case s.tok == jtSemi:
	case s.is("var") || s.is("const") || s.is("let"):
		s.next()
		if s.nl || s.blockNL {
			jsGiveUp(jdASI)
		}
		single = p.declarations(false, true)
	default:
		target = p.expression(true)
	}
	if await && !s.is("of") && !s.is("in") {
		jsGiveUp(jdSyntax) // for await needs of
	}
	if s.is("of") || s.is("in") {
		if s.nl || s.blockNL {
			jsGiveUp(jdASI) // tree-sitter may end the declaration there
		}
		if !single {
			jsGiveUp(jdSyntax) // for (let a, b of c), for (const a = 1 in b)
		}
		switch target {
		case jxName, jxMember, jxParen:
		case jxObject, jxArray:
			if p.lastPat == patNone {
				jsGiveUp(jdSyntax)
			}
		default:
			jsGiveUp(jdSyntax)
		}
		of := s.is("of")
		s.next()
		if of {
			p.assign(false, false)
		} else {
			p.expression(false)
		}
	} else {
		p.expect(jtSemi)
		if s.tok != jtSemi {
			p.expression(false)
		}
		p.expect(jtSemi)
		if s.tok != jtRParen {
			p.expression(false)
		}
	}
	p.expect(jtRParen)
	p.statement(false)
}

// importStatement: `import x, {a, b as c} from 's'`, `import * as ns
// from 's'`, `import 's'`, with import attributes.
func (p *jsFast) importStatement() {
	s := &p.s
	line, off := s.tline, s.start
	s.next()
	if s.nl || s.blockNL {
		jsGiveUp(jdASI)
	}
	p.importClause(line, off)
}

// importClause reads an import statement after its import keyword (and
// a TypeScript type): the names it takes, its source, its attributes; a
// namespace import is noted for namespaceMembers' count.
func (p *jsFast) importClause(line, off int) {
	s := &p.s
	var names []string
	namespace := ""
	if s.tok != jtStr {
		clause := false
		if s.tok == jtName && !s.is("from") || s.is("from") && p.peekIs("from") {
			if jsReserved(s.text()) {
				jsGiveUp(jdReserved)
			}
			names = append(names, "default")
			clause = true
			s.next()
			if s.tok == jtComma {
				s.next()
				if s.tok != jtLBrace && !(s.tok == jtBinary && string(s.text()) == "*") {
					jsGiveUp(jdSyntax)
				}
			} else if !s.is("from") {
				jsGiveUp(jdSyntax)
			}
		}
		switch {
		case s.tok == jtBinary && string(s.text()) == "*":
			s.next()
			p.expectWord("as")
			if s.tok != jtName || jsReserved(s.text()) {
				jsGiveUp(jdSyntax)
			}
			namespace = string(s.text())
			s.next()
		case s.tok == jtLBrace:
			clause = true
			s.next()
			for s.tok != jtRBrace {
				p.typeModifier()
				name := p.moduleExportName()
				if s.is("as") {
					s.next()
					if s.tok != jtName || jsReserved(s.text()) {
						jsGiveUp(jdSyntax)
					}
					s.next()
				} else if p.s.src[p.s.prevEnd-1] == '"' || p.s.src[p.s.prevEnd-1] == '\'' || jsReserved([]byte(name)) {
					jsGiveUp(jdSyntax)
				}
				if name != "" {
					names = append(names, name)
				}
				if s.tok != jtComma {
					break
				}
				s.next()
			}
			p.expect(jtRBrace)
		}
		if !clause && namespace == "" {
			jsGiveUp(jdSyntax)
		}
		p.expectWord("from")
	}
	p.addSource(line, off, names, nil)
	if namespace != "" && p.blocks == 0 {
		if p.code {
			jsGiveUp(jdNamespace)
		}
		p.namespaces = append(p.namespaces, namespaceImport{namespace, len(p.imports) - 1})
		if _, ok := p.nsIndex[namespace]; !ok {
			if p.nsIndex == nil {
				p.nsIndex = map[string]int{}
			}
			p.nsIndex[namespace] = len(p.members)
			p.members = append(p.members, nil)
		}
	}
	p.attributes()
	p.semi()
}

// typeModifier skips the type of a TypeScript `{ type A }` specifier.
func (p *jsFast) typeModifier() {
	if p.ts && p.s.is("type") {
		p.s.next()
		if p.s.tok == jtName && !p.s.is("as") || p.s.tok == jtStr {
			return
		}
		jsGiveUp(jdSyntax) // a specifier named type, which tree-sitter misreads
	}
}

// peekIs reports whether the token after the current one is the word w.
func (p *jsFast) peekIs(w string) bool {
	save := p.s
	p.s.next()
	is := p.s.is(w)
	p.s = save
	return is
}

// moduleExportName reads the name of an import or export specifier: a
// word, or a string naming an export.
func (p *jsFast) moduleExportName() string {
	s := &p.s
	switch s.tok {
	case jtName:
		name := string(s.text())
		s.next()
		return name
	case jtStr:
		v, _ := jsLiteral(s.text())
		s.next()
		return v
	}
	jsGiveUp(jdSyntax)
	return ""
}

// addSource records an import of the string literal at the current token
// (not in a TypeScript namespace or module: parseJS reads the top level).
func (p *jsFast) addSource(line, off int, names, as []string) {
	s := &p.s
	if s.tok != jtStr {
		jsGiveUp(jdSyntax)
	}
	if p.blocks > 0 {
		s.next()
		return
	}
	path, _ := jsLiteral(s.text())
	p.imports = append(p.imports, offImport{Import{Path: path, Names: names, As: as, Line: line}, uint32(off)})
	s.next()
}

// attributes reads an import's optional `with { ... }`. They may use a
// namespace (`{ type: ns.x }`), so a namespace import after them declines
// as after code.
func (p *jsFast) attributes() {
	if p.s.is("with") && !p.s.nl {
		p.s.next()
		if p.s.tok != jtLBrace {
			jsGiveUp(jdSyntax)
		}
		p.primary()
		p.code = true
	}
}

// exportStatement reads an export statement.
func (p *jsFast) exportStatement() {
	s := &p.s
	line, off := s.tline, s.start
	s.next()
	if s.nl || s.blockNL {
		jsGiveUp(jdASI) // tree-sitter may read export as a name
	}
	switch {
	case s.tok == jtLBrace || s.tok == jtBinary && string(s.text()) == "*":
		p.exportClause(line, off)
	case s.is("default"):
		p.code = true
		s.next()
		switch {
		case s.is("function"):
			if p.namedFunctionAhead() {
				p.function(true, true)
				return
			}
		case s.is("async"):
			save := *s
			s.next()
			if s.is("function") && !s.nl && p.namedFunctionAhead() {
				p.function(true, true)
				return
			}
			*s = save
		case s.is("class"):
			if p.peekName() {
				p.class(true, true)
				return
			}
		}
		x := p.assign(false, false)
		if x == jxName {
			p.defaultName = string(p.lastName())
		}
		p.semi()
	case s.is("var") || s.is("const") || s.is("let"):
		p.code = true
		s.next()
		p.declarations(true, false)
		p.semi()
	case s.is("function"):
		p.code = true
		p.function(true, false)
	case s.is("async"):
		p.code = true
		s.next()
		if !s.is("function") || s.nl {
			jsGiveUp(jdSyntax)
		}
		p.function(true, false)
	case s.is("class"):
		p.code = true
		p.class(true, false)
	default:
		jsGiveUp(jdSyntax)
	}
}

// exportClause reads the rest of an export statement from its * or {:
// `* from 's'`, `* as ns from 's'`, `{a, b as c} from 's'` (a re-export,
// recorded as an import at line and off), or `{a as default}`.
func (p *jsFast) exportClause(line, off int) {
	s := &p.s
	switch {
	case s.tok == jtBinary && string(s.text()) == "*":
		s.next()
		names := []string{ReexportsAll}
		if s.is("as") {
			s.next()
			p.moduleExportName()
			names = nil
		}
		p.expectWord("from")
		p.addSource(line, off, names, nil)
		p.semi()
	case s.tok == jtLBrace:
		p.code = true
		s.next()
		var names, as []string
		renamed, strs := false, false
		def := ""
		for s.tok != jtRBrace {
			p.typeModifier()
			strs = strs || s.tok == jtStr
			name := p.moduleExportName()
			alias := ""
			if s.is("as") {
				s.next()
				alias = p.moduleExportName()
				if alias == "default" && s.src[s.prevEnd-1] != '"' && s.src[s.prevEnd-1] != '\'' {
					def = name
				}
				if alias == name {
					alias = ""
				}
			}
			if name != "" {
				names, as = append(names, name), append(as, alias)
				renamed = renamed || alias != ""
			}
			if s.tok != jtComma {
				break
			}
			s.next()
		}
		p.expect(jtRBrace)
		if s.is("from") {
			if s.nl || s.blockNL {
				jsGiveUp(jdASI) // tree-sitter ends the statement before from
			}
			s.next()
			if !renamed {
				as = nil
			}
			p.addSource(line, off, names, as) // tree-sitter reads no attributes on an export
		} else {
			if strs {
				jsGiveUp(jdSyntax)
			}
			if def != "" && p.blocks == 0 {
				p.defaultName = def
			}
		}
		p.semi()
	default:
		jsGiveUp(jdSyntax)
	}
}

// namedFunctionAhead reports whether the function keyword at the current
// token has a name: `function f` or `function* f`.
func (p *jsFast) namedFunctionAhead() bool {
	save := p.s
	defer func() { p.s = save }()
	p.s.next()
	if p.s.tok == jtBinary && string(p.s.text()) == "*" {
		p.s.next()
	}
	return p.s.tok == jtName
}

// peekName reports whether a name follows the current token.
func (p *jsFast) peekName() bool {
	save := p.s
	p.s.next()
	named := p.s.tok == jtName && !p.s.is("extends")
	p.s = save
	return named
}

// startsExpression reports whether the current token can begin an
// expression.
func (p *jsFast) startsExpression() bool {
	switch p.s.tok {
	case jtName, jtPrivate, jtNum, jtStr, jtTemplate, jtTemplateHead, jtLParen, jtLBrack, jtLBrace,
		jtPlus, jtMinus, jtBang, jtTilde, jtInc, jtDec, jtSlash, jtSlashAssign, jtLess:
		return true
	}
	return false
}

// expression reads a comma-separated expression; noIn leaves an `in` to a
// for-in.
func (p *jsFast) expression(noIn bool) jsX {
	x := p.assign(noIn, false)
	for p.s.tok == jtComma {
		p.s.next()
		p.assign(noIn, false)
		x = jxOther
	}
	return x
}

// assign reads an assignment expression, an arrow function or a yield.
// cover allows an object literal with a shorthand default to stand
// unassigned: an element of a literal or of parentheses, which an outer
// `=` or `=>` may yet make a pattern.
func (p *jsFast) assign(noIn, cover bool) jsX {
	s := &p.s
	p.enter()
	defer p.leave()
	if s.is("yield") {
		s.next()
		if s.tok == jtBinary && string(s.text()) == "*" {
			s.next()
			p.assign(noIn, false)
		} else if p.startsExpression() && !s.is("in") && !s.is("of") && !s.is("instanceof") {
			if s.nl || s.blockNL {
				jsGiveUp(jdASI)
			}
			p.assign(noIn, false)
		}
		return jxOther
	}
	outer := p.cover
	p.cover = false
	x := p.conditional(noIn)
	switch s.tok {
	case jtArrow:
		if x != jxArrowHead && x != jxName {
			jsGiveUp(jdSyntax)
		}
		if s.nl || s.blockNL {
			jsGiveUp(jdASI)
		}
		p.cover = false
		s.next()
		if s.tok == jtLBrace {
			p.block()
		} else {
			p.assign(noIn, false)
		}
		p.cover = outer
		return jxFunc
	case jtAssign:
		pat := patBinding
		switch x {
		case jxName, jxMember, jxParen:
		case jxObject, jxArray:
			if pat = p.lastPat; pat == patNone {
				jsGiveUp(jdSyntax)
			}
		default:
			jsGiveUp(jdSyntax)
		}
		p.cover = false
		s.next()
		p.assign(noIn, false)
		p.cover = outer
		if x == jxName || x == jxObject || x == jxArray {
			p.lastPat = pat
			return jxAssignPat
		}
		return jxOther
	case jtAssignOp, jtSlashAssign:
		switch x {
		case jxName, jxMember, jxParen:
		default:
			jsGiveUp(jdSyntax)
		}
		if p.cover {
			jsGiveUp(jdSyntax)
		}
		s.next()
		p.assign(noIn, false)
		p.cover = outer
		return jxOther
	}
	if p.cover && (!cover || x != jxObject && x != jxArray) {
		jsGiveUp(jdSyntax)
	}
	p.cover = p.cover || outer
	if x == jxArrowHead {
		jsGiveUp(jdSyntax)
	}
	return x
}

// conditional reads a conditional expression.
func (p *jsFast) conditional(noIn bool) jsX {
	s := &p.s
	x := p.binary(noIn)
	if s.tok == jtQuestion {
		p.noCover()
		s.next()
		p.assign(false, false)
		p.expect(jtColon)
		p.assign(noIn, false)
		return jxOther
	}
	return x
}

// noCover declines an operator applied to an object literal with a
// shorthand default.
func (p *jsFast) noCover() {
	if p.cover {
		jsGiveUp(jdSyntax)
	}
}

// binary reads binary operators and their operands; precedence does not
// change what a recognizer accepts.
func (p *jsFast) binary(noIn bool) jsX {
	s := &p.s
	x := p.unary()
	for {
		switch s.tok {
		case jtBinary, jtLess, jtPlus, jtMinus, jtSlash:
		case jtName:
			if !s.is("instanceof") && (noIn || !s.is("in")) {
				return x
			}
		default:
			return x
		}
		if x == jxArrowHead {
			jsGiveUp(jdSyntax)
		}
		p.noCover()
		s.next()
		p.unary()
		x = jxOther
	}
}

// unary reads prefix operators, their operand and a postfix ++ or --.
func (p *jsFast) unary() jsX {
	s := &p.s
	switch s.tok {
	case jtBang, jtTilde, jtPlus, jtMinus, jtInc, jtDec:
		s.next()
		p.enter()
		p.unary()
		p.leave()
		return jxOther
	case jtName:
		switch string(s.text()) {
		case "typeof", "void", "delete", "await":
			s.next()
			p.enter()
			p.unary()
			p.leave()
			return jxOther
		}
	case jtLess:
		jsGiveUp(jdJSX)
	}
	x := p.lhs()
	if (s.tok == jtInc || s.tok == jtDec) && !s.nl {
		if s.blockNL {
			jsGiveUp(jdASI)
		}
		p.noCover()
		s.next()
		return jxOther
	}
	return x
}

// lhs reads a primary or new expression and its members, calls and tagged
// templates.
func (p *jsFast) lhs() jsX {
	s := &p.s
	var x jsX
	if s.is("new") {
		x = p.newExpression()
	} else {
		x = p.primary()
	}
	for {
		switch s.tok {
		case jtDot:
			p.noCover()
			p.dot(x)
			x = jxMember
		case jtOptChain:
			p.noCover()
			s.next()
			switch s.tok {
			case jtLParen:
				p.arguments(false, 0, 0)
			case jtLBrack:
				s.next()
				p.expression(false)
				p.expect(jtRBrack)
			case jtName, jtPrivate:
				s.next()
			default:
				jsGiveUp(jdSyntax)
			}
			x = jxMember
		case jtLBrack:
			p.noCover()
			s.next()
			p.expression(false)
			p.expect(jtRBrack)
			x = jxMember
		case jtLParen:
			p.noCover()
			require := x == jxName && !s.comment && string(p.lastName()) == "require" &&
				(p.nameStart == 0 || s.src[p.nameStart-1] != '.')
			if require {
				p.arguments(true, p.nameLine, p.nameStart)
			} else {
				p.arguments(false, 0, 0)
			}
			x = jxOther
		case jtTemplate, jtTemplateHead:
			if s.nl || s.blockNL {
				jsGiveUp(jdASI)
			}
			p.noCover()
			p.template()
			x = jxOther
		default:
			return x
		}
		if x == jxArrowHead {
			jsGiveUp(jdSyntax)
		}
	}
}

// dot reads `.name` after an expression x; when x is a bare identifier
// naming a namespace import, the name is a member the file uses of it
// (as parseJS's namespaceMembers finds them: no comment before the dot).
func (p *jsFast) dot(x jsX) {
	s := &p.s
	ident := s.src[p.nameStart:p.nameEnd]
	noComment := !s.comment
	s.next()
	if s.tok != jtName && s.tok != jtPrivate {
		jsGiveUp(jdSyntax)
	}
	if x == jxName && noComment && s.tok == jtName && p.nsIndex != nil {
		if i, ok := p.nsIndex[string(ident)]; ok {
			p.members[i] = append(p.members[i], string(s.text()))
		}
	}
	s.next()
}

// newExpression reads `new C(args)`, `new C` and `new.target`.
func (p *jsFast) newExpression() jsX {
	s := &p.s
	p.enter()
	defer p.leave()
	s.next()
	if s.tok == jtDot {
		s.next()
		p.expectWord("target")
		return jxMember
	}
	x := jxOther
	if s.is("new") {
		p.newExpression()
	} else {
		x = p.primary()
	}
	for {
		switch s.tok {
		case jtDot:
			p.dot(x)
			x = jxMember
			continue
		case jtLBrack:
			s.next()
			p.expression(false)
			p.expect(jtRBrack)
			x = jxMember
			continue
		case jtTemplate, jtTemplateHead:
			if s.nl || s.blockNL {
				jsGiveUp(jdASI)
			}
			p.template()
			x = jxOther
			continue
		case jtLParen:
			p.arguments(false, 0, 0)
		case jtOptChain:
			jsGiveUp(jdSyntax)
		}
		p.noCover()
		return jxOther
	}
}

// arguments reads a call's arguments. For import() and require(), capture
// records the first argument as an import of the call at line and off when
// it is a literal specifier.
func (p *jsFast) arguments(capture bool, line, off int) {
	s := &p.s
	p.expect(jtLParen)
	first := true
	for s.tok != jtRParen {
		if s.tok == jtEllipsis {
			s.next()
			p.assign(false, false)
		} else {
			lit := capture && first && (s.tok == jtStr || s.tok == jtTemplate)
			litStart, litEnd := s.start, s.end
			p.assign(false, false)
			if lit && s.prevEnd == litEnd && (s.tok == jtComma || s.tok == jtRParen) {
				if path, ok := jsLiteral(s.src[litStart:litEnd]); ok {
					p.imports = append(p.imports, offImport{Import{Path: path, Line: line}, uint32(off)})
				}
			}
		}
		first = false
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRParen)
}

// jsLiteral is the value of a string literal or a template without
// substitutions, from its source text.
func jsLiteral(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[len(lit)-1] != lit[0] {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' {
			return jsUnescape(body), true
		}
	}
	return string(body), true
}

// template reads a template literal from its first token, substitutions
// included.
func (p *jsFast) template() {
	s := &p.s
	for s.tok == jtTemplateHead {
		s.next()
		p.expression(false)
		s.templateRest()
	}
	if s.tok != jtTemplate {
		jsGiveUp(jdTemplate)
	}
	s.next()
}

// primary reads a primary expression.
func (p *jsFast) primary() jsX {
	s := &p.s
	switch s.tok {
	case jtName:
		switch string(s.text()) {
		case "function":
			p.functionExpression()
			return jxFunc
		case "async":
			return p.async()
		case "class":
			s.next()
			if s.tok == jtName && !s.is("extends") {
				if jsReserved(s.text()) {
					jsGiveUp(jdReserved)
				}
				s.next()
			}
			p.classTail("")
			return jxOther
		case "this", "super", "null", "true", "false":
			s.next()
			return jxOther
		case "import":
			line, off := s.tline, s.start
			s.next()
			if s.tok == jtDot {
				s.next()
				p.expectWord("meta")
				return jxMember
			}
			if s.tok != jtLParen {
				jsGiveUp(jdSyntax)
			}
			// As parseJS's scan: not after a dot (`...import(x)`).
			p.arguments(!s.comment && (off == 0 || s.src[off-1] != '.'), line, off)
			return jxOther
		}
		if jsReserved(s.text()) {
			jsGiveUp(jdReserved)
		}
		return p.plainName()
	case jtNum, jtStr, jtTemplate:
		s.next()
		return jxOther
	case jtTemplateHead:
		p.template()
		return jxOther
	case jtSlash, jtSlashAssign:
		s.regex()
		s.next()
		return jxOther
	case jtLParen:
		return p.parens()
	case jtLBrack:
		p.array()
		return jxArray
	case jtLBrace:
		p.object()
		return jxObject
	case jtPrivate:
		s.next()
		if !s.is("in") {
			jsGiveUp(jdSyntax)
		}
		return jxOther
	case jtLess:
		jsGiveUp(jdJSX)
	}
	jsGiveUp(jdSyntax)
	return jxOther
}

// functionExpression reads a function or generator expression from its
// function keyword.
func (p *jsFast) functionExpression() {
	s := &p.s
	s.next()
	if s.tok == jtBinary && string(s.text()) == "*" {
		s.next()
	}
	if s.tok == jtName {
		if jsReserved(s.text()) {
			jsGiveUp(jdReserved)
		}
		s.next()
	}
	p.params()
	p.block()
}

// async reads what starts with the word async: an async function, an
// async arrow function's parameters, a call of a function named async, or
// that name.
func (p *jsFast) async() jsX {
	s := &p.s
	save := *s
	s.next()
	if s.nl || s.blockNL {
		*s = save
		return p.plainName()
	}
	switch {
	case s.is("function"):
		p.functionExpression()
		return jxFunc
	case s.tok == jtName && !jsReserved(s.text()):
		s.next()
		if s.tok != jtArrow {
			jsGiveUp(jdSyntax)
		}
		return jxArrowHead
	case s.tok == jtLParen:
		x := p.parens()
		if x == jxArrowHead {
			return jxArrowHead
		}
		jsGiveUp(jdSyntax) // a call of a function named async
	}
	*s = save
	return p.plainName()
}

// plainName reads the current word as an identifier.
func (p *jsFast) plainName() jsX {
	p.nameStart, p.nameEnd, p.nameLine = p.s.start, p.s.end, p.s.tline
	p.s.next()
	return jxName
}

// parens reads a parenthesized expression, or an arrow function's
// parameters when => follows.
func (p *jsFast) parens() jsX {
	s := &p.s
	p.enter()
	defer p.leave()
	s.next()
	if s.tok == jtRParen {
		s.next()
		if s.tok != jtArrow {
			jsGiveUp(jdSyntax)
		}
		return jxArrowHead
	}
	commentFirst := s.comment
	outer := p.cover
	p.cover = false
	params, only, n := true, true, 0
	var inner jsX
	innerParens := 0
	for {
		if s.tok == jtEllipsis {
			s.next()
			p.binding()
			only = false
			if s.tok != jtRParen {
				jsGiveUp(jdSyntax)
			}
			break
		}
		x := p.assign(false, true)
		n++
		inner, innerParens = x, p.parenDepth
		if x != jxName && (x != jxObject && x != jxArray && x != jxAssignPat || p.lastPat != patBinding) {
			params = false
		}
		if s.tok != jtComma {
			break
		}
		s.next()
		if s.tok == jtRParen {
			only = false // a trailing comma: parameters only
			break
		}
	}
	p.expect(jtRParen)
	cover := p.cover
	p.cover = outer
	if s.tok == jtArrow {
		if !params {
			jsGiveUp(jdSyntax)
		}
		return jxArrowHead
	}
	if !only || cover {
		jsGiveUp(jdSyntax)
	}
	if n == 1 && !commentFirst {
		switch inner {
		case jxFunc:
			p.parenDepth = 1
			return jxParenFn
		case jxParenFn:
			p.parenDepth = innerParens + 1
			return jxParenFn
		}
	}
	return jxParen
}

// How far an array or object literal may be read as a pattern, as
// tree-sitter's grammar allows one: not at all, as the target of an
// assignment (members allowed), or as a parameter (names only).
const (
	patNone uint8 = iota
	patAssign
	patBinding
)

// elementPat is how far an element x of a literal, just read, may be a
// pattern.
func (p *jsFast) elementPat(x jsX) uint8 {
	switch x {
	case jxName:
		return patBinding
	case jxMember:
		return patAssign
	case jxObject, jxArray, jxAssignPat:
		return p.lastPat
	}
	return patNone
}

// array reads an array literal; lastPat says how far it may be a pattern.
func (p *jsFast) array() {
	s := &p.s
	p.enter()
	defer p.leave()
	s.next()
	pat := patBinding
	for s.tok != jtRBrack {
		switch s.tok {
		case jtComma:
			s.next()
			continue
		case jtEllipsis:
			s.next()
			pat = min(pat, p.elementPat(p.assign(false, true)))
		default:
			pat = min(pat, p.elementPat(p.assign(false, true)))
		}
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRBrack)
	p.lastPat = pat
}

// object reads an object literal; lastPat says how far it may be a
// pattern.
func (p *jsFast) object() {
	s := &p.s
	p.enter()
	defer p.leave()
	s.next()
	pat := patBinding
	for s.tok != jtRBrace {
		pat = min(pat, p.property())
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRBrace)
	p.lastPat = pat
}

// property reads one property of an object literal, and says how far it
// may be part of a pattern.
func (p *jsFast) property() uint8 {
	s := &p.s
	if s.tok == jtEllipsis {
		s.next()
		switch p.assign(false, true) {
		case jxName:
			return patBinding
		case jxMember:
			return patAssign
		}
		return patNone
	}
	method := false
	modifier := func() bool {
		save := *s
		s.next()
		switch s.tok {
		case jtLParen, jtComma, jtColon, jtRBrace, jtAssign:
			*s = save
			return false
		}
		if s.nl || s.blockNL {
			jsGiveUp(jdASI)
		}
		return true
	}
	if s.is("async") && modifier() {
		method = true
	}
	if s.tok == jtBinary && string(s.text()) == "*" {
		s.next()
		method = true
	}
	if !method && (s.is("get") || s.is("set")) && modifier() {
		method = true
	}
	if s.tok == jtPrivate {
		jsGiveUp(jdSyntax)
	}
	word := s.tok == jtName
	reserved := word && jsReserved(s.text())
	p.propertyName()
	switch {
	case s.tok == jtLParen:
		p.params()
		p.block()
		return patNone
	case method:
		jsGiveUp(jdSyntax)
	case s.tok == jtColon:
		s.next()
		return p.elementPat(p.assign(false, true))
	case word && !reserved && s.tok == jtAssign:
		s.next()
		p.assign(false, false)
		p.cover = true
		return patBinding
	case word && !reserved && (s.tok == jtComma || s.tok == jtRBrace):
		return patBinding
	}
	jsGiveUp(jdSyntax)
	return patNone
}
