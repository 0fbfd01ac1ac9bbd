// Package workspace loads the workspace target file, targets.yaml: the one
// place a monorepo declares its projects, their targets (argv commands with
// dependencies and inputs) and its spells (named tool commands).
//
// Everything downstream (the knowledge graph, the runner, the plan, the
// console) starts from the *Workspace this package returns, so the loader is
// strict: it walks the YAML nodes itself, resolves every dependency, rejects
// cycles, and reports every problem at once with its line, column and field
// path, in words that say how to fix it. A file that loads is a file every
// other package can trust without re-checking.
//
// Decisions the design leaves open, taken here:
//   - path is required ("." names the root) and two projects cannot share
//     one; nested project directories are fine.
//   - Names (projects, targets, spells) match [a-z0-9][a-z0-9_-]*, so a
//     dependency string "project:target" or "^target" is never ambiguous.
//   - Globs (inputs, outputs, docs) are relative and cannot climb out with
//     "..": a target that needs another project's files depends on its
//     target instead.
//   - Absent inputs mean every file of the project ("**/*"); inputs: []
//     means none. An empty value (key with nothing after it) reads as absent.
//   - A dependency string listed twice is a problem; "^build" expanding to
//     a target also named explicitly is not.
//   - Anchors and aliases work (within a budget); merge keys (<<) do not,
//     because they make "which key wins" invisible in review.
//   - Cycles are reported once per strongly connected group, as the
//     shortest cycle through its alphabetically first member.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// FileName is the name of the target file at the workspace root.
const FileName = "targets.yaml"

// DefaultDocs returns the doc globs used when targets.yaml has no docs key.
func DefaultDocs() []string { return []string{"docs/**/*.md", "**/README.md"} }

// DefaultInputs returns the input globs of a target that declares none: every
// file of its project.
func DefaultInputs() []string { return []string{"**/*"} }

// Workspace is a parsed, fully resolved targets.yaml.
type Workspace struct {
	Root     string     // absolute root dir ("" when parsed from bytes)
	Projects []*Project // sorted by Name
	Spells   []*Spell   // sorted by Name
	Docs     []string   // doc globs, relative to Root
	// GlobalInputs are globs relative to Root whose files are part of every
	// target's cache key (global_inputs:); the lockfiles of DefaultGlobalInputs
	// are always among them.
	GlobalInputs []string
	// Env names the environment variables (top-level env:) whose values
	// are in every target's key, as a target's own env: would put them in
	// its key; PassEnv those passed to every target without being in its
	// key (top-level pass_env:). Both sorted, unique; PassEnv may hold
	// prefixes written PREFIX*. package targetenv says what else a target
	// gets.
	Env, PassEnv []string
	// ImportsKnown says that the projects' Imports were read (WithImports).
	// Until they are, every project counts as a dependency of every other
	// in the cache keys and the affected sets: a key that missed an import
	// would replay a result for code that changed.
	ImportsKnown bool
}

// WithImports returns a copy of w whose projects carry the dependencies
// their imports imply (by project name; see Project.Imports), leaving
// out those targets.yaml or a manifest already names. w is not changed:
// a server shares it between requests.
func (w *Workspace) WithImports(imports map[string][]InferredDep) *Workspace {
	out := *w
	out.ImportsKnown = true
	out.Projects = make([]*Project, len(w.Projects))
	for i, p := range w.Projects {
		cp := *p
		cp.Imports = nil
		for _, d := range imports[p.Name] {
			named := func(m InferredDep) bool { return m.Project == d.Project }
			if d.Project == p.Name || w.Project(d.Project) == nil || slices.Contains(p.Deps, d.Project) ||
				slices.ContainsFunc(p.Inferred, named) || slices.ContainsFunc(cp.Imports, named) {
				continue
			}
			cp.Imports = append(cp.Imports, d)
		}
		slices.SortFunc(cp.Imports, func(a, b InferredDep) int { return strings.Compare(a.Project, b.Project) })
		out.Projects[i] = &cp
	}
	return &out
}

// DefaultGlobalInputs are the files at the workspace root that are part of
// every target's key when they exist: the package managers' lockfiles and
// Go's workspace files. A dependency upgrade there rebuilds everything.
func DefaultGlobalInputs() []string {
	return []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb", "go.work", "go.work.sum", "uv.lock", "poetry.lock"}
}

// Manifests are the files at a project's root that are inputs of every
// target of the project, whatever its inputs: what a package manager or a
// toolchain reads to build it (scripts, dependencies, module paths).
var Manifests = []string{"package.json", "go.mod", "go.sum", "pyproject.toml"}

