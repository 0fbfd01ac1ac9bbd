package main

import (
	"github.com/corehq/core/backend"

	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mdp/qrterminal/v3"
	"github.com/spf13/cobra"
)

func newShareCmd(g *globals) *cobra.Command {
	var ttl time.Duration
	var open bool
	cmd := &cobra.Command{
		Use:   "share [--ttl 1h] [--open]",
		Short: "Share a read-only, time-boxed view of the workspace with a colleague on the network",
		Long: fmt.Sprintf(`Opens the share listener of the running server on this machine's private
network address (share.address overrides it) and prints its link and a QR
code for a phone. The link shows the live status, the insight lenses, the
activity and past run logs, and nothing else: no graph, diff, plan, jobs,
tools or /mcp, and nothing that writes. It works until the time box ends
(--ttl, from %s to %s), a new share replaces it, or "core share stop".

--open opens the share link itself in a browser: the link carries the
share's token, so it goes to the share listener and to no other host
(log_viewer_url is for "core run --open", and never sees a share).`, backend.ShareMinTTL, backend.ShareMaxTTL),
		Example: `  core share
  core share --ttl 30m
  core share status
  core share stop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			c, err := e.server()
			if err != nil {
				return err
			}
			info, err := shareCall(cmd, c, map[string]string{"ttl": ttl.String()})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if info.Superseded != "" {
				fmt.Fprintf(out, "the share on %s has ended: this one replaces it\n", info.Superseded)
			}
			fmt.Fprintf(out, "sharing read-only on %s until %s (status, insight, activity, run logs)\n", info.Address, info.Expires.Local().Format(time.TimeOnly))
			fmt.Fprintln(out, shareAddressLine(info))
			fmt.Fprintln(out)
			qrterminal.GenerateHalfBlock(info.URL, qrterminal.L, out)
			fmt.Fprintf(out, "\n%s\n", info.URL)
			if open {
				openBrowser(cmd, info.URL)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&ttl, "ttl", backend.ShareDefaultTTL, "how long the share lasts")
	cmd.Flags().BoolVar(&open, "open", false, "open the share link in a browser")
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Say whether a share is open, where and until when",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			info, err := shareCall(cmd, c, map[string]string{"action": "status"})
			if err != nil {
				return err
			}
			if !info.Active {
				fmt.Fprintln(cmd.OutOrStdout(), "no share is open; open one with `core share`")
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sharing on %s until %s (%s left)\n%s\n", info.Address, info.Expires.Local().Format(time.TimeOnly), time.Until(info.Expires).Round(time.Second), info.URL)
			return nil
		},
	}, &cobra.Command{
		Use:   "stop",
		Short: "End the open share now: its link stops working",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.serverConn()
			if err != nil {
				return err
			}
			before, err := shareCall(cmd, c, map[string]string{"action": "status"})
			if err != nil {
				return err
			}
			if _, err := shareCall(cmd, c, map[string]string{"action": "stop"}); err != nil {
				return err
			}
			if before.Active {
				fmt.Fprintf(cmd.OutOrStdout(), "the share on %s has ended\n", before.Address)
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), "no share was open")
			}
			return nil
		},
	})
	return cmd
}

// shareCall sends one POST /api/v1/share.
func shareCall(cmd *cobra.Command, c *serverConn, body map[string]string) (backend.ShareInfo, error) {
	data, _ := json.Marshal(body)
	resp, err := c.call(cmd.Context(), http.MethodPost, "/api/v1/share", data)
	if err != nil {
		return backend.ShareInfo{}, err
	}
	var info backend.ShareInfo
	if err := json.Unmarshal(resp, &info); err != nil {
		return info, fmt.Errorf("the server's answer does not parse: %w", err)
	}
	return info, nil
}

// shareAddressLine says which address the share took, why, and how to
// choose another.
func shareAddressLine(info backend.ShareInfo) string {
	host, _, err := net.SplitHostPort(info.Address)
	if err != nil {
		host = info.Address
	}
	var b strings.Builder
	switch {
	case info.Chosen == "share.address":
		fmt.Fprintf(&b, "address: %s, from share.address", host)
	case info.Interface != "":
		fmt.Fprintf(&b, "address: %s on %s (%s)", host, info.Interface, info.Chosen)
	default:
		fmt.Fprintf(&b, "address: %s", host)
	}
	if len(info.Others) > 0 {
		fmt.Fprintf(&b, "; the others: %s", strings.Join(info.Others, ", "))
	}
	if info.Chosen != "share.address" {
		b.WriteString("; to share on another, start the server with share.address set (CORE_SHARE_ADDRESS=IP core server start)")
	}
	return b.String()
}
