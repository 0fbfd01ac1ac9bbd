package parse

import (
	"bytes"
	"unicode/utf8"
)

// jsScanner is the tokenizer of the fast JavaScript path (jsfast.go). It
// reads the common subset of JavaScript the way tree-sitter-javascript's
// lexer does and declines (panics with a jsDecline) on anything outside it
// or where the two could disagree: non-ASCII outside strings, comments and
// templates, escapes in names, Unicode line separators, HTML comments,
// legacy octal numbers, and every lexical error. Regular expressions and
// the rest of a template after a substitution are read when the parser
// asks (regex, templateRest), since only the parser knows which a / or a }
// starts.
type jsScanner struct {
	src       []byte
	off       int // next byte to read
	line      int // line of src[off]
	lineStart int // offset of the first byte of that line

	tok        jsTok
	start, end int // the token's bytes
	tline      int // the token's line
	tcol       int // its 1-based byte column
	// nl says a line break came before the token, outside block
	// comments; blockNL that one came only inside a block comment, where
	// tree-sitter's scanner does not see it as the end of a line.
	nl, blockNL bool
	// comment says a comment came between the last token and this one.
	comment bool
	// prevEnd is the end of the token before this one.
	prevEnd int
}

type jsTok uint8

const (
	jtEOF          jsTok = iota
	jtName               // identifier or keyword
	jtPrivate            // #name
	jtNum                // number literal
	jtStr                // string literal
	jtTemplate           // template literal without substitutions, or the last part of one
	jtTemplateHead       // a template's text up to a ${, or between two substitutions
	jtRegex              // regular expression (read by regex)

	jtLBrace
	jtRBrace
	jtLParen
	jtRParen
	jtLBrack
	jtRBrack
	jtSemi
	jtComma
	jtDot
	jtEllipsis
	jtQuestion
	jtOptChain // ?.
	jtColon
	jtArrow
	jtAssign   // =
	jtAssignOp // += -= *= %= **= <<= >>= >>>= &= |= ^= &&= ||= ??=
	jtInc      // ++
	jtDec      // --
	jtPlus
	jtMinus
	jtBang
	jtTilde
	jtSlash       // / (or the start of a regular expression)
	jtSlashAssign // /= (or the start of a regular expression)
	jtLess        // < (or the start of JSX)
	jtBinary      // * % ** << >> >>> > <= >= == != === !== & | ^ && || ??
)

// jsDecline is the panic value of the fast JavaScript path giving up; the
// string is the reason, counted in the fast-path statistics.
type jsDecline string

// Reasons to decline a JavaScript file.
const (
	jdEncoding   jsDecline = "encoding" // not UTF-8, NUL, byte-order mark, Unicode line breaks
	jdNonASCII   jsDecline = "non-ASCII identifier or space"
	jdEscape     jsDecline = "escape in a name"
	jdString     jsDecline = "string literal"
	jdNumber     jsDecline = "number literal"
	jdRegex      jsDecline = "regular expression"
	jdTemplate   jsDecline = "template literal"
	jdComment    jsDecline = "comment"
	jdChar       jsDecline = "unexpected character"
	jdSyntax     jsDecline = "unrecognized syntax"
	jdJSX        jsDecline = "JSX"
	jdASI        jsDecline = "line break where tree-sitter may read the statement otherwise"
	jdDepth      jsDecline = "nesting depth"
	jdDecorator  jsDecline = "decorator"
	jdReserved   jsDecline = "reserved word as a name"
	jdNamespace  jsDecline = "namespace import after other statements"
	jdImportType jsDecline = "import type"
)

func jsGiveUp(why jsDecline) { panic(why) }

// jsClass classifies ASCII bytes for the scanner.
var jsClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = jcIdent
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = jcIdent
	}
	t['_'], t['$'] = jcIdent, jcIdent
	for c := '0'; c <= '9'; c++ {
		t[c] = jcDigit
	}
	t[' '], t['\t'], t['\v'], t['\f'], t['\r'] = jcSpace, jcSpace, jcSpace, jcSpace, jcSpace
	t['\n'] = jcNewline
	return t
}()

const (
	jcOther = iota
	jcIdent
	jcDigit
	jcSpace
	jcNewline
)

