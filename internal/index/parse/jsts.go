package parse

import (
	"bytes"
	"strings"
)

// The fast path for TypeScript declaration files (.d.ts, .d.mts, .d.cts):
// the JavaScript recognizer of jsfast.go with TypeScript's declarations
// and types, and no statements that run. A declaration file holds no code,
// so anything with a body (a function's, a class method's) or an
// expression beyond a literal initializer declines, as do the places
// where tree-sitter-typescript's reading is not plain (`infer X extends`,
// a line break inside a type where a semicolon could end it). It records
// what parseJS records from tree-sitter's tree: imports (import x =
// require() and type-only ones too), the members a namespace import uses
// in types (ns.T, not ns.A.B) and in typeof queries, and the top-level
// functions, classes with their methods, interfaces, type aliases, enums
// and variables, `declare` or not.

// isDeclarationFile reports whether a TypeScript path is a declaration
// file.
func isDeclarationFile(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".d.mts") || strings.HasSuffix(p, ".d.cts")
}

// parseDeclarationsFast returns the record of a TypeScript declaration
// file, or the reason the fast path declined it.
func parseDeclarationsFast(path string, src []byte) (FileRecord, jsDecline) {
	return runJSFast(path, src, true)
}

// noBreak declines a line break before the current token (or a block
// comment holding one), where tree-sitter may end the statement.
func (p *jsFast) noBreak() {
	if p.s.nl || p.s.blockNL {
		jsGiveUp(jdASI)
	}
}

// isOp reports whether the current token is the operator op.
func (p *jsFast) isOp(op string) bool {
	s := &p.s
	return s.end-s.start == len(op) && string(s.text()) == op && s.tok != jtName && s.tok != jtStr
}

// tsStatement reads one statement of a declaration file.
func (p *jsFast) tsStatement(top bool) {
	s := &p.s
	p.enter()
	defer p.leave()
	if top && !s.is("import") && !s.is("export") {
		p.code = true
	}
	switch {
	case s.tok == jtSemi:
		s.next()
	case s.is("import"):
		p.tsImport()
	case s.is("export"):
		p.tsExport(top)
	case s.is("declare"):
		s.next()
		p.noBreak()
		if s.is("global") {
			s.next() // tree-sitter reads global only after declare
			p.tsBlock()
			return
		}
		p.tsDeclaration(top, false)
	default:
		p.tsDeclaration(top, false)
	}
}

// tsDeclaration reads a declaration; at top level its names are symbols,
// and the default export's if def.
func (p *jsFast) tsDeclaration(top, def bool) {
	s := &p.s
	if s.tok != jtName {
		jsGiveUp(jdSyntax)
	}
	switch string(s.text()) {
	case "var", "let", "const":
		if s.is("const") && p.peekIs("enum") {
			s.next()
			p.tsEnum(top)
			return
		}
		s.next()
		p.noBreak()
		p.tsDeclarators(top)
		p.semi()
	case "function":
		p.tsFunction(top, def)
	case "abstract":
		s.next()
		p.noBreak()
		if !s.is("class") || !p.peekName() || p.peekIs("implements") {
			jsGiveUp(jdSyntax) // tree-sitter reads no anonymous abstract class
		}
		p.tsClass(top, def)
	case "class":
		p.tsClass(top, def)
	case "interface":
		s.next()
		p.noBreak()
		p.tsTypeName(top, def)
		p.tsTypeParams()
		if s.is("extends") {
			s.next()
			p.tsTypeReferences()
		}
		p.tsObjectType()
	case "type":
		s.next()
		p.noBreak()
		p.tsTypeName(top, false)
		p.tsTypeParams()
		p.expect(jtAssign)
		p.tsType()
		p.semi()
	case "enum":
		p.tsEnum(top)
	case "namespace", "module":
		s.next()
		p.noBreak()
		if s.tok == jtStr {
			s.next()
			if s.tok != jtLBrace {
				p.semi() // declare module 'x';
				return
			}
		} else {
			p.tsName()
			for s.tok == jtDot {
				s.next()
				p.tsName()
			}
		}
		p.tsBlock()
	default:
		jsGiveUp(jdSyntax)
	}
}

