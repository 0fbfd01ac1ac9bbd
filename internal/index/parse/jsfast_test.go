package parse

import (
	"bytes"
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

// jsCorpus lists the JavaScript files the fast path is held to: the
// node_modules trees of this repository (the console's and the MCP
// Inspector's, after npm ci) and of the system (npm's own). JSFAST_CORPUS
// adds more roots, separated by the list separator.
func jsCorpus(t testing.TB) []string {
	return nodeModulesFiles(t, func(p string) bool {
		return strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".mjs") || strings.HasSuffix(p, ".cjs")
	})
}

// nodeModulesFiles lists the regular files of nodeModulesRoots that keep
// takes, each once; the test is skipped when there are none.
func nodeModulesFiles(t testing.TB, keep func(path string) bool) []string {
	var files []string
	seen := map[string]bool{}
	for _, root := range nodeModulesRoots() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type().IsRegular() && keep(p) && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no node_modules on this machine")
	}
	return files
}

// nodeModulesRoots are the trees jsCorpus and dtsCorpus read.
func nodeModulesRoots() []string {
	roots := []string{"../../../console/node_modules", "../../../e2e/inspector/node_modules", "/usr/lib/node_modules", "/usr/share/nodejs"}
	return append(roots, filepath.SplitList(os.Getenv("JSFAST_CORPUS"))...)
}

func TestJavaScriptFastAgreesWithTreeSitter(t *testing.T) {
	files := jsCorpus(t)
	files = nodeModulesSample(files)
	jsCase.agreesOnCorpus(t, files, isGeneratedJS)
}

// nodeModulesSample is the part of a node_modules corpus a test reads:
// every other file in the plain run (a package's many files read much
// alike, and the whole costs the test command 13 CPU-seconds of
// tree-sitter), about 400 under -short, and all of it with
// JSFAST_FILES=all.
func nodeModulesSample(files []string) []string {
	switch {
	case os.Getenv("JSFAST_FILES") == "all":
		return files
	case testing.Short():
		return raceSample(files, 400)
	}
	half := make([]string, 0, len(files)/2+1)
	for i := 0; i < len(files); i += 2 {
		half = append(half, files[i])
	}
	return half
}

// isGeneratedJS says whether the index leaves a JavaScript file unparsed.
func isGeneratedJS(src []byte) bool { return generatedJS(src) != "" }

// TestJavaScriptFastAgreesOnMutatedFiles holds the two paths equal on
// files of the corpus broken the ways real edits break them: lines
// deleted, joined, split, swapped or copied, bytes removed, stray tokens.
// JSFAST_MUTATIONS sets how many (2,000; 100 with -short).
func TestJavaScriptFastAgreesOnMutatedFiles(t *testing.T) {
	files := jsCorpus(t)
	n := 2000
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("JSFAST_MUTATIONS")); err == nil {
		n = v
	}
	r := rand.New(rand.NewPCG(23, uint64(n)))
	toks := []string{",", "(", ")", "[", "]", "{", "}", ":", ";", " = ", "=>", "*", "/", "`", "${", "\"", "'", "//", "/*", "*/",
		"\n", " async ", " await ", " yield ", "let ", "return\n", "++", "?.", "...", "#x", " in ", " of ", "export ", "import ",
		"function ", "class ", " get ", "static ", "new ", "require(", "import(", ".", "?", "!", "<"}
	jsCase.agreesOnMutations(t, files, n, r, toks, isGeneratedJS)
}

// mutateLines breaks one to three lines of src the ways real edits do:
// a line deleted, joined with the next, copied elsewhere, split, swapped
// with the next; a byte removed; a token of toks inserted.
func mutateLines(r *rand.Rand, src []byte, toks []string) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for range 1 + r.IntN(3) {
		j := r.IntN(len(lines))
		switch r.IntN(8) {
		case 0: // delete a line
			lines = slices.Delete(lines, j, j+1)
		case 1: // join it with the next
			lines[j] = bytes.TrimRight(lines[j], "\n")
		case 2: // copy it elsewhere
			lines = slices.Insert(lines, r.IntN(len(lines)+1), bytes.Clone(lines[j]))
		case 3: // split it
			if len(lines[j]) > 2 {
				c := 1 + r.IntN(len(lines[j])-2)
				lines[j] = slices.Concat(lines[j][:c], []byte("\n"), lines[j][c:])
			}
		case 4: // remove a byte
			if len(lines[j]) > 1 {
				c := r.IntN(len(lines[j]) - 1)
				lines[j] = slices.Concat(lines[j][:c], lines[j][c+1:])
			}
		case 5, 6: // insert a token
			c := r.IntN(len(lines[j]) + 1)
			lines[j] = slices.Concat(lines[j][:c], []byte(toks[r.IntN(len(toks))]), lines[j][c:])
		case 7: // swap it with the next
			if j+1 < len(lines) {
				lines[j], lines[j+1] = lines[j+1], lines[j]
			}
		}
		if len(lines) == 0 {
			break
		}
	}
	return bytes.Join(lines, nil)
}

