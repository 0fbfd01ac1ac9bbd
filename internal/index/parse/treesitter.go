package parse

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"strconv"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Tree-sitter plumbing shared by the TypeScript/JavaScript and Python
// indexers.
//
// Parsers are not safe for concurrent use and own C memory, so each grammar
// keeps a sync.Pool of them; a parser the pool drops is freed by its
// finalizer. Trees are closed by the caller as soon as the record is built.
//
// The bindings return node types as freshly allocated strings, so the
// walkers classify nodes by their grammar symbol instead: each grammar gets
// a table from symbol to nodeKind, built once.

// nodeKind is a node type the indexers care about; kNone for the rest.
type nodeKind uint8

const (
	kNone nodeKind = iota
	kComment
	kIdentifier
	kString
	kTemplateString
	kTemplateSubstitution

	// TypeScript / JavaScript.
	kImportStatement
	kImportClause
	kImportRequireClause
	kNamedImports
	kNamespaceImport
	kImportSpecifier
	kExportStatement
	kExportClause
	kExportSpecifier
	kNamespaceExport
	kMemberExpression
	kNestedTypeIdentifier
	kCallExpression
	kImport // the callee of a dynamic import()
	kArguments
	kFunctionDeclaration
	kGeneratorFunctionDeclaration
	kFunctionSignature
	kClassDeclaration
	kAbstractClassDeclaration
	kClassBody
	kMethodDefinition
	kMethodSignature
	kAbstractMethodSignature
	kPropertyIdentifier
	kPrivatePropertyIdentifier
	kInterfaceDeclaration
	kTypeAliasDeclaration
	kEnumDeclaration
	kLexicalDeclaration
	kVariableDeclaration
	kVariableDeclarator
	kAmbientDeclaration
	kArrowFunction
	kFunctionExpression
	kGeneratorFunction
	kParenthesizedExpression
	kAsExpression
	kSatisfiesExpression
	kNonNullExpression

	// Python.
	kImportFromStatement
	kFutureImportStatement
	kDottedName
	kAliasedImport
	kWildcardImport
	kRelativeImport
	kFunctionDefinition
	kClassDefinition
	kDecoratedDefinition
	kExpressionStatement
	kAssignment
)

// kindNames maps the grammars' named node types to kinds. A name a grammar
// does not have is simply absent from its table.
var kindNames = map[string]nodeKind{
	"comment":               kComment,
	"identifier":            kIdentifier,
	"string":                kString,
	"template_string":       kTemplateString,
	"template_substitution": kTemplateSubstitution,

	"import_statement":               kImportStatement,
	"import_clause":                  kImportClause,
	"import_require_clause":          kImportRequireClause,
	"named_imports":                  kNamedImports,
	"namespace_import":               kNamespaceImport,
	"import_specifier":               kImportSpecifier,
	"export_statement":               kExportStatement,
	"export_clause":                  kExportClause,
	"export_specifier":               kExportSpecifier,
	"namespace_export":               kNamespaceExport,
	"member_expression":              kMemberExpression,
	"nested_type_identifier":         kNestedTypeIdentifier,
	"call_expression":                kCallExpression,
	"import":                         kImport,
	"arguments":                      kArguments,
	"function_declaration":           kFunctionDeclaration,
	"generator_function_declaration": kGeneratorFunctionDeclaration,
	"function_signature":             kFunctionSignature,
	"class_declaration":              kClassDeclaration,
	"abstract_class_declaration":     kAbstractClassDeclaration,
	"class_body":                     kClassBody,
	"method_definition":              kMethodDefinition,
	"method_signature":               kMethodSignature,
	"abstract_method_signature":      kAbstractMethodSignature,
	"property_identifier":            kPropertyIdentifier,
	"private_property_identifier":    kPrivatePropertyIdentifier,
	"interface_declaration":          kInterfaceDeclaration,
	"type_alias_declaration":         kTypeAliasDeclaration,
	"enum_declaration":               kEnumDeclaration,
	"lexical_declaration":            kLexicalDeclaration,
	"variable_declaration":           kVariableDeclaration,
	"variable_declarator":            kVariableDeclarator,
	"ambient_declaration":            kAmbientDeclaration,
	"arrow_function":                 kArrowFunction,
	"function_expression":            kFunctionExpression,
	"function":                       kFunctionExpression, // older JavaScript grammars
	"generator_function":             kGeneratorFunction,
	"parenthesized_expression":       kParenthesizedExpression,
	"as_expression":                  kAsExpression,
	"satisfies_expression":           kSatisfiesExpression,
	"non_null_expression":            kNonNullExpression,
	"import_from_statement":          kImportFromStatement,
	"future_import_statement":        kFutureImportStatement,
	"dotted_name":                    kDottedName,
	"aliased_import":                 kAliasedImport,
	"wildcard_import":                kWildcardImport,
	"relative_import":                kRelativeImport,
	"function_definition":            kFunctionDefinition,
	"class_definition":               kClassDefinition,
	"decorated_definition":           kDecoratedDefinition,
	"expression_statement":           kExpressionStatement,
	"assignment":                     kAssignment,
}

