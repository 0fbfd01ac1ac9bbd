package parse

import (
	"bytes"
	"unicode/utf8"
)

// goScanner is the tokenizer of the fast Go path (gofast.go). It
// tokenizes the common subset of Go exactly as go/scanner does, automatic
// semicolons included, and gives up (panics with errGoFast) on anything
// outside it: Unicode identifiers, an old octal form of a float (09.5),
// //line directives, and every lexical error.
// Giving up only costs time: the caller then parses with go/parser.
type goScanner struct {
	src        []byte
	off        int // next byte to read
	line       int // line of src[off]
	lineStart  int // offset of the first byte of that line
	insertSemi bool

	// The current token.
	tok        gtok
	start, end int // its text
	tline      int
	tcol       int
}

// gtok is a token kind. Binary operators without another role share one.
type gtok uint8

const (
	tEOF gtok = iota
	tIdent
	tInt
	tFloat
	tChar
	tString
	tSemi
	tLparen
	tRparen
	tLbrack
	tRbrack
	tLbrace
	tRbrace
	tComma
	tPeriod
	tEllipsis
	tColon
	tAssign   // =
	tDefine   // :=
	tOpAssign // +=, -=, ...
	tInc
	tDec
	tArrow // <-
	tAdd
	tSub
	tMul
	tAnd // &
	tXor
	tOr // |
	tNot
	tTilde
	tBinop // the other binary operators: / % << >> &^ && || == != < <= > >=

	tBreak
	tCase
	tChan
	tConst
	tContinue
	tDefault
	tDefer
	tElse
	tFallthrough
	tFor
	tFunc
	tGo
	tGoto
	tIf
	tImport
	tInterface
	tMap
	tPackage
	tRange
	tReturn
	tSelect
	tStruct
	tSwitch
	tType
	tVar
)

// errGoFast is the panic value of the fast path giving up.
type goFastGiveUp struct{}

var errGoFast = goFastGiveUp{}

func giveUp() { panic(errGoFast) }

var bom = []byte{0xEF, 0xBB, 0xBF}

// init checks what go/scanner would reject anywhere in a file and reads
// the first token.
func (s *goScanner) init(src []byte) {
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 || bytes.Contains(src, bom) {
		giveUp()
	}
	*s = goScanner{src: src, line: 1}
	s.next()
}

func (s *goScanner) newline(at int) {
	s.line++
	s.lineStart = at + 1
}

// next reads the next token into s.tok.
func (s *goScanner) next() {
	src := s.src
	for {
		if s.off >= len(src) {
			s.set(s.off, s.off)
			if s.insertSemi {
				s.insertSemi = false
				s.tok = tSemi
				return
			}
			s.tok = tEOF
			return
		}
		c := src[s.off]
		switch c {
		case ' ', '\t', '\r':
			s.off++
			continue
		case '\n':
			if s.insertSemi {
				s.set(s.off, s.off+1)
				s.insertSemi = false
				s.tok = tSemi
				s.newline(s.off)
				s.off++
				return
			}
			s.newline(s.off)
			s.off++
			continue
		case '/':
			if s.off+1 < len(src) && src[s.off+1] == '/' {
				if bytes.HasPrefix(src[s.off+2:], []byte("line ")) {
					giveUp()
				}
				i := bytes.IndexByte(src[s.off:], '\n')
				if i < 0 {
					s.off = len(src)
				} else {
					s.off += i // the newline is read next
				}
				continue
			}
			if s.off+1 < len(src) && src[s.off+1] == '*' {
				if bytes.HasPrefix(src[s.off+2:], []byte("line ")) {
					giveUp()
				}
				i := bytes.Index(src[s.off+2:], []byte("*/"))
				if i < 0 {
					giveUp()
				}
				body := src[s.off+2 : s.off+2+i]
				end := s.off + 2 + i + 2
				if nl := bytes.IndexByte(body, '\n'); nl >= 0 {
					for j, b := range body {
						if b == '\n' {
							s.newline(s.off + 2 + j)
						}
					}
					if s.insertSemi {
						s.set(s.off, end)
						s.insertSemi = false
						s.tok = tSemi
						s.off = end
						return
					}
				}
				s.off = end
				continue
			}
		}
		break
	}
	start := s.off
	c := src[start]
	s.insertSemi = false
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
		i := start + 1
		for i < len(src) {
			b := src[i]
			if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || '0' <= b && b <= '9' {
				i++
				continue
			}
			if b >= utf8.RuneSelf {
				giveUp() // a Unicode letter or digit, or an illegal character
			}
			break
		}
		s.set(start, i)
		s.off = i
		s.tok = keyword(src[start:i])
		switch s.tok {
		case tIdent, tBreak, tContinue, tFallthrough, tReturn:
			s.insertSemi = true
		}
		return
	case '0' <= c && c <= '9' || c == '.' && start+1 < len(src) && '0' <= src[start+1] && src[start+1] <= '9':
		s.number(start)
		s.insertSemi = true
		return
	case c == '"':
		i := start + 1
		for {
			if i >= len(src) || src[i] == '\n' {
				giveUp()
			}
			b := src[i]
			if b == '"' {
				break
			}
			if b == '\\' {
				i = escape(src, i+1, '"')
				continue
			}
			i++
		}
		s.set(start, i+1)
		s.off = i + 1
		s.tok = tString
		s.insertSemi = true
		return
	case c == '`':
		j := bytes.IndexByte(src[start+1:], '`')
		if j < 0 {
			giveUp()
		}
		end := start + 1 + j + 1
		s.set(start, end)
		for k := start + 1; k < end; k++ {
			if src[k] == '\n' {
				s.newline(k)
			}
		}
		s.off = end
		s.tok = tString
		s.insertSemi = true
		return
	case c == '\'':
		i := start + 1
		if i >= len(src) {
			giveUp()
		}
		switch src[i] {
		case '\\':
			i = escape(src, i+1, '\'')
		case '\'', '\n':
			giveUp()
		default:
			_, n := utf8.DecodeRune(src[i:])
			i += n
		}
		if i >= len(src) || src[i] != '\'' {
			giveUp()
		}
		s.set(start, i+1)
		s.off = i + 1
		s.tok = tChar
		s.insertSemi = true
		return
	}
	s.operator(start)
}

