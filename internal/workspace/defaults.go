package workspace

// defaults: target settings by target name. A target takes from the
// default of its name every key it does not write itself (written empty
// counts as not written, as everywhere in the file); what it writes wins,
// key by key, whole: a target's own deps replace the default's, they are
// not added to them. A default creates no target: it applies to the
// targets of its name that projects declare. What a target ends up with
// is its declaration, for everything downstream (the runner's cache key,
// core hash, the graph); FromDefaults says which keys came from where.

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"
)

// defaults reads the top-level defaults: mapping, from target name to
// settings with a target's keys, all of them optional.
func (p *parser) defaults(n *yaml.Node, field string) map[string]*settings {
	out := map[string]*settings{}
	for _, e := range p.namedMapping(n, field, "target") {
		df := join(field, e.Key.Value)
		f, ok := p.settings(e, df, "default", targetKeys)
		if !ok {
			continue
		}
		s := p.targetSettings(f, df, e.Key, newTarget("", e.Key.Value, e.Key.Line), nil)
		if s.written["outputs"] != nil {
			// Without outputs of its own, a default's coverage is checked
			// against each target's.
			p.checkCoverage(s, nil)
		}
		out[e.Key.Value] = s
	}
	return out
}

// checkDefaults checks what the defaults name against the projects, once
// for all the targets that take them: a default of a target name no
// project declares, and the dependencies a default lists.
func (p *parser) checkDefaults(defaults map[string]*settings, raws []*rawProject) {
	if len(defaults) == 0 {
		return
	}
	byName := make(map[string]*rawProject, len(raws))
	var projects, targets []string
	for _, rp := range raws {
		byName[rp.p.Name] = rp
		projects = append(projects, rp.p.Name)
		for _, rt := range rp.targets {
			if !slices.Contains(targets, rt.t.Name) {
				targets = append(targets, rt.t.Name)
			}
		}
	}
	slices.Sort(projects)
	slices.Sort(targets)
	declared := func(name string) bool { return slices.Contains(targets, name) }
	for _, name := range sortedKeys(defaults) {
		d := defaults[name]
		if !declared(name) {
			p.at(d.key, d.field, "no project declares a target %s: a default applies to the targets of its name that projects declare%s", quote.Short(name), suggest.DidYouMean(name, targets))
		}
		seen := map[string]string{}
		for _, r := range d.deps {
			if seen[r.value] != "" {
				p.at(r.node, r.field, "%s is listed twice (also at %s): remove one", quote.Short(r.value), seen[r.value])
				continue
			}
			seen[r.value] = r.field
			project, target, qualified := strings.Cut(r.value, ":")
			caret := false
			if !qualified {
				target, caret = strings.CutPrefix(r.value, "^")
			}
			switch {
			case !validName(target) || (qualified && !validName(project)):
				p.malformed(r)
			case !qualified && !caret && target == name:
				p.at(r.node, r.field, "target %s cannot depend on itself: remove it from deps", quote.Short(name))
			case !qualified && !declared(target):
				p.at(r.node, r.field, "no project declares a target %s%s (targets: %s)", quote.Short(target), suggest.DidYouMean(target, targets), listNames(targets))
			case qualified && byName[project] == nil:
				p.at(r.node, r.field, "unknown project %s in %s (projects: %s)", quote.Short(project), quote.Short(r.value), listNames(projects))
			case qualified && !byName[project].hasTarget(target):
				p.at(r.node, r.field, "unknown target %s (%s declares: %s)", quote.Short(r.value), quote.Prefix(project), listNames(byName[project].targetNames()))
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// inherit gives rt the keys of its default d that own, its own settings,
// does not write.
func (p *parser) inherit(rt *rawTarget, own, d *settings) {
	t, from := rt.t, d.t
	var took []string
	take := func(key string) bool {
		if own.written[key] != nil || d.written[key] == nil {
			return false
		}
		took = append(took, key)
		return true
	}
	if take("run") {
		t.Run = slices.Clone(from.Run)
	}
	if take("inputs") {
		t.Inputs, t.RootInputs, t.InputsDefault = slices.Clone(from.Inputs), slices.Clone(from.RootInputs), from.InputsDefault
	}
	if take("outputs") {
		t.Outputs = slices.Clone(from.Outputs)
	}
	if take("deps") {
		rt.deps = make([]ref, len(d.deps))
		for i, r := range d.deps {
			r.inherited = true
			rt.deps[i] = r
		}
	}
	if take("drift") {
		t.Drift = from.Drift
	}
	if take("coverage") {
		t.Coverage = from.Coverage
	}
	tookEnv, tookPass := take("env"), take("pass_env")
	if tookEnv {
		t.Env = slices.Clone(from.Env)
	}
	if tookPass {
		t.PassEnv = slices.Clone(from.PassEnv)
	}
	if take("toolchain") {
		t.Toolchain = slices.Clone(from.Toolchain)
	}
	if take("dependency_inputs") {
		t.DependencyInputs = from.DependencyInputs
	}
	slices.Sort(took)
	t.FromDefaults = took

	// What the default and the target each checked alone, checked again
	// where the two meet.
	ownCoverage, ownOutputs := own.written["coverage"] != nil, own.written["outputs"] != nil
	switch {
	case ownCoverage && ownOutputs:
		p.checkCoverage(own, nil)
	case ownCoverage || ownOutputs || d.written["outputs"] == nil:
		p.checkCoverage(own, d)
	}
	if tookEnv != tookPass {
		ownKey, other := "pass_env", "env"
		if tookPass {
			ownKey, other = "env", "pass_env"
		}
		for _, name := range t.PassEnv {
			if slices.Contains(t.Env, name) {
				p.at(own.written[ownKey], join(own.field, ownKey), "%s is in %s too, which this target takes from %s: a variable is passed either with its value in the key (env:) or without it (pass_env:), not both; write this target's own %s without it", quote.Short(name), join(d.field, other), d.field, other)
			}
		}
		if len(t.Env) > 0 {
			t.PassEnv = slices.DeleteFunc(t.PassEnv, func(s string) bool { return slices.Contains(t.Env, s) })
		}
	}
}