// jsFastSeeds are small programs for the fuzzer: the corners the fast
// path reads (and some it declines).
var jsFastSeeds = []string{
	"import d, {a, b as c, default as e, \"s t\" as f} from 'm'\nimport * as ns from \"n\"\nimport 'side'\nimport j from './j.json' with { type: 'json' }\nexport * from 'x'\nexport * as y from 'y'\nexport {a, b as c, d as d} from 'z'\nexport {d as default}\nns.a(); ns.b.c; ns\n.d; ns?.e; ns/**/.f; new ns.C(); class K extends ns.D {}\n",
	"const f = () => 1, g = async x => x, h = (((function(){}))), i = ((((function(){})))), j = (/*c*/function(){}), k = class {}, l = function*(){}, m = async function() {}\nvar [n] = [], {o, p: q = 1, ...r} = {}\nlet s\nfunction t(u = 1, {v}, [w], ...x) {}\nasync function* y() {}\n",
	"export default class A extends B { static x = 1; #p = 2; static { init() } constructor() { super() } get a() { return 1 } set a(v) {} static async *gen() { yield* x; await y } #priv() {} 'quoted'() {} 1() {} [computed]() {} get() {} static() {} async() {} f = () => {}\n g }\n",
	"require('a'); x.require('b'); require(/*c*/ 'c', d); require(`e`); require(`f${g}`); import('h').then(m => m); await import(`i`); new require('j'); require /*c*/ ('k'); [...require('l')]; require('m' + n); require(('o'))\n",
	"a = b\n(c)\nd = e\n[f]\nlet g = 1\n++h\nfunction r() { return\n1 }\nx\n.y\nz = 1\n-1\n",
	"x = `a${b + `c${d}`}e` + /re[/]/g.test(y) / 2\nz = a / b / c\nif (q) /x/.exec(r)\nw = tag`t${1}` + String.raw`\\x`\n",
	"x = 0x1F + 0o17 + 0b1 + 1_000 + 1e-5 + .5 + 1. + 10n + 0 + 1.5e+3 + 0xFFn\n",
	"o = { a, b: 1, [c]: 2, 'd': 3, 4: 5, get e() {}, set e(v) {}, async f() {}, *g() {}, async *h() {}, ...i, get: 1, set() {}, default: 2, new: 3 }\n({a = 1} = o);\n(({b = 2}) => b)(o)\n[{c = 3}] = [o]\n",
	"outer: for (const [k, v] of m) { for (let i = 0; i < 1; i++) { continue outer } }\nfor (x in y) {}\nfor await (const z of w) {}\ndo x(); while (y)\nswitch (a) { case 1: break; default: }\ntry {} catch {} finally {}\ntry {} catch ({message}) {}\nwhile (0) break\nwith (o) {}\ndebugger\n",
	"a?.b?.(c)?.[d]\nclass C { #x; has(o) { return #x in o } }\nx ??= y; x ||= z; x &&= w; x **= 2; x >>>= 1\ny = a ? b : c ? d : e\nz = typeof a === 'b' && void 0 || delete o.p\nnew.target; import.meta.url\n",
	"#!/usr/bin/env node\n'use strict'\nconsole.log(1)\n",
	"export default function () {}\n(foo)\nexport default async function g() {}\nexport default x;\nexport const p = 1, q = () => {}\nexport function r() {}\nexport async function s() {}\nexport class T {}\n",
	"s = '\\x41\\u0041\\u{1F600}\\n\\\n' + \"\\\"\" + '\\0' + 'é'\n",
	"x = <div/>\n",
	"@dec class A {}\n",
	"let\nx = 1\n",
	"export\n{ a }\n",
	"export { a }\nfrom 'b'\n",
	"for (const x\nof y) {}\n",
	"a = b\n`t`\n",
	"return\n(x)\n",
	"s = '\\x4'\n",
	"x = 08\n",
	"var undefined = 1; function f(undefined) {}\n",
	"a = b /*\n*/ c\n",
	"x = async\nfunction f() {}\n",
	"let async = 1; async = 2; var of = 3, get = 4, set = 5, from = 6\n",
	"x = y => y, z = (a, b = 1, ...c) => a, w = ([a], {b}) => a, v = async (a) => a\n",
	"if (a) b; else if (c) d; else { e }\n",
	"x = function f() {}.call(this)\nclass A { 'constructor'() {} static async\nfoo() {} }\n",
	// Found by a review: each once accepted or recorded otherwise than
	// tree-sitter.
	"x = [...import('a')]\nf(...import('b'))\n",
	"import * as ns from 'a' with { type: ns.x }\n",
	"import b from 'c' with { type: ns.x }\nimport * as ns from 'a'\n",
	"export * from 'x' with { type: 'json' }\n",
	"export { a } from 'x' with { type: 'json' }\n",
	"for (const x, y of z) {}\nfor (let x = 1 of y) {}\n",
	"for (const x = 1 in y) {}\n",
	"for await (;;) {}\n",
	"import * as ns from 'x'\nimport * as ns from 'y'\nns.a; ns.b; ns.a\n",
}