func (s *goScanner) set(start, end int) {
	s.start, s.end = start, end
	s.tline = s.line
	s.tcol = start - s.lineStart + 1
}

// operator reads the punctuation or operator at start.
func (s *goScanner) operator(start int) {
	src := s.src
	at := func(i int) byte {
		if start+i < len(src) {
			return src[start+i]
		}
		return 0
	}
	n, tok := 1, tBinop
	switch src[start] {
	case '(':
		tok = tLparen
	case ')':
		tok, s.insertSemi = tRparen, true
	case '[':
		tok = tLbrack
	case ']':
		tok, s.insertSemi = tRbrack, true
	case '{':
		tok = tLbrace
	case '}':
		tok, s.insertSemi = tRbrace, true
	case ',':
		tok = tComma
	case ';':
		tok = tSemi
	case '.':
		tok = tPeriod
		if at(1) == '.' && at(2) == '.' {
			n, tok = 3, tEllipsis
		}
	case ':':
		tok = tColon
		if at(1) == '=' {
			n, tok = 2, tDefine
		}
	case '+':
		tok = tAdd
		switch at(1) {
		case '+':
			n, tok, s.insertSemi = 2, tInc, true
		case '=':
			n, tok = 2, tOpAssign
		}
	case '-':
		tok = tSub
		switch at(1) {
		case '-':
			n, tok, s.insertSemi = 2, tDec, true
		case '=':
			n, tok = 2, tOpAssign
		}
	case '*':
		tok = tMul
		if at(1) == '=' {
			n, tok = 2, tOpAssign
		}
	case '/', '%':
		if at(1) == '=' {
			n, tok = 2, tOpAssign
		}
	case '^':
		tok = tXor
		if at(1) == '=' {
			n, tok = 2, tOpAssign
		}
	case '<':
		switch {
		case at(1) == '-':
			n, tok = 2, tArrow
		case at(1) == '<' && at(2) == '=':
			n, tok = 3, tOpAssign
		case at(1) == '<' || at(1) == '=':
			n = 2
		}
	case '>':
		switch {
		case at(1) == '>' && at(2) == '=':
			n, tok = 3, tOpAssign
		case at(1) == '>' || at(1) == '=':
			n = 2
		}
	case '=':
		tok = tAssign
		if at(1) == '=' {
			n, tok = 2, tBinop
		}
	case '!':
		tok = tNot
		if at(1) == '=' {
			n, tok = 2, tBinop
		}
	case '&':
		tok = tAnd
		switch {
		case at(1) == '^' && at(2) == '=':
			n, tok = 3, tOpAssign
		case at(1) == '^' || at(1) == '&':
			n, tok = 2, tBinop
		case at(1) == '=':
			n, tok = 2, tOpAssign
		}
	case '|':
		tok = tOr
		switch at(1) {
		case '|':
			n, tok = 2, tBinop
		case '=':
			n, tok = 2, tOpAssign
		}
	case '~':
		tok = tTilde
	default:
		giveUp() // an illegal character
	}
	s.set(start, start+n)
	s.off = start + n
	s.tok = tok
}

