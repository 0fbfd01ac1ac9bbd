package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePython(t *testing.T) {
	rec := fixtureRecord(t, parsePython, "py/pkg/service.py")
	if rec.Path != "py/pkg/service.py" || rec.Lang != LangPython || rec.Diag != "" {
		t.Fatalf("path %q lang %q diag %q", rec.Path, rec.Lang, rec.Diag)
	}
	t.Run("imports", func(t *testing.T) {
		checkImportFacts(t, rec.Imports, []importFact{
			{fact: "a __future__ import is an import", want: Import{Path: "__future__", Names: []string{"annotations"}, Line: 2}},
			{fact: "import m is an import of no names", want: Import{Path: "os", Line: 4}},
			{fact: "import a.b as c imports a.b", want: Import{Path: "os.path", Line: 5}},
			{fact: "each module of import a, b is an import", want: Import{Path: "sys", Line: 5}},
			{fact: "from . import x has path . and names x", want: Import{Path: ".", Names: []string{"models"}, Line: 6}},
			{fact: "a renamed name records the imported name", want: Import{Path: ".models", Names: []string{"User", "Group"}, Line: 7}},
			{fact: "a parenthesized import from a parent package keeps its dots", want: Import{Path: "..core.db", Names: []string{"session", "engine"}, Line: 8}},
			{fact: "a star import imports no names", want: Import{Path: "typing", Line: 12}},
			{fact: "from .. import x has path ..", want: Import{Path: "..", Names: []string{"config"}, Line: 13}},
			{fact: "from .import x without a space is an import", want: Import{Path: ".", Names: []string{"sibling"}, Line: 14}},
			{fact: "an import in a try block is an import", want: Import{Path: "ujson", Line: 17}},
			{fact: "an import in an except block is an import", want: Import{Path: "json", Line: 19}},
			{fact: "an import in a comment is not an import", want: Import{Path: "nowhere"}, absent: true},
			{fact: "an import under if TYPE_CHECKING is an import", want: Import{Path: ".types", Names: []string{"Token"}, Line: 22}},
			{fact: "an import in a string is not an import", want: Import{Path: "nothing"}, absent: true},
			{fact: "an import inside a function is an import", want: Import{Path: ".lazy", Names: []string{"thing"}, Line: 34}},
		})
	})
	t.Run("symbols", func(t *testing.T) {
		checkSymbolFacts(t, rec.Symbols, []symbolFact{
			{fact: "a module-level assignment is a var", want: Symbol{Name: "VERSION", Kind: "var", Line: 24, Col: 1}},
			{fact: "an annotated assignment is a var", want: Symbol{Name: "RETRIES", Kind: "var", Line: 25, Col: 1}},
			{fact: "a chained assignment binds its first name", want: Symbol{Name: "a", Kind: "var", Line: 26, Col: 1}},
			{fact: "a chained assignment binds its other names", want: Symbol{Name: "b", Kind: "var", Line: 26, Col: 5}},
			{fact: "tuple targets are not symbols", want: Symbol{Name: "x"}, absent: true},
			{fact: "a subscript target is not a symbol", want: Symbol{Name: "os"}, absent: true},
			{fact: "a string mentioning import is still a var", want: Symbol{Name: "message", Kind: "var", Line: 29, Col: 1}},
			{fact: "a name containing import is a var", want: Symbol{Name: "important", Kind: "var", Line: 30, Col: 1}},
			{fact: "a redefined function keeps its first definition", want: Symbol{Name: "helper", Kind: "function", Line: 33, Col: 5}},
			{fact: "names imported inside a function are not symbols", want: Symbol{Name: "thing"}, absent: true},
			{fact: "an async def is a function", want: Symbol{Name: "fetch", Kind: "function", Line: 38, Col: 11}},
			{fact: "a decorated class is a class", want: Symbol{Name: "Service", Kind: "class", Line: 43, Col: 7}},
			{fact: "a class attribute is not a symbol", want: Symbol{Name: "Service.name"}, absent: true},
			{fact: "__init__ is a method", want: Symbol{Name: "Service.__init__", Kind: "method", Line: 46, Col: 9}},
			{fact: "a property and its setter are one method", want: Symbol{Name: "Service.status", Kind: "method", Line: 50, Col: 9}},
			{fact: "an async method is a method", want: Symbol{Name: "Service.run", Kind: "method", Line: 57, Col: 15}},
			{fact: "a nested class is not a symbol", want: Symbol{Name: "Service.Config"}, absent: true},
			{fact: "a class with an ellipsis body is a class", want: Symbol{Name: "Empty", Kind: "class", Line: 64, Col: 7}},
		})
	})
}

func TestAPythonFileWithSyntaxErrorsKeepsWhatParsed(t *testing.T) {
	rec := fixtureRecord(t, parsePython, "py/broken.py")
	if rec.Diag != "syntax error at line 9" {
		t.Fatalf("diag = %q", rec.Diag)
	}
	checkImportFacts(t, rec.Imports, []importFact{
		{fact: "an import before the error is kept", want: Import{Path: "os", Line: 1}},
		{fact: "a relative import before the error is kept", want: Import{Path: ".ok", Names: []string{"fine"}, Line: 2}},
	})
	have := map[string]bool{}
	for _, s := range rec.Symbols {
		have[s.Kind+" "+s.Name] = true
	}
	for _, want := range []string{"function good", "class After", "method After.m"} {
		if !have[want] {
			t.Errorf("%s is lost: %+v", want, rec.Symbols)
		}
	}
}

func TestAnEmptyPythonFileHasNothing(t *testing.T) {
	for _, src := range []string{"", "\n", "# just a comment\n"} {
		rec := parsePython("e.py", []byte(src))
		if rec.Imports != nil || rec.Symbols != nil || rec.Diag != "" {
			t.Fatalf("%q: %+v", src, rec)
		}
	}
}

func TestPythonImportsIgnoreSpacingInDottedNames(t *testing.T) {
	rec := parsePython("s.py", []byte("from .. pkg . mod import (a,\n  b)\nimport x . y\n"))
	want := []Import{{Path: "..pkg.mod", Names: []string{"a", "b"}, Line: 1}, {Path: "x.y", Line: 3}}
	checkImportFacts(t, rec.Imports, []importFact{
		{fact: "a relative module with spaces is written without them", want: want[0]},
		{fact: "a dotted module with spaces is written without them", want: want[1]},
	})
}

func FuzzParsePython(f *testing.F) {
	for _, file := range []string{"py/pkg/service.py", "py/broken.py"} {
		src, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("from . import"))
	f.Add([]byte("class A:\n  def"))
	f.Add([]byte("import a as\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		rec := parsePython("f.py", src)
		checkRecordSanity(t, rec, "f.py", LangPython, src)
		if len(rec.Imports) > 0 && !strings.Contains(string(src), "import") {
			t.Fatalf("imports %+v from a file without import", rec.Imports)
		}
	})
}

func BenchmarkParsePython(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "py/bench.py"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			parsePython("py/bench.py", src)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				parsePython("py/bench.py", src)
			}
		})
	})
}
