package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTypeScript(t *testing.T) {
	rec := fixtureRecord(t, parseTypeScript, "ts/imports.ts")
	if rec.Path != "ts/imports.ts" || rec.Lang != LangTypeScript || rec.Diag != "" {
		t.Fatalf("path %q lang %q diag %q", rec.Path, rec.Lang, rec.Diag)
	}
	t.Run("imports", func(t *testing.T) {
		checkImportFacts(t, rec.Imports, []importFact{
			{fact: "a default import imports default", want: Import{Path: "./default", Names: []string{"default"}, Line: 2}},
			{fact: "a renamed import records the exported name", want: Import{Path: "../b", Names: []string{"a", "b"}, Line: 3}},
			{fact: "a namespace import imports the members the file uses", want: Import{Path: "pkg", Names: []string{"Options", "helper", "other"}, Line: 4}},
			{fact: "default, type-only and string-named specifiers combine", want: Import{Path: "@scope/pkg/sub", Names: []string{"default", "T1", "string-name"}, Line: 5}},
			{fact: "import type is an import", want: Import{Path: "./types", Names: []string{"OnlyType"}, Line: 6}},
			{fact: "import x = require() is an import", want: Import{Path: "fs", Line: 7}},
			{fact: "a side-effect import is an import", want: Import{Path: "./side-effect", Line: 8}},
			{fact: "a multi-line import is on the line of its keyword", want: Import{Path: "./multi-line", Names: []string{"multi", "line"}, Line: 9}},
			{fact: "a re-export is an import", want: Import{Path: "./x", Names: []string{"x"}, Line: 13}},
			{fact: "a renamed re-export records the name it takes and the name it offers", want: Import{Path: "./y", Names: []string{"default", "z"}, As: []string{"Y", ""}, Line: 14}},
			{fact: "export * offers every name", want: Import{Path: "./star", Names: []string{ReexportsAll}, Line: 15}},
			{fact: "export * as ns is an import of no names", want: Import{Path: "./star-ns", Line: 16}},
			{fact: "export type from is an import", want: Import{Path: "./q", Names: []string{"Q"}, Line: 17}},
			{fact: "a dynamic import() is an import", want: Import{Path: "./lazy", Line: 21}},
			{fact: "an import() in a type is an import", want: Import{Path: "./type-level", Line: 23}},
			{fact: "a require() inside a method is an import", want: Import{Path: "./in-method", Line: 45}},
			{fact: "require() and import() in a comment are not imports", want: Import{Path: "./in-comment"}, absent: true},
			{fact: "require() in a string is not an import", want: Import{Path: "./in-string"}, absent: true},
			{fact: "a method named require is not an import", want: Import{Path: "./member"}, absent: true},
		})
	})
	t.Run("a default-exported declaration is the file's default", func(t *testing.T) {
		if rec.Default != "defaultFn" {
			t.Fatalf("Default = %q, want defaultFn", rec.Default)
		}
	})
	t.Run("symbols", func(t *testing.T) {
		checkSymbolFacts(t, rec.Symbols, []symbolFact{
			{fact: "a top-level const is a var", want: Symbol{Name: "text", Kind: "var", Line: 20, Col: 7}},
			{fact: "an arrow function assigned to a const is a function", want: Symbol{Name: "lazy", Kind: "function", Line: 21, Col: 7}},
			{fact: "a const of a call is a var", want: Symbol{Name: "member", Kind: "var", Line: 22, Col: 7}},
			{fact: "a type alias is a type", want: Symbol{Name: "Mod", Kind: "type", Line: 23, Col: 6}},
			{fact: "a const of import.meta is a var", want: Symbol{Name: "meta", Kind: "var", Line: 24, Col: 7}},
			{fact: "an exported function is a function", want: Symbol{Name: "exported", Kind: "function", Line: 26, Col: 17}},
			{fact: "a function is a function", want: Symbol{Name: "plain", Kind: "function", Line: 27, Col: 10}},
			{fact: "a default-exported function keeps its name", want: Symbol{Name: "defaultFn", Kind: "function", Line: 28, Col: 25}},
			{fact: "an overloaded function is one symbol, at its first signature", want: Symbol{Name: "overload", Kind: "function", Line: 29, Col: 10}},
			{fact: "a declared function is a function", want: Symbol{Name: "ambient", Kind: "function", Line: 31, Col: 18}},
			{fact: "a generator function is a function", want: Symbol{Name: "gen", Kind: "function", Line: 32, Col: 11}},
			{fact: "an exported abstract class is a class", want: Symbol{Name: "Base", Kind: "class", Line: 34, Col: 23}},
			{fact: "a class field is not a symbol", want: Symbol{Name: "Base.field"}, absent: true},
			{fact: "the constructor is a method", want: Symbol{Name: "Base.constructor", Kind: "method", Line: 36, Col: 3}},
			{fact: "a getter and its setter are one method", want: Symbol{Name: "Base.value", Kind: "method", Line: 37, Col: 7}},
			{fact: "a static async method is a method", want: Symbol{Name: "Base.create", Kind: "method", Line: 39, Col: 16}},
			{fact: "a private method keeps its #", want: Symbol{Name: "Base.#secret", Kind: "method", Line: 40, Col: 3}},
			{fact: "an abstract method is a method", want: Symbol{Name: "Base.run", Kind: "method", Line: 41, Col: 12}},
			{fact: "a computed method name is not a symbol", want: Symbol{Name: "Base.computed"}, absent: true},
			{fact: "an unexported class is a class", want: Symbol{Name: "Impl", Kind: "class", Line: 45, Col: 7}},
			{fact: "a method is Class.method", want: Symbol{Name: "Impl.run", Kind: "method", Line: 45, Col: 35}},
			{fact: "an interface is a type", want: Symbol{Name: "Shape", Kind: "type", Line: 47, Col: 18}},
			{fact: "a union type alias is a type", want: Symbol{Name: "Alias", Kind: "type", Line: 48, Col: 6}},
			{fact: "an enum is a type", want: Symbol{Name: "Color", Kind: "type", Line: 49, Col: 13}},
			{fact: "an exported arrow function is a function", want: Symbol{Name: "arrow", Kind: "function", Line: 50, Col: 14}},
			{fact: "each binding of a declaration list is a symbol", want: Symbol{Name: "plainConst", Kind: "var", Line: 50, Col: 44}},
			{fact: "a function expression assigned to let is a function", want: Symbol{Name: "fnExpr", Kind: "function", Line: 51, Col: 5}},
			{fact: "a var is a var", want: Symbol{Name: "old", Kind: "var", Line: 52, Col: 5}},
			{fact: "a destructured binding is not a symbol", want: Symbol{Name: "destructured"}, absent: true},
			{fact: "an arrow function under type assertions is a function", want: Symbol{Name: "wrapped", Kind: "function", Line: 53, Col: 7}},
			{fact: "a value and a type of one name are one symbol, the first", want: Symbol{Name: "Status", Kind: "var", Line: 54, Col: 14}},
			{fact: "a namespace's members are not top-level symbols", want: Symbol{Name: "hidden"}, absent: true},
			{fact: "a const with a type annotation is a var", want: Symbol{Name: "viaNs", Kind: "var", Line: 60, Col: 14}},
		})
	})
}