func FuzzJavaScriptFast(f *testing.F) {
	for _, s := range jsFastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		jsCase.check(t, "f.js", src)
	})
}

func TestJavaScriptFastSeeds(t *testing.T) {
	taken := 0
	for _, s := range jsFastSeeds {
		jsCase.check(t, "seed.js", []byte(s))
		if _, why := parseJavaScriptFast("seed.js", []byte(s)); why == "" {
			taken++
		}
	}
	if taken < len(jsFastSeeds)/2 {
		t.Errorf("the fast path took only %d of %d seeds", taken, len(jsFastSeeds))
	}
}

func TestJavaScriptFastDeclines(t *testing.T) {
	for src, want := range map[string]jsDecline{
		"x = <div/>\n":                   jdJSX,
		"@dec class A {}\n":              jdDecorator,
		"let\nx = 1\n":                   jdReserved,
		"export\n{ a }\n":                jdASI,
		"export { a }\nfrom 'b'\n":       jdASI,
		"for (const x\nof y) {}\n":       jdASI,
		"a = b\n`t`\n":                   jdASI,
		"return\n(x)\n":                  jdASI,
		"s = '\\x4'\n":                   jdString,
		"x = 08\n":                       jdNumber,
		"a = b /*\n*/ c\n":               jdASI,
		"x = 1 <!-- c\n":                 jdComment,
		"x = 'abc\n":                     jdString,
		"var café = 1\n":                 jdEscape,
		"import * as ns from 'n'\n":      "",
		"f()\nimport * as ns from 'n'\n": jdNamespace,
		"var yield = 1\n":                jdReserved,
		"x = a\u2028b\n":                 jdEncoding,
	} {
		if _, why := parseJavaScriptFast("d.js", []byte(src)); why != want {
			t.Errorf("%q: declined for %q, want %q", src, why, want)
		}
	}
}

func TestJavaScriptFastRecord(t *testing.T) {
	src := []byte(jsFastSeeds[0] + jsFastSeeds[1] + jsFastSeeds[2] + jsFastSeeds[3])
	rec, why := parseJavaScriptFast("r.js", src)
	if why != "" {
		t.Fatalf("declined: %s", why)
	}
	want := parseJavaScriptTree("r.js", src)
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("differs:\n%s", fastRecordDiff(rec, want))
	}
	if len(rec.Imports) < 12 || len(rec.Symbols) < 20 || rec.Default != "A" {
		t.Fatalf("record too small: %+v", rec)
	}
}

// BenchmarkJavaScriptCorpus parses the files of jsCorpus held in memory
// (generated ones left out, as the index leaves them): the fast path
// alone (declined files cost their attempt), parseJavaScript as the index
// calls it, and tree-sitter alone.
func BenchmarkJavaScriptCorpus(b *testing.B) {
	var srcs [][]byte
	size := 0
	for _, f := range jsCorpus(b) {
		src, err := os.ReadFile(f)
		if err == nil && generatedJS(src) == "" {
			srcs = append(srcs, src)
			size += len(src)
		}
	}
	for _, c := range []struct {
		name  string
		parse func(string, []byte)
	}{
		{"fast", func(p string, src []byte) { parseJavaScriptFast(p, src) }},
		{"parseJavaScript", func(p string, src []byte) { parseJavaScript(p, src) }},
		{"tree-sitter", func(p string, src []byte) { parseJavaScriptTree(p, src) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, src := range srcs {
					c.parse("f.js", src)
				}
			}
		})
	}
}