// tsBlock reads the body of a namespace, module or global declaration.
func (p *jsFast) tsBlock() {
	p.blocks++
	defer func() { p.blocks-- }()
	p.braced(p.tsStatement)
}

// tsDeclaredType reads what may follow a declared variable's or a class
// field's name: a definite assignment (`x!`, which needs a type) and a
// type annotation.
func (p *jsFast) tsDeclaredType() {
	s := &p.s
	if s.tok == jtBang {
		s.next()
		if s.tok != jtColon {
			jsGiveUp(jdSyntax) // x! needs a type
		}
	}
	if s.tok == jtColon {
		s.next()
		p.tsType()
	}
}

// tsName reads a name that is not a reserved word.
func (p *jsFast) tsName() {
	s := &p.s
	if s.tok != jtName || jsReserved(s.text()) {
		jsGiveUp(jdSyntax)
	}
	s.next()
}

// tsTypeName reads the name of an interface or type alias: a type symbol
// at top level.
func (p *jsFast) tsTypeName(top, def bool) { p.declare(top, def, "type") }

// tsEnum reads an enum from its enum keyword.
func (p *jsFast) tsEnum(top bool) {
	s := &p.s
	s.next()
	p.noBreak()
	p.tsTypeName(top, false)
	p.expect(jtLBrace)
	for s.tok != jtRBrace {
		if s.tok != jtName && s.tok != jtStr {
			jsGiveUp(jdSyntax)
		}
		s.next()
		if s.tok == jtAssign {
			s.next()
			p.assign(false, false)
		}
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRBrace)
}

// tsDeclarators reads the declarators of a var, let or const: name,
// type, literal value.
func (p *jsFast) tsDeclarators(top bool) {
	s := &p.s
	for {
		if s.tok != jtName {
			jsGiveUp(jdSyntax)
		}
		line, col, start, end := s.tline, s.tcol, s.start, s.end
		p.tsName()
		p.tsDeclaredType()
		kind := "var"
		if s.tok == jtAssign {
			s.next()
			if p.isFunction(p.assign(false, false)) {
				kind = "function"
			}
		}
		if top {
			p.add(string(s.src[start:end]), kind, line, col)
		}
		if s.tok != jtComma {
			return
		}
		s.next()
	}
}

// tsFunction reads a function signature from its function keyword.
func (p *jsFast) tsFunction(top, def bool) {
	s := &p.s
	s.next()
	p.noBreak()
	p.declare(top, def, "function")
	p.tsSignature()
	p.semi()
}

// tsSignature reads type parameters, parameters and a return type.
func (p *jsFast) tsSignature() {
	s := &p.s
	p.tsTypeParams()
	p.tsParams()
	if s.tok == jtColon {
		s.next()
		p.tsReturnType()
	}
	if s.tok == jtLBrace {
		jsGiveUp(jdSyntax) // a body: not a declaration file's
	}
}

// tsReturnType reads a return type: a type, `x is T`, `asserts x` or
// `asserts x is T`.
func (p *jsFast) tsReturnType() {
	s := &p.s
	if s.is("asserts") {
		save := *s
		s.next()
		if s.tok == jtName && !s.nl && !s.blockNL {
			p.predicateName()
			s.next()
			if s.is("is") {
				s.next()
				p.tsType()
			}
			return
		}
		*s = save
	}
	if s.tok == jtName {
		save := *s
		s.next()
		if s.is("is") && !s.nl && !s.blockNL {
			*s = save
			p.predicateName()
			s.next()
			s.next()
			p.tsType()
			return
		}
		*s = save
	}
	p.tsType()
}

// predicateName declines a type predicate's name that is not a
// parameter's: a reserved word or a predefined type.
func (p *jsFast) predicateName() {
	s := &p.s
	if s.is("this") {
		return
	}
	if jsReserved(s.text()) {
		jsGiveUp(jdSyntax)
	}
	switch string(s.text()) {
	case "void", "undefined", "never", "any", "unknown", "object", "string", "number", "boolean", "symbol", "bigint":
		jsGiveUp(jdSyntax)
	}
}