// grammar is one tree-sitter language with its kind table and parser pool.
type grammar struct {
	lang  *sitter.Language
	kinds []nodeKind // by symbol
	pool  sync.Pool  // of *sitter.Parser set to lang
	// limit is the time a parse of size bytes may take, in microseconds.
	limit func(size int) int
}

func newGrammar(lang *sitter.Language) *grammar {
	g := &grammar{lang: lang, kinds: make([]nodeKind, lang.SymbolCount()), limit: parseTimeLimit}
	for i := range g.kinds {
		s := sitter.Symbol(i)
		if lang.SymbolType(s) != sitter.SymbolTypeRegular {
			continue // anonymous tokens such as the "import" keyword
		}
		g.kinds[i] = kindNames[lang.SymbolName(s)]
	}
	g.pool.New = func() any {
		p := sitter.NewParser()
		p.SetLanguage(lang)
		return p
	}
	return g
}

// kind classifies n; nil, ERROR and unknown nodes are kNone.
func (g *grammar) kind(n *sitter.Node) nodeKind {
	if n == nil {
		return kNone
	}
	s := int(n.Symbol())
	if s < len(g.kinds) {
		return g.kinds[s]
	}
	return kNone
}

// parse parses src with a pooled parser. The caller must Close the tree. A
// nil tree comes with the diagnostic to record.
func (g *grammar) parse(src []byte) (*sitter.Tree, string) {
	if uint64(len(src)) > math.MaxUint32 {
		return nil, "file too large to parse"
	}
	p := g.pool.Get().(*sitter.Parser)
	p.SetOperationLimit(g.limit(len(src)))
	// Background never cancels, so ParseCtx starts no goroutine; the
	// operation limit is what stops a runaway parse.
	tree, _ := p.ParseCtx(context.Background(), nil, src)
	if tree == nil {
		// Out of time: reset, or the pooled parser would resume this parse.
		p.Reset()
	}
	g.pool.Put(p)
	if tree == nil {
		return nil, "parse timed out"
	}
	return tree, ""
}

// record parses src and, when there is a tree, notes its first syntax
// error and hands walk the root and a cursor for its top-level nodes; both
// are freed when walk returns.
func (g *grammar) record(lang, path string, src []byte, walk func(rec *FileRecord, root *sitter.Node, top *sitter.TreeCursor)) FileRecord {
	rec := FileRecord{Path: path, Lang: lang}
	tree, diag := g.parse(src)
	if tree == nil {
		rec.Diag = diag
		return rec
	}
	defer tree.Close()
	root := tree.RootNode()
	rec.Diag = syntaxDiag(root)
	top := sitter.NewTreeCursor(root)
	defer closeCursor(top)
	walk(&rec, root, top)
	return rec
}

// parseTimeLimit bounds a parse, in microseconds. Tree-sitter's error
// recovery is super-linear on some garbage (a few hundred kilobytes of
// repeated keywords can take minutes); real files parse at megabytes per
// second, so the limit leaves a margin of about a thousand.
func parseTimeLimit(size int) int {
	return 2_000_000 + 10*size
}

// syntaxDiag describes the first syntax error under root ("" if none): the
// first ERROR or MISSING node in document order.
func syntaxDiag(root *sitter.Node) string {
	if !root.HasError() {
		return ""
	}
	c := sitter.NewTreeCursor(root)
	defer closeCursor(c)
	n := root
	for !n.IsError() && !n.IsMissing() && c.GoToFirstChild() {
		for {
			ch := c.CurrentNode()
			if ch.HasError() || ch.IsMissing() {
				n = ch
				break
			}
			if !c.GoToNextSibling() {
				// An error flag with no erroneous child: report n itself.
				return "syntax error at line " + strconv.Itoa(int(n.StartPoint().Row)+1)
			}
		}
	}
	return "syntax error at line " + strconv.Itoa(int(n.StartPoint().Row)+1)
}

