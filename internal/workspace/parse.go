package workspace

import (
	"github.com/corehq/core/internal/fsx"

	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/yamlx"
)

// The file is read by walking yaml.Nodes rather than decoding into structs:
// that is what lets every problem carry a line, a column and a field path,
// and lets one pass collect all of them instead of stopping at the first.

const namePatternText = "[a-z0-9][a-z0-9_-]*"

var namePattern = regexp.MustCompile(`^` + namePatternText + `$`)

func validName(s string) bool { return namePattern.MatchString(s) }

// Allowed keys at each level, sorted: they are printed as the fix for an
// unknown key.
var (
	rootKeys    = []string{"defaults", "docs", "env", "global_inputs", "pass_env", "projects", "spells"}
	projectKeys = []string{"deps", "path", "targets"}
	targetKeys  = []string{"coverage", "dependency_inputs", "deps", "drift", "env", "inputs", "outputs", "pass_env", "run", "toolchain"}
	spellKeys   = []string{"description", "run"}
)

// maxExpanded bounds the nodes read through aliases, so a small file of
// nested aliases cannot make the walker do exponential work. Sharing a glob
// list between a thousand targets costs a few thousand.
const maxExpanded = 100_000

type parser struct {
	file          string
	problems      []Problem
	expanded      int                // nodes read through aliases so far
	sizes         map[*yaml.Node]int // memo for size
	aliasReported bool
}

// ref is a string read from the file with where it was written, kept until
// the resolve pass has what it needs to judge it.
type ref struct {
	value string
	node  *yaml.Node
	field string
	// inherited marks a dependency a target takes from defaults:, checked
	// once there: resolving it for one target reports nothing.
	inherited bool
}

type rawProject struct {
	p       *Project
	deps    []ref
	targets []*rawTarget
}

type rawTarget struct {
	t    *Target
	deps []ref
}

func parse(filename string, data []byte) (*Workspace, []Problem) {
	p := &parser{file: filename}
	ws := &Workspace{Docs: DefaultDocs()}
	root := p.document(data)
	if root == nil {
		return ws, p.problems
	}
	raws := p.root(root, ws)
	p.resolve(ws, raws)
	return ws, p.problems
}

func (p *parser) at(n *yaml.Node, field, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Column: col, Field: field, Message: fmt.Sprintf(format, args...)})
}

func join(field, key string) string {
	key = quote.Prefix(key)
	if field == "" {
		return key
	}
	return field + "." + key
}

func index(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

func (p *parser) root(n *yaml.Node, ws *Workspace) []*rawProject {
	n = p.deref(n)
	if n == nil {
		return nil
	}
	if isNull(n) {
		p.at(n, "", "the file is empty: declare your projects under a top-level projects: key")
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.at(n, "", "the file must be a mapping with the keys %s, found %s", strings.Join(rootKeys, ", "), yamlx.Describe(n))
		return nil
	}
	f := p.fields(n, "", rootKeys)
	var defaults map[string]*settings
	if e, ok := f["defaults"]; ok {
		defaults = p.defaults(e.Value, "defaults")
	}
	var raws []*rawProject
	if e, ok := f["projects"]; ok {
		raws = p.projects(e.Value, "projects", defaults)
	}
	p.checkDefaults(defaults, raws)
	if e, ok := f["spells"]; ok {
		ws.Spells = p.spells(e.Value, "spells")
	}
	if e, ok := f["docs"]; ok {
		if docs, ok := p.globs(e.Value, "docs", "the workspace root"); ok {
			ws.Docs = docs
		}
	}
	if e, ok := f["global_inputs"]; ok {
		ws.GlobalInputs, _ = p.globs(e.Value, "global_inputs", "the workspace root")
	}
	ws.Env, ws.PassEnv = p.environment(f, "")
	return raws
}

// namedMapping checks that n is a mapping from names to settings and
// returns its entries; a null value means an empty mapping.
func (p *parser) namedMapping(n *yaml.Node, field, what string) []yamlx.Pair {
	n = p.deref(n)
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.at(n, field, "%s must be a mapping from %s name to its settings, found %s", field[strings.LastIndexByte(field, '.')+1:], what, yamlx.Describe(n))
		return nil
	}
	es := p.entries(n, field)
	for _, e := range es {
		if name := e.Key.Value; !validName(name) {
			p.at(e.Key, join(field, name), "invalid %s name %s: use lowercase letters, digits, - and _, starting with a letter or digit (pattern %s)", what, quote.Short(name), namePatternText)
		}
	}
	return es
}

