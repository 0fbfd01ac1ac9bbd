package parse

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goCorpus lists the Go files the fast path is held to: core's own
// source, and the Go distribution's (its testdata included, where files
// with syntax errors and every corner of the grammar live).
func goCorpus(t testing.TB) []string {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, filepath.Join(wd, "..", "..", ".."))
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		roots = append(roots, filepath.Join(strings.TrimSpace(string(out)), "src"))
	}
	var files []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == ".core") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return nil
		})
	}
	return files
}

func TestGoFastAgreesWithGoParser(t *testing.T) {
	files := goCorpus(t)
	files = raceSample(files, 300)
	fast, fellBack := 0, 0
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		checkGoFast(t, f, src)
		if i%10 == 0 {
			// Windows line endings: \r is white space, and a byte of a column.
			checkGoFast(t, f+" (CRLF)", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		}
		if _, ok := parseGoFast(f, src); ok {
			fast++
		} else {
			fellBack++
		}
	}
	t.Logf("%d files: %d on the fast path, %d through go/parser", len(files), fast, fellBack)
	if fast < len(files)*3/4 {
		t.Errorf("only %d of %d files took the fast path", fast, len(files))
	}
}

// raceSample is a corpus under -short (the race step of RACE=all
// scripts/test, and a quick inner loop): about n files, every kth, so the
// sample spans the corpus as the whole does (the first n are one corner of
// it, and the fast-path share there is not the corpus's). scripts/test's
// plain step reads the whole corpus.
func raceSample(files []string, n int) []string {
	if !testing.Short() || len(files) <= n {
		return files
	}
	step := len(files) / n
	sample := make([]string, 0, n+1)
	for i := 0; i < len(files); i += step {
		sample = append(sample, files[i])
	}
	return sample
}

// checkGoFast fails t if the fast path accepts src and its record differs
// from go/parser's, or go/parser finds an error in it.
func checkGoFast(t testing.TB, name string, src []byte) {
	t.Helper()
	got, ok := parseGoFast(name, src)
	if !ok {
		return
	}
	want := parseGoParser(name, src)
	if want.Diag != "" {
		t.Errorf("%s: the fast path accepted a file go/parser rejects: %s", name, want.Diag)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the fast path's record differs from go/parser's:\n%s", name, recordDiff(got, want))
	}
}

func recordDiff(got, want FileRecord) string {
	var b strings.Builder
	if got.Package != want.Package {
		b.WriteString("package " + got.Package + " != " + want.Package + "\n")
	}
	if !reflect.DeepEqual(got.Imports, want.Imports) {
		b.WriteString("imports differ\n")
	}
	b.WriteString(firstDiff("symbol", got.Symbols, want.Symbols))
	gr := map[Ref]bool{}
	for _, r := range got.Refs {
		gr[r] = true
	}
	wr := map[Ref]bool{}
	for _, r := range want.Refs {
		wr[r] = true
	}
	n := 0
	for r := range gr {
		if !wr[r] && n < 10 {
			b.WriteString("  only fast: " + r.From + " " + r.Qual + "." + r.Name + " line " + strconv.Itoa(r.Line) + "\n")
			n++
		}
	}
	for r := range wr {
		if !gr[r] && n < 20 {
			b.WriteString("  only go/parser: " + r.From + " " + r.Qual + "." + r.Name + " line " + strconv.Itoa(r.Line) + "\n")
			n++
		}
	}
	return b.String()
}

func FuzzGoFast(f *testing.F) {
	for _, s := range []string{
		"package p\nfunc f() { x := T{A: 1}; _ = x }\n",
		"package p\nimport \"fmt\"\nvar v = fmt.Sprint(1)\n",
		"package p\ntype T struct{ a, b int; *q.R }\nfunc (t *T) M(x ...int) (n int, err error) { switch y := t.(type) { case int: return y, nil }; return }\n",
		"package p\nfunc g[T any, U ~int | string](a T) { for i, v := range a { L: goto L } }\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkGoFast(t, "f.go", src)
	})
}

func TestTheFastPathReadsGosNumberLiteralsAndDeclinesWhatGoRejects(t *testing.T) {
	for _, c := range []struct {
		lit  string
		fast bool
	}{
		{"0", true}, {"42", true}, {"1_000_000", true}, {"0x_1F", true}, {"0XfF", true},
		{"0o755", true}, {"0O_7", true}, {"0b1010", true}, {"0B_1", true}, {"0755", true}, {"0_7", true},
		{"1.5", true}, {"1e9", true}, {"0.5e-3", true}, {"0e1", true},
		{"1_0.5", true}, {"1_000.000_1e1_0", true}, {"0x1p3", true}, {"0x1.8p-3", true}, {"0X.8P+0", true}, {"0x_1Fp1_0", true},
		{"2i", true}, {"1.5i", true}, {"0x1i", true}, {"0b1i", true}, {"0789i", true}, {"0_8i", true}, {"1e3i", true},
		// go/parser's to read, or to reject:
		{"08", false}, {"0b2", false}, {"0o8", false}, {"0x", false}, {"1__0", false}, {"1_", false},
		{"0x_", false}, {"09.5", false}, {"0755.0", false}, {"1_.5", false}, {"1._5", false},
		{"0x1.8", false}, {"0x.p1", false}, {"0x1p", false}, {"0o1.5", false}, {"0b1p1", false}, {"2ii", false}, {"1e_3", false},
	} {
		checkFastPathTakes(t, c.lit, "package p\n\nvar x = "+c.lit+"\n", c.fast)
	}
}