// tsParams reads a parameter list with types.
func (p *jsFast) tsParams() {
	s := &p.s
	p.expect(jtLParen)
	for s.tok != jtRParen {
		for s.tok == jtName && tsParamModifier(s.text()) && p.modifierAhead() {
			s.next()
		}
		rest := s.tok == jtEllipsis
		if rest {
			s.next()
		}
		if s.is("this") {
			s.next()
		} else {
			p.binding()
		}
		if s.tok == jtQuestion {
			s.next()
		}
		if s.tok == jtColon {
			s.next()
			p.tsType()
		}
		p.initializer()
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRParen)
}

func tsParamModifier(w []byte) bool {
	switch string(w) {
	case "public", "private", "protected", "readonly", "override":
		return true
	}
	return false
}

// modifierAhead reports whether the word at the current token modifies
// what follows it: another name, a pattern or a private name comes next
// on the same line.
func (p *jsFast) modifierAhead() bool { return p.wordAhead(true) }

// wordAhead reports whether the token after the current one, on the same
// line, can follow a modifier: a name, a [ or private name, a string or
// number name, a *; and a { or ... too where a pattern may (patterns).
func (p *jsFast) wordAhead(patterns bool) bool {
	save := p.s
	p.s.next()
	s := &p.s
	ok := !s.nl && !s.blockNL && (s.tok == jtName || s.tok == jtLBrack || s.tok == jtPrivate ||
		s.tok == jtStr || s.tok == jtNum || p.isOp("*") || patterns && (s.tok == jtLBrace || s.tok == jtEllipsis))
	p.s = save
	return ok
}

// tsClass reads a class declaration from its class keyword: heritage and
// a body of signatures; at top level the class and its methods are
// symbols.
func (p *jsFast) tsClass(top, def bool) {
	s := &p.s
	s.next()
	p.noBreak()
	class, anonymous := "", false
	if s.tok == jtName && !s.is("extends") && !s.is("implements") {
		class = p.declare(top, def, "class")
	} else if !def {
		jsGiveUp(jdSyntax)
	} else {
		anonymous = true
	}
	if !top {
		class = ""
	}
	p.tsTypeParams()
	if s.is("extends") {
		s.next()
		p.tsExpressionName()
		if s.tok == jtLess {
			p.tsTypeArgs()
		}
	}
	if s.is("implements") {
		s.next()
		p.tsTypeReferences()
	}
	p.expect(jtLBrace)
	for s.tok != jtRBrace {
		p.tsClassMember(class)
	}
	s.next()
	if anonymous {
		p.semi() // tree-sitter reads `export default class {}` as a value
	}
}

// tsExpressionName reads a.b.c in an expression (a class's heritage, a
// typeof query): a namespace's member is the name after the first dot.
func (p *jsFast) tsExpressionName() {
	s := &p.s
	if s.tok != jtName || jsReserved(s.text()) && !s.is("this") {
		jsGiveUp(jdSyntax)
	}
	p.nameStart, p.nameEnd = s.start, s.end
	s.next()
	x := jxName
	for s.tok == jtDot {
		p.dot(x)
		x = jxMember
	}
}

// tsMemberModifier is the place of a class member's modifier in the
// order this path reads them, 0 for a word that is none.
func tsMemberModifier(w []byte) int {
	switch string(w) {
	case "declare":
		return 1
	case "public", "private", "protected":
		return 2
	case "static", "abstract":
		return 3
	case "override":
		return 4
	case "readonly":
		return 5
	case "accessor":
		return 6
	}
	return 0
}

