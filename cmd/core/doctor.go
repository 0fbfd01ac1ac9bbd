package main

import (
	"github.com/corehq/core/backend"

	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/server"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace, the configuration and the server",
		Long: `Runs one check per line: the workspace file, the programs its targets and
spells call (found on PATH, and their version), the configuration, the cache
directory, whether the workspace's .core/config.yaml is trusted (and which
of its values wait for "core config trust"), the remote cache (reachable,
and writable in read-write mode), the server and the console. A check that cannot run is "skipped",
which is not a failure; the command exits 1 when any check fails.

The console line reads "console: reachable", "console: skipped (server not
running)" or "console: disabled" (console.enabled is false). A running
server says itself whether its console is mounted, and why not, whatever
this command's own configuration: "console: none (...)" from a build
without MCP (-tags nomcp), "console: not mounted (...)" on a bind that is
not loopback.`,
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
			ws, err := backend.Open(root, "", nil).Workspace()
			if err != nil {
				line(false, "workspace: %s does not load:\n%v", filepath.Join(root, backend.TargetsFile), err)
			} else {
				line(true, "workspace: ok (%s, %d projects, %d spells)", root, len(ws.Projects), len(ws.Spells))
				for _, tc := range toolchains(cmd.Context(), ws) {
					line(tc.ok, "%s", tc.line)
				}
			}

			cfg, err := config.Load(config.Sources{WorkspaceRoot: root})
			if err != nil {
				line(false, "config: %v", err)
				return &exitError{code: 1}
			}
			line(true, "config: ok")
			if trust, err := config.WorkspaceTrust(root, ""); err != nil {
				line(false, "config trust: %v", err)
			} else {
				line(true, "%s", trustLine(trust))
			}

			cacheDir := server.CacheDir(root, cfg)
			if err := checkWritable(cacheDir); err != nil {
				line(false, "cache: %v", err)
			} else {
				line(true, "cache: ok (%s)", cacheDir)
			}

			remote, err := backend.RemoteCache(cfg, os.Getenv)
			switch {
			case err != nil:
				line(false, "remote cache: %v", err)
			case remote == nil:
				line(true, "remote cache: none (set cache.remote.url to share builds)")
			default:
				ctx, cancel := context.WithTimeout(cmd.Context(), cfg.Cache.Remote.Timeout)
				what, err := remote.Check(ctx)
				cancel()
				if err != nil {
					line(false, "remote cache: %v", err)
				} else {
					line(true, "remote cache: %s at %s", what, remote)
				}
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

			// The console line: a running server says whether its console is
			// mounted and, when not, why (its configuration and build may
			// differ from this command's); with none running, this build and
			// configuration say what a server started here would do.
			switch {
			case running:
				off, err := probeConsole(cmd.Context(), st.BaseURL)
				switch {
				case err != nil:
					line(false, "console: unreachable (%v)", err)
				case off == "":
					line(true, "console: reachable")
				default:
					ok, text := consoleLine(off)
					line(ok, "%s", text)
				}
			case server.ConsoleOff(cfg, nil) != "":
				ok, text := consoleLine(server.ConsoleOff(cfg, nil))
				line(ok, "%s", text)
			default:
				line(true, "console: skipped (server not running)")
			}
			if failed > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

// consoleLine is doctor's console line for a console that is off, and
// whether that is healthy: switched off (the spec's "console: disabled")
// or left out of the build on purpose is; anything else (a non-loopback
// bind) is a failure that names its cause.
func consoleLine(off string) (ok bool, text string) {
	switch off {
	case server.ConsoleDisabled:
		return true, "console: disabled"
	case server.ConsoleNotBuilt:
		return true, "console: none (" + off + ")"
	}
	return false, "console: not mounted (" + off + ")"
}

type toolLine struct {
	ok   bool
	line string
}

// versionArgs asks the toolchains people most declare for their version.
var versionArgs = map[string][]string{
	"git": {"--version"}, "go": {"version"}, "node": {"--version"}, "npm": {"--version"},
	"python3": {"--version"}, "python": {"--version"}, "cargo": {"--version"}, "make": {"--version"},
}

// toolchains checks the programs the declared targets and spells call (and
// git, which diff and insight need): found on PATH, and their version.
func toolchains(ctx context.Context, ws *backend.Workspace) []toolLine {
	users := map[string][]string{"git": {"core diff, insight"}}
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			if len(t.Run) > 0 && !strings.Contains(t.Run[0], "/") {
				users[t.Run[0]] = append(users[t.Run[0]], t.ID())
			}
		}
	}
	for _, s := range ws.Spells {
		if len(s.Run) > 0 && !strings.Contains(s.Run[0], "/") {
			users[s.Run[0]] = append(users[s.Run[0]], "spell:"+s.Name)
		}
	}
	var out []toolLine
	for _, name := range slices.Sorted(maps.Keys(users)) {
		used := users[name]
		what := strings.Join(used[:min(3, len(used))], ", ")
		if len(used) > 3 {
			what += fmt.Sprintf(" and %d more", len(used)-3)
		}
		path, err := exec.LookPath(name)
		if err != nil {
			out = append(out, toolLine{false, fmt.Sprintf("tool %s: not found on PATH (used by %s)", name, what)})
			continue
		}
		v := ""
		if args, ok := versionArgs[name]; ok {
			c, cancel := context.WithTimeout(ctx, 5*time.Second)
			b, err := exec.CommandContext(c, path, args...).Output()
			cancel()
			if err == nil {
				v = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
			}
		}
		if v == "" {
			v = path
		}
		out = append(out, toolLine{true, fmt.Sprintf("tool %s: ok (%s; used by %s)", name, v, what)})
	}
	return out
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

// trustLine says whether the workspace file is trusted, and what that
// changes; an untrusted file is no failure, since its values are ignored.
func trustLine(st config.TrustStatus) string {
	switch {
	case !st.Exists:
		return "config trust: no .core/config.yaml in the workspace (nothing to trust)"
	case st.Trusted:
		return fmt.Sprintf("config trust: %s is trusted (sha256 %s, since %s; recorded in %s)", st.File, st.SHA256[:16], st.TrustedAt.Local().Format(time.DateTime), st.TrustFile)
	case len(st.Guarded) == 0:
		return fmt.Sprintf("config trust: %s is not trusted, and sets no key that waits for trust", st.File)
	}
	why := "is not trusted"
	if st.Changed {
		why = "changed since it was trusted"
	}
	return fmt.Sprintf("config trust: %s %s, so these of its keys are ignored: %s; read it, then run `%s` to use them", st.File, why, strings.Join(st.Guarded, ", "), config.TrustCommand)
}