func TestParseTSX(t *testing.T) {
	rec := fixtureRecord(t, parseTypeScript, "ts/component.tsx")
	if rec.Lang != LangTypeScript || rec.Diag != "" {
		t.Fatalf("lang %q diag %q", rec.Lang, rec.Diag)
	}
	t.Run("imports", func(t *testing.T) {
		checkImportFacts(t, rec.Imports, []importFact{
			{fact: "a default import with named ones imports both", want: Import{Path: "react", Names: []string{"default", "useState"}, Line: 1}},
			{fact: "import type is an import", want: Import{Path: "./types", Names: []string{"Props"}, Line: 2}},
			{fact: "a stylesheet import is an import", want: Import{Path: "./component.module.css", Names: []string{"default"}, Line: 3}},
			{fact: "an import() inside a component is an import", want: Import{Path: "./Heavy", Line: 9}},
			{fact: "a require() in a JSX comment is not an import", want: Import{Path: "./in-comment"}, absent: true},
			{fact: "an import() in JSX text is not an import", want: Import{Path: "./in-text"}, absent: true},
		})
	})
	t.Run("symbols", func(t *testing.T) {
		checkSymbolFacts(t, rec.Symbols, []symbolFact{
			{fact: "an arrow component is a function", want: Symbol{Name: "Button", Kind: "function", Line: 5, Col: 14}},
			{fact: "a default-exported component is a function", want: Symbol{Name: "Panel", Kind: "function", Line: 7, Col: 25}},
			{fact: "bindings inside a function are not symbols", want: Symbol{Name: "Heavy"}, absent: true},
			{fact: "a class component is a class", want: Symbol{Name: "Legacy", Kind: "class", Line: 19, Col: 14}},
			{fact: "its render is a method", want: Symbol{Name: "Legacy.render", Kind: "method", Line: 20, Col: 3}},
		})
	})
}

