package main

import (
	"github.com/corehq/core/backend"

	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/query"
)

func newGraphCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Print the workspace's knowledge graph",
		Long: `Prints the knowledge graph of the workspace. With --json the output is
byte-for-byte what GET /api/v1/graph serves; without it, the projects with
their targets and how many docs, files and packages each holds.

--json stores the graph in the cache and prints it from there while a stat
of every directory, .gitignore and indexed file finds them unchanged.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			if asJSON {
				return e.local().GraphJSON(cmd.OutOrStdout())
			}
			gr, err := e.local().Graph()
			if err != nil {
				return err
			}
			printKnowledge(cmd.OutOrStdout(), gr)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the graph as JSON (the bytes of GET /api/v1/graph)")
	return cmd
}

func newQueryCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "query TERMS...",
		Short: "Print the neighbourhood of the nodes the terms select",
		Long: `Selects nodes of the knowledge graph and prints them with their neighbours.
With --json the output is byte-for-byte what GET /api/v1/graph?select=TERMS serves.

Terms (space-separated; the seeds are the union of what they select):
  kind:K                 every node of kind K: project, target, spell, doc, file, package, symbol
  project:NAME           a project
  target:PROJECT:TARGET  a target
  spell:NAME             a spell
  symbol:NAME            symbols named NAME; * globs (symbol:Server.*)
  path:GLOB              files and docs whose path matches GLOB
  depth:N                neighbours within N edges, both directions (default 1, at most 10)
  WORD                   nodes whose id or name contains WORD, ignoring case

Symbols are read from the @symbols shards only for symbol: and kind:symbol.`,
		Example: `  core query symbol:Slugify              # where it is declared and who uses it
  core query project:auth
  core query 'symbol:Slug*' --json
  core query path:'docs/**' kind:target`,
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			prefixes := []string{"kind:", "project:", "target:", "spell:", "symbol:", "path:", "depth:"}
			if !strings.Contains(toComplete, ":") {
				return prefixes, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
			}
			return completeWorkspace(g, func(ws *backend.Workspace) []string {
				var out []string
				switch {
				case strings.HasPrefix(toComplete, "kind:"):
					for _, k := range query.Kinds {
						out = append(out, "kind:"+k)
					}
				case strings.HasPrefix(toComplete, "project:"):
					for _, p := range ws.Projects {
						out = append(out, "project:"+p.Name)
					}
				case strings.HasPrefix(toComplete, "target:"):
					for _, id := range ws.TargetIDs() {
						out = append(out, "target:"+id)
					}
				case strings.HasPrefix(toComplete, "spell:"):
					for _, s := range ws.Spells {
						out = append(out, "spell:"+s.Name)
					}
				}
				return out
			})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := query.Parse(strings.Join(args, " "))
			if err != nil {
				return err
			}
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			res, err := e.local().Query(q)
			if err != nil {
				return err
			}
			if asJSON {
				_, err := cmd.OutOrStdout().Write(res.Encode())
				return err
			}
			if len(res.Nodes) == 0 {
				hint := symbolHint(args, func(terms string) (*graph.Graph, error) {
					q, err := query.Parse(terms)
					if err != nil {
						return nil, err
					}
					return e.local().Query(q)
				})
				if hint == "" {
					hint = emptyHint(q)
				}
				return fmt.Errorf("nothing matches %s: %s", q, hint)
			}
			printQuery(cmd.OutOrStdout(), res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (the bytes of GET /api/v1/graph?select=TERMS)")
	return cmd
}

func newDescribeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "describe", Short: "Describe parts of the workspace"}
	var asJSON bool
	var format string
	graphCmd := &cobra.Command{
		Use:   "graph [--format text|dot|mermaid] [--json]",
		Short: "Print the target dependency graph",
		Long: `Prints the target dependency graph: each target with the targets it depends
on and its command. --format dot (Graphviz) or mermaid draws it elsewhere.
With --json the output is byte-for-byte what GET /api/v1/graph?flavor=targets serves.`,
		Example: `  core describe graph
  core describe graph --format dot | dot -Tsvg > targets.svg
  core describe graph --format mermaid`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := g.resolveRoot()
			if err != nil {
				return err
			}
			gr, err := backend.Open(root, "", nil).TargetGraph()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case asJSON:
				_, err := out.Write(gr.Encode())
				return err
			case format == "dot":
				printDot(out, gr)
			case format == "mermaid":
				printMermaid(out, gr)
			case format == "" || format == "text":
				printTargets(out, gr)
			default:
				return fmt.Errorf("--format %q is not a format: text, dot or mermaid (or --json)", format)
			}
			return nil
		},
	}
	graphCmd.Flags().BoolVar(&asJSON, "json", false, "print the graph as JSON (the bytes of GET /api/v1/graph?flavor=targets)")
	graphCmd.Flags().StringVar(&format, "format", "text", "text, dot (Graphviz) or mermaid")
	cmd.AddCommand(graphCmd)
	return cmd
}

func counts(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
