package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// WriteWideWorkspace writes a workspace of projects projects (p00, p01,
// ... under projects/) of files small Go files each, in package
// directories of 50 files that import the next directory of their project:
// a knowledge graph of about projects × (files + files/50) nodes, for the
// explorer's tests and benchmarks at 100k nodes (20 projects of 5,000
// files). Projects depend on the one before them. It writes in parallel
// and returns the number of files written.
func WriteWideWorkspace(dir string, projects, files int) (int, error) {
	const perDir = 50
	var ty strings.Builder
	ty.WriteString("projects:\n")
	for p := 0; p < projects; p++ {
		fmt.Fprintf(&ty, "  p%02d:\n    path: projects/p%02d\n", p, p)
		if p > 0 {
			fmt.Fprintf(&ty, "    deps: [p%02d]\n", p-1)
		}
		ty.WriteString("    targets:\n      build:\n        run: [\"true\"]\n")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	for name, body := range map[string]string{"targets.yaml": ty.String(), "go.mod": "module example.com/wide\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return 0, err
		}
	}
	dirs := (files + perDir - 1) / perDir
	type job struct{ p, d int }
	jobs := make(chan job)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for w := 0; w < max(2, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				pkg := filepath.Join(dir, "projects", fmt.Sprintf("p%02d", j.p), fmt.Sprintf("d%03d", j.d))
				if err := os.MkdirAll(pkg, 0o755); err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				next := fmt.Sprintf("example.com/wide/projects/p%02d/d%03d", j.p, (j.d+1)%dirs)
				for f := j.d * perDir; f < min(files, (j.d+1)*perDir); f++ {
					body := fmt.Sprintf("package d%03d\n\nimport _ %q\n\n// F%05d is file %d of project %d.\nfunc F%05d() int {\n\treturn %d\n}\n", j.d, next, f, f, j.p, f, f)
					if err := os.WriteFile(filepath.Join(pkg, fmt.Sprintf("f%05d.go", f)), []byte(body), 0o644); err != nil {
						select {
						case errs <- err:
						default:
						}
					}
				}
			}
		}()
	}
	for p := 0; p < projects; p++ {
		for d := 0; d < dirs; d++ {
			jobs <- job{p, d}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return projects * files, nil
}