func TestParseJavaScript(t *testing.T) {
	rec := fixtureRecord(t, parseJavaScript, "ts/app.jsx")
	if rec.Lang != LangJavaScript || rec.Diag != "" {
		t.Fatalf("lang %q diag %q", rec.Lang, rec.Diag)
	}
	t.Run("imports", func(t *testing.T) {
		checkImportFacts(t, rec.Imports, []importFact{
			{fact: "a require() is an import", want: Import{Path: "path", Line: 2}},
			{fact: "a destructured require() is an import of no names", want: Import{Path: "./helper", Line: 3}},
			{fact: "a template literal without substitutions is a literal", want: Import{Path: "./config", Line: 4}},
			{fact: "a template literal with substitutions is not an import", want: Import{Path: "./locale/${lang}"}, absent: true},
			{fact: "an ES import mixes with require()", want: Import{Path: "./Widget.jsx", Names: []string{"default"}, Line: 6}},
			{fact: "a require() inside a function is an import", want: Import{Path: "./other", Line: 9}},
			{fact: "an import() in a JSX attribute is an import", want: Import{Path: "./chunk", Line: 10}},
			{fact: "a require() in a JSX expression is an import", want: Import{Path: "./inline", Line: 10}},
			{fact: "escapes in a specifier are decoded", want: Import{Path: "./café", Line: 21}},
			{fact: "a require() nested in module.exports is an import", want: Import{Path: "./tools", Line: 22}},
			{fact: "require.resolve() is not an import", want: Import{Path: "./resolved"}, absent: true},
		})
	})
	t.Run("symbols", func(t *testing.T) {
		checkSymbolFacts(t, rec.Symbols, []symbolFact{
			{fact: "a const bound to require() is a var", want: Symbol{Name: "path", Kind: "var", Line: 2, Col: 7}},
			{fact: "a destructured require() binds no symbol", want: Symbol{Name: "helper"}, absent: true},
			{fact: "a const of a template require() is a var", want: Symbol{Name: "config", Kind: "var", Line: 4, Col: 7}},
			{fact: "a const of a dynamic require() is a var", want: Symbol{Name: "locale", Kind: "var", Line: 5, Col: 7}},
			{fact: "a function returning JSX is a function", want: Symbol{Name: "App", Kind: "function", Line: 8, Col: 10}},
			{fact: "locals are not symbols", want: Symbol{Name: "other"}, absent: true},
			{fact: "a class is a class", want: Symbol{Name: "Store", Kind: "class", Line: 13, Col: 7}},
			{fact: "a constructor is a method", want: Symbol{Name: "Store.constructor", Kind: "method", Line: 14, Col: 3}},
			{fact: "a method is Class.method", want: Symbol{Name: "Store.add", Kind: "method", Line: 15, Col: 3}},
			{fact: "a static getter is a method", want: Symbol{Name: "Store.instance", Kind: "method", Line: 16, Col: 14}},
			{fact: "a function expression assigned to var is a function", want: Symbol{Name: "handler", Kind: "function", Line: 19, Col: 5}},
			{fact: "a let is a var", want: Symbol{Name: "counter", Kind: "var", Line: 20, Col: 5}},
			{fact: "a const is a var", want: Symbol{Name: "escaped", Kind: "var", Line: 21, Col: 7}},
		})
	})
}

func TestATypeScriptFileWithSyntaxErrorsKeepsWhatParsed(t *testing.T) {
	rec := fixtureRecord(t, parseTypeScript, "ts/broken.ts")
	if rec.Diag != "syntax error at line 5" {
		t.Fatalf("diag = %q", rec.Diag)
	}
	checkImportFacts(t, rec.Imports, []importFact{
		{fact: "the import before the error is kept", want: Import{Path: "./ok", Names: []string{"ok"}, Line: 1}},
	})
	if len(rec.Symbols) == 0 || rec.Symbols[0] != (Symbol{Name: "good", Kind: "function", Line: 3, Col: 17}) {
		t.Fatalf("the function before the error is lost: %+v", rec.Symbols)
	}
}

func TestAJavaScriptFileWithSyntaxErrorsKeepsWhatParsed(t *testing.T) {
	src := "const a = require('./a');\nfunction ok() {}\nclass {\n"
	rec := parseJavaScript("web/broken.js", []byte(src))
	if rec.Diag != "syntax error at line 3" {
		t.Fatalf("diag = %q", rec.Diag)
	}
	if len(rec.Imports) != 1 || rec.Imports[0].Path != "./a" {
		t.Fatalf("imports = %+v", rec.Imports)
	}
	if len(rec.Symbols) < 2 || rec.Symbols[0].Name != "a" || rec.Symbols[1].Name != "ok" {
		t.Fatalf("symbols = %+v", rec.Symbols)
	}
}