// Project is a directory of the workspace with its targets.
type Project struct {
	Name    string
	Path    string    // cleaned, slash-separated, relative to the root; "." is the root
	Deps    []string  // declared project dependencies, sorted, unique
	Targets []*Target // sorted by Name
	Line    int       // line of the project's key in targets.yaml
	// Inferred are the dependencies its manifests name (a package.json
	// dependency on a sibling package, a go.mod replace or require of a
	// sibling module, a pyproject.toml path or uv workspace dependency)
	// that targets.yaml does not declare; Load finds them (inferDeps).
	Inferred []InferredDep
	// Imports are the dependencies its source files' imports imply that
	// neither targets.yaml nor a manifest names (a Go package of the same
	// module, a relative TypeScript import, a Python import into another
	// project's directory), each From the first importing file. The index
	// reads them; WithImports sets them. They are in the cache keys and
	// the affected sets, and do not expand ^target.
	Imports []InferredDep

	pathLine, pathColumn int // where path is written, for Load's disk check
	// scripts are the names of the scripts of its package.json, as Load
	// read it (nil when it read none): Script.
	scripts map[string]bool
}

// Script reports whether the project's package.json, as Load read it,
// defines the script name; known is false when Load read no package.json
// of the project (there is none, or the workspace was not loaded by Load).
func (p *Project) Script(name string) (has, known bool) {
	if p.scripts == nil {
		return false, false
	}
	return p.scripts[name], true
}

// Target is a command of a project.
type Target struct {
	Project string
	Name    string
	Run     []string // argv; cwd is the project directory
	Inputs  []string // globs relative to the project (default ["**/*"])
	// InputsDefault is set when targets.yaml gives no inputs: then the
	// target reads every file of its project that git does not ignore.
	InputsDefault bool
	// RootInputs are input globs relative to the workspace root (written
	// //glob in targets.yaml).
	RootInputs []string
	Outputs    []string // globs relative to the project
	Drift      bool     // run against HEAD by check-drift; output means stale
	// Coverage is the coverage file a run writes (a Go cover profile or
	// lcov), relative to the project; one of Outputs matches it. "" for none.
	Coverage string
	// Env names the environment variables whose values are part of the
	// cache key (sorted, unique); other variables are not. In strict mode
	// (package targetenv) they are also what, with PassEnv, the base and
	// the workspace's lists, reaches the target's process.
	Env []string
	// PassEnv names the variables passed to the target without being in
	// its key (credentials, proxies, certificates): sorted, unique, with
	// prefixes written PREFIX*.
	PassEnv []string
	// Toolchain is the argv of a command printing the version of the
	// toolchain the target builds with; its output is in the cache key.
	// Empty for none.
	Toolchain []string
	Deps      []string // resolved "project:target" ids, sorted, unique
	// DependencyInputs says whether the inputs of the projects its project
	// depends on (transitively) are in its key: DependencyInputsAll (the
	// default) or DependencyInputsNone, for a target that reads nothing of
	// them (a formatter, a linter of its own files).
	DependencyInputs string
	// FromDefaults are the keys of its declaration it takes from the
	// defaults: of its name (sorted): the rest it writes itself. Every
	// field above holds what it ends up with, defaults applied.
	FromDefaults []string
	// caret are the names of its ^target dependencies, which Load expands
	// again over the inferred project dependencies.
	caret []string
	id    string // ID, made once by the parser: a run asks it thousands of times
	Line  int    // line of the target's key in targets.yaml
}

// The values of a target's dependency_inputs.
const (
	DependencyInputsAll  = "all"
	DependencyInputsNone = "none"
)

// InferredDep is a project dependency a manifest or an import names.
type InferredDep struct {
	Project string // the project depended on
	From    string // the manifest or importing file that says so, relative to the root
}

// AllDeps is every project p depends on: declared, then inferred from
// manifests, then from imports.
func (p *Project) AllDeps() []string {
	out := append([]string(nil), p.Deps...)
	for _, d := range p.Inferred {
		out = append(out, d.Project)
	}
	for _, d := range p.Imports {
		out = append(out, d.Project)
	}
	return out
}

// ReadsDependencies reports whether the inputs of t's project's
// dependencies are in t's key (dependency_inputs is not none).
func (t *Target) ReadsDependencies() bool { return t.DependencyInputs != DependencyInputsNone }

