package main

import (
	"github.com/corehq/core/backend"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newCICmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ci",
		Short: "Split a run across CI runners (plan), and put their results together (report)",
		Long: `core ci plan splits the targets a run selects into N shards, balanced by
their recorded durations; core run --shard I/N runs one shard on each CI
runner; core ci report gathers the shards' run journals into one summary.
docs/ci.md has the rule and complete workflows.`,
	}
	cmd.AddCommand(newCIPlanCmd(g), newCIReportCmd(g))
	return cmd
}

func newCIPlanCmd(g *globals) *cobra.Command {
	var affectedTarget, base, projects, matrix string
	var history []string
	var shards int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan --shards N [--affected TARGET [--base REF] | PROJECT:TARGET|TARGET…] [--history DIR] [--json | --matrix github|gitlab]",
		Short: "Split the targets of a run into N shards, balanced by their recorded durations",
		Long: `Splits the targets the selection names (as core run takes it: targets, or
--affected TARGET with --base) and their dependencies into N shards that
core run --shard I/N runs, one per CI runner. Nothing runs.

Each target weighs the median of its latest runs that executed, in this
workspace's run log (.core/runs), or under the --history directories (an
earlier CI run's journals, which every job of the run must be given
alike); else that of targets of the same name in
other projects; else a size estimate (1s + 20ms per input file). Connected
groups of targets go whole to the least loaded shard, heaviest first, while
that keeps every shard within 1.25× of the lower bound max(total ÷ N,
longest dependency chain); a group that does not fit is split, and a shard
then needs dependencies another shard builds: it takes them from the cache,
or builds them too when the cache does not have them yet. The plan names
them. The plan depends only on the checkout, the history and N, so every
runner computes the same one; its digest is in the shards' journals.

--json prints the plan: each shard's targets, work and needs, and the
matrix for GitHub Actions (.github, for fromJSON) and GitLab (.gitlab).
--matrix github prints the GitHub matrix alone, on one line, ready for
$GITHUB_OUTPUT; --matrix gitlab the parallel: keyword.`,
		Example: `  core ci plan --shards 4 --affected test
  core ci plan --shards 4 --affected test --base origin/main --json
  echo "matrix=$(core ci plan --shards 4 --affected test --matrix github)" >> "$GITHUB_OUTPUT"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("shards") {
				return errors.New("--shards N is required: how many CI runners share the run (e.g. --shards 4)")
			}
			if err := backend.CheckShards(shards); err != nil {
				return err
			}
			if err := checkSelection(args, affectedTarget, base); err != nil {
				return err
			}
			if asJSON && matrix != "" {
				return errors.New("--json and --matrix are alternatives: the whole plan, or the matrix alone")
			}
			if matrix != "" && matrix != "github" && matrix != "gitlab" {
				return fmt.Errorf("--matrix %q: use github (strategy.matrix, for fromJSON) or gitlab (parallel:matrix)", matrix)
			}
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			ws, err := e.resolved(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			targets, err := selectTargets(cmd.Context(), cmd, e, ws, args, projects, affectedTarget, base)
			if err != nil {
				return err
			}
			plan, err := e.local().ShardPlan(cmd.Context(), ws, targets, shards, history...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case matrix == "github":
				return writeJSONLine(out, plan.GitHub)
			case matrix == "gitlab":
				return writeJSONLine(out, plan.GitLab)
			case asJSON:
				data, err := json.MarshalIndent(plan, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", data)
				return err
			}
			printShardPlan(out, plan)
			return nil
		},
	}
	cmd.Flags().IntVar(&shards, "shards", 0, "how many shards (CI runners) share the run")
	cmd.Flags().StringVar(&affectedTarget, "affected", "", "the target to run in every affected project that declares it")
	cmd.Flags().StringVar(&base, "base", "", "with --affected: compare against the merge-base with this ref (default: origin/HEAD, else main, else master)")
	cmd.Flags().StringVar(&projects, "projects", "", "only projects whose name matches this glob (e.g. 'svc-*')")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON, with the GitHub and GitLab matrices")
	cmd.Flags().StringVar(&matrix, "matrix", "", "print only the matrix, on one line: github or gitlab")
	cmd.Flags().StringArrayVar(&history, "history", nil, "weigh the targets by the journals under this directory (an earlier CI run's, the same for every job), not the run log")
	return cmd
}

// checkSelection checks core run's selection flags, as core run does.
func checkSelection(args []string, affectedTarget, base string) error {
	switch {
	case affectedTarget == "" && len(args) == 0:
		return errors.New("name the targets as core run takes them (PROJECT:TARGET, TARGET, a glob), or use --affected TARGET")
	case affectedTarget != "" && len(args) > 0:
		return errors.New("--affected runs TARGET in every affected project: give either --affected TARGET or PROJECT:TARGET arguments, not both")
	case base != "" && affectedTarget == "":
		return errors.New("--base only applies with --affected TARGET")
	}
	return nil
}

func writeJSONLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func printShardPlan(w io.Writer, p backend.ShardPlan) {
	sources := map[string]int{}
	for _, t := range p.Targets {
		sources[t.Source]++
	}
	var weighed []string
	for _, s := range []string{"history", "name", "size"} {
		if sources[s] > 0 {
			weighed = append(weighed, fmt.Sprintf("%d by %s", sources[s], s))
		}
	}
	fmt.Fprintf(w, "plan %s: %s on %d shards, %s of work; longest shard %s, lower bound %s (longest chain %s)\n",
		p.Digest, plural(len(p.Targets), "target"), p.N, formatMS(p.TotalMS), formatMS(p.LongestMS), formatMS(p.LowerBoundMS), formatMS(p.ChainMS))
	if len(weighed) > 0 {
		fmt.Fprintf(w, "weighed: %s\n", strings.Join(weighed, ", "))
	}
	for _, s := range p.Shards {
		fmt.Fprintf(w, "shard %-5s %8s  %s: %s\n", s.Spec, formatMS(s.WorkMS), plural(len(s.Targets), "target"), joinOrNone(s.Targets))
		if len(s.Needs) > 0 {
			fmt.Fprintf(w, "            needs %s: from the cache, else built here too (up to %s more)\n", needsList(s.Needs), formatMS(s.ColdMS))
		}
	}
}

// needsList is "util:build (shard 2/4), …".
func needsList(needs []backend.ShardNeed) string {
	parts := make([]string, len(needs))
	for i, n := range needs {
		parts[i] = n.Target + " (shard " + n.From + ")"
	}
	return strings.Join(parts, ", ")
}

func formatMS(ms int64) string { return formatDuration(time.Duration(ms) * time.Millisecond) }

func newCIReportCmd(g *globals) *cobra.Command {
	var markdown, junit, affectedTarget, base string
	var history []string
	var shards int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report DIR… [--markdown FILE] [--junit FILE] [--json] [--shards N --affected TARGET [--base REF] [--history DIR]]",
		Short: "Put the shards' results together: a summary, JUnit XML, and the exit status",
		Long: `Reads the run journals under each DIR (to any depth: the shards' .core/runs
directories, as the workflow downloaded their artifacts) and reports the
run as one: per target its latest journal on each shard, a failure over a
success over a cache hit. It prints a line per shard and the failures;
--markdown FILE appends the summary in Markdown (a GitHub step summary:
--markdown "$GITHUB_STEP_SUMMARY"), --junit FILE writes JUnit XML (a test
suite per shard, a test case per target), --json prints the report. Each
failure's output is included, its last 60 lines (at most 8 KiB), for at
most 20 failures in the Markdown.

With --shards N and the selection the shards used (--affected TARGET,
--base), it computes the plan too and fails when a planned target has no
result (its dependency failed, or its shard never ran or uploaded its
journals) or the shards ran another plan (give it the --history they
had). A plan without targets passes at once, whatever the directories
hold: nothing was affected.

The exit status is 1 when any target failed or did not finish, or a
check above failed; 0 otherwise.`,
		Example: `  core ci report shards/ --markdown "$GITHUB_STEP_SUMMARY" --junit core-junit.xml
  core ci report shards/ --shards 4 --affected test --base origin/main`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if (shards == 0) != (affectedTarget == "") {
				return errors.New("--shards N and --affected TARGET go together: the plan the shards ran, to check every planned target has a result")
			}
			if base != "" && affectedTarget == "" {
				return errors.New("--base only applies with --affected TARGET")
			}
			if shards != 0 {
				if err := backend.CheckShards(shards); err != nil {
					return err
				}
			}
			var plan *backend.ShardPlan
			if shards > 0 {
				e, err := g.load(nil)
				if err != nil {
					return err
				}
				ws, err := e.resolved(cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				targets, err := selectTargets(cmd.Context(), cmd, e, ws, nil, "", affectedTarget, base)
				if err != nil {
					return err
				}
				p, err := e.local().ShardPlan(cmd.Context(), ws, targets, shards, history...)
				if err != nil {
					return err
				}
				if len(p.Targets) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "passed: the plan has no targets, so the shards had nothing to run")
					return nil
				}
				plan = &p
			}
			for _, d := range dirs {
				if st, err := os.Stat(d); err != nil || !st.IsDir() {
					return fmt.Errorf("%s is not a directory: pass the directories the shards' .core/runs were downloaded to", d)
				}
			}
			rep, err := backend.GatherCIReport(dirs, plan)
			if err != nil {
				return err
			}
			if markdown != "" {
				if err := appendTo(markdown, rep.Markdown); err != nil {
					return err
				}
			}
			if junit != "" {
				f, err := os.Create(junit)
				if err != nil {
					return err
				}
				if err := rep.JUnit(f); err != nil {
					_ = f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				data, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s\n", data)
			} else {
				printCIReport(out, rep)
			}
			if rep.Failed {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&markdown, "markdown", "", "append the summary in Markdown to this file (e.g. \"$GITHUB_STEP_SUMMARY\"; - for stdout)")
	cmd.Flags().StringVar(&junit, "junit", "", "write the results as JUnit XML to this file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&shards, "shards", 0, "with --affected: check every target of the plan for N shards has a result")
	cmd.Flags().StringVar(&affectedTarget, "affected", "", "with --shards: the target the shards ran with --affected")
	cmd.Flags().StringVar(&base, "base", "", "with --affected: the base the shards compared against")
	cmd.Flags().StringArrayVar(&history, "history", nil, "with --shards: the history the shards were given (core ci plan --history)")
	return cmd
}

// appendTo appends what write writes to path ("-": stdout).
func appendTo(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(os.Stdout)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func printCIReport(w io.Writer, r backend.CIReport) {
	fmt.Fprintln(w, r.Headline())
	for _, s := range r.Shards {
		name := s.Shard
		if name == "" {
			name = s.Source
		}
		fmt.Fprintf(w, "  %-8s %3d targets: %d built, %d cached, %d failed, %s of work\n", name, s.Targets, s.Built, s.Cached, s.Failed, formatMS(s.WorkMS))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(r.Twice) > 0 {
		fmt.Fprintf(w, "ran on two shards: %s\n", strings.Join(r.Twice, ", "))
	}
	for _, t := range r.Targets {
		if t.OK() {
			continue
		}
		where := ""
		if t.Shard != "" {
			where = " on shard " + t.Shard
		}
		fmt.Fprintf(w, "  ✘ %s: %s%s\n", t.Target, failureOf(t), where)
	}
}

func failureOf(t backend.CIResult) string {
	if t.ExitCode > 0 {
		return fmt.Sprintf("exit %d", t.ExitCode)
	}
	if t.Err != "" {
		return t.Err
	}
	return t.Status
}
