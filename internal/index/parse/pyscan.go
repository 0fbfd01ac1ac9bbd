package parse

import (
	"bytes"
	"unicode/utf8"
)

// pyScanner is the tokenizer of the fast Python path (pyfast.go). It
// tokenizes the common subset of Python 3 the way both CPython and
// tree-sitter-python's scanner do, indentation included, and declines
// (panics with a pyDecline) on anything outside it or where the two could
// disagree: tabs or form feeds in indentation, a lone carriage return,
// non-ASCII outside strings and comments, Python 2 literals, a line inside
// brackets indented less than the line it continues (the tree-sitter
// scanner may take it for the end of a block) unless it starts with a
// closing bracket or a string, back-slash continuations next to blank or
// comment lines, f-strings that need Python 3.12, and every lexical error.
type pyScanner struct {
	src       []byte
	off       int // next byte to read
	line      int // line of src[off]
	lineStart int // offset of the first byte of that line
	depth     int // bracket nesting

	indents [pyMaxIndents]uint16
	nind    int  // indents[:nind] is the stack; indents[0] is 0
	dedents int  // DEDENT tokens still to return
	bol     bool // the next token begins a logical line
	eof     bool // the DEDENTs of the end of file are all that is left
	// lineIndent is the indentation of the current logical line: no line
	// that continues it may be indented less.
	lineIndent int
	// lowComment is the least indentation of the comment lines before
	// the current logical line, pyMaxIndent+1 if none.
	lowComment int

	// interp is set in the scanner of an f-string interpolation, which
	// ends at its closing brace (depth 0) and may not span lines; quotes
	// are the quote characters of the f-strings around it.
	interp bool
	quotes []byte

	// The current token, and the one before.
	tok, prev  ptok
	start, end int
	tline      int
	tcol       int // 1-based byte column
}

// pyMaxIndents bounds block nesting; tree-sitter's scanner keeps indents
// of at most 255 columns (it serialises each in a byte).
const (
	pyMaxIndents = 100
	pyMaxIndent  = 255
)

// ptok is a token kind of the fast Python path.
type ptok uint8

const (
	ptEOF ptok = iota
	ptNewline
	ptIndent
	ptDedent
	ptName
	ptNumber
	ptString
	ptLparen
	ptRparen
	ptLbrack
	ptRbrack
	ptLbrace
	ptRbrace
	ptComma
	ptColon
	ptSemi
	ptDot
	ptEllipsis
	ptAssign    // =
	ptAugAssign // += -= *= ...
	ptArrow     // ->
	ptWalrus    // :=
	ptAt        // @ (decorator or matrix product)
	ptStar      // *
	ptPow       // **
	ptPlus
	ptMinus
	ptTilde
	ptBinop      // / // % | & ^ << >>
	ptCompare    // < > == >= <= !=
	ptConversion // !r, !s, !a in an interpolation

	// Keywords.
	ptFalse
	ptNone
	ptTrue
	ptAnd
	ptAs
	ptAssert
	ptAsync
	ptAwait
	ptBreak
	ptClass
	ptContinue
	ptDef
	ptDel
	ptElif
	ptElse
	ptExcept
	ptFinally
	ptFor
	ptFrom
	ptGlobal
	ptIf
	ptImport
	ptIn
	ptIs
	ptLambda
	ptNonlocal
	ptNot
	ptOr
	ptPass
	ptRaise
	ptReturn
	ptTry
	ptWhile
	ptWith
	ptYield
)

// pyDecline is the panic value of the fast path giving up; the string is
// the reason, counted in the fast-path statistics.
type pyDecline string

// Reasons to decline a file.
const (
	pdEncoding     pyDecline = "encoding" // not UTF-8, NUL, byte-order mark, Unicode line breaks
	pdTab          pyDecline = "tab in indentation"
	pdCR           pyDecline = "lone carriage return"
	pdNonASCII     pyDecline = "non-ASCII identifier or space"
	pdIndent       pyDecline = "indentation"
	pdContIndent   pyDecline = "under-indented continuation line"
	pdBackslash    pyDecline = "back-slash continuation"
	pdString       pyDecline = "string literal"
	pdFString      pyDecline = "f-string"
	pdNumber       pyDecline = "number literal"
	pdChar         pyDecline = "unexpected character"
	pdSyntax       pyDecline = "unrecognized syntax"
	pdStar         pyDecline = "starred expression"
	pdTypeParams   pyDecline = "type parameters"
	pdExceptStar   pyDecline = "except * with a space"
	pdFuture       pyDecline = "__future__"
	pdDepth        pyDecline = "nesting depth"
	pdLambda       pyDecline = "lambda"
	pdAnnotation   pyDecline = "annotation"
	pdComma        pyDecline = "trailing comma at the end of a line"
	pdUnterminated pyDecline = "unterminated"
)

