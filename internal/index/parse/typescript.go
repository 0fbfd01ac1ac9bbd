package parse

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

var (
	tsGrammar  = sync.OnceValue(func() *grammar { return newGrammar(typescript.GetLanguage()) })
	tsxGrammar = sync.OnceValue(func() *grammar { return newGrammar(tsx.GetLanguage()) })
	jsGrammar  = sync.OnceValue(func() *grammar { return newGrammar(javascript.GetLanguage()) })
)

// parseTypeScript indexes one TypeScript file (.ts, .mts, .cts; .tsx with
// the TSX grammar): see parseJS. Declaration files (.d.ts) take a fast
// path (jsts.go) unless it declines them.
func parseTypeScript(path string, src []byte) FileRecord {
	if !isDeclarationFile(path) {
		return parseTypeScriptTree(path, src)
	}
	return throughFastPath(LangTypeScript, path, src, parseDeclarationsFast, parseTypeScriptTree)
}

// parseTypeScriptTree is parseTypeScript by way of tree-sitter's syntax
// tree.
func parseTypeScriptTree(path string, src []byte) FileRecord {
	g := tsGrammar()
	if strings.HasSuffix(strings.ToLower(path), ".tsx") {
		g = tsxGrammar()
	}
	return parseJS(g, LangTypeScript, path, src)
}

// parseJavaScript indexes one JavaScript file (.js, .jsx, .mjs, .cjs; the
// grammar handles JSX): see parseJS. Most files take the fast path
// (jsfast.go); the rest, and every file with an error, go through
// tree-sitter.
func parseJavaScript(path string, src []byte) FileRecord {
	return throughFastPath(LangJavaScript, path, src, parseJavaScriptFast, parseJavaScriptTree)
}

// parseJavaScriptTree is parseJavaScript by way of tree-sitter's syntax
// tree.
func parseJavaScriptTree(path string, src []byte) FileRecord {
	return parseJS(jsGrammar(), LangJavaScript, path, src)
}

// parseJS indexes a JS or TS file with tree-sitter: its imports (static
// imports, re-exports, TypeScript `import x = require()`, and dynamic
// import() and require() calls with a literal specifier anywhere in the
// file) and its top-level declarations, exported or not: functions,
// classes and their methods, interfaces, type aliases, enums and variables.
// A file with syntax errors keeps what the tree recovered, plus a
// diagnostic.
func parseJS(g *grammar, lang, path string, src []byte) FileRecord {
	return g.record(lang, path, src, func(rec *FileRecord, root *sitter.Node, top *sitter.TreeCursor) {
		w := jsWalker{g: g, src: src, inner: sitter.NewTreeCursor(root)}
		defer closeCursor(w.inner)
		eachChild(top, root, w.statement)
		w.namespaceMembers(root)
		w.dynamicImports(root)

		if !sort.SliceIsSorted(w.imports, func(i, j int) bool { return w.imports[i].off < w.imports[j].off }) {
			sort.SliceStable(w.imports, func(i, j int) bool { return w.imports[i].off < w.imports[j].off })
		}
		if len(w.imports) > 0 {
			rec.Imports = make([]Import, len(w.imports))
			for i, imp := range w.imports {
				rec.Imports[i] = imp.Import
			}
		}
		rec.Symbols = w.syms.list
		rec.Default = w.defaultName
	})
}

type jsWalker struct {
	g           *grammar
	src         []byte
	inner       *sitter.TreeCursor // for class bodies
	imports     []offImport
	namespaces  []namespaceImport
	syms        symbols
	defaultName string // the declaration exported as default
}

// isDefaultExport reports whether an export statement has the default
// keyword (an anonymous child: only export statements pay for the type
// strings).
func isDefaultExport(n *sitter.Node) bool {
	for i := 0; i < int(n.ChildCount()); i++ {
		if c := n.Child(i); !c.IsNamed() && c.Type() == "default" {
			return true
		}
	}
	return false
}

// offImport is an import with the byte offset that orders it in the file.
type offImport struct {
	Import
	off uint32
}

// namespaceImport is the local name of an `import * as ns`, and the index
// in imports of its import.
type namespaceImport struct {
	name string
	imp  int
}

// addImport records an import of the specifier spec, if it is a literal,
// and reports whether it did.
func (w *jsWalker) addImport(at *sitter.Node, spec *sitter.Node, names, as []string) bool {
	p, ok := jsStringValue(w.g, spec, w.src)
	if !ok {
		return false
	}
	line, _ := position(at)
	w.imports = append(w.imports, offImport{Import{Path: p, Names: names, As: as, Line: line}, at.StartByte()})
	return true
}

