package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/workspace"
)

func newGraphCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Print the workspace's knowledge graph",
		Long: `Prints the knowledge graph of the workspace. With --json the output is
byte-for-byte what GET /api/v1/graph serves; without it, a summary.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := g.resolveRoot()
			if err != nil {
				return err
			}
			gr, err := live.Build(root)
			if err != nil {
				return err
			}
			if asJSON {
				_, err := cmd.OutOrStdout().Write(gr.Encode())
				return err
			}
			printSummary(cmd, gr)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the graph as JSON (the bytes of GET /api/v1/graph)")
	return cmd
}

func newDescribeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "describe", Short: "Describe parts of the workspace"}
	var asJSON bool
	graphCmd := &cobra.Command{
		Use:   "graph",
		Short: "Print the target dependency graph",
		Long: `Prints the target dependency graph: targets and the targets they depend on.
With --json the output is byte-for-byte what GET /api/v1/graph?flavor=targets serves.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := g.resolveRoot()
			if err != nil {
				return err
			}
			ws, err := workspace.Load(root)
			if err != nil {
				return err
			}
			gr := graph.Targets(ws)
			if asJSON {
				_, err := cmd.OutOrStdout().Write(gr.Encode())
				return err
			}
			printSummary(cmd, gr)
			return nil
		},
	}
	graphCmd.Flags().BoolVar(&asJSON, "json", false, "print the graph as JSON (the bytes of GET /api/v1/graph?flavor=targets)")
	cmd.AddCommand(graphCmd)
	return cmd
}

func printSummary(cmd *cobra.Command, gr *graph.Graph) {
	kinds := map[string]int{}
	for _, n := range gr.Nodes {
		kinds[n.Kind]++
	}
	edges := map[string]int{}
	for _, e := range gr.Edges {
		edges[e.Kind]++
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%d nodes (%s)\n%d edges (%s)\n", len(gr.Nodes), counts(kinds), len(gr.Edges), counts(edges))
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		fmt.Fprintln(out, "add --json for the whole graph")
	}
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