func pyGiveUp(why pyDecline) { panic(why) }

var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
	nextLn  = []byte("\u0085")
)

// init checks what the scanner would reject anywhere in a file and reads
// the first token.
func (s *pyScanner) init(src []byte) {
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) || bytes.HasPrefix(src, bom) {
		pyGiveUp(pdEncoding)
	}
	if bytes.IndexByte(src, 0xE2) >= 0 && (bytes.Contains(src, lineSep) || bytes.Contains(src, paraSep)) ||
		bytes.IndexByte(src, 0xC2) >= 0 && bytes.Contains(src, nextLn) {
		pyGiveUp(pdEncoding)
	}
	// A carriage return is a line break to Python wherever it is (in
	// comments and strings too), to tree-sitter white space or text.
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\r')
		if j < 0 {
			break
		}
		i += j + 1
		if i >= len(src) || src[i] != '\n' {
			pyGiveUp(pdCR)
		}
	}
	*s = pyScanner{src: src, line: 1, nind: 1, bol: true}
	s.next()
}

// initInterp readies s to scan the interpolation of an f-string that
// starts at off, inside the f-strings whose quotes are quotes.
func (s *pyScanner) initInterp(src []byte, off, line, lineStart int, quotes []byte) {
	*s = pyScanner{src: src, off: off, line: line, lineStart: lineStart, nind: 1, interp: true, quotes: quotes}
	s.next()
}

func (s *pyScanner) newline(at int) {
	s.line++
	s.lineStart = at + 1
}

// pyStrSpecial marks the bytes a string literal's scan stops at.
var pyStrSpecial = func() (t [256]bool) {
	for _, c := range "\"'\\\n\r{}" {
		t[c] = true
	}
	return t
}()

// pyClass classifies bytes for the scanner's main switch.
var pyClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 1
	}
	t['_'] = 1
	for c := '0'; c <= '9'; c++ {
		t[c] = 2
	}
	return t
}()

func isPyIdent(c byte) bool { return pyClass[c] != 0 }

// next reads the next token into s.tok.
func (s *pyScanner) next() {
	s.prev = s.tok
	if s.dedents > 0 {
		s.dedents--
		s.tok = ptDedent
		return
	}
	if s.eof {
		s.tok = ptEOF
		return
	}
	if s.bol && s.beginLine() {
		return
	}
	src := s.src
	for {
		if s.off >= len(src) {
			if s.interp || s.depth > 0 {
				pyGiveUp(pdUnterminated)
			}
			// The end of the last line.
			s.tok, s.start, s.end = ptNewline, s.off, s.off
			s.bol = true
			return
		}
		c := src[s.off]
		switch c {
		case ' ', '\t', '\f':
			s.off++
			continue
		case '\r':
			if s.off+1 >= len(src) || src[s.off+1] != '\n' {
				pyGiveUp(pdCR)
			}
			s.off++
			continue
		case '\n':
			if s.interp {
				pyGiveUp(pdFString)
			}
			s.newline(s.off)
			s.off++
			if s.depth > 0 {
				s.continuation(false)
				continue
			}
			s.tok, s.start, s.end = ptNewline, s.off-1, s.off
			s.bol = true
			return
		case '#':
			if s.interp {
				pyGiveUp(pdFString)
			}
			if i := bytes.IndexByte(src[s.off:], '\n'); i >= 0 {
				s.off += i
			} else {
				s.off = len(src)
			}
			continue
		case '\\':
			if s.interp {
				pyGiveUp(pdFString)
			}
			s.off++
			if s.off < len(src) && src[s.off] == '\r' {
				s.off++
			}
			if s.off >= len(src) || src[s.off] != '\n' {
				pyGiveUp(pdBackslash)
			}
			s.newline(s.off)
			s.off++
			s.continuation(true)
			continue
		}
		s.token(c)
		return
	}
}