// tsClassMember reads one member of a class body in a declaration file.
func (p *jsFast) tsClassMember(class string) {
	s := &p.s
	if s.tok == jtSemi {
		s.next()
		return
	}
	// Modifiers in the order tree-sitter's grammar reads them; a field's
	// declare and accessor on no method.
	rank, fieldOnly := 0, false
	for s.tok == jtName && p.memberModifierAhead() {
		r := tsMemberModifier(s.text())
		if r == 0 {
			break
		}
		if r <= rank {
			jsGiveUp(jdSyntax)
		}
		rank = r
		fieldOnly = fieldOnly || s.is("declare") || s.is("accessor")
		s.next()
	}
	if s.tok == jtLBrack && p.indexSignatureAhead() {
		if rank != 0 {
			jsGiveUp(jdSyntax)
		}
		p.tsIndexSignature()
		p.tsMemberEnd()
		return
	}
	method := false
	if (s.is("get") || s.is("set")) && p.memberModifierAhead() {
		s.next()
		method = true
	}
	if s.tok == jtName && tsMemberModifier(s.text()) != 0 && !p.methodNamedAsModifier() {
		jsGiveUp(jdSyntax) // a member named as a modifier, which tree-sitter misreads
	}
	named := s.tok == jtName || s.tok == jtPrivate
	line, col, start, end := s.tline, s.tcol, s.start, s.end
	p.propertyName()
	if s.tok == jtLParen || s.tok == jtLess || s.tok == jtQuestion {
		p.noBreak() // tree-sitter may end the member at the line break
	}
	if s.tok == jtQuestion {
		s.next()
	}
	if s.tok == jtLParen || s.tok == jtLess {
		if fieldOnly {
			jsGiveUp(jdSyntax)
		}
		if class != "" && named {
			p.add(class+"."+string(s.src[start:end]), "method", line, col)
		}
		p.tsSignature()
		p.tsMemberEnd()
		return
	}
	if method {
		jsGiveUp(jdSyntax)
	}
	p.tsDeclaredType()
	p.initializer()
	p.tsMemberEnd()
}

// methodNamedAsModifier reports whether the modifier word at the current
// token names a method that tree-sitter reads as one: `static()`,
// `readonly()`, `override()`, `declare()` (not abstract, accessor or an
// accessibility).
func (p *jsFast) methodNamedAsModifier() bool {
	switch string(p.s.text()) {
	case "static", "readonly", "override", "declare":
		return p.peekTok() == jtLParen
	}
	return false
}

// memberModifierAhead reports whether a modifier word at the current
// token is one: a member's name, an index signature or a private name
// follows on the same line.
func (p *jsFast) memberModifierAhead() bool { return p.wordAhead(false) }

// tsMemberEnd ends a class member or a type member: a semicolon, a comma
// in a type, a line break, or the closing brace.
func (p *jsFast) tsMemberEnd() {
	if p.s.tok == jtComma {
		p.s.next()
		return
	}
	p.semi()
}

// indexSignatureAhead reports whether the [ at the current token opens an
// index signature, `[name: type]`, rather than a computed name.
func (p *jsFast) indexSignatureAhead() bool {
	save := p.s
	defer func() { p.s = save }()
	p.s.next()
	if p.s.tok != jtName {
		return false
	}
	p.s.next()
	return p.s.tok == jtColon
}

// tsIndexSignature reads `[name: type]: type`.
func (p *jsFast) tsIndexSignature() {
	s := &p.s
	p.expect(jtLBrack)
	p.tsName()
	p.expect(jtColon)
	p.tsType()
	p.expect(jtRBrack)
	if s.tok == jtQuestion {
		jsGiveUp(jdSyntax)
	}
	p.expect(jtColon)
	p.tsType()
}

// tsImport reads an import statement of a declaration file.
func (p *jsFast) tsImport() {
	s := &p.s
	line, off := s.tline, s.start
	save := *s
	s.next()
	p.noBreak()
	if s.is("type") {
		s.next()
		if s.is("from") || s.tok == jtComma || s.tok == jtAssign {
			jsGiveUp(jdSyntax) // a default import named type
		}
	}
	if s.tok == jtName && !jsReserved(s.text()) {
		name := *s
		s.next()
		if s.tok == jtAssign {
			s.next()
			if !s.is("require") {
				jsGiveUp(jdSyntax) // import x = A.B
			}
			s.next()
			p.expect(jtLParen)
			p.addSource(line, off, nil, nil)
			p.expect(jtRParen)
			p.semi()
			return
		}
		*s = name
	}
	*s = save
	// The rest reads as JavaScript's, with type modifiers on specifiers.
	s.next()
	if s.is("type") {
		s.next()
	}
	p.importClause(line, off)
}

