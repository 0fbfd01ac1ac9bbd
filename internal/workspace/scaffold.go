package workspace

// core init: find the projects of a repository and write a targets.yaml
// whose targets run on the first try. Each kind of project has its file:
// scaffold_node.go (npm, pnpm, yarn and bun workspaces), scaffold_go.go
// (Go modules, go.work), scaffold_python.go (pytest, unittest, ruff).

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/ignore"
)

// ScaffoldOptions are what Scaffold asks of its caller.
type ScaffoldOptions struct {
	// Environment writes the top-level section of what the tools of the
	// manifests found need of the environment (the target environment's
	// home knows that); nil writes none.
	Environment func(manifests []string) string
	// Runs reports whether argv exits 0 in dir (absolute): whether a tool
	// is installed, a module imports. Scaffold writes no target it knows
	// cannot run. nil answers yes to everything.
	Runs func(dir string, argv ...string) bool
}

// Scaffolding is what Scaffold found and wrote.
type Scaffolding struct {
	Projects []Scaffolded
	// Text is the targets.yaml written for them.
	Text string
	// Notes are what the user should know before the first run, each a
	// sentence that names what to do (install the workspace's packages,
	// a module go.work leaves out).
	Notes []string
}

// Next are the names of the targets written, the usual ones first
// (build, test, then the rest in order): what core init's "next" line
// runs.
func (s *Scaffolding) Next() []string {
	var names []string
	for _, p := range s.Projects {
		for _, t := range p.targets {
			if !slices.Contains(names, t.name) {
				names = append(names, t.name)
			}
		}
	}
	rank := func(n string) int {
		if i := slices.Index([]string{"build", "test", "vet", "lint"}, n); i >= 0 {
			return i
		}
		return 4
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return names
}

// Scaffold finds the projects of the repository at root and writes a
// targets.yaml for them: what `core init` offers. It checks that the file
// loads. No project found is no error: Projects is empty.
func Scaffold(root string, o ScaffoldOptions) (*Scaffolding, error) {
	if o.Runs == nil {
		o.Runs = func(string, ...string) bool { return true }
	}
	s := &scaffolder{root: root, o: o, rule: ignore.New(root, filepath.Join(root, ".core"))}
	projects, err := s.discover()
	if err != nil || len(projects) == 0 {
		return &Scaffolding{Projects: projects, Notes: s.notes}, err
	}
	preamble := ""
	if o.Environment != nil {
		var manifests []string
		for _, p := range projects {
			if !slices.Contains(manifests, p.From) {
				manifests = append(manifests, p.From)
			}
		}
		slices.Sort(manifests)
		preamble = o.Environment(manifests)
	}
	text := renderTargets(preamble, projects)
	if _, err := Parse(FileName, []byte(text)); err != nil {
		return nil, fmt.Errorf("init wrote a targets.yaml core does not accept (a bug): %w\n%s", err, text)
	}
	return &Scaffolding{Projects: projects, Text: text, Notes: s.notes}, nil
}

// Scaffolded is a project Scaffold found: its name, directory, the
// manifest that made it one, the targets written for it, and what it
// left out, with why (written as comments above its targets).
type Scaffolded struct {
	Name    string
	Path    string
	From    string
	Skipped []string
	targets []scaffoldTarget
	// node marks a package of a JavaScript workspace: its builds need
	// its dependencies' builds first; manager runs its scripts.
	node    bool
	manager string
}

// scaffoldTarget is a target written for a project.
type scaffoldTarget struct {
	name    string
	run     []string
	outputs []string // nil: none known
}

// TargetNames are the names of the targets written for it.
func (p Scaffolded) TargetNames() []string {
	out := make([]string, len(p.targets))
	for i, t := range p.targets {
		out[i] = t.name
	}
	return out
}

type scaffolder struct {
	root  string
	o     ScaffoldOptions
	rule  *ignore.Rule
	notes []string
	node  *nodeWorkspace
	work  *goWork
	// pythonDirs are the directories a Python manifest made a project.
	pythonDirs map[string]bool
}

func (s *scaffolder) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

var nameUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

// discover walks the root for project manifests.
func (s *scaffolder) discover() ([]Scaffolded, error) {
	s.node = readNodeWorkspace(s.root)
	s.work = readGoWork(s.root)
	var found []Scaffolded
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is not a reason to stop
		}
		rel, _ := filepath.Rel(s.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skippedDir(d.Name(), rel, s.rule) {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		var pr *Scaffolded
		switch d.Name() {
		case "go.mod":
			pr = s.goModule(dir)
		case "package.json":
			pr = s.nodePackage(dir)
		case "pyproject.toml", "setup.py", "setup.cfg":
			pr = s.python(dir, d.Name())
		}
		if pr != nil {
			found = append(found, *pr)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.checkInstalled(found)
	// One project per directory (the first manifest found names it), named
	// after the directory, unique.
	slices.SortStableFunc(found, func(a, b Scaffolded) int { return strings.Compare(a.Path, b.Path) })
	var out []Scaffolded
	used := map[string]bool{}
	for _, p := range found {
		if len(out) > 0 && out[len(out)-1].Path == p.Path {
			continue
		}
		base := filepath.Base(p.Path)
		if p.Path == "." {
			base = filepath.Base(s.root)
		}
		name := strings.Trim(nameUnsafe().ReplaceAllString(strings.ToLower(base), "-"), "-_")
		if name == "" {
			name = "root"
		}
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d", strings.TrimRight(name, "-0123456789"), i)
		}
		used[name] = true
		p.Name = name
		out = append(out, p)
	}
	return out, nil
}

// skippedDir: what is not source (.git, node_modules, dot directories,
// vendor, testdata, Python's environments, what git ignores).
func skippedDir(name, rel string, rule *ignore.Rule) bool {
	switch name {
	case "vendor", "testdata", "__pycache__", "venv", "site-packages":
		return true
	}
	return ignore.NeverName(name) || strings.HasPrefix(name, ".") || rule.Skipped(rel, true)
}

// scaffoldDefaults are the defaults: core init writes: what every target
// of a name shares.
type scaffoldDefault struct {
	name    string
	deps    []string
	outputs []string
	why     string
}

// defaultsFor works out the defaults: of the projects, and the outputs
// each build keeps for itself (by project name).
func defaultsFor(projects []Scaffolded) ([]scaffoldDefault, map[string]bool) {
	declared := map[string]bool{}
	node := false
	for _, p := range projects {
		node = node || p.node
		for _, t := range p.targets {
			declared[t.name] = true
		}
	}
	var out []scaffoldDefault
	ownOutputs := map[string]bool{}
	if declared["build"] {
		d := scaffoldDefault{name: "build"}
		if node {
			d.deps = []string{"^build"}
			d.why = "a package builds after the packages it depends on (package.json)"
		}
		// The outputs most builds share are the default; the others write
		// their own.
		count := map[string]int{}
		for _, p := range projects {
			for _, t := range p.targets {
				if t.name == "build" && len(t.outputs) > 0 {
					count[strings.Join(t.outputs, "\x00")]++
				}
			}
		}
		best, n := "", 0
		for k, c := range count {
			if c > n || (c == n && k < best) {
				best, n = k, c
			}
		}
		if n >= 2 {
			d.outputs = strings.Split(best, "\x00")
		}
		for _, p := range projects {
			for _, t := range p.targets {
				if t.name == "build" && strings.Join(t.outputs, "\x00") != best {
					ownOutputs[p.Name] = true
				}
			}
		}
		if n < 2 {
			clear(ownOutputs)
		}
		if d.deps != nil || d.outputs != nil {
			out = append(out, d)
		}
	}
	if node && declared["build"] {
		for _, name := range []string{"test", "lint"} {
			if !declared[name] {
				continue
			}
			d := scaffoldDefault{name: name, deps: []string{"^build"}, why: "what it imports of the packages it depends on is built"}
			if name == "test" {
				d.deps = []string{"build", "^build"}
				d.why = "it tests what the project builds (where it builds), with what it imports built"
			}
			out = append(out, d)
		}
	}
	return out, ownOutputs
}

// renderTargets writes the projects as targets.yaml.
func renderTargets(preamble string, projects []Scaffolded) string {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=https://raw.githubusercontent.com/corehq/core/main/docs/targets.schema.json\n")
	b.WriteString("# Written by `core init`; docs/targets.md in core's repository describes every field.\n")
	b.WriteString(preamble)
	defaults, ownOutputs := defaultsFor(projects)
	if len(defaults) > 0 {
		b.WriteString("# Every target of a name takes these unless it writes its own (docs/targets.md,\n")
		b.WriteString("# \"Target defaults\"): a dependency on a target its project lacks does not apply.\n")
		b.WriteString("defaults:\n")
		for _, d := range defaults {
			fmt.Fprintf(&b, "  %s:\n", d.name)
			if len(d.deps) > 0 {
				fmt.Fprintf(&b, "    deps: %s", yamlList(d.deps))
				if d.why != "" {
					fmt.Fprintf(&b, "   # %s", d.why)
				}
				b.WriteString("\n")
			}
			if len(d.outputs) > 0 {
				fmt.Fprintf(&b, "    outputs: %s\n", yamlList(d.outputs))
			}
		}
	}
	defaultOutputs := false
	for _, d := range defaults {
		defaultOutputs = defaultOutputs || (d.name == "build" && len(d.outputs) > 0)
	}
	b.WriteString("projects:\n")
	for _, p := range projects {
		fmt.Fprintf(&b, "  %s:\n    path: %s\n", p.Name, yamlScalar(p.Path))
		for _, s := range p.Skipped {
			for _, line := range strings.Split(s, "\n") {
				fmt.Fprintf(&b, "    # %s\n", line)
			}
		}
		if len(p.targets) == 0 {
			continue
		}
		b.WriteString("    targets:\n")
		for _, t := range p.targets {
			fmt.Fprintf(&b, "      %s:\n        run: %s\n", t.name, yamlList(t.run))
			if t.name == "build" && (ownOutputs[p.Name] || !defaultOutputs) && (len(t.outputs) > 0 || defaultOutputs) {
				fmt.Fprintf(&b, "        outputs: %s\n", yamlList(t.outputs))
			}
		}
	}
	return b.String()
}

// yamlList writes a YAML flow sequence of strings, each quoted only when
// YAML would read it as something else.
func yamlList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = yamlScalar(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// yamlScalar quotes s when YAML would read it as something else.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil || strings.ContainsAny(s, "[]{},") || strings.HasPrefix(s, "^") {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSpace(string(out))
}
