package main

import (
	"github.com/corehq/core/backend"

	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
)

func newAffectedCmd(g *globals) *cobra.Command {
	var base string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "affected [--base REF] [--json]",
		Short: "List the projects and targets a change affects",
		Long: `Lists what the current change affects: the files changed since the merge-base
of --base and HEAD (default base: origin/HEAD's branch, else main, else
master), plus staged, unstaged and untracked (not ignored) files; the
projects that own them, and transitively the projects that depend on those;
and the targets whose cache keys the change moved: a changed file among
their inputs, their global or // inputs, the manifests above them or the
inputs of a project their project depends on (declared, named by a
manifest, or imported by its code), or a dependency target affected. A
file git ignores is not reported by git, so it affects nothing here.

With --json it prints {"projects", "targets", "files", "node_ids"}, where
node_ids are the knowledge graph's ids ("project:api", "target:api:build").

To run a target in every affected project: core run --affected TARGET.`,
		Example: `  core affected
  core affected --base origin/release-1.2 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			ws, err := e.resolved(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ch, err := e.local().Affected(cmd.Context(), ws, base)
			if err != nil {
				return err
			}
			set := ch.Set
			out := cmd.OutOrStdout()
			publishAffected(cmd, e, set, base)
			if asJSON {
				data, err := json.MarshalIndent(struct {
					backend.AffectedSet
					NodeIDs []string `json:"node_ids"`
				}{set, set.NodeIDs()}, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", data)
				return err
			}
			if set.Empty() {
				fmt.Fprintf(out, "nothing affected (%s changed)\n", plural(len(set.Files), "file"))
				return nil
			}
			fmt.Fprintf(out, "%s changed\n", plural(len(set.Files), "file"))
			fmt.Fprintf(out, "projects: %s\n", joinOrNone(set.Projects))
			fmt.Fprintf(out, "targets:  %s\n", joinOrNone(set.Targets))
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "compare against the merge-base with this ref (default: origin/HEAD, else main, else master)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the affected set as JSON, with graph node ids")
	return cmd
}

func joinOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// publishAffected hands the set to the running server, if there is one, so
// its status snapshot carries pool.affected; without a server it does
// nothing.
func publishAffected(cmd *cobra.Command, e *env, set backend.AffectedSet, base string) {
	c, err := e.server()
	if err != nil {
		return
	}
	if base == "" {
		base = e.local().DefaultBase(cmd.Context())
	}
	_, err = c.status().PublishAffected(cmd.Context(), &statusv1alpha1.PublishAffectedRequest{Affected: set.NodeIDs(), Base: base})
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "core: could not publish the affected set to the server: %v\n", err)
		return
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "published %d affected nodes to the server at %s\n", len(set.NodeIDs()), c.st.BaseURL)
}