// statement handles one top-level statement.
func (w *jsWalker) statement(n *sitter.Node) {
	switch w.g.kind(n) {
	case kImportStatement:
		w.importStatement(n)
	case kExportStatement:
		if src := n.ChildByFieldName("source"); src != nil {
			names, as := w.exportedNames(n)
			if names == nil && w.reexportsAll(n) {
				names = []string{ReexportsAll}
			}
			w.addImport(n, src, names, as)
			return
		}
		if d := n.ChildByFieldName("declaration"); d != nil {
			w.declaration(d)
			if isDefaultExport(n) {
				if name := d.ChildByFieldName("name"); name != nil {
					w.defaultName = name.Content(w.src)
				}
			}
			return
		}
		if v := n.ChildByFieldName("value"); v != nil && w.g.kind(v) == kIdentifier && isDefaultExport(n) {
			w.defaultName = v.Content(w.src) // export default x;
			return
		}
		if name := w.exportedAsDefault(n); name != "" {
			w.defaultName = name // export { x as default };
		}
	default:
		w.declaration(n)
	}
}

// importStatement: `import x, {a, b as c} from 's'`, `import * as ns from
// 's'`, `import 's'`, TypeScript `import x = require('s')`.
func (w *jsWalker) importStatement(n *sitter.Node) {
	var names []string
	var namespace string
	var source *sitter.Node
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch w.g.kind(c) {
		case kImportClause:
			names, namespace = w.importClauseNames(c)
		case kImportRequireClause:
			source = c.ChildByFieldName("source")
		}
	}
	if source == nil {
		source = n.ChildByFieldName("source")
	}
	if source != nil && w.addImport(n, source, names, nil) && namespace != "" {
		w.namespaces = append(w.namespaces, namespaceImport{namespace, len(w.imports) - 1})
	}
}

// importClauseNames lists what an import clause takes from the target, as
// the target exports it: "default" for a default import, the exported name
// of each specifier; and the local name of a namespace import, whose
// members namespaceMembers adds.
func (w *jsWalker) importClauseNames(clause *sitter.Node) (names []string, namespace string) {
	for i := 0; i < int(clause.NamedChildCount()); i++ {
		c := clause.NamedChild(i)
		switch w.g.kind(c) {
		case kIdentifier:
			names = append(names, "default")
		case kNamespaceImport:
			for j := 0; j < int(c.NamedChildCount()); j++ {
				if id := c.NamedChild(j); w.g.kind(id) == kIdentifier {
					namespace = id.Content(w.src)
				}
			}
		case kNamedImports:
			for j := 0; j < int(c.NamedChildCount()); j++ {
				s := c.NamedChild(j)
				if w.g.kind(s) != kImportSpecifier {
					continue
				}
				if name := w.specifierName(s); name != "" {
					names = append(names, name)
				}
			}
		}
	}
	return names, namespace
}

// exportedNames lists the names an `export {a, b as c} from 's'` takes from
// its target, and the names it offers them under (as is nil when none is
// renamed); nothing for `export * from` and `export * as ns from`.
func (w *jsWalker) exportedNames(n *sitter.Node) (names, as []string) {
	renamed := false
	w.eachExportSpecifier(n, func(s *sitter.Node) {
		name := w.specifierName(s)
		if name == "" {
			return
		}
		alias := ""
		if a := s.ChildByFieldName("alias"); a != nil {
			if alias = w.nameText(a); alias == name {
				alias = ""
			}
		}
		names, as = append(names, name), append(as, alias)
		renamed = renamed || alias != ""
	})
	if !renamed {
		as = nil
	}
	return names, as
}

// reexportsAll reports whether an export statement with a source is
// `export * from`: neither a `{ ... }` clause nor `* as ns`.
func (w *jsWalker) reexportsAll(n *sitter.Node) bool {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if k := w.g.kind(n.NamedChild(i)); k == kExportClause || k == kNamespaceExport {
			return false
		}
	}
	return true
}

