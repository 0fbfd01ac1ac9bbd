package workspace

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/corehq/core/internal/manifest"
)

// pythonUse is what a Python project uses, as its files say.
type pythonUse struct {
	pytest bool // configured, required, a conftest.py, or a test without unittest
	ruff   bool // configured or required
	// tests are its test files (test_*.py, *_test.py), relative to the
	// project; unittest marks those that import unittest.
	tests    []string
	unittest map[string]bool
}

// python is the project of the Python manifest in dir: a test target
// with the runner the project uses (pytest, else unittest), and lint
// with ruff when it uses ruff; none that cannot run here (a runner
// python3 cannot import), each left out with why and the fix.
func (s *scaffolder) python(dir, from string) *Scaffolded {
	if s.pythonDirs[dir] {
		return nil // its pyproject.toml, setup.cfg or setup.py made it one
	}
	if s.pythonDirs == nil {
		s.pythonDirs = map[string]bool{}
	}
	s.pythonDirs[dir] = true
	abs := filepath.Join(s.root, filepath.FromSlash(dir))
	use := s.pythonUse(abs)
	p := &Scaffolded{Path: dir, From: from}
	if !s.o.Runs(abs, "python3", "--version") {
		p.Skipped = append(p.Skipped, "no targets: python3 does not run here; install it, then run core init --force")
		return p
	}
	switch {
	case len(use.tests) == 0 && !use.pytest:
		p.Skipped = append(p.Skipped, "no test target: no test files (test_*.py, *_test.py) and no pytest configuration")
	case use.pytest && s.o.Runs(abs, "python3", "-c", "import pytest"):
		p.targets = append(p.targets, scaffoldTarget{name: "test", run: []string{"python3", "-m", "pytest"}})
	case use.pytest && len(use.tests) > 0 && len(use.unittest) == len(use.tests):
		p.targets = append(p.targets, scaffoldTarget{name: "test", run: unittestArgv(abs, use.tests)})
		p.Skipped = append(p.Skipped, "test runs unittest: the project names pytest, which python3 cannot import here; with pytest installed\n(python3 -m pip install pytest), run: [python3, -m, pytest]")
	case use.pytest:
		p.Skipped = append(p.Skipped, "no test target: the tests are pytest's, which python3 cannot import here; install it\n(python3 -m pip install pytest), then add test: {run: [python3, -m, pytest]}")
	default:
		p.targets = append(p.targets, scaffoldTarget{name: "test", run: unittestArgv(abs, use.tests)})
	}
	if i := slices.IndexFunc(p.targets, func(t scaffoldTarget) bool { return t.name == "test" }); i >= 0 {
		if pkg := srcPackage(abs); pkg != "" && !s.o.Runs(abs, "python3", "-c", "import "+pkg) {
			// src layout, not installed: the tests import it from src/
			p.targets[i].run = append([]string{"env", "PYTHONPATH=src"}, p.targets[i].run...)
		}
	}
	if use.ruff {
		switch {
		case s.o.Runs(abs, "ruff", "--version"):
			p.targets = append(p.targets, scaffoldTarget{name: "lint", run: []string{"ruff", "check", "."}})
		case s.o.Runs(abs, "python3", "-m", "ruff", "--version"):
			p.targets = append(p.targets, scaffoldTarget{name: "lint", run: []string{"python3", "-m", "ruff", "check", "."}})
		default:
			p.Skipped = append(p.Skipped, "no lint target: the project uses ruff, which is not installed here; install it\n(python3 -m pip install ruff), then add lint: {run: [ruff, check, .]}")
		}
	}
	return p
}

