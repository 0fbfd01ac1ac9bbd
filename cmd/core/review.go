package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/suggest"
)

func newReviewCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Write on your review of the working change: comment, resolve, reopen, mark viewed",
		Long: `Writes on the review session of the working change (what the console's
Review view shows, and core diff prints): a comment on a line, a comment
resolved or reopened, a file marked viewed. With the server up the write goes
through POST /api/v1/diff/session, as the console's do; with it down, through
the same store in the cache directory. Either way it is stamped by the route
as the CLI (kind cli, your user name): no input names an author. A comment
anchors to the line as the file holds it now, so a later edit of the line
marks it outdated.`,
		Example: `  core review comment api/main.go:42 "this leaks the file handle"
  core review resolve c3
  core review reopen c3
  core review viewed api/main.go`,
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "comment FILE:LINE TEXT...",
			Short: "Comment on a line of a changed file",
			Args:  cobra.MinimumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				file, lineText, ok := strings.Cut(args[0], ":")
				line, err := strconv.Atoi(lineText)
				if !ok || err != nil || line < 1 || file == "" {
					return fmt.Errorf("%q is not FILE:LINE: write the file as core diff names it and a line from 1, e.g. api/main.go:42", args[0])
				}
				body := strings.Join(args[1:], " ")
				s, err := reviewWrite(cmd, g, map[string]any{"op": backend.OpComment, "path": file, "line": line, "body": body})
				if err != nil {
					return err
				}
				id := ""
				if n := len(s.Comments); n > 0 {
					id = s.Comments[n-1].ID
				}
				fmt.Fprintf(cmd.OutOrStdout(), "commented %s on %s:%d\n", id, file, line)
				return nil
			},
		},
		&cobra.Command{
			Use:   "resolve ID",
			Short: "Resolve a comment (core diff lists their ids)",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if _, err := reviewWrite(cmd, g, map[string]any{"op": backend.OpResolve, "id": args[0]}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "resolved %s\n", args[0])
				return nil
			},
		},
		&cobra.Command{
			Use:   "reopen ID",
			Short: "Reopen a resolved comment",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if _, err := reviewWrite(cmd, g, map[string]any{"op": backend.OpReopen, "id": args[0]}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "reopened %s\n", args[0])
				return nil
			},
		},
		&cobra.Command{
			Use:   "viewed FILE",
			Short: "Mark a changed file viewed, as it is now (an edit of it clears the mark)",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				hash, err := changedFileHash(cmd, g, args[0])
				if err != nil {
					return err
				}
				if _, err := reviewWrite(cmd, g, map[string]any{"op": backend.OpView, "path": args[0], "hash": hash}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "marked %s viewed\n", args[0])
				return nil
			},
		},
	)
	return cmd
}

// reviewWrite applies one op to the review session: through the server
// when it runs, else through the store itself.
func reviewWrite(cmd *cobra.Command, g *globals, op map[string]any) (backend.Session, error) {
	e, err := g.load(nil)
	if err != nil {
		return backend.Session{}, err
	}
	c, err := e.server()
	if err != nil {
		if !errors.Is(err, errNoServer) {
			return backend.Session{}, err
		}
		var o backend.Op
		data, _ := json.Marshal(op)
		if err := json.Unmarshal(data, &o); err != nil {
			return backend.Session{}, err
		}
		return e.local().Review(nil).Write(cmd.Context(), backend.CLIAuthor(), o)
	}
	body, _ := json.Marshal(op)
	data, err := c.call(cmd.Context(), http.MethodPost, "/api/v1/diff/session", body)
	if err != nil {
		return backend.Session{}, err
	}
	var s backend.Session
	return s, json.Unmarshal(data, &s)
}

// changedFileHash is the git blob id of a changed file's content now, as
// the review page names it (a viewed mark holds for that content).
func changedFileHash(cmd *cobra.Command, g *globals, file string) (string, error) {
	e, err := g.load(nil)
	if err != nil {
		return "", err
	}
	var page backend.ReviewPage
	if c, err := e.server(); err == nil {
		data, err := c.call(cmd.Context(), http.MethodGet, "/api/v1/diff", nil)
		if err != nil {
			return "", err
		}
		if err := json.Unmarshal(data, &page); err != nil {
			return "", err
		}
	} else if page, err = e.local().ReviewPage(cmd.Context(), "", nil); err != nil {
		return "", err
	}
	var names []string
	for _, f := range page.Files {
		if f.Path == file {
			if f.Hash == "" {
				return "", fmt.Errorf("%s has no content to mark viewed (deleted, a symlink or a submodule)", file)
			}
			return f.Hash, nil
		}
		names = append(names, f.Path)
	}
	return "", fmt.Errorf("%s is not a file the change changes%s; core diff lists them", file, suggest.DidYouMean(file, names))
}
