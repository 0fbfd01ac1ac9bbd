// Command synth writes a synthetic monorepo workspace for core's knowledge
// graph benchmarks (bench/graph). It is deterministic for a seed: the same
// flags give the same bytes.
//
//	go run ./bench/synth -out DIR -projects P -files F -symbols S [-seed N] [-pkgfiles K]
//
// The workspace:
//
//	targets.yaml            P projects p000..; deps form a DAG (each project
//	                        depends on 0-3 of the 20 projects before it);
//	                        targets build (deps ^build) and test (deps build)
//	go.mod                  one module, example.com/synth
//	docs/index.md           links every guide
//	docs/guide-NN.md        one per 10 projects: links to projects, READMEs,
//	                        files, and mentions of their targets
//	projects/pNNN/README.md links and target mentions
//	projects/pNNN/pkgKK/fFFFF.{go,ts,py}
//	                        F files per project, K (-pkgfiles) per directory,
//	                        about 10% TypeScript, 5% Python, the rest Go
//
// Every source file declares S symbols. Go files cycle through func, type,
// method (on the type just declared) and const; their bodies use symbols of
// the same package and of the 1-3 workspace packages the file imports (from
// its own project or from the projects it depends on), so references cross
// packages and projects. TypeScript files import named symbols from another
// TS file of the same directory and of a dependency project; Python files
// from another Python file of the same project (absolute and relative).
//
// A JSON summary (counts, bytes, sample names the benchmarks query and the
// Go file they edit) is printed on stdout.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

const module = "example.com/synth"

const (
	langGo = iota
	langTS
	langPy
)

type gen struct {
	seed     uint64
	projects int
	files    int
	symbols  int
	pkgFiles int
	width    int // digits of a project number

	deps  [][]int // project -> its dependencies (lower numbers)
	langs [][]uint8
	// per project, per package: the files of each language
	goIn, tsIn, pyIn [][][]int
}

