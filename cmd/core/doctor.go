package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/internal/workspace"
	"github.com/corehq/core/server"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace, the configuration and the server",
		Long: `Runs one check per line: the workspace file, the configuration, the cache
directory, the server and the console. A check that cannot run is "skipped",
which is not a failure; the command exits 1 when any check fails.

The console line reads "console: reachable", "console: skipped (server not
running)" or "console: disabled".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			failed := 0
			line := func(ok bool, format string, args ...any) {
				if !ok {
					failed++
				}
				fmt.Fprintf(out, format+"\n", args...)
			}

			root, err := g.resolveRoot()
			if err != nil {
				line(false, "workspace: %v", err)
				return &exitError{code: 1}
			}
			if ws, err := workspace.Load(root); err != nil {
				line(false, "workspace: %s does not load:\n%v", filepath.Join(root, workspace.FileName), err)
			} else {
				line(true, "workspace: ok (%s, %d projects, %d spells)", root, len(ws.Projects), len(ws.Spells))
			}

			cfg, err := config.Load(config.Sources{WorkspaceRoot: root})
			if err != nil {
				line(false, "config: %v", err)
				return &exitError{code: 1}
			}
			line(true, "config: ok")

			cacheDir := server.CacheDir(root, cfg)
			if err := checkWritable(cacheDir); err != nil {
				line(false, "cache: %v", err)
			} else {
				line(true, "cache: ok (%s)", cacheDir)
			}

			st, running, err := state.Live(cacheDir)
			switch {
			case running:
				line(true, "server: running at %s (pid %d)", st.BaseURL, st.PID)
			case err == nil || errors.Is(err, state.ErrNotRunning):
				line(true, "server: not running")
			default:
				line(false, "server: %v", err)
			}

			switch {
			case !cfg.Console.Enabled:
				line(true, "console: disabled")
			case !running:
				line(true, "console: skipped (server not running)")
			default:
				mounted, err := probeConsole(cmd.Context(), st.BaseURL)
				switch {
				case err != nil:
					line(false, "console: unreachable (%v)", err)
				case !mounted:
					line(false, "console: not mounted (is mcp.address a loopback address? was the server started with console.enabled=false?)")
				default:
					line(true, "console: reachable")
				}
			}
			if failed > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}
