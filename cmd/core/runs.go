package main

import (
	"github.com/corehq/core/backend"

	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newRunsCmd(g *globals) *cobra.Command {
	var limit int
	var target string
	cmd := &cobra.Command{
		Use:   "runs [--target PROJECT:TARGET] [--limit N]",
		Short: "List past runs from their journals, newest first",
		Long: `Lists the journals of past runs (core run, the console, the server's jobs),
newest first: id, target, status, exit code, start, duration and where the
result came from. "core runs show ID" prints one with its command and output
(ID may be a unique prefix, or last).
No server is needed.`,
		Example: `  core runs
  core runs --target api:test --limit 5
  core runs show r20261124T101500.123456789Z-1a2b3c4d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			js, err := e.local().Runs(limit, target)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(js) == 0 {
				what := "no runs yet"
				if target != "" {
					what = "no runs of " + target
				}
				fmt.Fprintf(out, "%s; run one with `core run PROJECT:TARGET`\n", what)
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTARGET\tSTATUS\tEXIT\tSTARTED\tTOOK\tFROM")
			for _, j := range js {
				took := "-"
				if !j.End.IsZero() {
					took = j.End.Sub(j.Start).Round(time.Millisecond).String()
				}
				from := "ran"
				switch {
				case j.From == backend.FromRemote:
					from = "remote cache"
				case j.CacheHit:
					from = "cache"
				}
				switch {
				case j.Trigger != "" && j.Shard != "":
					from += " (" + j.Trigger + ", shard " + j.Shard + ")"
				case j.Trigger != "":
					from += " (" + j.Trigger + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", j.ID, j.Target, j.Status, j.ExitCode, j.Start.Local().Format(time.DateTime), took, from)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", backend.CLIRuns, "at most this many runs (0: all)")
	cmd.Flags().StringVar(&target, "target", "", "only runs of this target")
	cmd.AddCommand(&cobra.Command{
		Use:   "show ID|PREFIX|last",
		Short: "Print one run: its command, where it ran, its result and its output",
		Long: `Prints one run: its command, where it ran, its result and its output. The
run is named by its id, by a prefix of the id (or of its random part, after
the '-') that no other kept run shares, or by last, the newest run.`,
		Example: `  core runs show last
  core runs show r20261124T1015
  core runs show 1a2b`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			j, err := e.local().Journal(args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "run      %s\ntarget   %s\nstatus   %s", j.ID, j.Target, j.Status)
			if j.Status == backend.StateFailed {
				fmt.Fprintf(out, " (exit %d)", j.ExitCode)
			}
			fmt.Fprintln(out)
			fmt.Fprintf(out, "command  %s\ndir      %s\nstarted  %s\n", strings.Join(j.Argv, " "), j.Dir, j.Start.Local().Format(time.DateTime))
			if !j.End.IsZero() {
				fmt.Fprintf(out, "took     %s\n", j.End.Sub(j.Start).Round(time.Millisecond))
			}
			from := "ran"
			switch {
			case j.From == backend.FromRemote:
				from = "replayed from the remote cache"
			case j.CacheHit:
				from = "replayed from the build cache"
			}
			fmt.Fprintf(out, "result   %s (key %s)\n", from, shortKey(j.CacheKey))
			if j.Err != "" {
				fmt.Fprintf(out, "error    %s\n", j.Err)
			}
			if j.EnvMode != "" {
				fmt.Fprintf(out, "env      %s\n", j.EnvMode)
			}
			if j.Shard != "" {
				fmt.Fprintf(out, "shard    %s (plan %s; core ci report puts the shards together)\n", j.Shard, j.ShardPlan)
			}
			if advice := backend.EnvAdvice(j.Target, j.Withheld, "         "); advice != "" {
				fmt.Fprintf(out, "withheld %s\n", advice)
			}
			fmt.Fprintln(out, "\n--- output")
			fmt.Fprint(out, j.Output)
			if j.Output != "" && !strings.HasSuffix(j.Output, "\n") {
				fmt.Fprintln(out)
			}
			if j.Truncated {
				fmt.Fprintln(out, "--- (output cut: only its end is kept)")
			}
			if j.Status == backend.StateFailed {
				return &exitError{code: 1}
			}
			return nil
		},
	})
	return cmd
}

func shortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	if k == "" {
		return "-"
	}
	return k
}
