package main

import (
	"github.com/corehq/core/backend"

	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newDiffCmd(g *globals) *cobra.Command {
	var base string
	var asJSON, patch bool
	cmd := &cobra.Command{
		Use:   "diff [--base REF] [--json | --patch]",
		Short: "Review the working tree's change: files, reach, coverage, blast radius",
		Long: `Shows the working tree's change (staged, unstaged and untracked files, as
.gitignore allows) against HEAD, or against the merge base with --base, the
way a reviewer reads it: files in reading order with their project and role,
the symbols each change touches and who uses them, the coverage of the
changed lines (from the coverage: files targets.yaml declares), and the
targets and projects it affects, each with the chain of reasons.

With --json it prints the bytes of GET /api/v1/diff, the review session of
the branch included; with --patch the unified patch of GET /api/v1/diff/patch.
No server is needed: the index is read (or built) from the cache.`,
		Example: `  core diff
  core diff --base main
  core diff --json | jq '.files[].path'
  core diff --patch | git apply --check -R`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON && patch {
				return fmt.Errorf("--json and --patch are alternatives: give one")
			}
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if patch {
				bw := bufio.NewWriterSize(out, 64<<10)
				if err := e.local().WritePatch(cmd.Context(), bw, base); err != nil {
					return err
				}
				return bw.Flush()
			}
			page, err := e.local().ReviewPage(cmd.Context(), base, func(warning string) {
				fmt.Fprintln(cmd.ErrOrStderr(), "core: warning: "+warning)
			})
			if err != nil {
				return err
			}
			if asJSON {
				data, err := json.Marshal(page)
				if err != nil {
					return err
				}
				_, err = out.Write(data)
				return err
			}
			printReview(out, page)
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "compare against the merge base with this ref (default: HEAD)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the annotated change as JSON (the bytes of GET /api/v1/diff)")
	cmd.Flags().BoolVar(&patch, "patch", false, "print the unified patch (the bytes of GET /api/v1/diff/patch)")
	return cmd
}

// printReview is the terminal's reading of a diff page.
func printReview(w io.Writer, p backend.ReviewPage) {
	against := "HEAD"
	if p.Base.Ref != "HEAD" {
		against = "the merge base with " + p.Base.Ref
	}
	if p.Base.Commit != "" {
		against += " (" + p.Base.Commit[:min(12, len(p.Base.Commit))] + ")"
	}
	if len(p.Files) == 0 {
		fmt.Fprintf(w, "no change against %s\n", against)
		return
	}
	fmt.Fprintf(w, "%s changed against %s, in reading order:\n\n", plural(len(p.Files), "file"), against)
	for _, f := range p.Files {
		project := f.Project
		if project == "" {
			project = "-"
		}
		path := f.Path
		if f.OldPath != "" {
			path = f.OldPath + " -> " + f.Path
		}
		counts := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
		switch {
		case f.Binary:
			counts = "binary"
		case f.Truncated:
			counts = "too large to show"
		}
		fmt.Fprintf(w, "  %-40s %-9s %-10s %-9s %s\n", path, f.Kind, project, f.Role, counts)
		for _, s := range f.Symbols {
			used := "used nowhere else"
			if s.FilesTotal > 0 {
				used = "used by " + plural(s.FilesTotal, "file")
				if len(s.Projects) > 0 {
					used += " in " + strings.Join(s.Projects, ", ")
				}
			}
			fmt.Fprintf(w, "      changes %s (%s, line %d), %s\n", s.Name, s.Kind, s.Line, used)
		}
		if c := f.Coverage; len(c.Uncovered) > 0 || len(c.Covered) > 0 {
			fmt.Fprintf(w, "      coverage: %d covered, %d not covered, %d unknown (%s)\n", len(c.Covered), len(c.Uncovered), len(c.Unknown), c.From)
		} else if c.Problem != "" {
			fmt.Fprintf(w, "      coverage unknown: %s\n", c.Problem)
		}
	}
	fmt.Fprintf(w, "\naffects %s and %s:\n", plural(len(p.Affected.Projects), "project"), plural(len(p.Affected.Targets), "target"))
	for _, t := range p.Affected.Targets {
		fmt.Fprintf(w, "  %s\n", strings.Join(t.Chain, " <- "))
	}
	s := p.Session
	open := 0
	for _, c := range s.Comments {
		if !c.Resolved {
			open++
		}
	}
	fmt.Fprintf(w, "\nreview of %s: %s (%d open), %s of %d marked viewed\n", s.Branch, plural(len(s.Comments), "comment"), open, plural(len(s.Viewed), "file"), len(p.Files))
	if s.Notice != "" {
		fmt.Fprintf(w, "  note: %s\n", s.Notice)
	}
}
