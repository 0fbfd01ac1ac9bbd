package parse

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pyCorpus lists the Python files the fast path is held to: a standard
// library with its tests (whose data holds Python 2 files, files with
// syntax errors and every corner of the grammar), the first found of a
// pyenv Python 3.11 and the system's Python 3. PYFAST_CORPUS adds more
// roots, separated by the list separator (all of a machine's Pythons:
// PYFAST_CORPUS=$(ls -d /root/.pyenv/versions/*/lib/python3* | paste -sd:)).
func pyCorpus(t testing.TB) []string {
	var roots []string
	for _, pattern := range []string{"/root/.pyenv/versions/*/lib/python3.11", "/usr/lib/python3.*", "/usr/local/lib/python3.*"} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			roots = append(roots, m[0])
			break
		}
	}
	roots = append(roots, filepath.SplitList(os.Getenv("PYFAST_CORPUS"))...)
	var files []string
	seen := map[string]bool{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages" || d.Name() == "__pycache__") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".py") && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no Python standard library on this machine")
	}
	return files
}

func TestPythonFastAgreesWithTreeSitter(t *testing.T) {
	pyCase.agreesOnCorpus(t, raceSample(pyCorpus(t), 300), nil)
}

// TestPythonFastAgreesOnMutatedFiles holds the two paths equal on files
// of the corpus broken the ways real edits and real code break them: lines
// deleted, joined, split, swapped, indented or dedented, comments at odd
// indentations, stray tokens. The fuzzer's byte-level mutations rarely
// reach those. PYFAST_MUTATIONS sets how many (2,000; 300 with -short).
func TestPythonFastAgreesOnMutatedFiles(t *testing.T) {
	files := pyCorpus(t)
	n := 2000
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("PYFAST_MUTATIONS")); err == nil {
		n = v
	}
	r := rand.New(rand.NewPCG(17, uint64(n)))
	toks := []string{",", "(", ")", "[", "]", ":", "\\\n", " = ", "*", "print ", " if x", "lambda: ",
		"\"", "'", "f'{", "}", "#", "\t", ";", "@", "yield ", "not ", " as ", "->", "...", "type ", "match "}
	accepted := 0
	for i := 0; i < n; i++ {
		src, err := os.ReadFile(files[r.IntN(len(files))])
		if err != nil || len(src) > 60000 || len(src) == 0 {
			continue
		}
		lines := bytes.SplitAfter(src, []byte("\n"))
		for range 1 + r.IntN(3) {
			j := r.IntN(len(lines))
			switch r.IntN(12) {
			case 0: // delete a line
				lines = slices.Delete(lines, j, j+1)
			case 1: // join it with the next
				lines[j] = bytes.TrimRight(lines[j], "\n")
			case 2: // dedent it
				lines[j] = bytes.TrimLeft(lines[j], " ")
			case 3: // indent it
				lines[j] = append([]byte("    "), lines[j]...)
			case 4: // end it with a comma
				lines[j] = append(bytes.TrimRight(lines[j], "\n"), ",\n"...)
			case 5: // copy it elsewhere
				lines = slices.Insert(lines, r.IntN(len(lines)+1), bytes.Clone(lines[j]))
			case 6: // split it
				if len(lines[j]) > 2 {
					c := 1 + r.IntN(len(lines[j])-2)
					lines[j] = slices.Concat(lines[j][:c], []byte("\n"), lines[j][c:])
				}
			case 7: // a comment line at any indentation
				lines = slices.Insert(lines, j, append(bytes.Repeat([]byte(" "), r.IntN(12)), "# c\n"...))
			case 8: // remove a byte
				if len(lines[j]) > 1 {
					c := r.IntN(len(lines[j]) - 1)
					lines[j] = slices.Concat(lines[j][:c], lines[j][c+1:])
				}
			case 9: // insert a token
				c := r.IntN(len(lines[j]) + 1)
				lines[j] = slices.Concat(lines[j][:c], []byte(toks[r.IntN(len(toks))]), lines[j][c:])
			case 10: // swap it with the next
				if j+1 < len(lines) {
					lines[j], lines[j+1] = lines[j+1], lines[j]
				}
			case 11: // dedent it a little
				if bytes.HasPrefix(lines[j], []byte("  ")) {
					lines[j] = lines[j][1+r.IntN(2):]
				}
			}
			if len(lines) == 0 {
				break
			}
		}
		mut := bytes.Join(lines, nil)
		if _, why := parsePythonFast("m.py", mut); why == "" {
			accepted++
		}
		pyCase.check(t, fmt.Sprintf("mutation %d", i), mut)
		if t.Failed() {
			f := filepath.Join(os.TempDir(), fmt.Sprintf("pyfast-mutation-%d.py", i))
			if os.WriteFile(f, mut, 0o644) == nil {
				t.Logf("the mutated file is %s", f)
			}
			return
		}
	}
	t.Logf("%d mutated files, %d on the fast path", n, accepted)
}