// eachChild calls fn for every child of n, using c (reset to n) so that a
// long list of children costs linear time; ts_node_child and
// ts_node_next_sibling are linear in the number of siblings each.
func eachChild(c *sitter.TreeCursor, n *sitter.Node, fn func(*sitter.Node)) {
	c.Reset(n)
	if !c.GoToFirstChild() {
		return
	}
	for {
		fn(c.CurrentNode())
		if !c.GoToNextSibling() {
			return
		}
	}
}

// position is a node's 1-based line and byte column.
func position(n *sitter.Node) (line, col int) {
	p := n.StartPoint()
	return int(p.Row) + 1, int(p.Column) + 1
}

// symbols collects a file's symbols, first declaration of a name wins (a
// TypeScript value and type of the same name, a Python redefinition), so
// that each name is one symbol of the file.
type symbols struct {
	list []Symbol
	seen map[string]struct{}
}

func (s *symbols) add(name, kind string, at *sitter.Node) {
	if name == "" || at == nil {
		return
	}
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	if _, ok := s.seen[name]; ok {
		return
	}
	s.seen[name] = struct{}{}
	line, col := position(at)
	s.list = append(s.list, Symbol{Name: name, Kind: kind, Line: line, Col: col})
}

// locator finds the nodes at a series of byte ranges with one tree cursor,
// moving from each range to the next: right along siblings that end before
// it, up to the nearest node that covers it, then down. For increasing
// ranges that costs about one walk of the tree's paths to them. Descending
// from the root for each range instead (ts_node_named_descendant_for_point_range)
// is quadratic in deeply nested or wide trees, which broken files produce.
type locator struct {
	c *sitter.TreeCursor
}

func newLocator(root *sitter.Node) locator { return locator{sitter.NewTreeCursor(root)} }

func (l locator) close() { closeCursor(l.c) }

// closeCursor frees a cursor at once. The binding gives every cursor a
// finalizer and a pointer to its tree, so a cursor closed but left to its
// finalizer kept its tree, with every node the walk had asked for, alive
// through one more collection: under a big pass's rare collections, the
// trees of thousands of files (a third of the live heap on a 110k-file
// corpus; BENCHMARKS.md, issue 36).
func closeCursor(c *sitter.TreeCursor) {
	c.Close()
	runtime.SetFinalizer(c, nil)
}

// at returns the smallest named node that covers [start, end) and leaves
// the cursor on it (callers may move the cursor; the next call recovers).
func (l locator) at(start, end uint32) *sitter.Node {
	c := l.c
	n := c.CurrentNode()
	for n.StartByte() > start || n.EndByte() < end {
		if n.EndByte() <= start && c.GoToNextSibling() {
			n = c.CurrentNode()
			continue
		}
		if !c.GoToParent() {
			break
		}
		n = c.CurrentNode()
	}
	for c.GoToFirstChildForByte(start) >= 0 {
		ch := c.CurrentNode()
		// This version also stops at a child that ends at start.
		for ch.EndByte() <= start && ch.StartByte() < start && c.GoToNextSibling() {
			ch = c.CurrentNode()
		}
		if ch.StartByte() > start || ch.EndByte() < end {
			c.GoToParent()
			break
		}
		n = ch
	}
	for !n.IsNamed() && c.GoToParent() {
		n = c.CurrentNode()
	}
	return n
}

// isIdentByte reports whether b can continue an identifier (JS or Python);
// any non-ASCII byte counts, as it may be part of a Unicode letter.
func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 ||
		'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// scanWord calls fn with the offset of every occurrence of word in src
// that stands as a whole word. These are candidates only (they may sit in
// strings or comments); callers confirm them against the tree.
func scanWord(src []byte, word string, fn func(off int)) {
	w := []byte(word)
	for i := 0; ; {
		j := bytes.Index(src[i:], w)
		if j < 0 {
			return
		}
		off := i + j
		i = off + len(w)
		if off > 0 && isIdentByte(src[off-1]) {
			continue
		}
		if i < len(src) && isIdentByte(src[i]) {
			continue
		}
		fn(off)
	}
}

// nextNonSpace returns the first byte at or after i that is not white
// space, or 0.
func nextNonSpace(src []byte, i int) byte {
	for ; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return src[i]
		}
	}
	return 0
}
