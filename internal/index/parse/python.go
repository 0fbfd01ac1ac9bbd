package parse

import (
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

var pyGrammar = sync.OnceValue(func() *grammar { return newGrammar(python.GetLanguage()) })

// parsePython indexes one Python file: every import statement, wherever
// it is (module level, try/except, if TYPE_CHECKING, inside functions),
// and the module's top-level functions, classes with their methods
// ("Class.method"), and assignments to plain names. A file with syntax
// errors keeps what tree-sitter's tree recovered, plus a diagnostic. Most
// files take the fast path (pyfast.go); the rest, and every file with an
// error, go through tree-sitter.
func parsePython(path string, src []byte) FileRecord {
	return throughFastPath(LangPython, path, src, parsePythonFast, parsePythonTree)
}

// parsePythonTree is parsePython by way of tree-sitter's syntax tree.
func parsePythonTree(path string, src []byte) FileRecord {
	return parsePythonWith(pyGrammar(), path, src)
}

// parsePythonWith is parsePython with grammar g, which a test gives its
// own time limit.
func parsePythonWith(g *grammar, path string, src []byte) FileRecord {
	return g.record(LangPython, path, src, func(rec *FileRecord, root *sitter.Node, top *sitter.TreeCursor) {
		w := pyWalker{g: g, src: src, inner: sitter.NewTreeCursor(root)}
		defer closeCursor(w.inner)
		w.imports(root)
		eachChild(top, root, w.statement)
		rec.Imports = w.imps
		rec.Symbols = w.syms.list
	})
}

type pyWalker struct {
	g     *grammar
	src   []byte
	inner *sitter.TreeCursor // for class bodies
	imps  []Import
	syms  symbols
}

// imports finds the import statements of the file. Imports nest in any
// block, so rather than walking every node it scans the text for the
// keyword and confirms each hit against the tree (which rejects strings,
// comments and identifiers that merely contain the word); each statement
// has exactly one "import" keyword.
func (w *pyWalker) imports(root *sitter.Node) {
	loc := newLocator(root)
	defer loc.close()
	last := ^uint32(0)
	scanWord(w.src, "import", func(off int) {
		n := loc.at(uint32(off), uint32(off+len("import")))
		if n.StartByte() == last {
			return
		}
		switch w.g.kind(n) {
		case kImportStatement:
			w.importStatement(n)
		case kImportFromStatement, kFutureImportStatement:
			w.importFrom(n)
		default:
			return
		}
		last = n.StartByte()
	})
}

// importStatement: `import a.b.c`, `import a as b, c`; one import each.
func (w *pyWalker) importStatement(n *sitter.Node) {
	line, _ := position(n)
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if w.g.kind(c) == kAliasedImport {
			c = c.ChildByFieldName("name")
		}
		if w.g.kind(c) != kDottedName {
			continue
		}
		w.imps = append(w.imps, Import{Path: w.dotted(c), Line: line})
	}
}

// importFrom: `from m import a, b as c`, `from ..m import (a)`, `from .
// import a`, `from m import *` (no names), `from __future__ import x`.
func (w *pyWalker) importFrom(n *sitter.Node) {
	imp := Import{}
	imp.Line, _ = position(n)
	module := n.ChildByFieldName("module_name")
	if w.g.kind(n) == kFutureImportStatement {
		imp.Path = "__future__"
	} else {
		if module == nil {
			return
		}
		imp.Path = w.dotted(module)
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if module != nil && c.StartByte() == module.StartByte() {
			continue
		}
		if w.g.kind(c) == kAliasedImport {
			c = c.ChildByFieldName("name")
		}
		if w.g.kind(c) == kDottedName {
			imp.Names = append(imp.Names, w.dotted(c))
		}
	}
	w.imps = append(w.imps, imp)
}

// dotted is the text of a dotted name or relative import without the white
// space and line continuations Python allows between its tokens.
func (w *pyWalker) dotted(n *sitter.Node) string {
	s := n.Content(w.src)
	if !strings.ContainsAny(s, " \t\r\n\f\\") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n', '\f', '\\':
			return -1
		}
		return r
	}, s)
}

// statement records the symbols of a module-level statement.
func (w *pyWalker) statement(n *sitter.Node) {
	switch w.g.kind(n) {
	case kDecoratedDefinition:
		w.definition(n.ChildByFieldName("definition"))
	case kFunctionDefinition, kClassDefinition:
		w.definition(n)
	case kExpressionStatement:
		// x = 1, x: int = 1, x = y = 1; not tuples, attributes or items.
		for a := n.NamedChild(0); w.g.kind(a) == kAssignment; a = a.ChildByFieldName("right") {
			if left := a.ChildByFieldName("left"); w.g.kind(left) == kIdentifier {
				w.syms.add(left.Content(w.src), "var", left)
			}
		}
	}
}

func (w *pyWalker) definition(n *sitter.Node) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	switch w.g.kind(n) {
	case kFunctionDefinition:
		w.syms.add(name.Content(w.src), "function", name)
	case kClassDefinition:
		class := name.Content(w.src)
		w.syms.add(class, "class", name)
		body := n.ChildByFieldName("body")
		if body == nil {
			return
		}
		eachChild(w.inner, body, func(m *sitter.Node) {
			if w.g.kind(m) == kDecoratedDefinition {
				m = m.ChildByFieldName("definition")
			}
			if w.g.kind(m) != kFunctionDefinition {
				return
			}
			if mn := m.ChildByFieldName("name"); mn != nil {
				w.syms.add(class+"."+mn.Content(w.src), "method", mn)
			}
		})
	}
}