// beginLine starts a logical line: it skips blank and comment lines,
// measures the indentation of the first token's line, and returns true
// with an INDENT, a DEDENT or the end of file in s.tok when there is one.
func (s *pyScanner) beginLine() bool {
	src := s.src
	s.lowComment = pyMaxIndent + 1
	for {
		col := 0
		i := s.off
		tab := false
	indent:
		for ; i < len(src); i++ {
			switch src[i] {
			case ' ':
				col++
			case '\t':
				tab = true // harmless on a blank line only
			case '\f':
				col = 0 // as CPython and tree-sitter both do
			default:
				break indent
			}
		}
		if i >= len(src) {
			s.off = i
			// End of file: close every open block.
			s.bol, s.eof = false, true
			s.tok, s.start, s.end = ptEOF, i, i
			if s.nind > 1 {
				s.dedents = s.nind - 2
				s.nind = 1
				s.tok = ptDedent
			}
			return true
		}
		if tab && src[i] != '\n' && src[i] != '\r' {
			pyGiveUp(pdTab)
		}
		switch src[i] {
		case '\n':
			s.newline(i)
			s.off = i + 1
			continue
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				s.newline(i + 1)
				s.off = i + 2
				continue
			}
			pyGiveUp(pdCR)
		case '#':
			s.lowComment = min(s.lowComment, col)
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				s.off = len(src)
				continue
			}
			s.newline(i + j)
			s.off = i + j + 1
			continue
		}
		if src[i] == '\\' {
			// A line that starts with a back-slash: Python takes its
			// indentation, tree-sitter's scanner the next line's.
			pyGiveUp(pdBackslash)
		}
		s.off = i
		s.bol = false
		s.lineIndent = col
		top := int(s.indents[s.nind-1])
		switch {
		case col > top:
			if col > pyMaxIndent || s.nind == pyMaxIndents {
				pyGiveUp(pdDepth)
			}
			s.indents[s.nind] = uint16(col)
			s.nind++
			s.tok, s.start, s.end = ptIndent, i, i
			return true
		case col < top:
			n := 0
			for s.nind > 1 && int(s.indents[s.nind-1]) > col {
				s.nind--
				n++
			}
			if int(s.indents[s.nind-1]) != col {
				pyGiveUp(pdIndent)
			}
			s.dedents = n - 1
			s.tok, s.start, s.end = ptDedent, i, i
			return true
		}
		return false
	}
}

// continuation checks the physical line that starts at s.off and
// continues a logical line, inside brackets or after a back-slash. Its
// indentation may not be less than the logical line's: tree-sitter's
// scanner can read that as the end of the block (a DEDENT) where Python
// joins the lines. After a back-slash the line may be neither blank nor
// a comment.
func (s *pyScanner) continuation(backslash bool) {
	src := s.src
	col := 0
	i := s.off
	for ; i < len(src); i++ {
		switch src[i] {
		case ' ':
			col++
			continue
		case '\t', '\f':
			pyGiveUp(pdTab)
		}
		break
	}
	if i >= len(src) {
		pyGiveUp(pdUnterminated)
	}
	switch src[i] {
	case '\n', '\r', '#':
		if backslash {
			pyGiveUp(pdBackslash)
		}
		if src[i] != '#' {
			return // a blank line; its newline checks the next
		}
	case ')', ']', '}', '"', '\'':
		// The scanner emits no DEDENT where a closing bracket is valid or
		// before a string (one without a prefix) that may start there: the
		// parser takes this one, so it is.
		return
	}
	// After a back-slash the scanner has seen no end of line: no DEDENT.
	if col < s.lineIndent && !backslash {
		pyGiveUp(pdContIndent)
	}
}

// pyOps are the tokens of the one-byte operators that are never the start
// of a longer one.
var pyOps = [256]ptok{
	'(': ptLparen, ')': ptRparen, '[': ptLbrack, ']': ptRbrack, '{': ptLbrace, '}': ptRbrace,
	',': ptComma, ';': ptSemi, '~': ptTilde,
}

