// Command core is the CLI and server of a monorepo workspace. The commands
// are thin: they parse flags, resolve the workspace and configuration, and
// call into server/ and internal/.
package main

import (
	"runtime/debug"

	"github.com/corehq/core/backend"

	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/corehq/core/internal/suggest"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// An index pass collects less often while it runs (its heap is
	// mostly what it keeps); this process is the CLI's to tune.
	backend.TuneGC(debug.SetGCPercent, debug.SetMemoryLimit)
	// A command waiting on a long index pass says so, on a terminal.
	backend.ReportIndexing(indexingNote(os.Stderr, isatty.IsTerminal(os.Stderr.Fd()), 2*time.Second, 500*time.Millisecond))
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		var ex *exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(os.Stderr, "core: "+ex.msg)
			}
			os.Exit(ex.code)
		}
		fmt.Fprintln(os.Stderr, "core: "+err.Error())
		os.Exit(1)
	}
}

// exitError ends the process with a specific code.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

type globals struct {
	workspace string
	logLevel  string
	logFormat string
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "core",
		Short: "A live knowledge graph, runner and console server for a monorepo",
		Long: `core keeps a live knowledge graph of a workspace (projects, targets, spells,
docs) declared in targets.yaml, and serves it on one loopback port to a browser
console, to this CLI and to coding agents (MCP at <base URL>/mcp, with a token
from "core config mcp token create", scoped with --toolsets and --read-only;
docs/mcp.md lists the tools and their budgets). Every request to the server carries a
bearer token; see "core config console token create". "core share" opens a
read-only, time-boxed view for a colleague on the network.

The workspace's .core/config.yaml comes with the repository: its keys that
carry credentials or widen exposure count only once "core config trust" has
trusted the file as it is.

The workspace is the directory holding targets.yaml: --workspace names it, or
core walks up from the current directory to find it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.PersistentFlags().StringVar(&g.workspace, "workspace", "", "workspace directory (default: walk up from the current directory to targets.yaml)")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "", "log level: debug, info, warn, error (default from log.level)")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "", "log format: console (text), json, or auto, console when stderr is a terminal (default from log.format)")
	root.AddCommand(
		newServerCmd(g),
		newConfigCmd(g),
		newGraphCmd(g),
		newDescribeCmd(g),
		newQueryCmd(g),
		newLsCmd(g),
		newOpenCmd(g),
		newRoutesCmd(),
		newDoctorCmd(g),
		newRunCmd(g),
		newCICmd(g),
		newAffectedCmd(g),
		newDiffCmd(g),
		newSessionCmd(g),
		newReviewCmd(g),
		newRunsCmd(g),
		newVersionCmd(),
		newInitCmd(g),
		newSpellCmd(g),
		newHashCmd(g),
		newInsightCmd(g),
		newShareCmd(g),
	)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command that only groups others
// (core ls, core config, ...) fail on a word it does not know, instead of
// printing its help and exiting 0.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			return fmt.Errorf("unknown command %q for %q%s; run `%s --help`", args[0], cmd.CommandPath(), suggest.DidYouMean(args[0], names), cmd.CommandPath())
		}
	}
}
