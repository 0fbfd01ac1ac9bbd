package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/backend"
)

// envRun is a program a target runs in its Python project's environment,
// through uv run or poetry run, from its project's directory.
type envRun struct {
	runner, program, dir, root string
}

// envRunValued are the options of uv run and poetry run that take a value.
var envRunValued = map[string]bool{
	"--with": true, "--with-editable": true, "--with-requirements": true, "--python": true, "-p": true,
	"--package": true, "--group": true, "--only-group": true, "--no-group": true, "--extra": true,
	"--env-file": true, "--directory": true, "--project": true, "--index": true, "--default-index": true,
	"--index-url": true, "--extra-index-url": true, "--find-links": true, "-f": true, "-C": true, "-P": true,
}

// envRunProgram is the program of uv run [options] PROGRAM or poetry run
// PROGRAM; for python -m MODULE, the module. The interpreter itself is
// always in the environment, so it is no program to look for.
func envRunProgram(argv []string) (runner, program string, ok bool) {
	if len(argv) < 3 || (argv[0] != "uv" && argv[0] != "poetry") || argv[1] != "run" {
		return "", "", false
	}
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
		case envRunValued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		case a == "python" || strings.HasPrefix(a, "python3"):
			if i+2 < len(argv) && argv[i+1] == "-m" && moduleName.MatchString(argv[i+2]) {
				return argv[0], strings.SplitN(argv[i+2], ".", 2)[0], true
			}
			return "", "", false
		case plainName.MatchString(a):
			return argv[0], a, true
		default:
			return "", "", false // a path
		}
	}
	return "", "", false
}

// envRunLines says for each program run through uv or poetry whether its
// environment has it: in a .venv of the project or above it, else whether
// a lock file or pyproject.toml names it, so that uv installs it on the
// first run or poetry install does.
func envRunLines(runs map[envRun][]string) []toolLine {
	// Projects that get the same answer share one line.
	type verdict struct {
		ok   bool
		line string // with a NUL where the users go
	}
	byVerdict := map[verdict][]string{}
	for r, used := range runs {
		what := fmt.Sprintf("tool %s run %s", r.runner, r.program)
		var v verdict
		if where := r.installed(); where != "" {
			v = verdict{true, fmt.Sprintf("%s: ok (in %s; used by \x00)", what, where)}
		} else {
			lock := "uv.lock"
			if r.runner == "poetry" {
				lock = "poetry.lock"
			}
			switch named := r.named(lock); {
			case named != "" && r.runner == "uv":
				v = verdict{true, fmt.Sprintf("%s: ok (%s names %s; uv run installs it on the first run; used by \x00)", what, named, r.program)}
			case named != "":
				v = verdict{true, fmt.Sprintf("%s: ok (%s names %s; poetry's environment is not in the project, and doctor does not ask poetry for it: poetry install installs it; used by \x00)", what, named, r.program)}
			case r.runner == "uv":
				v = verdict{false, fmt.Sprintf("%s: not a dependency: no .venv/bin/%s, and neither uv.lock nor pyproject.toml names %s, so uv run fails to spawn it (used by \x00); run uv add --dev %s (if another package provides it, add that one)", what, r.program, r.program, r.program)}
			default:
				v = verdict{false, fmt.Sprintf("%s: not a dependency: neither poetry.lock nor pyproject.toml names %s (used by \x00); run poetry add --group dev %s (if another package provides it, add that one)", what, r.program, r.program)}
			}
		}
		byVerdict[v] = append(byVerdict[v], used...)
	}
	var out []toolLine
	for _, v := range slices.SortedFunc(maps.Keys(byVerdict), func(a, b verdict) int { return strings.Compare(a.line, b.line) }) {
		out = append(out, toolLine{v.ok, strings.Replace(v.line, "\x00", users(byVerdict[v]), 1)})
	}
	return out
}

// installed is where r's environment has its program: a .venv in its
// project's directory or above it, up to the workspace root. Poetry's
// environment elsewhere is not asked for: poetry reads the project's
// pyproject.toml, which can make it install plugins, and doctor runs no
// program a cloned repository can steer.
func (r envRun) installed() string {
	for _, d := range dirsUpTo(r.dir, r.root) {
		if venvHas(filepath.Join(d, ".venv"), r.program) {
			rel, _ := filepath.Rel(r.root, filepath.Join(d, ".venv"))
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

// venvHas reports whether the virtual environment venv has program: a
// script in bin/, or a package or module of that name in site-packages.
func venvHas(venv, program string) bool {
	if _, err := os.Stat(filepath.Join(venv, "bin", program)); err == nil {
		return true
	}
	pkgs, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	for _, sp := range pkgs {
		for _, name := range []string{program, program + ".py"} {
			if _, err := os.Stat(filepath.Join(sp, name)); err == nil {
				return true
			}
		}
	}
	return false
}

// named is the file (lock, else pyproject.toml) nearest above r's project
// that names r's program as a package, or "".
func (r envRun) named(lock string) string {
	want := backend.PyName(r.program)
	for _, d := range dirsUpTo(r.dir, r.root) {
		for _, name := range []string{lock, "pyproject.toml"} {
			rel, err := filepath.Rel(r.root, filepath.Join(d, name))
			if err != nil {
				return ""
			}
			if slices.Contains(backend.PythonPackages(r.root, filepath.ToSlash(rel)), want) {
				return filepath.ToSlash(rel)
			}
		}
	}
	return ""
}
