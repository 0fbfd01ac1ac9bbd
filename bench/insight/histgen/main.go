// Command histgen writes a git fast-import stream of a large synthetic
// history for the insight benchmark: -commits commits by -authors authors
// over -files files in -projects projects (with a targets.yaml declaring
// them), each commit changing a few files (skewed, so that hotspots exist),
// one commit in -renameEvery renaming a file, and an occasional bulk
// commit. With -storm N it ends on a rename storm: one commit adding N
// identical files, the next moving them all to another folder (git's exact
// rename matching is quadratic in identical files). Pipe it into `git
// fast-import` in an empty repository.
//
//	git init -q big && go run ./bench/insight/histgen | git -C big fast-import --quiet && git -C big checkout -q main
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

func main() {
	commits := flag.Int("commits", 100000, "commits")
	files := flag.Int("files", 20000, "files")
	projects := flag.Int("projects", 200, "projects")
	authors := flag.Int("authors", 60, "authors")
	renameEvery := flag.Int("renameEvery", 100, "one commit in this many renames a file")
	bulkEvery := flag.Int("bulkEvery", 5000, "one commit in this many changes 300 files")
	storm := flag.Int("storm", 0, "end on a commit adding this many identical files and one moving them all")
	flag.Parse()

	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.2, 8, uint64(*files-1))

	paths := make([]string, *files)
	version := make([]int, *files)
	for i := range paths {
		paths[i] = fmt.Sprintf("projects/p%03d/pkg%d/f%05d.go", i%*projects, (i / *projects)%5, i)
	}
	t0 := int64(1_600_000_000)
	step := (int64(1_795_000_000) - t0) / int64(*commits) // up to late 2026
	mark := 0
	blob := func(content string) int {
		mark++
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", mark, len(content), content)
		return mark
	}
	body := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg\n\n// File %d, version %d.\nfunc F%d(x int) int {\n", i, version[i], i)
		for k := 0; k < 3+i%7; k++ {
			fmt.Fprintf(&b, "\tif x > %d {\n\t\tx -= %d\n\t}\n", k*version[i]%97, k+1)
		}
		b.WriteString("\treturn x\n}\n")
		return b.String()
	}
	commit := func(n int, author string, msg string, ops []string) {
		when := t0 + int64(n)*step
		fmt.Fprintf(w, "commit refs/heads/main\nauthor %s <%s@example.com> %d +0000\ncommitter %s <%s@example.com> %d +0000\ndata %d\n%s\n",
			author, strings.ToLower(author), when, author, strings.ToLower(author), when, len(msg), msg)
		for _, op := range ops {
			w.WriteString(op)
		}
		w.WriteString("\n")
	}

	// The first commit: targets.yaml and every file.
	var targets strings.Builder
	targets.WriteString("projects:\n")
	for p := 0; p < *projects; p++ {
		fmt.Fprintf(&targets, "  p%03d:\n    path: projects/p%03d\n    targets:\n      build:\n        run: [\"true\"]\n", p, p)
	}
	var ops []string
	ops = append(ops, fmt.Sprintf("M 100644 :%d targets.yaml\n", blob(targets.String())))
	for i := range paths {
		ops = append(ops, fmt.Sprintf("M 100644 :%d %s\n", blob(body(i)), paths[i]))
	}
	commit(0, "Author00", "initial", ops)

	for n := 1; n < *commits; n++ {
		author := fmt.Sprintf("Author%02d", rng.IntN(*authors))
		ops = ops[:0]
		switch {
		case *bulkEvery > 0 && n%*bulkEvery == 0:
			for k := 0; k < 300; k++ {
				i := rng.IntN(*files)
				version[i]++
				ops = append(ops, fmt.Sprintf("M 100644 :%d %s\n", blob(body(i)), paths[i]))
			}
		case *renameEvery > 0 && n%*renameEvery == 0:
			i := rng.IntN(*files)
			old := paths[i]
			paths[i] = strings.TrimSuffix(old, ".go") + fmt.Sprintf("_r%d.go", n)
			ops = append(ops, fmt.Sprintf("R %s %s\n", old, paths[i]))
		default:
			// A few files, skewed toward the same ones, often in one project.
			k := 1 + rng.IntN(6)
			seen := map[int]bool{}
			first := int(zipf.Uint64())
			for len(seen) < k {
				i := first
				if len(seen) > 0 {
					if rng.IntN(3) == 0 {
						i = int(zipf.Uint64())
					} else {
						i = (first + *projects*(1+rng.IntN(4))) % *files // same project
					}
				}
				if seen[i] {
					i = rng.IntN(*files)
				}
				seen[i] = true
				version[i]++
				ops = append(ops, fmt.Sprintf("M 100644 :%d %s\n", blob(body(i)), paths[i]))
			}
		}
		commit(n, author, fmt.Sprintf("change %d", n), ops)
	}

	if *storm > 0 {
		same := blob("package gen\n")
		var add, move []string
		for i := 0; i < *storm; i++ {
			add = append(add, fmt.Sprintf("M 100644 :%d storm/a/f%05d.go\n", same, i))
			move = append(move, fmt.Sprintf("R storm/a/f%05d.go storm/b/f%05d.go\n", i, i))
		}
		commit(*commits, "Author00", "storm: add", add)
		commit(*commits+1, "Author00", "storm: move", move)
	}
}
