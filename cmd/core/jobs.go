package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"connectrpc.com/connect"
	"github.com/spf13/cobra"

	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
)

func newServerJobCmd(g *globals) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "job NAME",
		Short: "Submit a maintenance job to the running server",
		Long: `Submits a job through the same RunJob path the console uses: fire-and-forget
and coalesced (if the same job is already running, this joins it). NAME is a
job's name, with or without the "jobs/" prefix; "core ls jobs" lists them:
sync-graph, rotate-activities, rotate-logs, clear-cache, check-review,
check-drift.`,
		Example: "  core server job sync-graph\n  core server job jobs/check-drift --wait",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			name := args[0]
			if !strings.HasPrefix(name, "jobs/") {
				name = "jobs/" + name
			}
			res, err := c.jobs().RunJob(cmd.Context(), &jobv1alpha1.RunJobRequest{Name: name})
			if connect.CodeOf(err) == connect.CodeNotFound {
				var ce *connect.Error
				errors.As(err, &ce)
				return fmt.Errorf("not found: %s", ce.Message())
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if res.GetStarted() {
				fmt.Fprintf(out, "%s submitted\n", name)
			} else {
				fmt.Fprintf(out, "%s was already running; joined it\n", name)
			}
			if !wait {
				return nil
			}
			for {
				time.Sleep(200 * time.Millisecond)
				list, err := c.jobs().ListJobs(cmd.Context(), &jobv1alpha1.ListJobsRequest{})
				if err != nil {
					return err
				}
				for _, j := range list.GetJobs() {
					if j.GetName() != name || j.GetState() == "running" {
						continue
					}
					r := j.GetLastRun()
					fmt.Fprintf(out, "%s %s: %s\n", name, r.GetResult(), r.GetMessage())
					if r.GetResult() != "succeeded" {
						return &exitError{code: 1}
					}
					return nil
				}
			}
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the job to finish and print its result")
	return cmd
}

func newLsCmd(g *globals) *cobra.Command {
	ls := &cobra.Command{Use: "ls", Short: "List things the server keeps"}
	ls.AddCommand(&cobra.Command{
		Use:   "jobs",
		Short: "List server and session jobs with their holder, state, last run and size",
		Long: `Lists every job the running server knows: its own maintenance jobs (holder
"server") and work handed to agent sessions (holder "session").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			list, err := c.jobs().ListJobs(cmd.Context(), &jobv1alpha1.ListJobsRequest{})
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tHOLDER\tSTATE\tLAST RUN\tRESULT\tSIZE")
			for _, j := range list.GetJobs() {
				last, result := "never", "-"
				if r := j.GetLastRun(); r != nil {
					last = r.GetEndTime().AsTime().Local().Format(time.DateTime)
					result = r.GetResult()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d %s\n", j.GetName(), j.GetHolder(), j.GetState(), last, result, j.GetTargetSize(), j.GetTargetUnit())
			}
			return tw.Flush()
		},
	})
	return ls
}