// settings checks that the value of a named entry is a mapping. A null value
// reads as an empty mapping so the missing required keys get reported.
func (p *parser) settings(e yamlx.Pair, field, what string, allowed []string) (map[string]yamlx.Pair, bool) {
	v := p.deref(e.Value)
	if v == nil {
		return nil, false
	}
	if isNull(v) {
		return map[string]yamlx.Pair{}, true
	}
	if v.Kind != yaml.MappingNode {
		msg := fmt.Sprintf("%s %s must be a mapping with the keys %s, found %s", what, quote.Short(e.Key.Value), strings.Join(allowed, ", "), yamlx.Describe(v))
		if v.Kind == yaml.SequenceNode && slices.Contains(allowed, "run") {
			example := "[go, build, ./...]"
			if args := scalars(v); len(args) > 0 {
				example = flowList(args)
			}
			msg += fmt.Sprintf(": put the command under run, e.g. %s: {run: %s}", e.Key.Value, example)
		}
		p.at(v, field, "%s", msg)
		return nil, false
	}
	return p.fields(v, field, allowed), true
}

func (p *parser) projects(n *yaml.Node, field string, defaults map[string]*settings) []*rawProject {
	var raws []*rawProject
	for _, e := range p.namedMapping(n, field, "project") {
		name := e.Key.Value
		pf := join(field, name)
		rp := &rawProject{p: &Project{Name: name, Line: e.Key.Line}}
		raws = append(raws, rp)
		f, ok := p.settings(e, pf, "project", projectKeys)
		if !ok {
			continue
		}
		if pe, ok := f["path"]; ok {
			p.projectPath(rp.p, pe.Value, join(pf, "path"))
		} else {
			p.at(e.Key, pf, "missing path: give the project's directory relative to the workspace root, e.g. path: services/api (\".\" for the root itself)")
		}
		if de, ok := f["deps"]; ok {
			rp.deps, _ = p.stringList(de.Value, join(pf, "deps"), "deps", "project names, e.g. deps: [util]")
		}
		if te, ok := f["targets"]; ok {
			rp.targets = p.targets(te.Value, join(pf, "targets"), name, defaults)
		}
	}
	return raws
}

func (p *parser) projectPath(pr *Project, n *yaml.Node, field string) {
	n = p.deref(n)
	if n == nil {
		return
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.at(n, field, "path must be a directory relative to the workspace root, e.g. path: services/api (\".\" for the root itself), found %s", yamlx.Describe(n))
		return
	}
	s := n.Value
	switch {
	case s == "":
		p.at(n, field, "path is empty: write the project's directory relative to the workspace root, or \".\" for the root itself")
	case strings.Contains(s, "\\"):
		p.at(n, field, "path %s contains a backslash: separate directories with /, e.g. services/api", quote.Short(s))
	case path.IsAbs(s) || (len(s) >= 2 && s[1] == ':'):
		p.at(n, field, "path %s is absolute: write it relative to the workspace root, e.g. services/api", quote.Short(s))
	case escapes(s):
		p.at(n, field, "path %s leaves the workspace root: projects must live under the directory holding %s", quote.Short(s), FileName)
	default:
		pr.Path = path.Clean(s)
		pr.pathLine, pr.pathColumn = n.Line, n.Column
	}
}

// escapes reports whether a relative slash path climbs above its base.
func escapes(s string) bool { return !fsx.Local(s) }

// stringList reads a list of strings. ok is false when the key holds null (or
// an expansion was refused), which callers treat like an absent key.
func (p *parser) stringList(n *yaml.Node, field, what, example string) (refs []ref, ok bool) {
	n = p.deref(n)
	if n == nil || isNull(n) {
		return nil, false
	}
	if n.Kind != yaml.SequenceNode {
		msg := fmt.Sprintf("%s must be a list of %s, found %s", what, example, yamlx.Describe(n))
		if n.Kind == yaml.ScalarNode && n.Value != "" {
			msg += fmt.Sprintf(": write %s: %s", what, flowList([]string{n.Value}))
		}
		p.at(n, field, "%s", msg)
		return nil, false
	}
	refs = []ref{}
	for i, c := range n.Content {
		cf := index(field, i)
		c = p.deref(c)
		if c == nil {
			continue
		}
		if c.Kind != yaml.ScalarNode || isNull(c) {
			p.at(c, cf, "%s entries must be strings, found %s", what, yamlx.Describe(c))
			continue
		}
		refs = append(refs, ref{value: c.Value, node: c, field: cf})
	}
	return refs, true
}