// tsExport reads an export statement of a declaration file.
func (p *jsFast) tsExport(top bool) {
	s := &p.s
	line, off := s.tline, s.start
	s.next()
	p.noBreak()
	switch {
	case s.tok == jtAssign:
		p.code = true
		s.next()
		p.assign(false, false)
		p.semi()
	case s.is("as"):
		p.code = true
		s.next()
		p.expectWord("namespace")
		p.tsName()
		p.semi()
	case s.is("default"):
		p.code = true
		s.next()
		switch {
		case s.is("interface"), s.is("function"), s.is("class"), s.is("abstract"):
			p.tsDeclaration(top, true)
			return
		}
		x := p.assign(false, false)
		if x == jxName && top {
			p.defaultName = string(p.lastName())
		}
		p.semi()
	case s.is("declare"):
		p.code = true
		s.next()
		p.noBreak()
		p.tsDeclaration(top, false)
	case s.is("type") && p.peekTok() == jtLBrace:
		s.next()
		p.exportClause(line, off)
	case s.is("type") && p.peekTok() == jtBinary:
		jsGiveUp(jdSyntax) // export type *, which tree-sitter does not read
	case s.tok == jtLBrace || s.tok == jtBinary && string(s.text()) == "*":
		p.exportClause(line, off)
	case s.is("import"):
		jsGiveUp(jdSyntax) // export import A = B.C
	default:
		p.code = true
		p.tsDeclaration(top, false)
	}
}

// peekTok is the kind of the token after the current one.
func (p *jsFast) peekTok() jsTok {
	save := p.s
	p.s.next()
	t := p.s.tok
	p.s = save
	return t
}

// tsTypeParams reads optional type parameters: `<const T extends U = V>`.
func (p *jsFast) tsTypeParams() {
	s := &p.s
	if s.tok != jtLess {
		return
	}
	s.next()
	for {
		if (s.is("in") || s.is("out")) && p.modifierAhead() {
			jsGiveUp(jdSyntax) // variance annotations, which tree-sitter does not read
		}
		if s.is("const") && p.modifierAhead() {
			s.next()
		}
		p.tsName()
		if s.is("extends") {
			s.next()
			p.tsType()
		}
		if s.tok == jtAssign {
			s.next()
			p.tsType()
		}
		if s.tok != jtComma {
			break
		}
		s.next()
		if p.closingAngle() {
			break // a trailing comma
		}
	}
	p.closeAngle()
}

// closingAngle reports whether the current token starts with >.
func (p *jsFast) closingAngle() bool {
	s := &p.s
	return s.tok != jtEOF && s.tok != jtStr && s.src[s.start] == '>'
}

// closeAngle reads the > that closes type parameters or arguments, out of
// a >> or >= the scanner read as one token.
func (p *jsFast) closeAngle() {
	s := &p.s
	if !p.closingAngle() {
		jsGiveUp(jdSyntax)
	}
	if s.end-s.start == 1 {
		s.next()
		return
	}
	s.off = s.start + 1
	s.next()
}

