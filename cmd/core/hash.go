package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/workspace"
)

func newHashCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hash PROJECT:TARGET [--json]",
		Short: "Explain a target's cache key: every part that goes into it",
		Long: `Prints what a target's cache key is made of, as it is now: the argv, the
environment variables it declares (set or not, and a hash of the value, never
the value), its project, every input file with its hash (the project's
manifests included), its // inputs, the global inputs (the lockfiles and
global_inputs) and each dependency's key. It says whether the cache holds a
result for that key. Nothing runs.`,
		Example: `  core hash api:build
  core hash api:build --json | jq '.inputs[] | select(.path | endswith(".go"))'`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeWorkspace(g, func(ws *workspace.Workspace) []string { return ws.TargetIDs() })
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			ws, err := workspace.Load(e.root)
			if err != nil {
				return err
			}
			if ws.Target(args[0]) == nil {
				return fmt.Errorf("%s is not a target targets.yaml declares%s; write PROJECT:TARGET", args[0], suggest.DidYouMean(args[0], ws.TargetIDs()))
			}
			r := runner.New(runner.Options{Root: e.root, CacheDir: e.cacheDir})
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
			for _, v := range k.Env {
				if v.Set {
					fmt.Fprintf(out, "env       %s set (sha256 %s…)\n", v.Name, v.Hash)
				} else {
					fmt.Fprintf(out, "env       %s unset\n", v.Name)
				}
			}
			files := func(title string, fs []runner.FileHash) {
				fmt.Fprintf(out, "%s (%d)\n", title, len(fs))
				for _, f := range fs {
					fmt.Fprintf(out, "  %s %s  %s\n", f.Hash[:12], f.Kind, f.Path)
				}
			}
			files("inputs", k.Inputs)
			if len(k.Root) > 0 {
				files("// inputs", k.Root)
			}
			files("global inputs", k.Global)
			fmt.Fprintf(out, "dependencies (%d)\n", len(k.Deps))
			for _, d := range k.Deps {
				fmt.Fprintf(out, "  %s  %s\n", shortKey(d.Key), d.Target)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the parts as JSON")
	return cmd
}
