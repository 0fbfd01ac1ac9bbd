package main

import (
	"github.com/corehq/core/backend"

	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/suggest"
)

func newSpellCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "spell [NAME [-- ARGS...]]",
		Short: "Run a spell (a tool command targets.yaml declares) from the workspace root",
		Long: `Without NAME, lists the spells of targets.yaml. With NAME, runs its argv from
the workspace root, with ARGS appended, attached to this terminal, and exits
with its status. Spells are tools (formatters, generators, checks), not
targets: they are not cached, have no dependencies, and get core's whole
environment (the strict environment of targets is for what the cache
replays; a spell is what you would type, and may need your editor, agent
or token).`,
		Example: `  core spell
  core spell fmt
  core spell todo-list -- --count`,
		Args: cobra.ArbitraryArgs,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return completeWorkspace(g, func(ws *backend.Workspace) []string {
				var out []string
				for _, s := range ws.Spells {
					out = append(out, s.Name+"\t"+s.Description)
				}
				return out
			})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.resolveRoot()
			if err != nil {
				return err
			}
			ws, err := backend.Open(root, "", nil).Workspace()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				if len(ws.Spells) == 0 {
					fmt.Fprintln(out, "no spells: declare one under spells: in targets.yaml (docs/targets.md)")
					return nil
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SPELL\tRUNS\tWHAT")
				for _, s := range ws.Spells {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, strings.Join(s.Run, " "), s.Description)
				}
				return tw.Flush()
			}
			var spell *backend.Spell
			var names []string
			for _, s := range ws.Spells {
				names = append(names, s.Name)
				if s.Name == args[0] {
					spell = s
				}
			}
			if spell == nil {
				return fmt.Errorf("no spell %q in targets.yaml%s; `core spell` lists them", args[0], suggest.DidYouMean(args[0], names))
			}
			argv := append(append([]string(nil), spell.Run...), args[1:]...)
			c := exec.CommandContext(cmd.Context(), argv[0], argv[1:]...)
			c.Dir = root // and the whole environment: see the help above
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, out, cmd.ErrOrStderr()
			err = c.Run()
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				return &exitError{code: exit.ExitCode()}
			case err != nil:
				return fmt.Errorf("spell %s: %w", spell.Name, err)
			}
			return nil
		},
	}
}

// completeWorkspace completes from the workspace the current directory (or
// --workspace) names; nothing when there is none.
func completeWorkspace(g *globals, list func(*backend.Workspace) []string) ([]string, cobra.ShellCompDirective) {
	root, err := g.resolveRoot()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ws, err := backend.Open(root, "", nil).Workspace()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return list(ws), cobra.ShellCompDirectiveNoFileComp
}
