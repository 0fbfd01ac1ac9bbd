package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDoctorFindsTheProgramBehindAWrapper(t *testing.T) {
	for _, c := range []struct {
		argv       []string
		shell, npx string
	}{
		{[]string{"sh", "-c", "tsc -b && node dist/x.js"}, "tsc", ""},
		{[]string{"bash", "-c", "  eslint ."}, "eslint", ""},
		{[]string{"sh", "-c", "cd web && vite build"}, "", ""}, // a builtin first: not a program
		{[]string{"sh", "-c", "./scripts/gen"}, "", ""},        // a path: not on the PATH
		{[]string{"sh", "script.sh"}, "", ""},
		{[]string{"npx", "prettier", "--check", "."}, "", "prettier"},
		{[]string{"npx", "--yes", "-p", "typescript", "tsc"}, "", "tsc"},
		{[]string{"npx", "prettier@3", "."}, "", ""}, // a spec with a version: npx's to resolve
		{[]string{"npx", "-c", "eslint ."}, "", ""},
		{[]string{"npm", "run", "build"}, "", ""},
	} {
		if got, _ := shellProgram(c.argv); got != c.shell {
			t.Errorf("shellProgram(%q) = %q, want %q", c.argv, got, c.shell)
		}
		if got, ok := npxProgram(c.argv); ok && got != c.npx || !ok && c.npx != "" {
			t.Errorf("npxProgram(%q) = %q, %v, want %q", c.argv, got, ok, c.npx)
		}
	}
}

func TestDoctorFindsTheProgramUvAndPoetryRun(t *testing.T) {
	for _, c := range []struct {
		argv            []string
		runner, program string
	}{
		{[]string{"uv", "run", "pytest", "-q"}, "uv", "pytest"},
		{[]string{"uv", "run", "--frozen", "--with", "rich", "ruff", "check"}, "uv", "ruff"},
		{[]string{"uv", "run", "python", "-m", "pytest.main"}, "uv", "pytest"},
		{[]string{"uv", "run", "python3", "script.py"}, "", ""}, // the interpreter is always there
		{[]string{"poetry", "run", "-C", "sub", "mypy", "."}, "poetry", "mypy"},
		{[]string{"uv", "run", "./scripts/x"}, "", ""},
		{[]string{"uv", "sync"}, "", ""},
		{[]string{"pip", "run", "x"}, "", ""},
	} {
		runner, program, ok := envRunProgram(c.argv)
		if ok != (c.runner != "") || runner != c.runner || program != c.program {
			t.Errorf("envRunProgram(%q) = %q %q %v, want %q %q", c.argv, runner, program, ok, c.runner, c.program)
		}
	}
}

func TestDoctorSaysWhereUvAndPoetryFindAProgram(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("uv.lock", "version = 1\n\n[[package]]\nname = \"ruff\"\nversion = \"0.6.0\"\n")
	write("api/pyproject.toml", "[project]\nname = \"api\"\ndescription = \"mypy checks it\"\n[dependency-groups]\ndev = [\"Pytest_Cov>=5\", \"hypothesis [cli]; python_version>'3.9'\"]\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n")
	write(".venv/bin/black", "")
	write("web/poetry.lock", "[[package]]\nname = \"flake8\"\n")
	write("web/pyproject.toml", "[tool.poetry.group.dev.dependencies]\nisort = \"^5\"\n")
	api, web := filepath.Join(root, "api"), filepath.Join(root, "web")
	runs := map[envRun][]string{
		{"uv", "black", api, root}:       {"api:fmt"},
		{"uv", "ruff", api, root}:        {"api:lint"},
		{"uv", "ruff", web, root}:        {"web:ruff"}, // the same answer: one line
		{"uv", "pytest-cov", api, root}:  {"api:cov"},
		{"uv", "hypothesis", api, root}:  {"api:fuzz"},
		{"uv", "mypy", api, root}:        {"api:types"},
		{"uv", "tests", api, root}:       {"api:odd"},
		{"poetry", "flake8", web, root}:  {"web:lint"},
		{"poetry", "isort", web, root}:   {"web:sort"},
		{"poetry", "pyright", web, root}: {"web:types"},
	}
	want := map[string]string{
		"uv run black":       "ok (in .venv",
		"uv run ruff":        "ok (uv.lock names ruff; uv run installs it on the first run",
		"uv run pytest-cov":  "ok (api/pyproject.toml names",
		"uv run hypothesis":  "ok (api/pyproject.toml names",
		"uv run mypy":        "not a dependency", // a description mentions it, as prose
		"uv run tests":       "not a dependency", // a setting's value, not a requirement
		"poetry run flake8":  "ok (web/poetry.lock names flake8; poetry's environment is not in the project",
		"poetry run isort":   "ok (web/pyproject.toml names isort",
		"poetry run pyright": "not a dependency",
	}
	lines := envRunLines(runs)
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %v", len(lines), len(want), lines)
	}
	for _, l := range lines {
		name, rest, _ := strings.Cut(strings.TrimPrefix(l.line, "tool "), ": ")
		if name == "uv run ruff" && !strings.Contains(rest, "used by api:lint, web:ruff") {
			t.Errorf("the projects with the same answer are not on one line: %s", rest)
		}
		if !strings.HasPrefix(rest, want[name]) || l.ok != strings.HasPrefix(want[name], "ok") {
			t.Errorf("%s: %v %q, want it to start %q", name, l.ok, rest, want[name])
		}
	}
}

// TestDoctorFindsAModuleWithoutRunningTheRepositorysCode: python3 -m
// pkg.cli in a cloned repository is found, and pkg's __init__.py does not
// run (find_spec of a dotted name would import pkg).
func TestDoctorFindsAModuleWithoutRunningTheRepositorysCode(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "__init__.py"), []byte("open("+strconv.Quote(ran)+", 'w').write('x')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "cli.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := moduleLines(context.Background(), map[pyModule][]string{
		{python: "python3", module: "pkg.cli", dir: dir}:               {"a:own"},
		{python: "python3", module: "core_no_such_module.x", dir: dir}: {"a:gone"},
	})
	want := map[string]bool{"tool python3 -m pkg.cli: ok (used by a:own)": true}
	for _, l := range lines {
		if want[l.line] != l.ok || !l.ok && !strings.Contains(l.line, "cannot import core_no_such_module.x") {
			t.Errorf("%v %s", l.ok, l.line)
		}
	}
	if len(lines) != 2 {
		t.Errorf("%d lines: %v", len(lines), lines)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("doctor ran the repository's pkg/__init__.py")
	}
}