func (s *jsScanner) init(src []byte) {
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		jsGiveUp(jdEncoding)
	}
	if bytes.Contains(src, lineSep) || bytes.Contains(src, paraSep) {
		jsGiveUp(jdEncoding)
	}
	*s = jsScanner{src: src, line: 1}
	if bytes.HasPrefix(src, []byte("#!")) { // hashbang line
		for s.off < len(src) && src[s.off] != '\n' {
			s.off++
		}
	}
	s.next()
}

// newline notes a line break at src[i].
func (s *jsScanner) newline(i int) {
	s.line++
	s.lineStart = i + 1
}

// space skips white space and comments, noting line breaks.
func (s *jsScanner) space() {
	src := s.src
	for s.off < len(src) {
		c := src[s.off]
		switch jsClass[c] {
		case jcSpace:
			s.off++
			continue
		case jcNewline:
			s.newline(s.off)
			s.off++
			s.nl = true
			continue
		}
		if c != '/' || s.off+1 >= len(src) {
			return
		}
		switch src[s.off+1] {
		case '/':
			// A line comment ends at a carriage return too, as
			// tree-sitter's comment token does; the line break is
			// then read as space.
			s.comment = true
			i := s.off + 2
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			s.off = i
		case '*':
			s.comment = true
			i := bytes.Index(src[s.off+2:], []byte("*/"))
			if i < 0 {
				jsGiveUp(jdComment)
			}
			end := s.off + 2 + i + 2
			for j := s.off; j < end; j++ {
				if src[j] == '\n' {
					s.newline(j)
					s.blockNL = true
				}
			}
			s.off = end
		default:
			return
		}
	}
}

// next reads the next token.
func (s *jsScanner) next() {
	s.prevEnd = s.end
	s.nl, s.blockNL, s.comment = false, false, false
	s.space()
	src := s.src
	s.start = s.off
	s.tline, s.tcol = s.line, s.off-s.lineStart+1
	if s.off >= len(src) {
		s.tok, s.end = jtEOF, s.off
		return
	}
	c := src[s.off]
	switch jsClass[c] {
	case jcIdent:
		s.name()
		s.tok = jtName
		s.end = s.off
		return
	case jcDigit:
		s.number()
		s.end = s.off
		return
	}
	s.off++
	tok := jtBinary
	switch c {
	case '{':
		tok = jtLBrace
	case '}':
		tok = jtRBrace
	case '(':
		tok = jtLParen
	case ')':
		tok = jtRParen
	case '[':
		tok = jtLBrack
	case ']':
		tok = jtRBrack
	case ';':
		tok = jtSemi
	case ',':
		tok = jtComma
	case ':':
		tok = jtColon
	case '~':
		tok = jtTilde
	case '"', '\'':
		s.str(c)
		tok = jtStr
	case '`':
		tok = s.template()
	case '#':
		if s.off >= len(src) || jsClass[src[s.off]] != jcIdent {
			jsGiveUp(jdChar)
		}
		s.name()
		tok = jtPrivate
	case '.':
		switch {
		case s.peek(0) == '.' && s.peek(1) == '.':
			s.off += 2
			tok = jtEllipsis
		case jsClass[s.peek(0)] == jcDigit:
			s.off--
			s.number()
			s.end = s.off
			return
		default:
			tok = jtDot
		}
	case '?':
		switch {
		case s.peek(0) == '.' && jsClass[s.peek(1)] != jcDigit:
			s.off++
			tok = jtOptChain
		case s.peek(0) == '?':
			s.off++
			if s.peek(0) == '=' {
				s.off++
				tok = jtAssignOp
			}
		default:
			tok = jtQuestion
		}
	case '=':
		switch s.peek(0) {
		case '>':
			s.off++
			tok = jtArrow
		case '=':
			s.off++
			if s.peek(0) == '=' {
				s.off++
			}
		default:
			tok = jtAssign
		}
	case '!':
		if s.peek(0) == '=' {
			s.off++
			if s.peek(0) == '=' {
				s.off++
			}
		} else {
			tok = jtBang
		}
	case '+', '-':
		switch s.peek(0) {
		case c:
			s.off++
			tok = jtInc
			if c == '-' {
				if s.peek(0) == '>' {
					jsGiveUp(jdComment) // an HTML comment's -->
				}
				tok = jtDec
			}
		case '=':
			s.off++
			tok = jtAssignOp
		default:
			tok = jtPlus
			if c == '-' {
				tok = jtMinus
			}
		}
	case '/':
		tok = jtSlash
		if s.peek(0) == '=' {
			s.off++
			tok = jtSlashAssign
		}
	case '*':
		if s.peek(0) == '*' {
			s.off++
		}
		if s.peek(0) == '=' {
			s.off++
			tok = jtAssignOp
		}
	case '%', '^':
		if s.peek(0) == '=' {
			s.off++
			tok = jtAssignOp
		}
	case '&', '|':
		if s.peek(0) == c {
			s.off++
		}
		if s.peek(0) == '=' {
			s.off++
			tok = jtAssignOp
		}
	case '<':
		switch {
		case s.peek(0) == '!' && s.peek(1) == '-' && s.peek(2) == '-':
			jsGiveUp(jdComment) // an HTML comment
		case s.peek(0) == '<':
			s.off++
			if s.peek(0) == '=' {
				s.off++
				tok = jtAssignOp
			}
		case s.peek(0) == '=':
			s.off++
		default:
			tok = jtLess
		}
	case '>':
		switch {
		case s.peek(0) == '>' && s.peek(1) == '>':
			s.off += 2
		case s.peek(0) == '>':
			s.off++
		}
		if s.peek(0) == '=' {
			if s.off-s.start > 1 {
				tok = jtAssignOp
			}
			s.off++
		}
	case '@':
		jsGiveUp(jdDecorator)
	case '\\':
		jsGiveUp(jdEscape)
	default:
		if c >= 0x80 {
			jsGiveUp(jdNonASCII)
		}
		jsGiveUp(jdChar)
	}
	s.tok = tok
	s.end = s.off
}