// globs reads a list of doublestar globs relative to base (named in
// messages). ok is false when the key holds null.
func (p *parser) globs(n *yaml.Node, field, base string) ([]string, bool) {
	what := field[strings.LastIndexByte(field, '.')+1:]
	refs, ok := p.stringList(n, field, what, `globs, e.g. ["**/*.go"]`)
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, r := range refs {
		s := r.value
		switch {
		case s == "":
			p.at(r.node, r.field, "empty glob: remove it, or write \"**/*\" for every file")
		case !doublestar.ValidatePattern(s):
			p.at(r.node, r.field, "invalid glob %s: check that every [ and { is closed (doublestar syntax: *, **, ?, [abc], {a,b})", quote.Short(s))
		case strings.HasPrefix(s, "//") && strings.HasSuffix(field, ".inputs"):
			rest := s[2:]
			switch {
			case rest == "" || strings.HasPrefix(rest, "/"):
				p.at(r.node, r.field, "glob %s: after // comes a glob relative to the workspace root, such as //package-lock.json", quote.Short(s))
			case !doublestar.ValidatePattern(rest):
				p.at(r.node, r.field, "invalid glob %s: check that every [ and { is closed (doublestar syntax: *, **, ?, [abc], {a,b})", quote.Short(s))
			case slices.Contains(strings.Split(rest, "/"), ".."):
				p.at(r.node, r.field, "glob %s uses ..: a // glob is relative to the workspace root and cannot leave it", quote.Short(s))
			default:
				out = append(out, s)
			}
		case strings.HasPrefix(s, "/") && strings.HasSuffix(field, ".inputs"):
			p.at(r.node, r.field, "glob %s is absolute: globs are relative to %s (write //%s for a path relative to the workspace root)", quote.Short(s), base, strings.TrimLeft(s, "/"))
		case strings.HasPrefix(s, "/"):
			p.at(r.node, r.field, "glob %s is absolute: globs are relative to %s", quote.Short(s), base)
		case slices.Contains(strings.Split(s, "/"), ".."):
			p.at(r.node, r.field, "glob %s uses ..: globs are relative to %s and cannot leave it", quote.Short(s), base)
		default:
			out = append(out, s)
		}
	}
	return out, true
}

// splitRootGlobs separates a target's inputs relative to the workspace root
// (written with a leading //) from those relative to its project.
func splitRootGlobs(in []string) (project, root []string) {
	project = []string{}
	for _, g := range in {
		if rest, ok := strings.CutPrefix(g, "//"); ok {
			root = append(root, rest)
		} else {
			project = append(project, g)
		}
	}
	return project, root
}

// shellChars mark a run string that needed a shell, for the hint.
const shellChars = "|&;<>$`*\"'(){}"

func (p *parser) argv(e yamlx.Pair, field string) []string {
	n := p.deref(e.Value)
	if n == nil {
		return nil
	}
	switch {
	case isNull(n):
		p.at(e.Key, field, "run is empty: give the command as an argv list, e.g. run: [go, build, ./...]")
		return nil
	case n.Kind == yaml.ScalarNode:
		words := strings.Fields(n.Value)
		if len(words) == 0 {
			p.at(n, field, "run must be an argv list such as [go, build, ./...], found %s", yamlx.Describe(n))
			return nil
		}
		msg := fmt.Sprintf("run must be an argv list, not a string (commands run without a shell): write run: %s", flowList(words))
		if strings.ContainsAny(n.Value, shellChars) {
			msg = fmt.Sprintf("run must be an argv list, not a string (commands run without a shell): for pipes, redirects or globs write run: [sh, -c, %s]", quote.Short(n.Value))
		}
		p.at(n, field, "%s", msg)
		return nil
	case n.Kind != yaml.SequenceNode:
		p.at(n, field, "run must be an argv list such as [go, build, ./...], found %s", yamlx.Describe(n))
		return nil
	case len(n.Content) == 0:
		p.at(n, field, "run is empty: give the command as an argv list, e.g. run: [go, build, ./...]")
		return nil
	}
	var args []string
	ok := true
	for i, c := range n.Content {
		cf := index(field, i)
		c = p.deref(c)
		if c == nil {
			ok = false
			continue
		}
		if c.Kind != yaml.ScalarNode || isNull(c) {
			p.at(c, cf, "run entries must be strings, found %s: quote it if it is one argument", yamlx.Describe(c))
			ok = false
			continue
		}
		if i == 0 && strings.TrimSpace(c.Value) == "" {
			p.at(c, cf, "the program name (run[0]) is empty: write the program to run, e.g. go")
			ok = false
			continue
		}
		args = append(args, c.Value)
	}
	if !ok {
		return nil
	}
	return args
}

