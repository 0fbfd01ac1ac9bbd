package main

import (
	"github.com/corehq/core/backend"

	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/suggest"
)

func newHashCmd(g *globals) *cobra.Command {
	var asJSON, diffRuns bool
	var envMode string
	cmd := &cobra.Command{
		Use:   "hash PROJECT:TARGET [--json] | hash --diff RUN_A RUN_B",
		Short: "Explain a target's cache key: every part that goes into it",
		Long: `Prints what a target's cache key is made of, as it is now: the argv and the
rest of its declaration, the environment's mode (strict or loose: --env-mode,
env_mode), the environment variables it and the top level declare in env:
(set or not, and a hash of the value, never the value), the names pass_env:
passes without keying on them, its project, every input file with
its hash (the project's manifests included), its // inputs, the global inputs
(the lockfiles and global_inputs), the inputs of every project its project
depends on (declared, named by a manifest, or imported by its code; none with
dependency_inputs: none), each with the chain that makes it a dependency, and
each dependency target's key. It says whether the cache holds a result for
that key. Nothing runs. A file's kind is f (file), x (executable), l (symlink)
or s: the part of an npm lockfile the target's project resolves.

--diff RUN_A RUN_B says why two runs had different keys (why one rebuilt):
which variables, declared fields, the mode, input files, global inputs, dependency
projects' files or dependencies' keys differ. Each run that executed recorded
its key's parts (core runs lists the ids).`,
		Example: `  core hash api:build
  core hash api:build --json | jq '.inputs[] | select(.path | endswith(".go"))'
  core hash --diff r20261124T101500.1Z-1a2b3c4d r20261124T111500.2Z-5e6f7a8b`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diffRuns {
				return cobra.ExactArgs(2)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeWorkspace(g, func(ws *backend.Workspace) []string { return ws.TargetIDs() })
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.load(envModeFlags(cmd, envMode))
			if err != nil {
				return err
			}
			if diffRuns {
				return diffKeys(cmd, e.local(), args[0], args[1])
			}
			ws, err := e.resolved(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if ws.Target(args[0]) == nil {
				return fmt.Errorf("%s is not a target targets.yaml declares%s; write PROJECT:TARGET", args[0], suggest.DidYouMean(args[0], ws.TargetIDs()))
			}
			r := e.local().Runner(backend.RunOptions{})
			k, err := r.Explain(cmd.Context(), ws, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				data, err := json.Marshal(k)
				if err != nil {
					return err
				}
				_, err = out.Write(append(data, '\n'))
				return err
			}
			cached := "not in the cache: a run would execute it"
			if k.Hit {
				cached = "in the cache: a run would replay it"
			}
			fmt.Fprintf(out, "%s  key %s (%s)\n", k.Target, k.Key, cached)
			fmt.Fprintf(out, "argv      %s\nproject   %s\n", strings.Join(k.Argv, " "), k.Project)
			d := k.Declaration
			inputs := strings.Join(d.Inputs, " ")
			if d.DefaultInputs {
				inputs = "(none declared: every file git does not ignore)"
			}
			fmt.Fprintf(out, "declared  inputs %s; outputs %s; dependency_inputs %s\n", inputs, joinOrNone(d.Outputs), d.DependencyInputs)
			if len(d.FromDefaults) > 0 {
				_, name, _ := strings.Cut(k.Target, ":")
				fmt.Fprintf(out, "defaults  %s from defaults.%s (the rest as the target writes it)\n", strings.Join(d.FromDefaults, ", "), name)
			}
			fmt.Fprintf(out, "env mode  %s\n", describeEnvMode(k))
			for _, v := range k.Env {
				from := ""
				if v.Workspace {
					from = " (top-level env:)"
				}
				if v.Set {
					fmt.Fprintf(out, "env       %s set (sha256 %s…)%s\n", v.Name, v.Hash, from)
				} else {
					fmt.Fprintf(out, "env       %s unset%s\n", v.Name, from)
				}
			}
			if k.Toolchain != nil {
				fmt.Fprintf(out, "toolchain %s: %s (sha256 %s…)\n", strings.Join(k.Toolchain.Argv, " "), k.Toolchain.Version, k.Toolchain.Hash[:12])
			}
			files := func(title string, fs []backend.FileHash) {
				fmt.Fprintf(out, "%s (%d)\n", title, len(fs))
				for _, f := range fs {
					note := ""
					if f.Kind == "s" {
						note = "  (the part " + k.Project + " resolves)"
					}
					fmt.Fprintf(out, "  %s %s  %s%s\n", f.Hash[:12], f.Kind, f.Path, note)
				}
			}
			files("inputs", k.Inputs)
			if len(k.Root) > 0 {
				files("// inputs", k.Root)
			}
			files("global inputs", k.Global)
			fmt.Fprintf(out, "dependency projects (%d)\n", len(k.Dependencies))
			for _, p := range k.Dependencies {
				fmt.Fprintf(out, "  %s (%s, %s): %s\n", p.Project, p.Path, plural(len(p.Files), "file"), strings.Join(p.Via, ", then "))
				for _, f := range p.Files {
					fmt.Fprintf(out, "    %s %s  %s\n", f.Hash[:12], f.Kind, f.Path)
				}
			}
			fmt.Fprintf(out, "dependencies (%d)\n", len(k.Deps))
			for _, d := range k.Deps {
				fmt.Fprintf(out, "  %s  %s\n", shortKey(d.Key), d.Target)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the parts as JSON")
	cmd.Flags().BoolVar(&diffRuns, "diff", false, "compare the keys of two runs: RUN_A RUN_B")
	addEnvModeFlag(cmd, &envMode)
	return cmd
}

// describeEnvMode says what of core's environment reaches the target, for
// core hash: the mode, and in strict mode the names targets.yaml passes
// without keying on them.
func describeEnvMode(k backend.KeyParts) string {
	if k.EnvMode == backend.EnvLoose {
		return "loose: every variable of core's environment reaches it; only env: is in its key"
	}
	pass := append(append([]string(nil), k.Declaration.PassEnv...), k.WorkspacePassEnv...)
	slices.Sort(pass)
	return fmt.Sprintf("strict: it gets the base, env: and pass_env: (passed, not in its key: %s)", joinOrNone(slices.Compact(pass)))
}

// diffKeys prints what differs between the keys of two runs.
func diffKeys(cmd *cobra.Command, l *backend.Local, a, b string) error {
	x, y, err := l.KeyParts(a, b)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if x.Key == y.Key {
		fmt.Fprintf(out, "the two runs have the same key %s: nothing differs\n", shortKey(x.Key))
		return nil
	}
	fmt.Fprintf(out, "%s %s -> %s %s\n", x.Target, shortKey(x.Key), y.Target, shortKey(y.Key))
	n := 0
	say := func(format string, args ...any) {
		n++
		fmt.Fprintf(out, "  "+format+"\n", args...)
	}
	if x.Target != y.Target {
		say("target: %s, then %s", x.Target, y.Target)
	}
	if strings.Join(x.Argv, "\x00") != strings.Join(y.Argv, "\x00") {
		say("argv: %s, then %s", strings.Join(x.Argv, " "), strings.Join(y.Argv, " "))
	}
	if x.Project != y.Project {
		say("project path: %s, then %s", x.Project, y.Project)
	}
	dx, dy := x.Declaration, y.Declaration
	for _, f := range []struct {
		name string
		a, b string
	}{
		{"inputs", strings.Join(dx.Inputs, " "), strings.Join(dy.Inputs, " ")},
		{"default inputs", fmt.Sprint(dx.DefaultInputs), fmt.Sprint(dy.DefaultInputs)},
		{"outputs", strings.Join(dx.Outputs, " "), strings.Join(dy.Outputs, " ")},
		{"deps", strings.Join(dx.Deps, " "), strings.Join(dy.Deps, " ")},
		{"coverage", dx.Coverage, dy.Coverage},
		{"dependency_inputs", dx.DependencyInputs, dy.DependencyInputs},
		{"drift", fmt.Sprint(dx.Drift), fmt.Sprint(dy.Drift)},
		{"pass_env", strings.Join(dx.PassEnv, " "), strings.Join(dy.PassEnv, " ")},
		{"top-level pass_env", strings.Join(x.WorkspacePassEnv, " "), strings.Join(y.WorkspacePassEnv, " ")},
	} {
		if f.a != f.b {
			say("declared %s: [%s], then [%s]", f.name, f.a, f.b)
		}
	}
	if x.EnvMode != y.EnvMode {
		say("env mode: %s, then %s", orUnknown(x.EnvMode), orUnknown(y.EnvMode))
	}
	switch tx, ty := x.Toolchain, y.Toolchain; {
	case tx == nil && ty != nil:
		say("toolchain: none, then %s (%s)", strings.Join(ty.Argv, " "), ty.Version)
	case tx != nil && ty == nil:
		say("toolchain: %s (%s), then none", strings.Join(tx.Argv, " "), tx.Version)
	case tx != nil && tx.Hash != ty.Hash:
		say("toolchain %s: %q, then %q", strings.Join(ty.Argv, " "), tx.Version, ty.Version)
	}
	envOf := func(k backend.KeyParts) map[string]backend.EnvPart {
		m := map[string]backend.EnvPart{}
		for _, v := range k.Env {
			m[v.Name] = v
		}
		return m
	}
	ex, ey := envOf(x), envOf(y)
	for _, name := range sortedKeys(ex, ey) {
		vx, okx := ex[name]
		vy, oky := ey[name]
		switch {
		case !okx:
			say("env %s: declared only in the second", name)
		case !oky:
			say("env %s: declared only in the first", name)
		case vx.Set != vy.Set:
			say("env %s: set %v, then %v", name, vx.Set, vy.Set)
		case vx.Hash != vy.Hash:
			say("env %s: its value changed", name)
		}
	}
	files := func(what string, fx, fy []backend.FileHash) {
		mx, my := map[string]string{}, map[string]string{}
		for _, f := range fx {
			mx[f.Path] = f.Kind + f.Hash
		}
		for _, f := range fy {
			my[f.Path] = f.Kind + f.Hash
		}
		for _, p := range sortedKeys(mx, my) {
			hx, okx := mx[p]
			hy, oky := my[p]
			switch {
			case !okx:
				say("%s %s: added", what, p)
			case !oky:
				say("%s %s: removed", what, p)
			case hx != hy:
				say("%s %s: changed", what, p)
			}
		}
	}
	files("input", x.Inputs, y.Inputs)
	files("// input", x.Root, y.Root)
	files("global input", x.Global, y.Global)
	px, py := map[string]backend.ProjectPart{}, map[string]backend.ProjectPart{}
	for _, p := range x.Dependencies {
		px[p.Project] = p
	}
	for _, p := range y.Dependencies {
		py[p.Project] = p
	}
	for _, name := range sortedKeys(px, py) {
		a, oka := px[name]
		b, okb := py[name]
		switch {
		case !oka:
			say("dependency %s: added (%s)", name, strings.Join(b.Via, ", then "))
		case !okb:
			say("dependency %s: removed (%s)", name, strings.Join(a.Via, ", then "))
		default:
			fa, fb := map[string]string{}, map[string]string{}
			for _, f := range a.Files {
				fa[path.Join(a.Path, f.Path)] = f.Kind + f.Hash
			}
			for _, f := range b.Files {
				fb[path.Join(b.Path, f.Path)] = f.Kind + f.Hash
			}
			for _, p := range sortedKeys(fa, fb) {
				ha, oka := fa[p]
				hb, okb := fb[p]
				switch {
				case !oka:
					say("dependency %s: %s added", name, p)
				case !okb:
					say("dependency %s: %s removed", name, p)
				case ha != hb:
					say("dependency %s: %s changed", name, p)
				}
			}
		}
	}
	kx, ky := map[string]string{}, map[string]string{}
	for _, d := range x.Deps {
		kx[d.Target] = d.Key
	}
	for _, d := range y.Deps {
		ky[d.Target] = d.Key
	}
	for _, t := range sortedKeys(kx, ky) {
		kx, okx := kx[t]
		ky, oky := ky[t]
		switch {
		case !okx:
			say("dependency %s: added", t)
		case !oky:
			say("dependency %s: removed", t)
		case kx != ky:
			say("dependency %s: its key changed (%s -> %s); core hash --diff on its runs says why", t, shortKey(kx), shortKey(ky))
		}
	}
	if n == 0 {
		say("the recorded parts are equal: the key's version or encoding changed between the runs")
	}
	return nil
}

// orUnknown is s, or "unknown" for what a key recorded before it was kept.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// sortedKeys is the union of two maps' keys, sorted.
func sortedKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}
