package workspace

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/internal/manifest"
)

// goWork is the root's go.work: the module directories it uses.
type goWork struct {
	use []string // cleaned, relative to the root
}

// readGoWork reads the root's go.work; nil when there is none, or go
// cannot read it (go reports that on the first run).
func readGoWork(root string) *goWork {
	data, err := manifest.Read(root, "go.work")
	if err != nil {
		return nil
	}
	wf, err := manifest.ParseGoWork("go.work", data)
	if err != nil {
		return nil
	}
	w := &goWork{}
	for _, u := range wf.Use {
		w.use = append(w.use, path.Clean(filepath.ToSlash(u.Path)))
	}
	return w
}

// goModule is the project of the go.mod in dir: build, test and vet of
// every package of the module. Under a go.work, a module it does not use
// is none: go refuses to build it there.
func (s *scaffolder) goModule(dir string) *Scaffolded {
	if s.work != nil && !slices.Contains(s.work.use, dir) {
		s.note("%s/go.mod is not among go.work's modules, so go refuses to build it from the workspace: no project for it (add it with `go work use ./%s`, then run core init --force)", dir, strings.TrimPrefix(dir, "./"))
		return nil
	}
	return &Scaffolded{Path: dir, From: "go.mod", targets: []scaffoldTarget{
		{name: "build", run: []string{"go", "build", "./..."}},
		{name: "test", run: []string{"go", "test", "./..."}},
		{name: "vet", run: []string{"go", "vet", "./..."}},
	}}
}