func main() {
	out := flag.String("out", "", "directory to write the workspace into (created; must be empty or absent)")
	projects := flag.Int("projects", 10, "number of projects")
	files := flag.Int("files", 20, "source files per project")
	symbols := flag.Int("symbols", 5, "symbols declared per source file")
	seed := flag.Uint64("seed", 1, "random seed")
	pkgFiles := flag.Int("pkgfiles", 25, "source files per package directory")
	flag.Parse()
	if *out == "" || *projects < 1 || *files < 1 || *symbols < 1 || *pkgFiles < 1 {
		fmt.Fprintln(os.Stderr, "usage: synth -out DIR -projects P -files F -symbols S [-seed N] [-pkgfiles K]")
		os.Exit(2)
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		fmt.Fprintf(os.Stderr, "synth: %s is not empty\n", *out)
		os.Exit(1)
	}
	g := newGen(*seed, *projects, *files, *symbols, *pkgFiles)
	sum, err := g.write(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(sum)
}

// mix is splitmix64 over its inputs: a stateless hash, so any file's
// language is known without generating it.
func mix(xs ...uint64) uint64 {
	var h uint64 = 0x9e3779b97f4a7c15
	for _, x := range xs {
		h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h += 0x9e3779b97f4a7c15
		z := h
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		h = z ^ (z >> 31)
	}
	return h
}

func newGen(seed uint64, projects, files, symbols, pkgFiles int) *gen {
	g := &gen{seed: seed, projects: projects, files: files, symbols: symbols, pkgFiles: pkgFiles}
	g.width = max(3, len(fmt.Sprint(projects-1)))
	npkg := (files + pkgFiles - 1) / pkgFiles
	g.deps = make([][]int, projects)
	g.langs = make([][]uint8, projects)
	g.goIn = make([][][]int, projects)
	g.tsIn = make([][][]int, projects)
	g.pyIn = make([][][]int, projects)
	for p := 0; p < projects; p++ {
		r := rand.New(rand.NewPCG(seed, mix(1, uint64(p))))
		if p > 0 {
			n := r.IntN(4) // 0-3 deps among the 20 projects before
			lo := max(0, p-20)
			seen := map[int]bool{}
			for i := 0; i < n; i++ {
				d := lo + r.IntN(p-lo)
				if !seen[d] {
					seen[d] = true
					g.deps[p] = append(g.deps[p], d)
				}
			}
			sort.Ints(g.deps[p])
		}
		g.langs[p] = make([]uint8, files)
		g.goIn[p] = make([][]int, npkg)
		g.tsIn[p] = make([][]int, npkg)
		g.pyIn[p] = make([][]int, npkg)
		for f := 0; f < files; f++ {
			h := mix(seed, 2, uint64(p), uint64(f)) % 100
			k := f / pkgFiles
			switch {
			case h < 10:
				g.langs[p][f] = langTS
				g.tsIn[p][k] = append(g.tsIn[p][k], f)
			case h < 15:
				g.langs[p][f] = langPy
				g.pyIn[p][k] = append(g.pyIn[p][k], f)
			default:
				g.langs[p][f] = langGo
				g.goIn[p][k] = append(g.goIn[p][k], f)
			}
		}
	}
	return g
}

func (g *gen) proj(p int) string   { return fmt.Sprintf("p%0*d", g.width, p) }
func (g *gen) pkgDir(k int) string { return fmt.Sprintf("pkg%02d", k) }
func (g *gen) pkgName(p, k int) string {
	return g.proj(p) + g.pkgDir(k)
}
func (g *gen) importPath(p, k int) string {
	return module + "/projects/" + g.proj(p) + "/" + g.pkgDir(k)
}
func (g *gen) fileBase(f int) string { return fmt.Sprintf("f%04d", f) }
func (g *gen) filePath(p, f int) string {
	ext := [...]string{".go", ".ts", ".py"}[g.langs[p][f]]
	return "projects/" + g.proj(p) + "/" + g.pkgDir(f/g.pkgFiles) + "/" + g.fileBase(f) + ext
}

// Go symbol j of file (p, f): kinds cycle func, type, method, const.
func (g *gen) goSym(p, f, j int) (name, kind string) {
	tag := fmt.Sprintf("%d_%d_%d", p, f, j)
	switch j % 4 {
	case 0:
		return "F" + tag, "func"
	case 1:
		return "T" + tag, "type"
	case 2:
		return fmt.Sprintf("T%d_%d_%d.M%d", p, f, j-1, j), "method"
	default:
		return "C" + tag, "const"
	}
}

// goUse is a statement using symbol j of file (p, f), qualified by qual
// ("" in its own package). Methods are used through their type.
func (g *gen) goUse(qual string, p, f, j int) string {
	if j%4 == 2 {
		j--
	}
	name, kind := g.goSym(p, f, j)
	switch kind {
	case "func":
		return fmt.Sprintf("n += %s%s(n)", qual, name)
	case "type":
		return fmt.Sprintf("_ = %s%s{}", qual, name)
	default:
		return fmt.Sprintf("n += %s%s", qual, name)
	}
}

func (g *gen) tsSym(p, f, j int) (name, kind string) {
	tag := fmt.Sprintf("%d_%d_%d", p, f, j)
	switch j % 4 {
	case 0:
		return "fn" + tag, "function"
	case 1:
		return "K" + tag, "class"
	case 2:
		return "c" + tag, "const"
	default:
		return "I" + tag, "interface"
	}
}

func (g *gen) pySym(p, f, j int) (name, kind string) {
	tag := fmt.Sprintf("%d_%d_%d", p, f, j)
	switch j % 4 {
	case 0:
		return "fn" + tag, "function"
	case 1:
		return "K" + tag, "class"
	case 2:
		return "c" + tag, "var"
	default:
		return "g" + tag, "function"
	}
}

type pkgRef struct{ p, k int }

// goImports are the workspace packages file (p, f) imports: 1-3 of its own
// project's lower-numbered packages and its dependencies' packages with Go
// files (so the imports form a DAG and the tree builds).
func (g *gen) goImports(r *rand.Rand, p, f int) []pkgRef {
	own := f / g.pkgFiles
	var cands []pkgRef
	for k := 0; k < own; k++ { // lower packages only: no import cycles
		if len(g.goIn[p][k]) > 0 {
			cands = append(cands, pkgRef{p, k})
		}
	}
	for _, d := range g.deps[p] {
		for k := range g.goIn[d] {
			if len(g.goIn[d][k]) > 0 {
				cands = append(cands, pkgRef{d, k})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	n := min(1+r.IntN(3), len(cands))
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	out := cands[:n]
	sort.Slice(out, func(i, j int) bool {
		return g.importPath(out[i].p, out[i].k) < g.importPath(out[j].p, out[j].k)
	})
	return out
}

func (g *gen) goFile(p, f int) []byte {
	r := rand.New(rand.NewPCG(g.seed, mix(3, uint64(p), uint64(f))))
	k := f / g.pkgFiles
	imps := g.goImports(r, p, f)
	useFmt, useStrings := r.IntN(2) == 0, r.IntN(3) == 0
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by bench/synth (seed %d). DO NOT EDIT.\n\n", g.seed)
	fmt.Fprintf(&b, "// Package %s is synthetic: file %d of project %s.\npackage %s\n\n", g.pkgName(p, k), f, g.proj(p), g.pkgName(p, k))
	b.WriteString("import (\n")
	if useFmt {
		b.WriteString("\t\"fmt\"\n")
	}
	if useStrings {
		b.WriteString("\t\"strings\"\n")
	}
	if useFmt || useStrings {
		b.WriteString("\n")
	}
	for _, im := range imps {
		fmt.Fprintf(&b, "\t%q\n", g.importPath(im.p, im.k))
	}
	b.WriteString(")\n")
	local := func() string {
		peers := g.goIn[p][k]
		return g.goUse("", p, peers[r.IntN(len(peers))], r.IntN(g.symbols))
	}
	nremote := 0
	remote := func() string {
		if len(imps) == 0 {
			return local()
		}
		im := imps[nremote%len(imps)] // round robin: every import is used
		nremote++
		peers := g.goIn[im.p][im.k]
		return g.goUse(g.pkgName(im.p, im.k)+".", im.p, peers[r.IntN(len(peers))], r.IntN(g.symbols))
	}
	nbody := 0
	body := func() {
		nbody++
		fmt.Fprintf(&b, "\tfor i := 0; i < %d; i++ {\n\t\tn += i * %d\n\t}\n", 2+r.IntN(5), 3+r.IntN(40))
		fmt.Fprintf(&b, "\t%s\n\t%s\n", local(), remote())
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "\t%s\n", remote())
		}
		if useFmt && (nbody == 1 || r.IntN(3) == 0) {
			b.WriteString("\t_ = fmt.Sprint(n)\n")
		}
		if useStrings && (nbody == 1 || r.IntN(3) == 0) {
			b.WriteString("\t_ = strings.Repeat(\"x\", n%5)\n")
		}
		fmt.Fprintf(&b, "\tif n%%%d == 0 {\n\t\tn = n/2 + %d\n\t}\n\treturn n\n}\n", 2+r.IntN(7), r.IntN(100))
	}
	for j := 0; j < g.symbols; j++ {
		name, kind := g.goSym(p, f, j)
		b.WriteString("\n")
		switch kind {
		case "func":
			fmt.Fprintf(&b, "// %s is synthetic work.\nfunc %s(n int) int {\n", name, name)
			body()
		case "type":
			fmt.Fprintf(&b, "// %s is a synthetic record.\ntype %s struct {\n\tA int\n\tB string\n", name, name)
			if len(imps) > 0 && r.IntN(2) == 0 {
				im := imps[r.IntN(len(imps))]
				peers := g.goIn[im.p][im.k]
				tf := peers[r.IntN(len(peers))]
				tn, _ := g.goSym(im.p, tf, 1)
				if g.symbols > 1 {
					fmt.Fprintf(&b, "\tC %s.%s\n", g.pkgName(im.p, im.k), tn)
				}
			}
			b.WriteString("}\n")
		case "method":
			typ, meth, _ := strings.Cut(name, ".")
			fmt.Fprintf(&b, "// %s is a synthetic method.\nfunc (t *%s) %s(n int) int {\n\tn += t.A\n", meth, typ, meth)
			body()
		case "const":
			fmt.Fprintf(&b, "// %s is a synthetic constant.\nconst %s = %d\n", name, name, r.IntN(1000))
		}
	}
	return b.Bytes()
}

func (g *gen) tsFile(p, f int) []byte {
	r := rand.New(rand.NewPCG(g.seed, mix(4, uint64(p), uint64(f))))
	k := f / g.pkgFiles
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by bench/synth (seed %d). DO NOT EDIT.\n", g.seed)
	var calls []string
	// A named import from another TS file of this directory.
	if peers := g.tsIn[p][k]; len(peers) > 1 {
		t := peers[r.IntN(len(peers))]
		if t != f {
			n0, _ := g.tsSym(p, t, 0)
			names := []string{n0}
			if g.symbols > 1 {
				n1, _ := g.tsSym(p, t, 1)
				names = append(names, n1)
			}
			fmt.Fprintf(&b, "import { %s } from \"./%s\";\n", strings.Join(names, ", "), g.fileBase(t))
			calls = append(calls, n0)
		}
	}
	// And one from a TS file of a dependency project.
	if len(g.deps[p]) > 0 {
		d := g.deps[p][r.IntN(len(g.deps[p]))]
		var all []int
		for _, fs := range g.tsIn[d] {
			all = append(all, fs...)
		}
		if len(all) > 0 {
			t := all[r.IntN(len(all))]
			n0, _ := g.tsSym(d, t, 0)
			fmt.Fprintf(&b, "import { %s } from \"../../%s/%s/%s\";\n", n0, g.proj(d), g.pkgDir(t/g.pkgFiles), g.fileBase(t))
			calls = append(calls, n0)
		}
	}
	b.WriteString("import * as path from \"path\";\n")
	for j := 0; j < g.symbols; j++ {
		name, kind := g.tsSym(p, f, j)
		b.WriteString("\n")
		switch kind {
		case "function":
			fmt.Fprintf(&b, "/** %s is synthetic work. */\nexport function %s(n: number): number {\n  let x = n;\n  for (let i = 0; i < %d; i++) {\n    x += i * %d;\n  }\n", name, name, 2+r.IntN(5), 3+r.IntN(40))
			for _, c := range calls {
				fmt.Fprintf(&b, "  x += %s(x);\n", c)
			}
			fmt.Fprintf(&b, "  return x + path.sep.length;\n}\n")
		case "class":
			fmt.Fprintf(&b, "export class %s {\n  private v = %d;\n  run(n: number): number {\n    this.v += n;\n    return this.v;\n  }\n}\n", name, r.IntN(100))
		case "const":
			fmt.Fprintf(&b, "export const %s = %d;\n", name, r.IntN(1000))
		case "interface":
			fmt.Fprintf(&b, "export interface %s {\n  a: number;\n  b: string;\n}\n", name)
		}
	}
	return b.Bytes()
}

func (g *gen) pyFile(p, f int) []byte {
	r := rand.New(rand.NewPCG(g.seed, mix(5, uint64(p), uint64(f))))
	k := f / g.pkgFiles
	var b bytes.Buffer
	fmt.Fprintf(&b, "\"\"\"Code generated by bench/synth (seed %d). DO NOT EDIT.\"\"\"\n\nimport os\n", g.seed)
	var calls []string
	// Absolute import (from the project root) of another package's file.
	var other []int
	for kk, fs := range g.pyIn[p] {
		if kk != k {
			other = append(other, fs...)
		}
	}
	if len(other) > 0 {
		t := other[r.IntN(len(other))]
		n0, _ := g.pySym(p, t, 0)
		fmt.Fprintf(&b, "from %s.%s import %s\n", g.pkgDir(t/g.pkgFiles), g.fileBase(t), n0)
		calls = append(calls, n0)
	}
	// Relative import from this directory.
	if peers := g.pyIn[p][k]; len(peers) > 1 {
		t := peers[r.IntN(len(peers))]
		if t != f {
			n0, _ := g.pySym(p, t, 0)
			fmt.Fprintf(&b, "from .%s import %s\n", g.fileBase(t), n0)
			calls = append(calls, n0)
		}
	}
	for j := 0; j < g.symbols; j++ {
		name, kind := g.pySym(p, f, j)
		b.WriteString("\n\n")
		switch {
		case kind == "class":
			fmt.Fprintf(&b, "class %s:\n    \"\"\"A synthetic class.\"\"\"\n\n    def run(self, n):\n        return n + %d\n", name, r.IntN(100))
		case kind == "var":
			fmt.Fprintf(&b, "%s = %d\n", name, r.IntN(1000))
		default:
			fmt.Fprintf(&b, "def %s(n):\n    x = n\n    for i in range(%d):\n        x += i * %d\n", name, 2+r.IntN(5), 3+r.IntN(40))
			for _, c := range calls {
				fmt.Fprintf(&b, "    x += %s(x)\n", c)
			}
			b.WriteString("    return x + len(os.sep)\n")
		}
	}
	return b.Bytes()
}

func (g *gen) targetsYAML() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated by bench/synth -projects %d -files %d -symbols %d -seed %d -pkgfiles %d.\nprojects:\n", g.projects, g.files, g.symbols, g.seed, g.pkgFiles)
	for p := 0; p < g.projects; p++ {
		fmt.Fprintf(&b, "  %s:\n    path: projects/%s\n", g.proj(p), g.proj(p))
		if len(g.deps[p]) > 0 {
			names := make([]string, len(g.deps[p]))
			for i, d := range g.deps[p] {
				names[i] = g.proj(d)
			}
			fmt.Fprintf(&b, "    deps: [%s]\n", strings.Join(names, ", "))
		}
		b.WriteString("    targets:\n      build:\n        run: [go, build, ./...]\n        inputs: [\"**/*.go\"]\n")
		if len(g.deps[p]) > 0 {
			b.WriteString("        deps: [\"^build\"]\n")
		}
		b.WriteString("      test:\n        run: [go, test, ./...]\n        inputs: [\"**/*.go\"]\n        deps: [build]\n")
	}
	return b.Bytes()
}

func (g *gen) readme(p int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Project %s\n\nBuild it with `%s:build`; its tests run with `%s:test`.\n\n", g.proj(p), g.proj(p), g.proj(p))
	fmt.Fprintf(&b, "- [first package](%s)\n- [entry file](%s)\n- [guide](../../docs/guide-%02d.md)\n", g.pkgDir(0), strings.TrimPrefix(g.filePath(p, 0), "projects/"+g.proj(p)+"/"), p/10)
	for _, d := range g.deps[p] {
		fmt.Fprintf(&b, "- depends on [%s](../%s) (see %s:build)\n", g.proj(d), g.proj(d), g.proj(d))
	}
	return b.Bytes()
}

func (g *gen) guide(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Guide %02d\n\nProjects %d to %d. Back to the [index](index.md).\n\n", n, n*10, min(g.projects, n*10+10)-1)
	for p := n * 10; p < min(g.projects, n*10+10); p++ {
		fmt.Fprintf(&b, "## %s\n\nSee [%s](../projects/%s) and its [README](../projects/%s/README.md); build with `%s:build`, test with `%s:test`. Start at [this file](../%s).\n\n",
			g.proj(p), g.proj(p), g.proj(p), g.proj(p), g.proj(p), g.proj(p), g.filePath(p, g.files/2))
	}
	return b.Bytes()
}

// Summary describes the generated workspace.
type Summary struct {
	Out      string `json:"out"`
	Seed     uint64 `json:"seed"`
	Projects int    `json:"projects"`
	Packages int    `json:"packages"` // Go packages (directories with Go files)
	Files    int    `json:"files"`    // source files
	GoFiles  int    `json:"go_files"`
	TSFiles  int    `json:"ts_files"`
	PyFiles  int    `json:"py_files"`
	Docs     int    `json:"docs"`
	Symbols  int    `json:"symbols"` // declared, as the indexer counts them
	Bytes    int64  `json:"bytes"`
	// DefaultNodes estimates the default graph: projects, targets, docs,
	// files, packages (external ones not counted).
	DefaultNodes int `json:"default_nodes_estimate"`

	SampleSymbols []string `json:"sample_symbols"` // unique Go symbol names, spread over the workspace
	SampleProject string   `json:"sample_project"`
	EditFile      string   `json:"edit_file"`     // a Go file the change benchmarks edit
	ToggleImport  string   `json:"toggle_import"` // a workspace package that file does not import
}

func (g *gen) write(out string) (*Summary, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	var total atomic.Int64
	put := func(rel string, data []byte) error {
		p := filepath.Join(abs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		total.Add(int64(len(data)))
		return os.WriteFile(p, data, 0o644)
	}
	if err := put("targets.yaml", g.targetsYAML()); err != nil {
		return nil, err
	}
	if err := put("go.mod", []byte("module "+module+"\n\ngo 1.22\n")); err != nil {
		return nil, err
	}
	guides := (g.projects + 9) / 10
	var idx bytes.Buffer
	idx.WriteString("# Synthetic workspace\n\nGuides:\n\n")
	for n := 0; n < guides; n++ {
		fmt.Fprintf(&idx, "- [guide %02d](guide-%02d.md)\n", n, n)
		if err := put(fmt.Sprintf("docs/guide-%02d.md", n), g.guide(n)); err != nil {
			return nil, err
		}
	}
	if err := put("docs/index.md", idx.Bytes()); err != nil {
		return nil, err
	}

	// Sources, generated in parallel (each file's content depends only on
	// the seed and its coordinates).
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				p := int(next.Add(1) - 1)
				if p >= g.projects {
					return
				}
				if err := put("projects/"+g.proj(p)+"/README.md", g.readme(p)); err != nil {
					errs <- err
					return
				}
				for f := 0; f < g.files; f++ {
					var data []byte
					switch g.langs[p][f] {
					case langGo:
						data = g.goFile(p, f)
					case langTS:
						data = g.tsFile(p, f)
					default:
						data = g.pyFile(p, f)
					}
					if err := put(g.filePath(p, f), data); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}

	s := &Summary{Out: abs, Seed: g.seed, Projects: g.projects, Docs: guides + 1 + g.projects, Bytes: total.Load()}
	for p := 0; p < g.projects; p++ {
		for k := range g.goIn[p] {
			if len(g.goIn[p][k]) > 0 {
				s.Packages++
			}
			s.GoFiles += len(g.goIn[p][k])
			s.TSFiles += len(g.tsIn[p][k])
			s.PyFiles += len(g.pyIn[p][k])
		}
	}
	s.Files = s.GoFiles + s.TSFiles + s.PyFiles
	// Go: one symbol per declaration; TS classes add their method
	// (Class.run), Python classes theirs too.
	classes := 0
	for j := 0; j < g.symbols; j++ {
		if j%4 == 1 {
			classes++
		}
	}
	s.Symbols = s.GoFiles*g.symbols + (s.TSFiles+s.PyFiles)*(g.symbols+classes)
	s.DefaultNodes = g.projects*3 + s.Docs + s.Files + s.Packages

	// Samples: the first Go file of (up to) ten projects spread over the range.
	seen := map[int]bool{}
	for i := 0; i < 10; i++ {
		p := (i*g.projects + g.projects/2) / 10 % g.projects
		if seen[p] {
			continue
		}
		seen[p] = true
		for f := 0; f < g.files; f++ {
			if g.langs[p][f] == langGo {
				name, _ := g.goSym(p, f, 0)
				s.SampleSymbols = append(s.SampleSymbols, name)
				break
			}
		}
	}
	mid := g.projects / 2
	s.SampleProject = g.proj(mid)
	for f := g.files / 2; f < g.files+g.files/2; f++ {
		if ff := f % g.files; g.langs[mid][ff] == langGo {
			s.EditFile = g.filePath(mid, ff)
			break
		}
	}
	// A package of the last project: never imported by a project before it.
	last := g.projects - 1
	if last == mid {
		last = 0
	}
	for k := range g.goIn[last] {
		if len(g.goIn[last][k]) > 0 {
			s.ToggleImport = g.importPath(last, k)
			break
		}
	}
	s.Out = abs
	return s, nil
}