func (p *parser) targets(n *yaml.Node, field, project string, defaults map[string]*settings) []*rawTarget {
	var out []*rawTarget
	for _, e := range p.namedMapping(n, field, "target") {
		tf := join(field, e.Key.Value)
		rt := &rawTarget{t: newTarget(project, e.Key.Value, e.Key.Line)}
		out = append(out, rt)
		f, ok := p.settings(e, tf, "target", targetKeys)
		if !ok {
			continue
		}
		d := defaults[e.Key.Value]
		own := p.targetSettings(f, tf, e.Key, rt.t, d)
		rt.deps = own.deps
		if d != nil {
			p.inherit(rt, own, d)
		} else {
			p.checkCoverage(own, nil)
		}
		if _, written := f["run"]; !written && (d == nil || d.written["run"] == nil) {
			if d != nil {
				p.at(e.Key, tf, "missing run: give the command as an argv list, e.g. run: [go, build, ./...] (%s gives none)", d.field)
			} else {
				p.at(e.Key, tf, "missing run: give the command as an argv list, e.g. run: [go, build, ./...]")
			}
		}
	}
	return out
}

func newTarget(project, name string, line int) *Target {
	return &Target{Project: project, Name: name, Line: line, Inputs: DefaultInputs(), InputsDefault: true, DependencyInputs: DependencyInputsAll, id: project + ":" + name}
}

// settings is what one mapping of target settings writes (a project's
// target, or an entry of defaults:), read into t.
type settings struct {
	key   *yaml.Node // the target's (or the default's) name
	field string
	t     *Target
	deps  []ref
	// written holds the value of each key written with a value (not
	// null): what a default gives a target that does not write it.
	written  map[string]*yaml.Node
	coverage *yaml.Node // where coverage is written
}

// targetSettings reads the fields of a target's mapping f into t. d is the
// default of the target's name (nil for none, and for a default itself):
// a run written empty then reads as absent, since the default gives one.
func (p *parser) targetSettings(f map[string]yamlx.Pair, tf string, key *yaml.Node, t *Target, d *settings) *settings {
	s := &settings{key: key, field: tf, t: t, written: map[string]*yaml.Node{}}
	for name, e := range f {
		if v := e.Value; v != nil && !(v.Kind == yaml.ScalarNode && isNull(v)) {
			s.written[name] = v
		}
	}
	if re, ok := f["run"]; ok && (s.written["run"] != nil || d == nil || d.written["run"] == nil) {
		t.Run = p.argv(re, join(tf, "run"))
	}
	if ie, ok := f["inputs"]; ok {
		if in, ok := p.globs(ie.Value, join(tf, "inputs"), "the project directory"); ok {
			t.Inputs, t.RootInputs = splitRootGlobs(in)
			t.InputsDefault = false
		}
	}
	if oe, ok := f["outputs"]; ok {
		t.Outputs, _ = p.globs(oe.Value, join(tf, "outputs"), "the project directory")
	}
	if de, ok := f["deps"]; ok {
		s.deps, _ = p.stringList(de.Value, join(tf, "deps"), "deps", `targets, e.g. deps: [build, "util:build", "^build"]`)
	}
	if de, ok := f["drift"]; ok {
		t.Drift = p.boolean(de.Value, join(tf, "drift"))
	}
	if ce, ok := f["coverage"]; ok {
		t.Coverage = p.coverage(ce.Value, join(tf, "coverage"))
		s.coverage = ce.Value
	}
	t.Env, t.PassEnv = p.environment(f, tf)
	if te, ok := f["toolchain"]; ok {
		t.Toolchain = p.toolchain(te.Value, join(tf, "toolchain"))
	}
	if de, ok := f["dependency_inputs"]; ok {
		t.DependencyInputs = p.dependencyInputs(de.Value, join(tf, "dependency_inputs"))
	}
	return s
}