// token reads the token that starts with c at s.off.
func (s *pyScanner) token(c byte) {
	src := s.src
	start := s.off
	s.start = start
	s.tline = s.line
	s.tcol = start - s.lineStart + 1
	switch pyClass[c] {
	case 1:
		i := start + 1
		for i < len(src) && pyClass[src[i]] != 0 {
			i++
		}
		if i < len(src) && src[i] >= 0x80 {
			pyGiveUp(pdNonASCII)
		}
		if i < len(src) && (src[i] == '"' || src[i] == '\'') && isPrefixOnly(src[start:i]) {
			s.stringPrefix(start, i)
			return
		}
		s.off, s.end = i, i
		s.tok = pyKeyword(src[start:i])
		return
	case 2:
		s.number()
		return
	}
	if t := pyOps[c]; t != 0 {
		s.off++
		s.end = s.off
		s.tok = t
		switch t {
		case ptLparen, ptLbrack, ptLbrace:
			s.depth++
			if s.depth > 200 {
				pyGiveUp(pdDepth)
			}
		case ptRparen, ptRbrack:
			s.depth--
			if s.depth < 0 {
				pyGiveUp(pdSyntax)
			}
		case ptRbrace:
			if s.depth == 0 && s.interp {
				// The end of the interpolation: the parser sees it, the
				// string scanner resumes after it.
				return
			}
			s.depth--
			if s.depth < 0 {
				pyGiveUp(pdSyntax)
			}
		}
		return
	}
	var c1, c2 byte
	if start+1 < len(src) {
		c1 = src[start+1]
	}
	if start+2 < len(src) {
		c2 = src[start+2]
	}
	n, t := 1, ptEOF
	switch c {
	case '"', '\'':
		s.str(start, start, 0)
		return
	case '.':
		switch {
		case '0' <= c1 && c1 <= '9':
			s.number()
			return
		case c1 == '.' && c2 == '.':
			n, t = 3, ptEllipsis
		default:
			t = ptDot
		}
	case ':':
		t = ptColon
		if c1 == '=' {
			n, t = 2, ptWalrus
		}
	case '=':
		t = ptAssign
		if c1 == '=' {
			n, t = 2, ptCompare
		}
	case '+', '%', '&', '|', '^', '@':
		t = ptBinop
		switch c {
		case '+':
			t = ptPlus
		case '@':
			t = ptAt
		}
		if c1 == '=' {
			n, t = 2, ptAugAssign
		}
	case '-':
		t = ptMinus
		switch c1 {
		case '=':
			n, t = 2, ptAugAssign
		case '>':
			n, t = 2, ptArrow
		}
	case '*':
		t = ptStar
		if c1 == '*' {
			n, t = 2, ptPow
			if c2 == '=' {
				n, t = 3, ptAugAssign
			}
		} else if c1 == '=' {
			n, t = 2, ptAugAssign
		}
	case '/':
		t = ptBinop
		if c1 == '/' {
			n = 2
			if c2 == '=' {
				n, t = 3, ptAugAssign
			}
		} else if c1 == '=' {
			n, t = 2, ptAugAssign
		}
	case '<', '>':
		t = ptCompare
		switch {
		case c1 == c:
			n, t = 2, ptBinop
			if c2 == '=' {
				n, t = 3, ptAugAssign
			}
		case c1 == '=':
			n = 2
		case c == '<' && c1 == '>':
			pyGiveUp(pdSyntax) // Python 2's <>
		}
	case '!':
		switch {
		case c1 == '=':
			n, t = 2, ptCompare
		case s.interp && (c1 == 'r' || c1 == 's' || c1 == 'a') && (c2 == '}' || c2 == ':'):
			n, t = 2, ptConversion
		default:
			pyGiveUp(pdChar)
		}
	default:
		if c >= 0x80 {
			pyGiveUp(pdNonASCII)
		}
		pyGiveUp(pdChar) // $ ? ` and control characters
	}
	s.off += n
	s.end = s.off
	s.tok = t
}