// pyFastSeeds are small programs for the fuzzer: the corners the fast
// path reads (and some it declines).
var pyFastSeeds = []string{
	"import a.b as c, d\nfrom .. x . y import (p, q as r,)\nfrom __future__ import annotations\nfrom . import *\n",
	"x = y = 1\nz: int = 2\nw: str\n(v) = 3\na, *b = c\n[d] = e\nf.g = h\nx += 1\n",
	"@dec(1)\nclass A(B, metaclass=M):\n    '''doc'''\n    x = 1\n    @property\n    def p(self): return self._p\n    async def q(self, *a, k=1, **kw) -> None:\n        await z\n        async for i in j: pass\n    class C:\n        def d(self): ...\n",
	"def f(a, /, b: int = 1, *args: str, c, **kw):\n    global g\n    try:\n        import x\n    except (A, B) as e:\n        raise C from e\n    else:\n        pass\n    finally:\n        del a[0], b\n    with open(p) as fh, q:\n        yield from fh\n    return *a, b\n",
	"x = [i for i in range(3) if i if not i] + {k: v for k, v in d.items()} | {*a, b}\ny = (lambda q=1, *r: q)(2) if a else b[1:2, ::3, ...]\nz = f\"{x!r:>{w}} {y=} {{}} {d['k']}\" rb'\\\\' 'a' \"b\"\n",
	"if (n := len(a)) > 10:\n    pass\nelif x is not None and y not in z:\n    while True:\n        break\n    else:\n        continue\nelse:\n    assert x, 'msg'\n",
	"x = (1 +\n     2)\ny = 3 + \\\n    4\n# comment\n\n  # odd comment\nclass K: pass\n",
	"def f():\n    x = foo(a +\nb)\n",
	"print >>sys.stderr, 'x'\nprint 'x'\nexec 'code' in ns\n",
	"match x:\n    case 1: pass\n",
	"\tx = 1\nif x:\n\ty = 2\n",
	"s = f'{x:=^10}'\nt = f'{lambda: 1}'\n",
	"x = 0x_1F + 0o17 + 0b1 + 1_000 + 1e-5 + .5j + 1.\n",
	"class A:\n  def f(self):\n    pass\n# dedented comment\n  def g(self):\n    pass\n",
	"with (open(a) as f, open(b) as g):\n    pass\nwith (yield from lock) as l, (a):\n    pass\n",
	"def f[T: int, *Ts, **P](x: T) -> T: pass\nclass A[T](B): pass\ntry:\n    pass\nexcept* E as e:\n    pass\n",
	"def f():\n    x = [\n        1,\n]\n    y = (\n'a'\n'b')\n    z = 1 + \\\n1\n",
	"def f(a: A[b] % c, d: E[F[g]] | None = None) -> H[i].j: pass\nx: A[b] = 1\ny: a.B[c] % d\n",
	"print = exec = 1\ntype: int = 1\nmatch, b = 1, 2\n_ = case = 1\nx = print\nprint(x)\ntype(x).mro()\n",
	"x = a,\nb = 1\na.b,\nc = 1\nd = f(x),\ne = 2\n",
	"args = *a, *b.c(), d\nx = t[*Ts]\ny = 1.5e100.real + 1.5.imag\nz = a if b else\"c\"\n",
}

func FuzzPythonFast(f *testing.F) {
	for _, file := range []string{"py/pkg/service.py", "py/broken.py", "py/bench.py"} {
		src, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range pyFastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		pyCase.check(t, "f.py", src)
	})
}

func TestPythonFastSeeds(t *testing.T) {
	for _, s := range pyFastSeeds {
		pyCase.check(t, "seed.py", []byte(s))
	}
}

func TestPythonFastDeclines(t *testing.T) {
	for src, want := range map[string]pyDecline{
		"def f():\n    x = foo(a +\nb)\n":        pdContIndent,
		"print 'x'\n":                            pdSyntax,
		"match x:\n    case 1: pass\n":           pdSyntax,
		"if x:\n\ty = 2\n":                       pdTab,
		"s = f'{x:=^10}'\n":                      pdFString,
		"x = 0777\n":                             pdNumber,
		"x = ur'a'\n":                            pdString,
		"type X = int\n":                         pdSyntax,
		"def f[T=int](x: T): pass\n":             pdTypeParams,
		"try:\n    pass\nexcept *E:\n    pass\n": pdExceptStar,
		"x = 1 \\\n\ny = 2\n":                    pdBackslash,
		"x = 'abc\n":                             pdUnterminated,
		"if x:\n    a = 1\n  b = 2\n":            pdIndent,
		"class C:\n    @a\n# c\n    def f(self):\n        pass\n": pdIndent,
		"class C:\n    x = 1\n\\\n    def f(self): pass\n":        pdBackslash,
		"a,\nb = 1\n": pdComma,
	} {
		if _, why := parsePythonFast("d.py", []byte(src)); why != want {
			t.Errorf("%q: declined for %q, want %q", src, why, want)
		}
	}
}

func TestPythonFastRecord(t *testing.T) {
	src := []byte(pyFastSeeds[0] + pyFastSeeds[1] + pyFastSeeds[2])
	rec, why := parsePythonFast("r.py", src)
	if why != "" {
		t.Fatalf("declined: %s", why)
	}
	want := parsePythonTree("r.py", src)
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("differs:\n%s", fastRecordDiff(rec, want))
	}
	if len(rec.Imports) != 5 || len(rec.Symbols) != 7 {
		t.Fatalf("record too small: %+v", rec)
	}
}

func BenchmarkPythonFast(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "py/bench.py"))
	if err != nil {
		b.Fatal(err)
	}
	if _, why := parsePythonFast("bench.py", src); why != "" {
		b.Fatalf("declined: %s", why)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		parsePythonFast("py/bench.py", src)
	}
}

// BenchmarkPythonCorpus parses the standard library of pyCorpus held in
// memory: the fast path alone (declined files cost their attempt), and
// parsePython as the index calls it.
func BenchmarkPythonCorpus(b *testing.B) {
	var srcs [][]byte
	size := 0
	for _, f := range pyCorpus(b) {
		src, err := os.ReadFile(f)
		if err == nil {
			srcs = append(srcs, src)
			size += len(src)
		}
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, src := range srcs {
				parsePythonFast("f.py", src)
			}
		}
	})
	b.Run("parsePython", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, src := range srcs {
				parsePython("f.py", src)
			}
		}
	})
}