func TestTheGrammarFollowsTheExtension(t *testing.T) {
	cases := []struct {
		fact  string
		parse parseFunc
		path  string
		src   string
		diag  bool
	}{
		{"a .tsx file may hold JSX", parseTypeScript, "a.tsx", "const x = <div className='a' />;", false},
		{"an upper-case .TSX file may hold JSX", parseTypeScript, "A.TSX", "const x = <div className='a' />;", false},
		{"a .ts file may hold an angle-bracket assertion", parseTypeScript, "a.ts", "const x = <T>y;\n", false},
		{"a .ts file may not hold JSX", parseTypeScript, "a.ts", "const x = <div className='a' />;", true},
		{"a .mts file is TypeScript", parseTypeScript, "a.mts", "export type A = string;", false},
		{"a .jsx file may hold JSX", parseJavaScript, "a.jsx", "const x = <div className='a' />;", false},
		{"a .js file may hold JSX", parseJavaScript, "a.js", "const x = <div className='a' />;", false},
	}
	for _, c := range cases {
		t.Run(c.fact, func(t *testing.T) {
			rec := c.parse(c.path, []byte(c.src))
			if (rec.Diag != "") != c.diag {
				t.Fatalf("diag = %q", rec.Diag)
			}
		})
	}
}

func TestAnEmptyScriptHasNothing(t *testing.T) {
	for _, rec := range []FileRecord{parseTypeScript("e.ts", nil), parseTypeScript("e.tsx", []byte{}), parseJavaScript("e.js", []byte("\n"))} {
		if rec.Imports != nil || rec.Symbols != nil || rec.Diag != "" {
			t.Fatalf("%s: %+v", rec.Path, rec)
		}
	}
}

func TestJSUnescape(t *testing.T) {
	cases := map[string]string{
		`plain`:            "plain",
		`a\'b\"c`:          `a'b"c`,
		`caf\u00e9`:        "café",
		`\u{1F600}`:        "\U0001F600",
		`\x41\n`:           "A\n",
		`line\` + "\ncont": "linecont",
		`\q`:               "q",
		`bad\u{zz}`:        "badu{zz}",
		`trailing\`:        `trailing\`,
		`\x4`:              "x4",
		`\u12`:             "u12",
	}
	for in, want := range cases {
		if got := jsUnescape([]byte(in)); got != want {
			t.Errorf("jsUnescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseTypeScript(f *testing.F) {
	for _, file := range []string{"ts/imports.ts", "ts/component.tsx", "ts/app.jsx", "ts/broken.ts"} {
		src, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint8(0))
		f.Add(src, uint8(1))
		f.Add(src, uint8(2))
	}
	f.Add([]byte("require(`\\u{"), uint8(2))
	f.Add([]byte("import('"), uint8(0))
	f.Add([]byte("class A { get"), uint8(1))
	f.Add([]byte("f()\n//# sourceMappingURL=f.js.map\n \n"), uint8(2))
	f.Fuzz(func(t *testing.T, src []byte, grammar uint8) {
		var rec FileRecord
		var path, lang string
		switch grammar % 3 {
		case 0:
			path, lang = "f.ts", LangTypeScript
			rec = parseTypeScript(path, src)
		case 1:
			path, lang = "f.tsx", LangTypeScript
			rec = parseTypeScript(path, src)
		default:
			// Through File, which first asks whether the file is generated.
			path, lang = "f.jsx", LangJavaScript
			rec = File(lang, path, src)
		}
		checkRecordSanity(t, rec, path, lang, src)
		for _, imp := range rec.Imports {
			if strings.Contains(string(src), "import") || strings.Contains(string(src), "require") || strings.Contains(string(src), "export") {
				continue
			}
			t.Fatalf("import %+v from a file without import, require or export", imp)
		}
	})
}

func TestDefaultExports(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"export default function names the function", "export default function draw() {}\n", "draw"},
		{"export default class names the class", "export default class Shape {}\n", "Shape"},
		{"export default of a name names it", "const x = 1;\nexport default x;\n", "x"},
		{"export { x as default } names x", "function x() {}\nexport { x as default };\n", "x"},
		{"an anonymous default export names nothing", "export default function () {}\n", ""},
		{"a default export of an expression names nothing", "export default 1 + 2;\n", ""},
		{"a named export is no default", "export function y() {}\n", ""},
		{"a re-export as default from another file is an import, not this file's default", "export { z as default } from './z';\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseTypeScript("f.ts", []byte(c.src)).Default; got != c.want {
				t.Fatalf("Default = %q, want %q", got, c.want)
			}
		})
	}
}

func BenchmarkParseTypeScript(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "ts/bench.ts"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			parseTypeScript("ts/bench.ts", src)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				parseTypeScript("ts/bench.ts", src)
			}
		})
	})
}
