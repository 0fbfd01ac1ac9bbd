package diff

import (
	"github.com/corehq/core/internal/fsx"

	"path"
	"slices"
	"strings"

	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/workspace"
)

// role says what a changed file is to a reviewer. The first rule that
// holds wins, in this order:
//
//  1. config by name: targets.yaml, go.mod, package.json, ... (configNames),
//     wherever they are, owned by a project or not;
//  2. unclaimed: no project owns it;
//  3. generated: a declared target's outputs match it (the runner's rule);
//  4. config by extension (configExts: .yaml, .toml, ...);
//  5. test: the test conventions of Go, TypeScript/JavaScript and Python,
//     or a path through test/, tests/, __tests__ or testdata/;
//  6. doc: Markdown, reStructuredText, text, or a path through docs/;
//  7. source: everything else.
func role(ws *workspace.Workspace, project *workspace.Project, p string) string {
	base := path.Base(p)
	if configNames[base] {
		return RoleConfig
	}
	if project == nil {
		return RoleUnclaimed
	}
	for _, pr := range ws.Projects {
		rel, ok := under(pr.Path, p)
		if !ok {
			continue
		}
		for _, t := range pr.Targets {
			if inputs.OutputMatch(t, rel) {
				return RoleGenerated
			}
		}
	}
	ext := path.Ext(base)
	switch {
	case configExts[ext]:
		return RoleConfig
	case isTest(p, base):
		return RoleTest
	case docExts[ext] || hasDir(p, "docs", "doc"):
		return RoleDoc
	}
	return RoleSource
}

// configNames are files that configure a build, a toolchain or core.
var configNames = map[string]bool{
	"targets.yaml": true, "go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	"package.json": true, "package-lock.json": true, "pnpm-lock.yaml": true, "yarn.lock": true,
	"tsconfig.json": true, "jsconfig.json": true, ".npmrc": true, ".nvmrc": true,
	"pyproject.toml": true, "setup.py": true, "setup.cfg": true, "requirements.txt": true, "poetry.lock": true, "uv.lock": true,
	"Cargo.toml": true, "Cargo.lock": true, "Makefile": true, "Dockerfile": true, ".dockerignore": true,
	".gitignore": true, ".gitattributes": true, ".editorconfig": true, "buf.yaml": true, "buf.gen.yaml": true,
}

// configExts are extensions of configuration by nature.
var configExts = map[string]bool{".yaml": true, ".yml": true, ".toml": true, ".ini": true, ".cfg": true, ".conf": true, ".env": true}

var docExts = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true}

// isTest applies the languages' test-file conventions.
func isTest(p, base string) bool {
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"):
		return true
	}
	for _, marker := range []string{".test.", ".spec."} {
		if i := strings.Index(base, marker); i > 0 {
			return true
		}
	}
	return hasDir(p, "test", "tests", "__tests__", "testdata")
}

// hasDir reports whether a directory of p (not its base name) is one of
// names.
func hasDir(p string, names ...string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		if slices.Contains(names, d) {
			return true
		}
	}
	return false
}

// under returns f relative to the project directory dir, if it is inside.
func under(dir, f string) (string, bool) { return fsx.Under(dir, f) }

// testedBy is the file a test file tests, by the same conventions (""
// when p is not a test or names none): x_test.go tests x.go, x.test.ts
// x.ts, test_x.py and x_test.py x.py.
func testedBy(p string) string {
	dir, base := path.Dir(p), path.Base(p)
	join := func(name string) string {
		if dir == "." {
			return name
		}
		return dir + "/" + name
	}
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return join(strings.TrimSuffix(base, "_test.go") + ".go")
	case strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"):
		return join(strings.TrimPrefix(base, "test_"))
	case strings.HasSuffix(base, "_test.py"):
		return join(strings.TrimSuffix(base, "_test.py") + ".py")
	}
	for _, marker := range []string{".test.", ".spec."} {
		if i := strings.Index(base, marker); i > 0 {
			return join(base[:i] + "." + base[i+len(marker):])
		}
	}
	return ""
}
