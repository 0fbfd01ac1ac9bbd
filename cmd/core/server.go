package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/server"
)

func newServerCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start, stop and inspect the workspace's server",
	}
	cmd.AddCommand(newServerStartCmd(g), newServerStopCmd(g), newServerStatusCmd(g), newServerJobCmd(g))
	return cmd
}

func newServerStartCmd(g *globals) *cobra.Command {
	var open bool
	var address string
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Run the server in the foreground until interrupted",
		Long: `Runs the server for the workspace in the foreground, on server.address
(default 127.0.0.1:7391), until SIGINT or SIGTERM. It watches the workspace and
rebuilds the graph when files change. Its state (address, pid, the CLI's admin
credential) is kept in <cache>/server.json, mode 0600, while it runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := map[string]any{}
			if cmd.Flags().Changed("address") {
				flags["server.address"] = address
			}
			e, err := g.load(flags)
			if err != nil {
				return err
			}
			log := logx.New(os.Stderr, e.cfg.Log.Level, e.cfg.Log.Format)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			server.Version = version
			out := cmd.OutOrStdout()
			return server.Run(ctx, server.Options{
				Root: e.root, Config: e.cfg, Log: log,
				Ready: func(r server.Ready) {
					// The lines go out in one write, so that whoever reads
					// the ready line (a script, a test) has the ones about
					// it too.
					var b strings.Builder
					fmt.Fprintf(&b, "core server: serving %s at %s\n", e.root, r.BaseURL)
					if host, _, err := net.SplitHostPort(r.Address); err == nil {
						if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
							where := r.Address
							if ip.IsUnspecified() {
								where = "every interface (" + r.Address + ")"
							}
							fmt.Fprintf(&b, "core server: listening on %s, which is not loopback: only this machine's own connections are served, and the console and /api/v1/ are not mounted; use 127.0.0.1 for the console, core share for colleagues\n", where)
						}
					}
					var link string
					switch {
					case !r.ConsoleMount:
						fmt.Fprintf(&b, "console: not mounted (%s)\n", r.ConsoleOff)
					case open:
						code := r.PairingCode()
						link = PairingURL(r.BaseURL, code, false)
						fmt.Fprintf(&b, "console: %s\n", link)
					}
					_, _ = io.WriteString(out, b.String())
					if link != "" {
						openBrowser(cmd, link)
					}
				},
			})
		},
	}
	cmd.Flags().BoolVar(&open, "open", false, "print and open the console's pairing link")
	cmd.Flags().StringVar(&address, "address", "", "listen address host:port (sets server.address; port 0 picks a free one)")
	return cmd
}

func newServerStopCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the running server gracefully",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			st, alive, err := state.Live(e.cacheDir)
			if errors.Is(err, state.ErrNotRunning) {
				fmt.Fprintln(cmd.OutOrStdout(), "core server is not running")
				return nil
			}
			if err != nil {
				return err
			}
			if !alive {
				_ = state.Remove(e.cacheDir, st.PID)
				fmt.Fprintf(cmd.OutOrStdout(), "core server is not running (removed a stale state file of pid %d)\n", st.PID)
				return nil
			}
			proc, err := os.FindProcess(st.PID)
			if err != nil {
				return err
			}
			if err := proc.Signal(syscall.SIGTERM); err != nil {
				return fmt.Errorf("stop pid %d: %w", st.PID, err)
			}
			deadline := time.Now().Add(e.cfg.Server.ShutdownTimeout + 5*time.Second)
			for time.Now().Before(deadline) {
				if !st.ProcessAlive() {
					fmt.Fprintf(cmd.OutOrStdout(), "core server stopped (pid %d)\n", st.PID)
					return nil
				}
				time.Sleep(50 * time.Millisecond)
			}
			return fmt.Errorf("pid %d did not stop within %s; it may be stuck: kill it with `kill -9 %d`", st.PID, e.cfg.Server.ShutdownTimeout+5*time.Second, st.PID)
		},
	}
}

func newServerStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say whether the server runs, where, and since when",
		Long:  "Prints the server's address, pid and uptime. Exits 0 when it runs and answers, 3 when it is not running, 1 when it runs but does not answer.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			st, alive, err := state.Live(e.cacheDir)
			if errors.Is(err, state.ErrNotRunning) || (err == nil && !alive) {
				fmt.Fprintln(cmd.OutOrStdout(), "core server: not running")
				return &exitError{code: 3}
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "core server: running\n  address:   %s\n  pid:       %d\n  started:   %s (%s ago)\n  workspace: %s\n  version:   %s\n",
				st.BaseURL, st.PID, st.StartedAt.Local().Format(time.DateTime), time.Since(st.StartedAt).Round(time.Second), st.Workspace, st.Version)
			if _, err := probeConsole(cmd.Context(), st.BaseURL); err != nil {
				return &exitError{code: 1, msg: fmt.Sprintf("the server at %s does not answer: %v", st.BaseURL, err)}
			}
			return nil
		},
	}
}

// probeConsole asks the console route for the graph without a token: a
// mounted console answers 401 with a Bearer challenge (off is ""), an
// unmounted one 404 with the server's reason, which off returns: the
// server knows why, the client's own configuration may differ from its.
func probeConsole(ctx context.Context, baseURL string) (off string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/v1/graph", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != "":
		return "", nil
	case resp.StatusCode == http.StatusNotFound:
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&body)
		if body.Error.Message == "" {
			return "the server does not say why", nil
		}
		return body.Error.Message, nil
	}
	return "", fmt.Errorf("unexpected answer %s", resp.Status)
}