// checkCoverage checks that the coverage file a target writes is among its
// outputs, so the runner's cache restores it with them; from names the
// default either came from ("" when both are the target's own).
func (p *parser) checkCoverage(s *settings, from *settings) {
	t := s.t
	if t.Coverage == "" {
		return
	}
	for _, o := range t.Outputs {
		if ok, _ := doublestar.Match(o, t.Coverage); ok {
			return
		}
	}
	switch {
	case from == nil:
		p.at(s.coverage, join(s.field, "coverage"), "coverage %s is not among the target's outputs: add it to outputs (e.g. outputs: [%s]) so a run produces and caches it", quote.Short(t.Coverage), t.Coverage)
	case s.coverage != nil:
		p.at(s.coverage, join(s.field, "coverage"), "coverage %s is not among the outputs the target takes from %s: add it to its outputs (e.g. outputs: [%s]) so a run produces and caches it", quote.Short(t.Coverage), from.field, t.Coverage)
	default:
		p.at(s.key, s.field, "the coverage %s it takes from %s is not among the target's outputs: add it to them (e.g. outputs: [%s]), or write coverage: for this target", quote.Short(t.Coverage), from.field, t.Coverage)
	}
	t.Coverage = ""
}

// dependencyInputs reads a target's dependency_inputs: all (the default:
// the inputs of every project its project depends on are in its key) or
// none (the target reads nothing of theirs).
func (p *parser) dependencyInputs(n *yaml.Node, field string) string {
	n = p.deref(n)
	if n == nil || isNull(n) {
		return DependencyInputsAll
	}
	if n.Kind == yaml.ScalarNode && (n.Value == DependencyInputsAll || n.Value == DependencyInputsNone) {
		return n.Value
	}
	p.at(n, field, "dependency_inputs must be all (the default: the inputs of the projects this project depends on are in the target's cache key) or none (the target reads nothing of theirs), found %s", yamlx.Describe(n))
	return DependencyInputsAll
}

// toolchain reads a target's toolchain: the argv of a command that prints
// the version of what the target builds with (go version, node --version),
// whose output is part of its cache key.
func (p *parser) toolchain(n *yaml.Node, field string) []string {
	if d := p.deref(n); d != nil && d.Kind == yaml.ScalarNode && len(strings.Fields(d.Value)) > 0 {
		p.at(d, field, "toolchain must be an argv list (it runs without a shell): write toolchain: %s", flowList(strings.Fields(d.Value)))
		return nil
	}
	refs, ok := p.stringList(n, field, "toolchain", `a version command's argv, e.g. toolchain: [go, version]`)
	if !ok {
		return nil
	}
	if len(refs) == 0 {
		p.at(n, field, "toolchain is empty: give the argv of a command that prints the toolchain's version, e.g. toolchain: [go, version]")
		return nil
	}
	if strings.TrimSpace(refs[0].value) == "" {
		p.at(refs[0].node, refs[0].field, "the program name (toolchain[0]) is empty: write the program to run, e.g. go")
		return nil
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.value
	}
	return out
}

// envNamePattern is a POSIX environment variable name.
var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// environment reads the env: and pass_env: lists of a mapping (the top
// level when field is "", else a target's): the names whose values are
// in the key, and those passed without being in it. A name in both is a
// problem at its pass_env entry.
func (p *parser) environment(f map[string]yamlx.Pair, field string) (env, pass []string) {
	if e, ok := f["env"]; ok {
		env, _ = p.envNames(e.Value, join(field, "env"), false)
	}
	if e, ok := f["pass_env"]; ok {
		var refs []ref
		pass, refs = p.envNames(e.Value, join(field, "pass_env"), true)
		for _, r := range refs {
			if slices.Contains(env, r.value) {
				p.at(r.node, r.field, "%s is in env: too, which passes it and keys on its value: remove it from one of the two (pass_env: passes it without keying on it)", quote.Short(r.value))
				pass = slices.DeleteFunc(pass, func(s string) bool { return s == r.value })
			}
		}
	}
	return env, pass
}