// number reads a number literal: Python 3's forms, digit separators
// included, and nothing that runs into a name or a dot.
func (s *pyScanner) number() {
	src := s.src
	i := s.off
	digits := func(ok func(byte) bool) {
		if i >= len(src) || !ok(src[i]) {
			pyGiveUp(pdNumber)
		}
		for i < len(src) {
			if ok(src[i]) {
				i++
			} else if src[i] == '_' && i+1 < len(src) && ok(src[i+1]) {
				i += 2
			} else {
				break
			}
		}
	}
	dec := func(c byte) bool { return '0' <= c && c <= '9' }
	float := false
	if src[i] == '0' && i+1 < len(src) && (src[i+1]|0x20 == 'x' || src[i+1]|0x20 == 'o' || src[i+1]|0x20 == 'b') {
		base := src[i+1] | 0x20
		i += 2
		if i < len(src) && src[i] == '_' {
			i++
		}
		switch base {
		case 'x':
			digits(func(c byte) bool { return dec(c) || 'a' <= c|0x20 && c|0x20 <= 'f' })
		case 'o':
			digits(func(c byte) bool { return '0' <= c && c <= '7' })
		case 'b':
			digits(func(c byte) bool { return c == '0' || c == '1' })
		}
	} else {
		intStart := i
		if src[i] != '.' {
			digits(dec)
		}
		if i < len(src) && src[i] == '.' {
			float = true
			i++
			if i < len(src) && dec(src[i]) {
				digits(dec)
			}
		}
		if i < len(src) && src[i]|0x20 == 'e' {
			float = true
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			digits(dec)
		}
		if i < len(src) && src[i]|0x20 == 'j' {
			float = true
			i++
		}
		if !float && src[intStart] == '0' {
			// 0777 is Python 2's octal; only zeros may follow a leading 0.
			for _, c := range src[intStart:i] {
				if c != '0' && c != '_' {
					pyGiveUp(pdNumber)
				}
			}
		}
	}
	if i < len(src) && (isPyIdent(src[i]) || src[i] >= 0x80) {
		pyGiveUp(pdNumber)
	}
	if i < len(src) && src[i] == '.' && (!float || src[i-1] == '.') {
		// 1.real and 1..real; 1.5.real is an attribute of 1.5.
		pyGiveUp(pdNumber)
	}
	s.start = s.off
	s.tline = s.line
	s.tcol = s.off - s.lineStart + 1
	s.off, s.end = i, i
	s.tok = ptNumber
}

// String prefixes.
const (
	spRaw = 1 << iota
	spBytes
	spFormat
)

// isPrefixOnly reports whether b is made of the letters of string
// prefixes only, all of which tree-sitter's scanner reads as a prefix
// before a quote (a name made of other letters and then a string, as in
// else"x", is two tokens).
func isPrefixOnly(b []byte) bool {
	for _, c := range b {
		switch c | 0x20 {
		case 'r', 'b', 'u', 'f':
		default:
			return false
		}
	}
	return true
}

// stringPrefix reads a string literal whose prefix is src[start:q].
func (s *pyScanner) stringPrefix(start, q int) {
	var f int
	switch q - start {
	case 1:
		switch s.src[start] | 0x20 {
		case 'r':
			f = spRaw
		case 'b':
			f = spBytes
		case 'f':
			f = spFormat
		case 'u':
		default:
			pyGiveUp(pdString)
		}
	case 2:
		a, b := s.src[start]|0x20, s.src[start+1]|0x20
		if a == 'r' {
			a, b = b, a
		}
		switch {
		case a == 'b' && b == 'r':
			f = spRaw | spBytes
		case a == 'f' && b == 'r':
			f = spRaw | spFormat
		default:
			pyGiveUp(pdString)
		}
	default:
		pyGiveUp(pdString)
	}
	s.str(start, q, f)
}

// str reads a string literal that starts at start and whose opening quote
// is at q, with the prefix flags f.
func (s *pyScanner) str(start, q, f int) {
	src := s.src
	s.start = start
	s.tline = s.line
	s.tcol = start - s.lineStart + 1
	quote := src[q]
	if s.interp && bytes.IndexByte(s.quotes, quote) >= 0 {
		// The same quote inside an f-string: Python 3.12 only.
		pyGiveUp(pdFString)
	}
	i := q + 1
	triple := i+1 < len(src) && src[i] == quote && src[i+1] == quote
	if triple {
		if s.interp {
			pyGiveUp(pdFString) // it could span lines
		}
		i += 2
	}
	raw, format := f&spRaw != 0, f&spFormat != 0
	for {
		// Skip the text that needs no look.
		for i < len(src) && !pyStrSpecial[src[i]] {
			i++
		}
		if i >= len(src) {
			pyGiveUp(pdUnterminated)
		}
		c := src[i]
		switch {
		case c == quote:
			if !triple {
				i++
				goto done
			}
			if i+2 < len(src) && src[i+1] == quote && src[i+2] == quote {
				i += 3
				goto done
			}
			i++
		case c == '\\':
			i++
			if i >= len(src) {
				pyGiveUp(pdUnterminated)
			}
			switch src[i] {
			case '\r':
				if i+1 >= len(src) || src[i+1] != '\n' {
					pyGiveUp(pdCR)
				}
				i++
				s.newline(i)
				i++
			case '\n':
				s.newline(i)
				i++
			case '{', '}':
				if !format {
					i++
				}
				// In an f-string the brace after a back-slash opens an
				// interpolation or is doubled, as both parsers agree.
			case 'N':
				if format && !raw && i+1 < len(src) && src[i+1] == '{' {
					pyGiveUp(pdFString) // \N{...} in an f-string
				}
				i++
			default:
				i++
			}
		case c == '\n':
			if !triple {
				pyGiveUp(pdUnterminated)
			}
			s.newline(i)
			i++
		case c == '\r':
			if i+1 >= len(src) || src[i+1] != '\n' {
				pyGiveUp(pdCR)
			}
			i++
		case format && c == '{':
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			i = s.interpolation(i+1, quote)
		case format && c == '}':
			if i+1 < len(src) && src[i+1] == '}' {
				i += 2
				continue
			}
			pyGiveUp(pdFString)
		default:
			i++
		}
	}
done:
	s.off, s.end = i, i
	s.tok = ptString
}