// namespaceMembers adds to each namespace import the names the file uses
// of it: ns.a in an expression, ns.T in a type.
func (w *jsWalker) namespaceMembers(root *sitter.Node) {
	if len(w.namespaces) == 0 {
		return
	}
	loc := newLocator(root)
	defer loc.close()
	for _, ns := range w.namespaces {
		var members []string
		scanWord(w.src, ns.name, func(off int) {
			if nextNonSpace(w.src, off+len(ns.name)) != '.' {
				return
			}
			start, end := uint32(off), uint32(off+len(ns.name))
			id := loc.at(start, end)
			if id.StartByte() != start || id.EndByte() != end || w.g.kind(id) != kIdentifier {
				return
			}
			field := loc.c.CurrentFieldName()
			if !loc.c.GoToParent() {
				return
			}
			var member *sitter.Node
			switch parent := loc.c.CurrentNode(); {
			case field == "object" && w.g.kind(parent) == kMemberExpression:
				member = parent.ChildByFieldName("property")
			case field == "module" && w.g.kind(parent) == kNestedTypeIdentifier:
				member = parent.ChildByFieldName("name")
			}
			if member != nil && w.g.kind(member) != kPrivatePropertyIdentifier {
				members = append(members, member.Content(w.src))
			}
		})
		slices.Sort(members)
		imp := &w.imports[ns.imp].Import
		imp.Names = append(imp.Names, slices.Compact(members)...)
	}
}

// exportedAsDefault is x of `export { x as default }`.
func (w *jsWalker) exportedAsDefault(n *sitter.Node) string {
	name := ""
	w.eachExportSpecifier(n, func(s *sitter.Node) {
		if a := s.ChildByFieldName("alias"); a != nil && a.Content(w.src) == "default" {
			name = w.specifierName(s)
		}
	})
	return name
}

// eachExportSpecifier calls f for each specifier of an export statement's
// `{ ... }` clause.
func (w *jsWalker) eachExportSpecifier(n *sitter.Node, f func(s *sitter.Node)) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if w.g.kind(c) != kExportClause {
			continue
		}
		for j := 0; j < int(c.NamedChildCount()); j++ {
			if s := c.NamedChild(j); w.g.kind(s) == kExportSpecifier {
				f(s)
			}
		}
	}
}

// specifierName is the name field of an import or export specifier: an
// identifier, or a string for arbitrary module namespace names.
func (w *jsWalker) specifierName(s *sitter.Node) string {
	name := s.ChildByFieldName("name")
	if name == nil {
		return ""
	}
	return w.nameText(name)
}

// nameText is the name an identifier, or a string naming an export, says.
func (w *jsWalker) nameText(n *sitter.Node) string {
	if w.g.kind(n) == kString {
		v, _ := jsStringValue(w.g, n, w.src)
		return v
	}
	return n.Content(w.src)
}

// declaration records the symbols of a top-level declaration; other
// statements are ignored.
func (w *jsWalker) declaration(n *sitter.Node) {
	switch w.g.kind(n) {
	case kFunctionDeclaration, kGeneratorFunctionDeclaration, kFunctionSignature:
		w.named(n, "function")
	case kClassDeclaration, kAbstractClassDeclaration:
		w.class(n)
	case kInterfaceDeclaration, kTypeAliasDeclaration, kEnumDeclaration:
		w.named(n, "type")
	case kLexicalDeclaration, kVariableDeclaration:
		for i := 0; i < int(n.NamedChildCount()); i++ {
			if d := n.NamedChild(i); w.g.kind(d) == kVariableDeclarator {
				w.declarator(d)
			}
		}
	case kAmbientDeclaration: // declare function/const/class ...
		for i := 0; i < int(n.NamedChildCount()); i++ {
			w.declaration(n.NamedChild(i))
		}
	}
}

// named records n under the text of its name field.
func (w *jsWalker) named(n *sitter.Node, kind string) {
	if name := n.ChildByFieldName("name"); name != nil {
		w.syms.add(name.Content(w.src), kind, name)
	}
}

// declarator records `x = value` of a const/let/var: a function if the
// value is a function or arrow function, else a var. Destructuring
// patterns are skipped.
func (w *jsWalker) declarator(d *sitter.Node) {
	name := d.ChildByFieldName("name")
	if w.g.kind(name) != kIdentifier {
		return
	}
	kind := "var"
	v := d.ChildByFieldName("value")
	for range 4 { // (f), f as T, f satisfies T, f!
		switch w.g.kind(v) {
		case kParenthesizedExpression, kAsExpression, kSatisfiesExpression, kNonNullExpression:
			v = v.NamedChild(0)
			continue
		case kArrowFunction, kFunctionExpression, kGeneratorFunction:
			kind = "function"
		}
		break
	}
	w.syms.add(name.Content(w.src), kind, name)
}

