package main

import (
	"github.com/corehq/core/backend"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"connectrpc.com/connect"
	"github.com/spf13/cobra"

	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
)

func newSessionCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Work beside coding agents: hand them work, answer what they ask",
		Long: `Agents connect to the running server's MCP endpoint (<base URL>/mcp, with a
token from "core config mcp token create"). These commands are the person's
half: hand work to agent sessions, and answer the attention requests agents
block on (the console's Attention view does the same).`,
	}
	cmd.AddCommand(newSessionHandCmd(g), newSessionAttentionCmd(g), newSessionAnswerCmd(g))
	return cmd
}

func newSessionHandCmd(g *globals) *cobra.Command {
	var node string
	cmd := &cobra.Command{
		Use:   "hand TEXT",
		Short: "Hand work to an agent session (a session job an agent claims)",
		Long: `Creates a session job with TEXT: it waits until an agent claims it with the
claim_job tool on /mcp, runs while the agent holds it, and is done when the
agent completes it. "core ls jobs" lists it with holder "session".`,
		Example: `  core session hand "add tests for mathx.Add" --node project:mathx`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			res, err := c.jobs().HandJob(cmd.Context(), &jobv1alpha1.HandJobRequest{Text: args[0], Node: node})
			if err != nil {
				var ce *connect.Error
				if errors.As(err, &ce) {
					return errors.New(ce.Message())
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s handed: waiting for an agent to claim it (core ls jobs)\n", res.GetJob().GetName())
			return nil
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "the graph node the work is about, such as project:api")
	return cmd
}

func newSessionAttentionCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "attention",
		Short: "List what agents are waiting on you for",
		Long: `Lists the attention queue: requests from agents, each open until a person
answers it ("core session answer ID REASON", or the console): only that
closes one. Open requests come first. --json prints the bytes of
GET /api/v1/attention.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			body, err := c.call(cmd.Context(), http.MethodGet, "/api/v1/attention", nil)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				_, err := out.Write(append(body, '\n'))
				return err
			}
			var l backend.Queue
			if err := json.Unmarshal(body, &l); err != nil {
				return fmt.Errorf("the server's answer does not parse: %w", err)
			}
			if len(l.Requests) == 0 {
				fmt.Fprintln(out, "no attention requests")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATE\tASKED\tABOUT\tNEED\tREASON")
			for _, r := range l.Requests {
				about := strings.TrimSpace(r.Node + " " + r.File)
				if about == "" {
					about = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, r.Created.Local().Format(time.DateTime), about, oneLine(r.Need, 60), oneLine(r.Reason, 40))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if l.Open > 0 {
				fmt.Fprintf(out, "\n%d open: answer one with `core session answer ID \"REASON\"`\n", l.Open)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the queue as JSON (the shape of GET /api/v1/attention)")
	return cmd
}

func newSessionAnswerCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "answer ID REASON",
		Short:   "Dispose an attention request: the waiting agent receives REASON",
		Example: `  core session answer att-1a2b3c4d5e6f "yes, delete it; nothing imports it"`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			body, _ := json.Marshal(map[string]string{"id": args[0], "reason": args[1]})
			if _, err := c.call(cmd.Context(), http.MethodPost, "/api/v1/attention", body); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "answered %s: the agent continues\n", args[0])
			return nil
		},
	}
}

// call sends one request to a plain JSON route and returns the body of a
// 2xx answer; any other answer is an error carrying the server's message.
func (c *serverConn) call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.st.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return data, nil
	}
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		if resp.StatusCode == http.StatusNotFound && strings.Contains(e.Error.Message, "no such route") {
			return nil, fmt.Errorf("the server has no %s: it was built without MCP (-tags nomcp)", path)
		}
		return nil, errors.New(e.Error.Message)
	}
	return nil, fmt.Errorf("%s %s: %s", method, path, resp.Status)
}

// oneLine shortens s to one line of at most n runes for a table.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}