// interpolation parses the replacement field of an f-string whose
// expression starts at off, and returns the offset after its closing
// brace.
func (s *pyScanner) interpolation(off int, quote byte) int {
	if len(s.quotes) >= 3 {
		pyGiveUp(pdFString)
	}
	var quotes [4]byte
	n := copy(quotes[:], s.quotes)
	quotes[n] = quote
	p := pyFast{pipeDepth: -1}
	p.s.initInterp(s.src, off, s.line, s.lineStart, quotes[:n+1])
	p.replacementField()
	return p.s.off
}

// formatSpec reads the format specification of a replacement field, from
// s.off (after the colon) to its closing brace, which it leaves in s.tok.
// Nested replacement fields are parsed; the rest is text without
// newlines, back-slashes or quotes of the f-strings around it.
func (s *pyScanner) formatSpec() {
	src := s.src
	i := s.off
	for {
		if i >= len(src) {
			pyGiveUp(pdUnterminated)
		}
		switch c := src[i]; c {
		case '}':
			s.start, s.off, s.end = i, i+1, i+1
			s.tok = ptRbrace
			return
		case '{':
			if i+1 < len(src) && (src[i+1] == '{' || src[i+1] == '}') {
				pyGiveUp(pdFString)
			}
			i = s.interpolation(i+1, 0)
		case '\n', '\r', '\\':
			pyGiveUp(pdFString)
		default:
			if bytes.IndexByte(s.quotes, c) >= 0 {
				pyGiveUp(pdFString)
			}
			i++
		}
	}
}

// pyKeyword returns the token of a name: a keyword's, or ptName.
func pyKeyword(b []byte) ptok {
	if len(b) < 2 || len(b) > 8 {
		return ptName
	}
	switch b[0] {
	case 'F':
		if string(b) == "False" {
			return ptFalse
		}
	case 'N':
		if string(b) == "None" {
			return ptNone
		}
	case 'T':
		if string(b) == "True" {
			return ptTrue
		}
	case 'a':
		switch string(b) {
		case "and":
			return ptAnd
		case "as":
			return ptAs
		case "assert":
			return ptAssert
		case "async":
			return ptAsync
		case "await":
			return ptAwait
		}
	case 'b':
		if string(b) == "break" {
			return ptBreak
		}
	case 'c':
		switch string(b) {
		case "class":
			return ptClass
		case "continue":
			return ptContinue
		}
	case 'd':
		switch string(b) {
		case "def":
			return ptDef
		case "del":
			return ptDel
		}
	case 'e':
		switch string(b) {
		case "elif":
			return ptElif
		case "else":
			return ptElse
		case "except":
			return ptExcept
		}
	case 'f':
		switch string(b) {
		case "finally":
			return ptFinally
		case "for":
			return ptFor
		case "from":
			return ptFrom
		}
	case 'g':
		if string(b) == "global" {
			return ptGlobal
		}
	case 'i':
		switch string(b) {
		case "if":
			return ptIf
		case "import":
			return ptImport
		case "in":
			return ptIn
		case "is":
			return ptIs
		}
	case 'l':
		if string(b) == "lambda" {
			return ptLambda
		}
	case 'n':
		switch string(b) {
		case "nonlocal":
			return ptNonlocal
		case "not":
			return ptNot
		}
	case 'o':
		if string(b) == "or" {
			return ptOr
		}
	case 'p':
		if string(b) == "pass" {
			return ptPass
		}
	case 'r':
		switch string(b) {
		case "raise":
			return ptRaise
		case "return":
			return ptReturn
		}
	case 't':
		if string(b) == "try" {
			return ptTry
		}
	case 'w':
		switch string(b) {
		case "while":
			return ptWhile
		case "with":
			return ptWith
		}
	case 'y':
		if string(b) == "yield" {
			return ptYield
		}
	}
	return ptName
}
