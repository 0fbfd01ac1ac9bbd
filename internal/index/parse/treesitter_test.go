package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/smacker/go-tree-sitter/python"
)

// A fixture table states facts about one testdata file. Each import fact
// names one import the file must have; together, in order, they are all
// its imports. Likewise for symbols. A fact with absent set says a path or
// name must not be there (the complete list checks it too; the fact names
// why).
type importFact struct {
	fact   string
	want   Import
	absent bool // no import of want.Path
}

type symbolFact struct {
	fact   string
	want   Symbol
	absent bool // no symbol named want.Name
}

type parseFunc func(path string, src []byte) FileRecord

// fixtureRecord parses testdata/<file> the way the indexer would: with the
// path relative to the workspace.
func fixtureRecord(t testing.TB, parse parseFunc, file string) FileRecord {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return parse(file, src)
}

func checkImportFacts(t *testing.T, got []Import, facts []importFact) {
	t.Helper()
	var want []Import
	for _, f := range facts {
		t.Run(f.fact, func(t *testing.T) {
			for _, imp := range got {
				if imp.Path != f.want.Path {
					continue
				}
				if f.absent {
					t.Fatalf("%q is imported at line %d", imp.Path, imp.Line)
				}
				if imp.Line == f.want.Line {
					if !reflect.DeepEqual(imp, f.want) {
						t.Fatalf("import = %s, want %s", fmtImport(imp), fmtImport(f.want))
					}
					return
				}
			}
			if !f.absent {
				t.Fatalf("no import %s in\n%s", fmtImport(f.want), fmtImports(got))
			}
		})
		if !f.absent {
			want = append(want, f.want)
		}
	}
	t.Run("nothing else is imported, and imports are in file order", func(t *testing.T) {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("imports:\n%swant:\n%s", fmtImports(got), fmtImports(want))
		}
	})
}

func checkSymbolFacts(t *testing.T, got []Symbol, facts []symbolFact) {
	t.Helper()
	var want []Symbol
	for _, f := range facts {
		t.Run(f.fact, func(t *testing.T) {
			for _, s := range got {
				if s.Name != f.want.Name {
					continue
				}
				if f.absent {
					t.Fatalf("%s is a symbol: %+v", s.Name, s)
				}
				if s != f.want {
					t.Fatalf("symbol = %+v, want %+v", s, f.want)
				}
				return
			}
			if !f.absent {
				t.Fatalf("no symbol %+v in\n%s", f.want, fmtSymbols(got))
			}
		})
		if !f.absent {
			want = append(want, f.want)
		}
	}
	t.Run("nothing else is a symbol, and symbols are in file order", func(t *testing.T) {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("symbols:\n%swant:\n%s", fmtSymbols(got), fmtSymbols(want))
		}
	})
}

func fmtImport(i Import) string {
	return fmt.Sprintf("{%q names=%q as=%q alias=%q line=%d}", i.Path, i.Names, i.As, i.Alias, i.Line)
}

func fmtImports(imps []Import) string {
	var b strings.Builder
	for _, i := range imps {
		b.WriteString("\t" + fmtImport(i) + "\n")
	}
	return b.String()
}

func fmtSymbols(syms []Symbol) string {
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "\t{%q, %q, %d, %d}\n", s.Name, s.Kind, s.Line, s.Col)
	}
	return b.String()
}

// checkRecordSanity holds for any input: the record keeps its identity,
// positions are 1-based and inside the file, and a diagnostic is one line.
func checkRecordSanity(t *testing.T, rec FileRecord, path, lang string, src []byte) {
	t.Helper()
	if rec.Path != path || rec.Lang != lang {
		t.Fatalf("record lost its identity: %q %q", rec.Path, rec.Lang)
	}
	lines := strings.Count(string(src), "\n") + 1
	for _, imp := range rec.Imports {
		if imp.Line < 1 || imp.Line > lines {
			t.Fatalf("import %+v outside the file's %d lines", imp, lines)
		}
		if imp.As != nil && len(imp.As) != len(imp.Names) {
			t.Fatalf("import %+v: %d names offered as %d", imp, len(imp.Names), len(imp.As))
		}
	}
	for _, s := range rec.Symbols {
		if s.Name == "" || s.Line < 1 || s.Line > lines || s.Col < 1 {
			t.Fatalf("symbol %+v outside the file's %d lines", s, lines)
		}
	}
	if strings.Contains(rec.Diag, "\n") {
		t.Fatalf("diag is not one line: %q", rec.Diag)
	}
	if rec.Diag != "" && !strings.HasPrefix(rec.Diag, "syntax error at line ") && !strings.HasPrefix(rec.Diag, "not indexed: ") {
		t.Fatalf("diag = %q", rec.Diag)
	}
}

// Parsers are pooled per grammar and shared by the caller's workers: many
// goroutines parsing at once get the same records as one parsing alone.
func TestTreeSitterParsesAreSafeInParallel(t *testing.T) {
	cases := []struct {
		file  string
		parse parseFunc
	}{
		{"ts/imports.ts", parseTypeScript},
		{"ts/component.tsx", parseTypeScript},
		{"ts/app.jsx", parseJavaScript},
		{"ts/broken.ts", parseTypeScript},
		{"ts/bench.ts", parseTypeScript},
		{"py/pkg/service.py", parsePython},
		{"py/broken.py", parsePython},
		{"py/bench.py", parsePython},
	}
	srcs := make([][]byte, len(cases))
	want := make([]FileRecord, len(cases))
	for i, c := range cases {
		src, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		srcs[i], want[i] = src, c.parse(c.file, src)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(cases))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				i := (w + r) % len(cases)
				if got := cases[i].parse(cases[i].file, srcs[i]); !reflect.DeepEqual(got, want[i]) {
					errs <- cases[i].file
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for f := range errs {
		t.Errorf("%s parsed differently in parallel", f)
	}
}

// Tree-sitter's error recovery is super-linear on some garbage, so a parse
// has a time limit: running out is a diagnostic, and the pooled parser then
// parses the next file from scratch rather than resuming.
func TestAParseThatRunsOutOfTimeIsADiagnostic(t *testing.T) {
	g := newGrammar(python.GetLanguage())
	g.limit = func(int) int { return 1 }
	rec := parsePythonWith(g, "junk.py", []byte(strings.Repeat("import from import ", 5000)))
	if rec.Diag != "parse timed out" || rec.Imports != nil || rec.Symbols != nil {
		t.Fatalf("diag %q imports %+v symbols %+v", rec.Diag, rec.Imports, rec.Symbols)
	}
	g.limit = parseTimeLimit
	src, err := os.ReadFile(filepath.Join("testdata", "py/pkg/service.py"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := parsePythonWith(g, "service.py", src), parsePython("service.py", src); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a timeout:\n%+v\nwant\n%+v", got, want)
	}
}