// envNames reads an env: or pass_env: list of environment variable names,
// sorted and unique; wildcard allows a trailing * (a prefix: AWS_*), which
// only pass_env: takes (a key holds the values of names it knows). It
// returns the entries it kept with where they are written.
func (p *parser) envNames(n *yaml.Node, field string, wildcard bool) ([]string, []ref) {
	what := field[strings.LastIndexByte(field, '.')+1:]
	example := `variable names, e.g. env: [GOFLAGS, NODE_ENV]`
	if what == "pass_env" {
		example = `variable names, e.g. pass_env: [HTTPS_PROXY, NPM_TOKEN, "AWS_*"]`
	}
	refs, ok := p.stringList(n, field, what, example)
	if !ok {
		return nil, nil
	}
	rule := "letters, digits and _, not starting with a digit"
	if wildcard {
		rule += " (a trailing * for a prefix)"
	}
	var out []string
	var kept []ref
	for _, r := range refs {
		name, prefix := r.value, false
		if wildcard {
			name, prefix = strings.CutSuffix(r.value, "*")
		}
		switch {
		case strings.Contains(r.value, "="):
			p.at(r.node, r.field, "%s lists names, not values: write %s (the value is read when the target runs)", what, quote.Short(r.value[:strings.IndexByte(r.value, '=')]))
		case !wildcard && strings.HasSuffix(r.value, "*"):
			p.at(r.node, r.field, "env names each variable whose value is in the key, so it takes no wildcard: list the names, or put %s in pass_env: (passed, not in the key)", quote.Short(r.value))
		case prefix && name == "":
			p.at(r.node, r.field, "%s would pass every variable: name them, or a prefix such as \"AWS_*\" (--env-mode=loose passes everything)", quote.Short(r.value))
		case !envNamePattern.MatchString(name):
			p.at(r.node, r.field, "%s is not an environment variable name: %s", quote.Short(r.value), rule)
		case !slices.Contains(out, r.value):
			out = append(out, r.value)
			kept = append(kept, r)
		}
	}
	slices.Sort(out)
	return out, kept
}

// coverage reads a target's coverage file: a path relative to the
// project (checkCoverage then finds it among the target's outputs).
func (p *parser) coverage(n *yaml.Node, field string) string {
	n = p.deref(n)
	if n == nil || isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		p.at(n, field, "coverage must be a file path relative to the project, e.g. coverage: cover.out, found %s", yamlx.Describe(n))
		return ""
	}
	c := n.Value
	switch {
	case strings.HasPrefix(c, "/"):
		p.at(n, field, "coverage %s is absolute: write it relative to the project directory", quote.Short(c))
		return ""
	case slices.Contains(strings.Split(c, "/"), ".."):
		p.at(n, field, "coverage %s uses ..: it must be inside the project directory", quote.Short(c))
		return ""
	}
	return path.Clean(c)
}

func (p *parser) boolean(n *yaml.Node, field string) bool {
	n = p.deref(n)
	if n == nil || isNull(n) {
		return false
	}
	if yamlx.Is(n, "!!bool") {
		return strings.EqualFold(n.Value, "true")
	}
	p.at(n, field, "%s must be true or false, found %s", field[strings.LastIndexByte(field, '.')+1:], yamlx.Describe(n))
	return false
}

func (p *parser) spells(n *yaml.Node, field string) []*Spell {
	var out []*Spell
	for _, e := range p.namedMapping(n, field, "spell") {
		sf := join(field, e.Key.Value)
		s := &Spell{Name: e.Key.Value, Line: e.Key.Line}
		out = append(out, s)
		f, ok := p.settings(e, sf, "spell", spellKeys)
		if !ok {
			continue
		}
		if re, ok := f["run"]; ok {
			s.Run = p.argv(re, join(sf, "run"))
		} else {
			p.at(e.Key, sf, "missing run: give the command as an argv list, e.g. run: [gofmt, -l, .]")
		}
		if de, ok := f["description"]; ok {
			if d := p.deref(de.Value); d != nil && !isNull(d) {
				if d.Kind == yaml.ScalarNode {
					s.Description = d.Value
				} else {
					p.at(d, join(sf, "description"), "description must be a string, found %s", yamlx.Describe(d))
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