// tsTypeArgs reads type arguments: `<A, B>`.
func (p *jsFast) tsTypeArgs() {
	s := &p.s
	p.expect(jtLess)
	for {
		p.tsType()
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.closeAngle()
}

// tsTypeReference reads a named type with its arguments: `A`, `ns.T<U>`.
// A namespace import's member is the T of ns.T (not of ns.A.B, which
// tree-sitter reads as a nested identifier).
func (p *jsFast) tsTypeReference() {
	s := &p.s
	if s.tok != jtName {
		jsGiveUp(jdSyntax)
	}
	first, firstEnd := s.start, s.end
	s.next()
	parts := 1
	memberAt, noComment := 0, false
	for s.tok == jtDot {
		if parts == 1 {
			noComment = !s.comment
		}
		s.next()
		if s.tok != jtName {
			jsGiveUp(jdSyntax)
		}
		if parts == 1 {
			memberAt = s.start
		}
		parts++
		s.next()
	}
	if parts == 2 && noComment && p.nsIndex != nil {
		if i, ok := p.nsIndex[string(s.src[first:firstEnd])]; ok {
			p.members[i] = append(p.members[i], string(s.src[memberAt:memberAt+p.wordLen(memberAt)]))
		}
	}
	if s.tok == jtLess && !s.nl {
		p.tsTypeArgs()
	}
}

// tsTypeReferences reads a comma-separated list of named types: an
// interface's extends, a class's implements.
func (p *jsFast) tsTypeReferences() {
	for {
		p.tsTypeReference()
		if p.s.tok != jtComma {
			return
		}
		p.s.next()
	}
}

// wordLen is the length of the name at src[i].
func (p *jsFast) wordLen(i int) int {
	src := p.s.src
	j := i
	for j < len(src) && (jsClass[src[j]] == jcIdent || jsClass[src[j]] == jcDigit) {
		j++
	}
	return j - i
}

// tsType reads a type: a function or constructor type, or a union of
// intersections of operator types, or a conditional type.
func (p *jsFast) tsType() {
	s := &p.s
	p.enter()
	defer p.leave()
	if p.isOp("|") || p.isOp("&") {
		s.next()
	}
	if p.functionTypeAhead() {
		p.tsFunctionType()
		return
	}
	p.tsUnion()
	if s.is("extends") && !s.nl {
		s.next()
		p.tsNonConditional()
		if s.tok != jtQuestion {
			jsGiveUp(jdSyntax)
		}
		s.next()
		p.tsType()
		p.expect(jtColon)
		p.tsType()
	}
}

// tsNonConditional reads a type that is not a conditional one: the
// operand of a conditional's extends.
func (p *jsFast) tsNonConditional() {
	p.enter()
	defer p.leave()
	if p.isOp("|") || p.isOp("&") {
		p.s.next()
	}
	if p.functionTypeAhead() {
		p.tsFunctionType()
		return
	}
	p.tsUnion()
}

// functionTypeAhead reports whether a function or constructor type
// starts at the current token: `<T>(...) =>`, `(...) =>`, `new (...) =>`,
// `abstract new`.
func (p *jsFast) functionTypeAhead() bool {
	s := &p.s
	switch {
	case s.tok == jtLess, s.is("new"), s.is("abstract"):
		return true
	case s.tok != jtLParen:
		return false
	}
	save := *s
	defer func() { *s = save }()
	depth := 0
	// A bound on the look ahead: parentheses nested in each other would
	// each look to their end, which a crafted file could make quadratic.
	for n := 0; ; n++ {
		if n > 4096 {
			jsGiveUp(jdDepth)
		}
		switch s.tok {
		case jtLParen:
			depth++
		case jtRParen:
			depth--
		case jtEOF, jtTemplateHead:
			return false
		}
		s.next()
		if depth == 0 {
			return s.tok == jtArrow
		}
	}
}

// tsFunctionType reads a function or constructor type.
func (p *jsFast) tsFunctionType() {
	s := &p.s
	if s.is("abstract") {
		s.next()
		p.noBreak()
		if !s.is("new") {
			jsGiveUp(jdSyntax)
		}
	}
	if s.is("new") {
		s.next()
	}
	p.tsTypeParams()
	p.tsParams()
	p.expect(jtArrow)
	p.tsReturnType()
}

func (p *jsFast) tsUnion() {
	p.tsIntersection()
	for p.isOp("|") {
		p.s.next()
		p.tsIntersection()
	}
}

func (p *jsFast) tsIntersection() {
	p.tsOperator()
	for p.isOp("&") {
		p.s.next()
		p.tsOperator()
	}
}

// tsOperator reads keyof, unique, readonly, infer and typeof types, and a
// primary type with its [] and [K] suffixes.
func (p *jsFast) tsOperator() {
	s := &p.s
	p.enter()
	defer p.leave()
	if s.tok == jtName {
		switch string(s.text()) {
		case "unique":
			s.next()
			if !s.is("symbol") {
				jsGiveUp(jdSyntax)
			}
			s.next()
			return
		case "keyof", "readonly":
			if s.is("keyof") && p.peekIs("readonly") {
				jsGiveUp(jdSyntax) // tree-sitter does not read keyof readonly T
			}
			if p.modifierAhead() || p.peekTok() == jtLParen || p.peekTok() == jtLBrack || p.peekTok() == jtLBrace || p.peekTok() == jtTemplate || p.peekTok() == jtTemplateHead {
				s.next()
				p.tsOperator()
				return
			}
		case "infer":
			if p.modifierAhead() {
				s.next()
				p.tsName()
				if s.is("extends") {
					s.next()
					p.tsNonConditional()
					if s.tok == jtQuestion {
						jsGiveUp(jdSyntax) // `infer U extends C ?`: which extends is the conditional's
					}
				}
				return
			}
		case "typeof":
			s.next()
			if s.is("import") {
				jsGiveUp(jdSyntax)
			}
			p.tsExpressionName()
			if s.tok == jtLess && !s.nl {
				p.tsTypeArgs()
			}
			p.tsSuffixes()
			return
		}
	}
	p.tsPrimary()
	p.tsSuffixes()
}

// tsSuffixes reads the [] of array types and the [K] of indexed access
// types, on the same line.
func (p *jsFast) tsSuffixes() {
	s := &p.s
	for s.tok == jtLBrack && !s.nl && !s.blockNL {
		s.next()
		if s.tok != jtRBrack {
			p.tsType()
		}
		p.expect(jtRBrack)
	}
}

// tsPrimary reads a named, literal, object, tuple, parenthesized,
// template or import type.
func (p *jsFast) tsPrimary() {
	s := &p.s
	switch s.tok {
	case jtName:
		switch string(s.text()) {
		case "import":
			// tree-sitter reads import("x").T as a type in some places
			// and as a call (an import of the file) in others.
			jsGiveUp(jdImportType)
		case "this", "null", "true", "false", "void", "undefined":
			s.next()
			return
		case "infer", "keyof", "unique", "readonly", "asserts", "typeof", "is":
			jsGiveUp(jdSyntax) // an operator with no operand
		}
		if jsReserved(s.text()) {
			jsGiveUp(jdSyntax)
		}
		p.tsTypeReference()
	case jtNum, jtStr:
		s.next()
	case jtMinus:
		s.next()
		p.expect(jtNum)
	case jtTemplate, jtTemplateHead:
		// tree-sitter's template literal types hold no escapes.
		for s.tok == jtTemplateHead {
			p.noEscape()
			s.next()
			p.tsType()
			s.templateRest()
		}
		p.noEscape()
		p.expect(jtTemplate)
	case jtLBrace:
		p.tsObjectType()
	case jtLBrack:
		p.tsTuple()
	case jtLParen:
		s.next()
		p.tsType()
		p.expect(jtRParen)
	default:
		jsGiveUp(jdSyntax)
	}
}

// noEscape declines a template part with an escape.
func (p *jsFast) noEscape() {
	if bytes.IndexByte(p.s.text(), '\\') >= 0 {
		jsGiveUp(jdTemplate)
	}
}

// tsTuple reads a tuple type: `[A, b?: B, ...C[]]`.
func (p *jsFast) tsTuple() {
	s := &p.s
	p.expect(jtLBrack)
	for s.tok != jtRBrack {
		if s.tok == jtEllipsis {
			s.next()
		}
		if s.tok == jtName && p.labelAhead() {
			s.next()
			if s.tok == jtQuestion {
				s.next()
			}
			p.expect(jtColon)
		}
		p.tsType()
		if s.tok == jtQuestion {
			s.next()
		}
		if s.tok != jtComma {
			break
		}
		s.next()
	}
	p.expect(jtRBrack)
}

// labelAhead reports whether the name at the current token labels a
// tuple element: a : or ?: follows.
func (p *jsFast) labelAhead() bool {
	save := p.s
	defer func() { p.s = save }()
	p.s.next()
	if p.s.tok == jtQuestion {
		p.s.next()
	}
	return p.s.tok == jtColon
}

// tsObjectType reads an object type or an interface's body, or a mapped
// type.
func (p *jsFast) tsObjectType() {
	s := &p.s
	p.enter()
	defer p.leave()
	p.expect(jtLBrace)
	if p.mappedTypeAhead() {
		p.tsMappedType()
		return
	}
	if s.tok == jtComma || s.tok == jtSemi {
		s.next()
		if s.tok == jtRBrace {
			jsGiveUp(jdSyntax) // a separator and no member
		}
	}
	for s.tok != jtRBrace {
		p.tsTypeMember()
		if s.tok == jtComma || s.tok == jtSemi {
			s.next()
		} else if s.tok != jtRBrace && !s.nl {
			jsGiveUp(jdSyntax)
		} else if s.tok != jtRBrace && !p.tsASI() {
			jsGiveUp(jdASI)
		}
	}
	s.next()
}

// mappedTypeAhead reports whether the object type whose { was just read
// is a mapped type: `{ [K in`, `{ readonly [K in`, `{ -readonly [K in`.
func (p *jsFast) mappedTypeAhead() bool {
	save := p.s
	defer func() { p.s = save }()
	s := &p.s
	if s.tok == jtPlus || s.tok == jtMinus {
		s.next()
	}
	if s.is("readonly") {
		s.next()
	}
	if s.tok != jtLBrack {
		return false
	}
	s.next()
	if s.tok != jtName {
		return false
	}
	s.next()
	return s.is("in")
}

// tsMappedType reads a mapped type after its {.
func (p *jsFast) tsMappedType() {
	s := &p.s
	if s.tok == jtPlus || s.tok == jtMinus {
		s.next()
	}
	if s.is("readonly") {
		s.next()
	}
	p.expect(jtLBrack)
	p.tsName()
	p.expectWord("in")
	p.tsType()
	if s.is("as") {
		s.next()
		p.tsType()
	}
	p.expect(jtRBrack)
	if s.tok == jtPlus || s.tok == jtMinus {
		s.next()
		if s.tok != jtQuestion {
			jsGiveUp(jdSyntax)
		}
	}
	if s.tok == jtQuestion {
		s.next()
		if s.tok == jtColon && s.start != s.prevEnd {
			jsGiveUp(jdSyntax) // tree-sitter reads a mapped type's ?: as one token
		}
	}
	p.expect(jtColon) // tree-sitter wants the type
	p.tsType()
	if s.tok == jtSemi || s.tok == jtComma {
		s.next()
	}
	p.expect(jtRBrace)
}

// tsTypeMember reads one member of an object type: a property, a method,
// a call, construct or index signature, an accessor.
func (p *jsFast) tsTypeMember() {
	s := &p.s
	switch {
	case s.tok == jtLParen || s.tok == jtLess:
		p.tsSignature()
		return
	case s.is("new") && (p.peekTok() == jtLParen || p.peekTok() == jtLess):
		s.next()
		p.tsSignature()
		return
	}
	if s.is("readonly") && p.memberModifierAhead() {
		s.next()
	}
	if s.tok == jtLBrack && p.indexSignatureAhead() {
		p.tsIndexSignature()
		return
	}
	if (s.is("get") || s.is("set")) && p.memberModifierAhead() {
		s.next()
		p.propertyName()
		p.tsSignature()
		return
	}
	if s.tok == jtPrivate {
		jsGiveUp(jdSyntax)
	}
	if s.is("abstract") {
		// A member named abstract sends tree-sitter down a path that, on a
		// long file, can end in an error (@oxc-project/types).
		jsGiveUp(jdSyntax)
	}
	p.propertyName()
	if s.tok == jtLParen || s.tok == jtLess || s.tok == jtQuestion {
		p.noBreak() // tree-sitter may end the member at the line break
	}
	if s.tok == jtQuestion {
		s.next()
	}
	if s.tok == jtLParen || s.tok == jtLess {
		p.tsSignature()
		return
	}
	if s.tok == jtColon {
		s.next()
		p.tsType()
	}
}