// number reads Go's integer literals (decimal, hexadecimal, octal in both
// forms, binary, with '_' between digits or after a base prefix) and
// decimal floats with an optional exponent and no separators. Hex floats,
// imaginary literals, separators in a float and anything malformed give
// up: go/parser then says what is wrong, as the fast path must not.
func (s *goScanner) number(start int) {
	src := s.src
	i := start
	// digits reads digits of a base, a '_' only between two of them or
	// right after a prefix (prefixed), and answers how many it read.
	digits := func(isDigit func(byte) bool, prefixed bool) int {
		n, prev := 0, prefixed
		for i < len(src) {
			switch c := src[i]; {
			case isDigit(c):
				n, prev = n+1, true
			case c == '_':
				if !prev || i+1 >= len(src) || !isDigit(src[i+1]) {
					giveUp()
				}
				prev = false
			default:
				return n
			}
			i++
		}
		return n
	}
	tok := tInt
	prefix := byte(0)
	if src[i] == '0' && i+1 < len(src) {
		prefix = src[i+1] | 0x20 // lower case
	}
	switch {
	case prefix == 'x' || prefix == 'o' || prefix == 'b':
		i += 2
		isDigit := isHex
		switch prefix {
		case 'o':
			isDigit = isOctal
		case 'b':
			isDigit = isBinary
		}
		n := digits(isDigit, true)
		if i < len(src) && (src[i] == '.' || src[i]|0x20 == 'p') {
			// A hexadecimal float: 0x1p-2, 0x1.8p3, 0x.8p0.
			if prefix != 'x' {
				giveUp()
			}
			tok = tFloat
			if src[i] == '.' {
				i++
				n += digits(isHex, false)
			}
			if n == 0 || i >= len(src) || src[i]|0x20 != 'p' {
				giveUp() // no digits, or no exponent
			}
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			if digits(isDecimal, false) == 0 {
				giveUp()
			}
		}
		if n == 0 {
			giveUp()
		}
	case src[i] == '0' && i+1 < len(src) && (isDecimal(src[i+1]) || src[i+1] == '_'):
		// An octal literal of the old form (0755), never a float here;
		// with an i, a decimal imaginary (0789i).
		i++
		digits(isDecimal, true)
		if i < len(src) && (src[i] == '.' || src[i]|0x20 == 'e') {
			giveUp() // a float such as 09.5, or 0755.0
		}
		for _, c := range src[start:i] {
			if (c == '8' || c == '9') && (i >= len(src) || src[i] != 'i') {
				giveUp() // not octal: go reports it
			}
		}
	default:
		digits(isDecimal, false)
		if i < len(src) && src[i] == '.' {
			tok = tFloat
			i++
			digits(isDecimal, false)
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			tok = tFloat
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			if digits(isDecimal, false) == 0 {
				giveUp()
			}
		}
	}
	if i < len(src) && src[i] == 'i' {
		// An imaginary literal: a literal of any form before the i.
		tok = tFloat
		i++
	}
	if i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
		giveUp() // a suffix, another base or a second '.'
	}
	s.set(start, i)
	s.off = i
	s.tok = tok
}

func isDecimal(b byte) bool { return '0' <= b && b <= '9' }
func isOctal(b byte) bool   { return '0' <= b && b <= '7' }
func isBinary(b byte) bool  { return b == '0' || b == '1' }

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// escape checks the escape after a backslash at src[i] in a literal quoted
// by quote and returns the offset after it.
func escape(src []byte, i int, quote byte) int {
	if i >= len(src) {
		giveUp()
	}
	switch b := src[i]; b {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', quote:
		return i + 1
	case '0', '1', '2', '3':
		if i+3 > len(src) {
			giveUp()
		}
		for _, d := range src[i+1 : i+3] {
			if d < '0' || d > '7' {
				giveUp()
			}
		}
		return i + 3
	case 'x':
		if i+3 > len(src) || !isHex(src[i+1]) || !isHex(src[i+2]) {
			giveUp()
		}
		return i + 3
	case 'u', 'U':
		n := 4
		if b == 'U' {
			n = 8
		}
		if i+1+n > len(src) {
			giveUp()
		}
		var r uint32
		for _, d := range src[i+1 : i+1+n] {
			if !isHex(d) {
				giveUp()
			}
			r = r<<4 | uint32(hexValue(d))
		}
		// What go/scanner reports as an invalid code point.
		if r > utf8.MaxRune || 0xD800 <= r && r < 0xE000 {
			giveUp()
		}
		return i + 1 + n
	}
	giveUp() // an octal value over 255, or an unknown escape
	return 0
}

func hexValue(b byte) byte {
	switch {
	case b <= '9':
		return b - '0'
	case b >= 'a':
		return b - 'a' + 10
	}
	return b - 'A' + 10
}

// keyword returns the keyword token spelt b, or tIdent.
func keyword(b []byte) gtok {
	if len(b) < 2 || len(b) > 11 || b[0] < 'b' || b[0] > 'v' {
		return tIdent
	}
	switch string(b) {
	case "break":
		return tBreak
	case "case":
		return tCase
	case "chan":
		return tChan
	case "const":
		return tConst
	case "continue":
		return tContinue
	case "default":
		return tDefault
	case "defer":
		return tDefer
	case "else":
		return tElse
	case "fallthrough":
		return tFallthrough
	case "for":
		return tFor
	case "func":
		return tFunc
	case "go":
		return tGo
	case "goto":
		return tGoto
	case "if":
		return tIf
	case "import":
		return tImport
	case "interface":
		return tInterface
	case "map":
		return tMap
	case "package":
		return tPackage
	case "range":
		return tRange
	case "return":
		return tReturn
	case "select":
		return tSelect
	case "struct":
		return tStruct
	case "switch":
		return tSwitch
	case "type":
		return tType
	case "var":
		return tVar
	}
	return tIdent
}