// peek returns the byte i past the next one to read, or 0.
func (s *jsScanner) peek(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

// name reads the rest of an identifier.
func (s *jsScanner) name() {
	src := s.src
	i := s.off + 1
	for i < len(src) {
		k := jsClass[src[i]]
		if k != jcIdent && k != jcDigit {
			break
		}
		i++
	}
	if i < len(src) && (src[i] == '\\' || src[i] >= 0x80) {
		jsGiveUp(jdEscape)
	}
	s.off = i
}

// number reads a number literal: decimal with separators, a fraction and
// an exponent; hex, octal and binary; BigInt. A number followed by a name
// character, and a legacy octal or leading-zero literal, decline.
func (s *jsScanner) number() {
	src := s.src
	i := s.off
	s.tok = jtNum
	digits := func(ok func(byte) bool) {
		n := i
		for i < len(src) && (ok(src[i]) || src[i] == '_' && i > n && i+1 < len(src) && ok(src[i+1])) {
			i++
		}
		if i == n {
			jsGiveUp(jdNumber)
		}
	}
	dec := func(b byte) bool { return '0' <= b && b <= '9' }
	if src[i] == '0' && i+1 < len(src) {
		switch src[i+1] | 0x20 {
		case 'x':
			i += 2
			digits(func(b byte) bool { return dec(b) || 'a' <= b|0x20 && b|0x20 <= 'f' })
			s.numberEnd(i, true)
			return
		case 'o':
			i += 2
			digits(func(b byte) bool { return '0' <= b && b <= '7' })
			s.numberEnd(i, true)
			return
		case 'b':
			i += 2
			digits(func(b byte) bool { return b == '0' || b == '1' })
			s.numberEnd(i, true)
			return
		}
		if dec(src[i+1]) || src[i+1] == '_' {
			jsGiveUp(jdNumber) // legacy octal, or a leading zero
		}
	}
	integer := src[i] != '.'
	if integer {
		digits(dec)
	}
	if i < len(src) && src[i] == '.' {
		i++
		integer = false
		if i < len(src) && dec(src[i]) {
			digits(dec)
		}
	}
	if i < len(src) && src[i]|0x20 == 'e' {
		i++
		integer = false
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		digits(dec)
	}
	s.numberEnd(i, integer)
}

// numberEnd takes a BigInt's n and ends the number at i.
func (s *jsScanner) numberEnd(i int, integer bool) {
	src := s.src
	if integer && i < len(src) && src[i] == 'n' {
		i++
	}
	if i < len(src) && (jsClass[src[i]] == jcIdent || jsClass[src[i]] == jcDigit || src[i] >= 0x80 || src[i] == '\\') {
		jsGiveUp(jdNumber)
	}
	s.off = i
}

// str reads the rest of a string literal quoted by q.
func (s *jsScanner) str(q byte) {
	src := s.src
	i := s.off
	for {
		j := i
		for j < len(src) && src[j] != q && src[j] != '\\' && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		if j >= len(src) || src[j] == '\n' || src[j] == '\r' {
			jsGiveUp(jdString)
		}
		if src[j] == q {
			s.off = j + 1
			return
		}
		i = s.escape(j)
	}
}

// escape checks the escape sequence at src[i] (a backslash) the way
// tree-sitter's escape_sequence token reads it, and returns the offset
// after it.
func (s *jsScanner) escape(i int) int {
	src := s.src
	i++
	if i >= len(src) {
		jsGiveUp(jdString)
	}
	hex := func(b byte) bool { return '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'f' }
	switch c := src[i]; c {
	case 'x':
		if i+2 < len(src) && hex(src[i+1]) && hex(src[i+2]) {
			return i + 3
		}
		jsGiveUp(jdString)
	case 'u':
		if i+1 < len(src) && src[i+1] == '{' {
			j := i + 2
			for j < len(src) && hex(src[j]) {
				j++
			}
			if j == i+2 || j >= len(src) || src[j] != '}' {
				jsGiveUp(jdString)
			}
			return j + 1
		}
		for k := 1; k <= 4; k++ {
			if i+k >= len(src) || !hex(src[i+k]) {
				jsGiveUp(jdString)
			}
		}
		return i + 5
	case '\r':
		jsGiveUp(jdString)
	case '\n':
		s.newline(i)
		return i + 1
	}
	if src[i] >= 0x80 {
		_, n := utf8.DecodeRune(src[i:])
		return i + n
	}
	return i + 1
}

// template reads a template literal from after its backquote, or from
// after the } that ends a substitution: jtTemplate when it ends, or
// jtTemplateHead when a substitution begins.
func (s *jsScanner) template() jsTok {
	src := s.src
	i := s.off
	for i < len(src) {
		switch src[i] {
		case '`':
			s.off = i + 1
			return jtTemplate
		case '\\':
			i = s.escape(i)
			continue
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				s.off = i + 2
				return jtTemplateHead
			}
		case '\n':
			s.newline(i)
		}
		i++
	}
	jsGiveUp(jdTemplate)
	return jtEOF
}

// templateRest reads the text of a template after the } that ends a
// substitution; the current token is that }.
func (s *jsScanner) templateRest() {
	if s.tok != jtRBrace {
		jsGiveUp(jdSyntax)
	}
	s.off = s.start + 1
	s.tok = s.template()
	s.end = s.off
}

// regex reads a regular expression literal where the current token is /
// or /=, as tree-sitter's regex_pattern and regex_flags tokens read it: no
// line breaks, a / inside a class, flags of lowercase letters.
func (s *jsScanner) regex() {
	src := s.src
	i := s.start + 1
	inClass := false
	for ; ; i++ {
		if i >= len(src) || src[i] == '\n' {
			jsGiveUp(jdRegex)
		}
		c := src[i]
		if c == '\\' {
			i++
			if i >= len(src) || src[i] == '\n' {
				jsGiveUp(jdRegex)
			}
			continue
		}
		if inClass {
			inClass = c != ']'
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == '/' {
			break
		}
	}
	if i == s.start+1 {
		jsGiveUp(jdRegex)
	}
	if len(bytes.Trim(src[s.start+1:i], " \t\r\v\f")) == 0 && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*') {
		jsGiveUp(jdRegex) // tree-sitter reads `/ //` as / and a comment
	}
	i++
	for i < len(src) && 'a' <= src[i] && src[i] <= 'z' {
		i++
	}
	if i < len(src) && (jsClass[src[i]] == jcIdent || jsClass[src[i]] == jcDigit || src[i] >= 0x80 || src[i] == '\\') {
		jsGiveUp(jdRegex)
	}
	s.off, s.end, s.tok = i, i, jtRegex
}

// is reports whether the current token is the name word.
func (s *jsScanner) is(word string) bool {
	return s.tok == jtName && string(s.src[s.start:s.end]) == word
}

// text is the current token's bytes.
func (s *jsScanner) text() []byte { return s.src[s.start:s.end] }
