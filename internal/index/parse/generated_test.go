package parse

import (
	"strings"
	"testing"
)

func TestGeneratedJavaScript(t *testing.T) {
	handWritten := strings.Repeat("export function add(a, b) {\n  return a + b;\n}\n", 200)
	minified := "export function add(a,b){return a+b}" + strings.Repeat(";var x=function(a,b){return a*b+1};", 200) + "\n"
	cases := []struct {
		fact, src, want string
	}{
		{"hand-written code is indexed", handWritten, ""},
		{"a source map comment at the end marks compiled output", handWritten + "//# sourceMappingURL=index.js.map\n", "sourceMappingURL"},
		{"a source map comment before a trailing blank line still counts", handWritten + "//# sourceMappingURL=index.js.map\n\n\n", "sourceMappingURL"},
		{"an inline source map counts", handWritten + "//# sourceMappingURL=data:application/json;base64,e30=", "sourceMappingURL"},
		{"the old //@ form counts", handWritten + "//@ sourceMappingURL=index.js.map\n", "sourceMappingURL"},
		{"a source map comment on the second-to-last line counts", handWritten + "//# sourceMappingURL=index.js.map\n//# debugId=1\n", "sourceMappingURL"},
		{"a source map comment higher up is a mention, not a mark", "//# sourceMappingURL=x.js.map\n" + handWritten, ""},
		{"a string that ends with the comment's text is not the comment", handWritten + "const s = '//# sourceMappingURL=x';\n", ""},
		{"long lines on average mark a minified file", minified, "minified"},
		{"a short file of one long line is not minified", strings.Repeat("x", 300), ""},
		{"an empty file is not generated", "", ""},
	}
	for _, c := range cases {
		t.Run(c.fact, func(t *testing.T) {
			got := generatedJS([]byte(c.src))
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Fatalf("generatedJS = %q, want one that says %q", got, c.want)
			}
		})
	}
}

func TestGeneratedJavaScriptKeepsItsNodeAndSaysWhy(t *testing.T) {
	src := "import x from './x';\nexport function f() {}\n//# sourceMappingURL=f.js.map\n"
	rec := File(LangJavaScript, "dist/f.js", []byte(src))
	if rec.Path != "dist/f.js" || rec.Lang != LangJavaScript {
		t.Fatalf("path %q lang %q", rec.Path, rec.Lang)
	}
	if len(rec.Imports) != 0 || len(rec.Symbols) != 0 {
		t.Fatalf("a generated file recorded imports %v and symbols %v", rec.Imports, rec.Symbols)
	}
	if !strings.Contains(rec.Diag, "generated JavaScript") {
		t.Fatalf("Diag = %q, want it to say the file is generated", rec.Diag)
	}
	// TypeScript declaration maps end the same way; .d.ts files are read
	// by people and stay indexed.
	ts := File(LangTypeScript, "dist/f.d.ts", []byte("export declare function f(): void;\n//# sourceMappingURL=f.d.ts.map\n"))
	if ts.Diag != "" || len(ts.Symbols) != 1 {
		t.Fatalf("a .d.ts with a declaration map: diag %q, symbols %v", ts.Diag, ts.Symbols)
	}
}