func TestTheFastPathReadsUnicodeEscapesAndDeclinesInvalidCodePoints(t *testing.T) {
	for _, c := range []struct {
		lit  string
		fast bool
	}{
		{`"\u00e9"`, true}, {`"\U0001F600"`, true}, {`'\u2318'`, true}, {`"\uFFFF\x41\101"`, true}, {`"\U0010FFFF"`, true},
		// go/scanner reports these:
		{`"\uD800"`, false}, {`'\uDFFF'`, false}, {`"\U00110000"`, false}, {`"\u12"`, false}, {`"\u12G4"`, false}, {`"\400"`, false}, {`"\q"`, false},
	} {
		checkFastPathTakes(t, c.lit, "package p\n\nvar x = "+c.lit+"\n", c.fast)
	}
}

func TestTheFastPathTellsArrayParametersFromInstances(t *testing.T) {
	for _, c := range []struct {
		params string
		fast   bool
	}{
		{"b [4]byte", true},
		{"a, b [size]int, n int", true},
		{"m [size * 2][2]*T", true},
		{"List[int]", true},
		{"Pair[string, int], List[T]", true},
		{"x int, y List[int]", true},
		{"p [f(1)]int", true},
		// go/parser's to read or reject:
		{"a [2, 3]int", false},
		{"a [2](int)", false},
		{"a [2", false},
	} {
		checkFastPathTakes(t, "func("+c.params+")", "package p\n\nconst size = 4\n\ntype T int\ntype List[E any] []E\ntype Pair[K, V any] struct{}\n\nfunc f("+c.params+") {}\n", c.fast)
	}
}

func TestTheFastPathReadsArrayFieldsAndLeavesEmbeddedInstancesToGoParser(t *testing.T) {
	for _, c := range []struct {
		fields string
		fast   bool
	}{
		{"buf [4]byte", true},
		{"tab [size * 2]int; n int", true},
		{"grid [3][3]rune `json:\"g\"`", true},
		{"list []string", true},
		{"List[int]", false},
		{"Pair[string, int] `json:\"p\"`", false},
	} {
		checkFastPathTakes(t, "struct{ "+c.fields+" }", "package p\n\nconst size = 4\n\ntype S struct {\n\t"+c.fields+"\n}\n", c.fast)
	}
}

func TestTheFastPathReadsTypeDeclarationsWhoseBracketsItCanTellApart(t *testing.T) {
	for _, c := range []struct {
		decl string
		fast bool
	}{
		{"type Names []string", true},
		{"type Block [64]byte", true},
		{"type Grid [3][3]rune", true},
		{"type Buf [size]byte", true}, // a lone name in the brackets: go/parser reads an array
		{"type Buf2 [size][size]byte", true},
		{"type List[T any] struct{ next *List[T]; v T; n size }", true},
		{"type Set[K comparable] map[K]struct{}", true},
		{"type Pair[K, V any] struct{ k K; v V }", true},
		{"type Num[T ~int | ~float64] []T", true},
		{"type Ord[T interface{ ~int; String() string }] []T", true},
		{"type Alias[T any] = []T", true},
		{"type Ptr[T *size] []T", false}, // T times size, or T a pointer to size
		{"type Arr [size.N]int", false},
	} {
		checkFastPathTakes(t, c.decl, "package p\n\nconst size = 4\n\n"+c.decl+"\n", c.fast)
	}
}

// TestATypesParametersAreNoUsesOfThePackagesNames: a type parameter named
// T shadows a package-level T in the type that declares it, on both paths.
func TestATypesParametersAreNoUsesOfThePackagesNames(t *testing.T) {
	src := []byte("package p\n\ntype T int\n\ntype List[T any] struct{ next *List[T]; v T }\n\ntype Box struct{ v T }\n")
	for name, rec := range map[string]FileRecord{"go/parser": parseGoParser("p.go", src), "fast": mustFast(t, src)} {
		var from []string
		for _, r := range rec.Refs {
			if r.Name == "T" {
				from = append(from, r.From)
			}
		}
		if !slices.Equal(from, []string{"Box"}) {
			t.Errorf("%s: T is used by %v, want only Box", name, from)
		}
	}
}

func mustFast(t *testing.T, src []byte) FileRecord {
	t.Helper()
	rec, why := parseGoFastWhy("p.go", src)
	if why != "" {
		t.Fatalf("the fast path gave up at %s", why)
	}
	return rec
}

// checkFastPathTakes fails t unless the fast path takes src exactly when
// fast says, and agrees with go/parser when it does (checkGoFast).
func checkFastPathTakes(t *testing.T, what, src string, fast bool) {
	t.Helper()
	if _, ok := parseGoFast("p.go", []byte(src)); ok != fast {
		t.Errorf("%s: on the fast path = %v, want %v", what, ok, fast)
	}
	checkGoFast(t, what, []byte(src))
}
