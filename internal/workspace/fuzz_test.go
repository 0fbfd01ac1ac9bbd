package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/corehq/core/internal/manifest"
)

// FuzzParse checks that no input makes Parse panic, and that every failure
// is an *Error whose problems all carry a line.
func FuzzParse(f *testing.F) {
	for _, path := range corpusFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if i := bytes.Index(data, []byte("\n"+separator)); i >= 0 {
			data = data[:i+1]
		}
		f.Add(data)
	}
	demo, err := os.ReadFile(filepath.Join(demoDir, FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(demo)
	f.Add([]byte("defaults:\n  build: {deps: [\"^build\"], outputs: [dist/]}\n  test: {deps: [build, \"^build\"], coverage: c.out}\nprojects:\n  a: {path: a, targets: {build: {run: [x]}, test: {run: [y], outputs: [c.out]}}}\n  b: {path: b, deps: [a], targets: {build: , test: {run: [z], deps: []}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := Parse(FileName, data)
		if err == nil {
			if ws == nil {
				t.Fatal("nil workspace without an error")
			}
			return
		}
		var perr *Error
		if !errors.As(err, &perr) {
			t.Fatalf("error is %T, want *Error: %v", err, err)
		}
		if len(perr.Problems) == 0 {
			t.Fatal("*Error without problems")
		}
		for _, p := range perr.Problems {
			if p.Line <= 0 {
				t.Fatalf("problem without a line: %+v", p)
			}
		}
	})
}

// FuzzManifests checks that no package.json, pyproject.toml or Python lock
// file makes the manifest readers panic, that a lock's names are
// normalized, that a pyproject.toml that does not parse is a
// problem with a line and column, and that every requirement string
// either reads or is skipped.
func FuzzManifests(f *testing.F) {
	for _, s := range []string{
		`{"name":"@shop/app","dependencies":{"@shop/ui":"workspace:*"}}`,
		"{\n  \"name\": \"x\",\n}",
		"[project]\nname = \"app\"\ndependencies = [\"shop-lib[fast] @ file:../lib ; python_version >= '3.9'\"]\n",
		"[tool.poetry.group.test.dependencies]\nx = [{path = \"../x\"}, {version = \"1\"}]\n",
		"[tool.uv.sources]\nx = { workspace = true }\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [1]\n",
		"[tool.pdm.dev-dependencies]\ndev = [\"-e file:///${PROJECT_ROOT}/../x#egg=x\", 3]\n",
		"[dependency-groups]\ndev = [{include-group = \"x\"}]\n[project.optional-dependencies]\na = \"not a list\"\n",
		"project = 1\ntool = [1]\n",
		"[project]\ndependencies = [\"x @ {root:uri}/../y\"\n",
		"version = 1\n\n[[package]]\nname = \"Ruff_X\"\nversion = \"0.6.0\"\n[[package]]\nname = 3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if names, err := manifest.ParsePyLock(data); err == nil {
			for _, n := range names {
				if n != manifest.PyName(n) {
					t.Fatalf("a locked name is not normalized: %q", n)
				}
			}
		}
		if _, pr := parsePackageJSON("package.json", data); pr != nil && (pr.File == "" || pr.Message == "") {
			t.Fatalf("package.json problem without a file or a message: %+v", pr)
		}
		pp, pr := parsePyproject("pyproject.toml", data)
		if pr != nil {
			if pr.Line <= 0 || pr.Column <= 0 {
				t.Fatalf("pyproject.toml problem without a position: %+v", pr)
			}
			return
		}
		py := pyprojects{root: "/w", mr: manifest.NewReader("/w"), read: map[string]*pyproject{"a": pp}}
		py.depDirs("a", pp)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if r, ok := manifest.ParseRequirement(string(line)); ok && r.URL != "" {
				py.fileURL("a", r.URL)
			}
		}
	})
}