// unittestArgv runs the unittest tests: discovery from the project
// directory when every test file is at its root or in packages (unittest
// recurses into packages only), else from the one directory that holds
// them; with the pattern that matches their names.
func unittestArgv(abs string, tests []string) []string {
	argv := []string{"python3", "-m", "unittest", "discover"}
	dirs := map[string]bool{}
	for _, t := range tests {
		dirs[path.Dir(t)] = true
	}
	packages := true
	for d := range dirs {
		for x := d; x != "."; x = path.Dir(x) {
			if _, err := os.Stat(filepath.Join(abs, filepath.FromSlash(x), "__init__.py")); err != nil {
				packages = false
			}
		}
	}
	if !packages && len(dirs) == 1 {
		for d := range dirs {
			argv = append(argv, "-s", d)
		}
	}
	prefix, suffix := 0, 0
	for _, t := range tests {
		if strings.HasPrefix(path.Base(t), "test") {
			prefix++
		} else {
			suffix++
		}
	}
	switch {
	case suffix > 0 && prefix == 0:
		argv = append(argv, "-p", "*_test.py")
	case suffix > 0:
		argv = append(argv, "-p", "*test*.py")
	}
	return argv
}

// srcPackage is a package of a src layout (src/NAME/__init__.py), which
// Python imports only once the project is installed or src is on its
// path; "" when the project has none.
func srcPackage(abs string) string {
	entries, err := os.ReadDir(filepath.Join(abs, "src"))
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(abs, "src", e.Name(), "__init__.py")); err == nil && e.IsDir() && pyIdentifier().MatchString(e.Name()) {
			return e.Name()
		}
	}
	return ""
}

var pyIdentifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

var importsUnittest = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:import\s+unittest|from\s+unittest(?:\.\w+)*\s+import)\b`)
})

// pythonUse reads what a project uses: its pyproject.toml (tool tables,
// dependencies of every kind), setup.cfg, pytest.ini, tox.ini,
// requirements files, ruff.toml, conftest.py and its test files.
func (s *scaffolder) pythonUse(abs string) pythonUse {
	use := pythonUse{unittest: map[string]bool{}}
	requires := func(name string) {
		switch strings.ToLower(name) {
		case "pytest":
			use.pytest = true
		case "ruff":
			use.ruff = true
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(abs, name))
		return err == nil
	}
	if data, err := manifest.Read(abs, "pyproject.toml"); err == nil {
		if pp, err := manifest.ParsePyproject(data); err == nil {
			use.pytest = use.pytest || slices.Contains(pp.Tools, "pytest")
			use.ruff = use.ruff || slices.Contains(pp.Tools, "ruff")
			for _, r := range pp.Requires {
				requires(r.Name)
			}
			for _, name := range pp.Poetry {
				requires(name)
			}
		}
	}
	for _, f := range []struct{ name, section string }{{"setup.cfg", "[tool:pytest]"}, {"tox.ini", "[pytest]"}, {"pytest.ini", ""}} {
		if data, err := os.ReadFile(filepath.Join(abs, f.name)); err == nil && strings.Contains(string(data), f.section) {
			use.pytest = true
		}
	}
	use.pytest = use.pytest || exists("conftest.py")
	use.ruff = use.ruff || exists("ruff.toml") || exists(".ruff.toml")
	if files, err := filepath.Glob(filepath.Join(abs, "requirements*.txt")); err == nil {
		for _, f := range files {
			data, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(data), "\n") {
				if r, ok := manifest.ParseRequirement(line); ok {
					requires(r.Name)
				}
			}
		}
	}
	// The test files, of this project only (not a nested one's).
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			relRoot := filepath.ToSlash(must(filepath.Rel(s.root, p)))
			if skippedDir(d.Name(), relRoot, s.rule) || d.Name() == "build" || d.Name() == "dist" {
				return filepath.SkipDir
			}
			for _, m := range []string{"pyproject.toml", "setup.py", "setup.cfg", "go.mod", "package.json"} {
				if _, err := os.Stat(filepath.Join(p, m)); err == nil {
					return filepath.SkipDir // another project
				}
			}
			return nil
		}
		base := d.Name()
		if !strings.HasSuffix(base, ".py") || !(strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")) {
			return nil
		}
		use.tests = append(use.tests, rel)
		data, _ := os.ReadFile(p)
		if importsUnittest().Match(data) && strings.Contains(string(data), "TestCase") {
			use.unittest[rel] = true
		} else {
			use.pytest = true // a test unittest would not find: pytest's
		}
		return nil
	})
	slices.Sort(use.tests)
	return use
}

func must(s string, _ error) string { return s }