// class records a class and its methods ("Class.method"), including
// getters, setters, the constructor and TypeScript method signatures;
// computed and quoted method names are skipped.
func (w *jsWalker) class(n *sitter.Node) {
	nameNode := n.ChildByFieldName("name")
	if nameNode == nil {
		return
	}
	class := nameNode.Content(w.src)
	w.syms.add(class, "class", nameNode)
	body := n.ChildByFieldName("body")
	if w.g.kind(body) != kClassBody {
		return
	}
	eachChild(w.inner, body, func(m *sitter.Node) {
		switch w.g.kind(m) {
		case kMethodDefinition, kMethodSignature, kAbstractMethodSignature:
		default:
			return
		}
		name := m.ChildByFieldName("name")
		switch w.g.kind(name) {
		case kPropertyIdentifier, kPrivatePropertyIdentifier:
			w.syms.add(class+"."+name.Content(w.src), "method", name)
		}
	})
}

// dynamicImports finds `import('s')` and `require('s')` calls with a
// literal specifier anywhere in the file. Rather than walking every node,
// it scans the text for the two words followed by "(" and confirms each
// candidate against the tree, which rejects strings, comments, members
// (`x.require(...)`) and non-literal arguments.
func (w *jsWalker) dynamicImports(root *sitter.Node) {
	loc := newLocator(root)
	defer loc.close()
	for _, word := range [...]string{"import", "require"} {
		scanWord(w.src, word, func(off int) {
			if off > 0 && w.src[off-1] == '.' || nextNonSpace(w.src, off+len(word)) != '(' {
				return
			}
			start, end := uint32(off), uint32(off+len(word))
			callee := loc.at(start, end)
			if callee.StartByte() != start || callee.EndByte() != end {
				return
			}
			if k := w.g.kind(callee); word == "import" && k != kImport || word == "require" && k != kIdentifier {
				return
			}
			if loc.c.CurrentFieldName() != "function" || !loc.c.GoToParent() {
				return // `f(require)`
			}
			call := loc.c.CurrentNode()
			if w.g.kind(call) != kCallExpression {
				return
			}
			args := call.ChildByFieldName("arguments")
			if w.g.kind(args) != kArguments {
				return // a tagged template
			}
			for i := 0; i < int(args.NamedChildCount()); i++ {
				a := args.NamedChild(i)
				if w.g.kind(a) == kComment {
					continue
				}
				w.addImport(callee, a, nil, nil)
				break
			}
		})
	}
}

// jsStringValue is the value of a string literal, or of a template literal
// without substitutions.
func jsStringValue(g *grammar, n *sitter.Node, src []byte) (string, bool) {
	switch g.kind(n) {
	case kString:
	case kTemplateString:
		for i := 0; i < int(n.NamedChildCount()); i++ {
			if g.kind(n.NamedChild(i)) == kTemplateSubstitution {
				return "", false
			}
		}
	default:
		return "", false
	}
	s := src[n.StartByte():n.EndByte()]
	if len(s) < 2 || s[len(s)-1] != s[0] {
		return "", false // a recovered, unterminated literal
	}
	s = s[1 : len(s)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s), true
	}
	return jsUnescape(s), true
}

// jsUnescape decodes the escapes of a JS string body: the single-character
// ones, \xHH, \uHHHH, \u{H...} and line continuations; an unknown escape
// stands for its character.
func jsUnescape(s []byte) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			b.WriteByte(0)
		case '\n': // line continuation
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case 'x', 'u':
			var digits []byte
			braces := 0
			switch {
			case c == 'x' && i+2 < len(s):
				digits = s[i+1 : i+3]
			case c == 'u' && i+1 < len(s) && s[i+1] == '{':
				if j := bytes.IndexByte(s[i+2:], '}'); j >= 0 {
					digits, braces = s[i+2:i+2+j], 2
				}
			case c == 'u' && i+4 < len(s):
				digits = s[i+1 : i+5]
			}
			r, ok := hexRune(digits)
			if !ok {
				b.WriteByte(c)
				continue
			}
			b.WriteRune(r)
			i += len(digits) + braces
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func hexRune(digits []byte) (rune, bool) {
	if len(digits) == 0 || len(digits) > 6 {
		return 0, false
	}
	var r rune
	for _, d := range digits {
		switch {
		case '0' <= d && d <= '9':
			r = r<<4 | rune(d-'0')
		case 'a' <= d && d <= 'f':
			r = r<<4 | rune(d-'a'+10)
		case 'A' <= d && d <= 'F':
			r = r<<4 | rune(d-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
