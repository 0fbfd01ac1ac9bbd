package main

import (
	"github.com/corehq/core/backend"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newInsightCmd(g *globals) *cobra.Command {
	var asJSON bool
	var p backend.Lenses
	cmd := &cobra.Command{
		Use:   "insight [hotspots|affinity|ownership|trend|volatility] [--json]",
		Short: "What the git history says: hotspots, affinity, ownership, trend, volatility",
		Long: `Reads the whole git history of HEAD (once; later runs read only the new
commits) and the run journals, and prints the five lenses, or the one named:

  hotspots    files and projects by changes in the window x complexity now;
              lockfiles, generated and vendored files and docs are left out
              unless --include names them (lockfiles,generated,vendored,docs
              or all)
  affinity    files and projects changed in the same commits; "hidden" marks
              project pairs with no declared or inferred dependency
  ownership   each author's share, the bus factor, owners who went quiet
  trend       commits per project per week, the last 12 weeks; the last 4
              against the project's own baseline: rising, falling, steady,
              or new (too young to compare)
  volatility  targets whose result flips under the same cache key

docs/insight.md gives each formula. Renames are followed within a time bound
per commit; the notes name the commits where they were not. Outside a
workspace (no targets.yaml) it reads the git repository of the current
directory, without projects. With --json it prints the bytes of
GET /api/v1/insight. No server is needed.`,
		Example: `  core insight
  core insight hotspots --window 90d --limit 10
  core insight hotspots --include docs
  core insight ownership --project api
  core insight --json | jq '.affinity.projects[] | select(.hidden)'`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: backend.InsightLenses,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				p.Lenses = []string{args[0]}
			}
			rep, err := insightReport(cmd.Context(), g, p)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				data, err := json.Marshal(rep)
				if err != nil {
					return err
				}
				_, err = out.Write(append(data, '\n'))
				return err
			}
			printInsight(out, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lenses as JSON (the bytes of GET /api/v1/insight)")
	cmd.Flags().StringVar(&p.Window, "window", "", "the span counted: 90d, 1y, all, or a number of days (default 1y)")
	cmd.Flags().StringVar(&p.Project, "project", "", "only this project")
	cmd.Flags().IntVar(&p.Limit, "limit", 0, fmt.Sprintf("rows per list (default %d, at most %d)", backend.InsightDefaultRows, backend.MaxInsightRows))
	cmd.Flags().StringSliceVar(&p.Include, "include", nil, "kinds of file hotspots counts although it leaves them out by default: "+strings.Join(backend.InsightLeftOutKinds, ",")+" or all")
	return cmd
}

// insightReport reads the lenses over the workspace, or, outside one,
// over the git repository of the current directory (its history kept in
// the user's cache directory, not in the repository).
func insightReport(ctx context.Context, g *globals, p backend.Lenses) (*backend.InsightReport, error) {
	e, err := g.load(nil)
	if err == nil {
		return e.local().Insight(ctx, p)
	}
	if g.workspace != "" || !errors.Is(err, backend.ErrNoWorkspace) {
		return nil, err
	}
	wd, werr := os.Getwd()
	if werr != nil {
		return nil, werr
	}
	root, gerr := backend.RepositoryOf(ctx, wd)
	if gerr != nil {
		return nil, fmt.Errorf("%w; and %s is not in a git repository either: core insight reads git history", err, wd)
	}
	base, cerr := os.UserCacheDir()
	if cerr != nil {
		return nil, cerr
	}
	sum := sha256.Sum256([]byte(root))
	return backend.InsightOf(ctx, root, filepath.Join(base, "core", "insight-"+hex.EncodeToString(sum[:8])), p)
}

// printInsight is the terminal's reading of the lenses.
func printInsight(w io.Writer, r *backend.InsightReport) {
	since := "the whole history"
	if !r.Window.Since.IsZero() {
		since = "since " + r.Window.Since.Local().Format(time.DateOnly)
	}
	fmt.Fprintf(w, "%d commits in the window %s (%s) of %d; bulk changes (over %d files): %d\n", r.Window.Commits, r.Window.Name, since, r.Commits, r.Bulk.Threshold, r.Bulk.Commits)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	table := func(title, head string, rows [][]any) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(rows) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+head)
		for _, row := range rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = fmt.Sprint(c)
			}
			fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
		}
		_ = tw.Flush()
	}
	if h := r.Hotspots; h != nil {
		var rows [][]any
		for _, f := range h.Files {
			rows = append(rows, []any{f.Score, f.Changes, f.Complexity, orDash(f.Project), f.Path})
		}
		table("Hotspots: changes x complexity", "SCORE\tCHANGES\tCOMPLEXITY\tPROJECT\tFILE", rows)
		if h.Note != "" {
			fmt.Fprintf(w, "  %s\n", h.Note)
		}
		rows = nil
		for _, p := range h.Projects {
			rows = append(rows, []any{p.Score, p.Changes, p.Complexity, p.Project})
		}
		table("Hotspots by project", "SCORE\tCHANGES\tCOMPLEXITY\tPROJECT", rows)
	}
	if a := r.Affinity; a != nil {
		var rows [][]any
		for _, p := range a.Projects {
			flag := ""
			if p.Hidden {
				flag = "hidden coupling"
			}
			rows = append(rows, []any{p.Together, pct(p.Confidence), p.A + " + " + p.B, orDash(flag)})
		}
		table("Affinity: projects changed together", "TOGETHER\tCONFIDENCE\tPROJECTS\t", rows)
		rows = nil
		for _, p := range a.Files {
			rows = append(rows, []any{p.Together, pct(p.Confidence), p.A + " + " + p.B})
		}
		table("Affinity: files changed together", "TOGETHER\tCONFIDENCE\tFILES", rows)
	}
	if o := r.Ownership; o != nil {
		var rows [][]any
		for _, p := range o.Projects {
			var top []string
			for _, ow := range p.Owners[:min(3, len(p.Owners))] {
				top = append(top, fmt.Sprintf("%s %s", ow.Author, pct(ow.Share)))
			}
			var quiet []string
			for _, q := range p.Quiet {
				quiet = append(quiet, q.Author+" since "+q.Last.Local().Format(time.DateOnly))
			}
			rows = append(rows, []any{p.BusFactor, p.Changes, p.Project, strings.Join(top, ", "), orDash(strings.Join(quiet, ", "))})
		}
		table("Ownership by project (bus factor: fewest authors with over half the changes)", "BUS\tCHANGES\tPROJECT\tOWNERS\tQUIET", rows)
	}
	if t := r.Trend; t != nil && len(t.Weeks) > 0 {
		var rows [][]any
		for _, p := range t.Projects {
			base := "-"
			if p.BaselineWeeks > 0 {
				base = fmt.Sprintf("%.1f/week over %d weeks", p.Baseline, p.BaselineWeeks)
			}
			rows = append(rows, []any{p.Project, spark(p.Counts), p.Recent, base, p.Direction})
		}
		table("Trend: commits per week since "+t.Weeks[0]+"; the last 4 weeks against the weeks before (new: too young to compare)", "PROJECT\tWEEKS\tLAST 4\tBASELINE\tDIRECTION", rows)
	}
	if v := r.Volatility; v != nil {
		var rows [][]any
		for _, t := range v.Targets {
			rows = append(rows, []any{t.Target, fmt.Sprintf("%d/%d", t.Flips, t.Pairs), pct(t.Rate), pct(t.LowerBound)})
		}
		table(fmt.Sprintf("Volatility: results that flip under the same cache key (%d runs read, at least %d pairs)", v.Runs, v.MinSample), "TARGET\tFLIPS\tRATE\tAT LEAST", rows)
	}
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// spark draws counts as a line of block characters.
func spark(counts []int) string {
	bars := []rune(" ▁▂▃▄▅▆▇█")
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	out := make([]rune, len(counts))
	for i, n := range counts {
		if top == 0 {
			out[i] = bars[0]
			continue
		}
		out[i] = bars[(n*(len(bars)-1)+top-1)/top]
	}
	return string(out)
}