// ID returns the target's id, "project:target".
func (t *Target) ID() string {
	if t.id != "" {
		return t.id
	}
	return t.Project + ":" + t.Name
}

// Spell is a named tool command run from the workspace root.
type Spell struct {
	Name        string
	Run         []string
	Description string
	Line        int
}

// Project returns the project called name, or nil.
func (w *Workspace) Project(name string) *Project {
	// Projects are sorted by name: a search, since the runner asks for
	// every dependency of every target (a scan was a tenth of a cached
	// run of 200 projects). A workspace put together out of order (a
	// test's) still answers, by the scan.
	if i, ok := slices.BinarySearchFunc(w.Projects, name, func(p *Project, name string) int { return strings.Compare(p.Name, name) }); ok {
		return w.Projects[i]
	}
	for _, p := range w.Projects {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Target returns the target with id "project:target", or nil.
func (w *Workspace) Target(id string) *Target {
	project, name, ok := strings.Cut(id, ":")
	if !ok {
		return nil
	}
	p := w.Project(project)
	if p == nil {
		return nil
	}
	return p.Target(name)
}

// TargetIDs lists every declared target as "project:target", in the
// workspace's order: projects by name, then their targets by name.
func (w *Workspace) TargetIDs() []string {
	var ids []string
	for _, p := range w.Projects {
		for _, t := range p.Targets {
			ids = append(ids, t.ID())
		}
	}
	return ids
}

// Target returns the project's target called name, or nil.
func (p *Project) Target(name string) *Target {
	for _, t := range p.Targets {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// ErrNotFound is matched (errors.Is) by the error Find returns when no
// directory above the start holds a targets.yaml.
var ErrNotFound = errors.New("workspace not found")

type notFoundError struct {
	start string
	repo  string // the top of the git repository holding start, if any
}

func (e *notFoundError) Error() string {
	suggest := "core init"
	if e.repo != "" && e.repo != e.start {
		suggest += " " + e.repo
	}
	return fmt.Sprintf("no %s in %s or any parent directory: run core inside a workspace, pass --workspace DIR, or make one with `%s` (it writes a %s for the projects it finds)", FileName, e.start, suggest, FileName)
}

// repoTop is the nearest directory at or above dir that holds .git, or "".
func repoTop(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// Find walks up from start to the first directory holding targets.yaml and
// returns that directory as an absolute path.
func Find(start string) (string, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find workspace from %s: %w", start, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("find workspace from %s: %w", start, err)
	}
	dir := abs
	if !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &notFoundError{start: abs, repo: repoTop(abs)}
		}
		dir = parent
	}
}

// Load reads root/targets.yaml, parses it and checks that every project
// directory exists under root. Problems come back as an *Error.
func Load(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", root, err)
	}
	data, err := os.ReadFile(filepath.Join(abs, FileName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("load workspace: no %s in %s (pass --workspace DIR pointing at the directory that holds it): %w", FileName, abs, err)
		}
		return nil, fmt.Errorf("load workspace: %w", err)
	}
	ws, problems := parse(FileName, data)
	for _, p := range ws.Projects {
		problems = append(problems, checkDir(abs, p)...)
	}
	if len(problems) == 0 {
		problems = inferDeps(abs, ws)
	}
	if len(problems) > 0 {
		return nil, newError(problems)
	}
	ws.Root = abs
	return ws, nil
}

func checkDir(root string, p *Project) []Problem {
	dir := filepath.Join(root, filepath.FromSlash(p.Path))
	fi, err := os.Stat(dir)
	var msg string
	switch {
	case errors.Is(err, os.ErrNotExist):
		msg = fmt.Sprintf("project directory %s does not exist under the workspace root %s: create it or fix path", quote.Short(p.Path), root)
	case err != nil:
		msg = fmt.Sprintf("project directory %s cannot be read: %v", quote.Short(p.Path), err)
	case !fi.IsDir():
		msg = fmt.Sprintf("project path %s is a file, not a directory: point path at the project's directory", quote.Short(p.Path))
	default:
		return nil
	}
	return []Problem{{File: FileName, Line: p.pathLine, Column: p.pathColumn, Field: "projects." + p.Name + ".path", Message: msg}}
}

// Parse parses targets.yaml content. filename is used in problem positions
// only. Problems come back as an *Error listing every one of them.
func Parse(filename string, data []byte) (*Workspace, error) {
	ws, problems := parse(filename, data)
	if len(problems) > 0 {
		return nil, newError(problems)
	}
	return ws, nil
}
