package main

import (
	"github.com/corehq/core/backend"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

func newRunCmd(g *globals) *cobra.Command {
	var affectedTarget, base, projects, shardSpec string
	var history []string
	var force, noCache, dryRun, asJSON bool
	var colorFlag, remoteFlag, envMode string
	var open bool
	cmd := &cobra.Command{
		Use:   "run PROJECT:TARGET|TARGET|'PROJECT:GLOB'... | run --affected TARGET [--base REF]",
		Short: "Run targets and their dependencies, with the build cache",
		Long: `Runs the named targets and everything they depend on, dependencies first,
each at most once, at most the pool capacity at a time. A target whose
command, inputs and dependencies are unchanged since a successful run is not
run again: its output is replayed and its declared outputs restored ("cached").
A target's key covers its whole declaration, its inputs (what git does not
ignore, unless a glob without wildcards names it), the inputs of every
project its project depends on (declared, named by a manifest, or imported
by its code), its dependencies' keys and the environment variables it lists
in env: (others are not part of it). core hash PROJECT:TARGET shows them.
Only successful runs are stored. --force runs anyway and its result replaces
the stored one; --no-cache neither reads nor writes the cache. A target that
names a toolchain (toolchain: [go, version]) has that command's output in its
key too.

A target's process gets only part of core's environment (--env-mode=strict,
the default): the base (PATH, HOME, the locale, the temporary directory, the
CI system's name, where the toolchains and their caches are; docs/targets.md
lists it) and the variables targets.yaml lists in env: (in its key) and
pass_env: (passed, not in its key), its own and the top level's. When a
target fails and a variable it did not get is named in its command, its
package.json script, a file they run or its output, the summary names it and
the line to add. --env-mode=loose (env_mode, CORE_ENV_MODE) passes every
variable, as tools without a strict mode do, and the summary says so; the
mode is in every key, so neither mode replays the other's results.

With a remote cache configured (cache.remote.url, CORE_CACHE_REMOTE_URL), a
local miss asks it, and in read-write mode (cache.remote.mode) what ran is
uploaded. A remote that is down or refusing costs one warning and the run
builds locally. --remote=off leaves it alone for one run.

A name without a project (core run build) runs that target in every project
that declares it; globs select too (core run 'api:*', core run '*:test');
--projects GLOB keeps only the projects whose name matches.

Progress goes to stderr, one line per target state change, counted:
  [0/3] ▶ api:build               started
  [1/3] ✔ api:build (1.2s)        succeeded
  [2/3] ⚡ util:build (cached)     served from the build cache
  [3/3] ✘ api:test (exit 1)       failed (its dependents fail without running)
and, after 10 quiet seconds, what is still running and for how long. Colour
on a terminal unless NO_COLOR is set (--color always|never decides).
Each target's output is streamed to stdout, every line prefixed
"[project:target] ", and a summary ends the run. The exit status is 1 when
any target failed, 130 when interrupted.

--affected TARGET runs TARGET in every project where the changes since the
merge-base with --base (default: the default branch) plus uncommitted and
untracked files affect it, as "core affected" lists the targets (exactly
those whose keys the changes moved); nothing affected is not an error.

--shard I/N runs shard I of the plan core ci plan --shards N makes of the
same selection: each CI runner computes that plan alone, from the checkout
and the run log, and runs its part; a dependency another shard builds
comes from the (remote) cache, or is built here too when the cache does not
have it yet (the plan names these). --history DIR weighs the plan by the
journals under DIR, as core ci plan --history does. Its journals record the
shard, for core ci report. docs/ci.md has the rule and a workflow.

--open opens the log of the failed target's run (else the last) in a
browser: the run viewer of the console on the running server, paired as
core open pairs the explorer ({base_url}/console/runs/#token=<code>&run=<id>),
or, when log_viewer_url (CORE_LOG_VIEWER_URL) is set, that address with
run=<id> added to its query (no token goes there). Without a server it says
so, and core runs show ID prints the log; it never changes the exit status.

Pool capacity: the concurrency setting when it is above 0 (CORE_CONCURRENCY
sets it too), else 4 on hosted CI runners, else min(CPUs, 8).
Ctrl-C stops running targets (their process groups get SIGTERM, then
SIGKILL) and records them as interrupted.`,
		Example: `  core run api:build
  core run api:test web:build
  core run build                      # every project's build
  core run 'util:*' --force
  core run test --projects 'svc-*'
  core run --affected test --base origin/main
  core run --affected test --shard 2/4  # the second of 4 CI shards`,
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			return completeWorkspace(g, func(ws *backend.Workspace) []string {
				ids := ws.TargetIDs()
				seen := map[string]bool{}
				for _, id := range ws.TargetIDs() {
					if _, name, _ := strings.Cut(id, ":"); !seen[name] {
						seen[name] = true
						ids = append(ids, name+"\tin every project that declares it")
					}
				}
				return ids
			})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if affectedTarget == "" && len(args) == 0 {
				return errors.New("name at least one target as PROJECT:TARGET (e.g. core run api:build), or use --affected TARGET; core describe graph lists the targets")
			}
			if affectedTarget != "" && len(args) > 0 {
				return errors.New("--affected runs TARGET in every affected project: give either --affected TARGET or PROJECT:TARGET arguments, not both")
			}
			if base != "" && affectedTarget == "" {
				return errors.New("--base only applies with --affected TARGET")
			}
			if remoteFlag != "on" && remoteFlag != "off" {
				return fmt.Errorf("--remote %q: use on (the default: the configured remote cache) or off", remoteFlag)
			}
			if shardSpec != "" {
				if _, _, err := backend.ParseShard(shardSpec); err != nil {
					return err
				}
			} else if len(history) > 0 {
				return errors.New("--history weighs a shard's plan: it goes with --shard I/N")
			}
			if force && noCache {
				return errors.New("--force and --no-cache are alternatives: --force refreshes the cache, --no-cache leaves it alone")
			}
			// A run keeps most of what it allocates, and ends.
			defer backend.ForThroughput()()
			e, err := g.load(envModeFlags(cmd, envMode))
			if err != nil {
				return err
			}
			ws, err := e.resolved(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop() // a second Ctrl-C ends core at once
			}()

			stderr := cmd.ErrOrStderr()
			trigger := "cli"
			if affectedTarget != "" {
				trigger = "affected"
			}
			targets, err := selectTargets(ctx, cmd, e, ws, args, projects, affectedTarget, base)
			if err != nil || len(targets) == 0 {
				return err
			}
			var shardName, shardPlan string
			if shardSpec != "" {
				if targets, shardName, shardPlan, err = shardTargets(ctx, cmd, e, ws, targets, shardSpec, history); err != nil || len(targets) == 0 {
					return err
				}
			}

			if dryRun {
				r := e.local().Runner(backend.RunOptions{Cache: backend.CacheModeOf(force, noCache)})
				planned, err := r.Plan(ctx, ws, targets)
				if err != nil {
					return err
				}
				return printPlan(cmd.OutOrStdout(), planned, asJSON)
			}
			if asJSON {
				return errors.New("--json goes with --dry-run: a run streams its output")
			}
			capacity, reason := backend.Capacity(e.cfg.Concurrency, os.Getenv)
			colour, err := useColour(colorFlag, stderr)
			if err != nil {
				return err
			}
			p := newProgress(stderr, colour)
			stopBeat := make(chan struct{})
			defer close(stopBeat)
			go p.heartbeat(stopBeat)
			var remote *backend.RemoteClient
			if remoteFlag == "on" && !noCache {
				if remote, err = e.local().RemoteCache(os.Getenv); err != nil {
					p.warn(err.Error() + "; building without the remote cache (core doctor checks it)")
				}
			}
			r := e.local().Runner(backend.RunOptions{
				Capacity: capacity, Trigger: trigger, Events: p.event, Output: cmd.OutOrStdout(),
				Cache: backend.CacheModeOf(force, noCache), Remote: remote, Warn: p.warn,
				Shard: shardName, ShardPlan: shardPlan,
			})
			if (len(targets) > 1 || affectedTarget != "") && shardName == "" {
				fmt.Fprintf(stderr, "running %s and their dependencies (pool of %d: %s)\n", strings.Join(targets, " "), capacity, reason)
			}
			began := time.Now()
			res, runErr := r.Run(ctx, ws, targets)
			if res == nil {
				return runErr
			}
			// Keep the run log bounded when no server rotates it.
			e.local().TrimJournals()
			summarize(stderr, res, time.Since(began), remote, e.cfg.EnvMode)
			githubGroups(stderr, e.local(), res)
			if open {
				openRun(cmd, e, res)
			}
			if runErr != nil {
				fmt.Fprintln(stderr, "core: "+runErr.Error())
			}
			switch {
			case ctx.Err() != nil && res.Interrupted():
				return &exitError{code: 130, msg: "interrupted"}
			case res.Failed():
				return &exitError{code: 1}
			case runErr != nil:
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&affectedTarget, "affected", "", "run this target in every affected project that declares it")
	cmd.Flags().StringVar(&base, "base", "", "with --affected: compare against the merge-base with this ref (default: origin/HEAD, else main, else master)")
	cmd.Flags().StringVar(&projects, "projects", "", "only projects whose name matches this glob (e.g. 'svc-*')")
	cmd.Flags().StringVar(&shardSpec, "shard", "", "run shard I of N of what the rest selects, as core ci plan --shards N splits it (e.g. 2/4)")
	cmd.Flags().StringArrayVar(&history, "history", nil, "with --shard: weigh the targets by the journals under this directory (as core ci plan --history), not the run log")
	cmd.Flags().BoolVar(&force, "force", false, "run even when the cache has the result, and refresh it")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "neither read nor write the build cache")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan (order, keys, what the cache would serve) without running anything")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --dry-run: the plan as JSON")
	cmd.Flags().BoolVar(&open, "open", false, "open the run's log in a browser (the failed target's, else the last): the console's run viewer on the running server, or log_viewer_url when set")
	cmd.Flags().StringVar(&colorFlag, "color", "auto", "colour the progress: auto (a terminal without NO_COLOR), always or never")
	cmd.Flags().StringVar(&remoteFlag, "remote", "on", "off: leave the remote cache (cache.remote.url) alone for this run")
	addEnvModeFlag(cmd, &envMode)
	return cmd
}

// addEnvModeFlag adds --env-mode, which sets env_mode for one command.
func addEnvModeFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "env-mode", "", "what of core's environment reaches a target: strict (the base and what targets.yaml lists; the default) or loose (everything); sets env_mode")
}

// envModeFlags is the configuration's flag layer for --env-mode, when set.
func envModeFlags(cmd *cobra.Command, v string) map[string]any {
	if !cmd.Flags().Changed("env-mode") {
		return nil
	}
	return map[string]any{"env_mode": v}
}

// printPlan prints a dry run.
func printPlan(w io.Writer, planned []backend.Planned, asJSON bool) error {
	if asJSON {
		data, err := json.Marshal(map[string]any{"targets": planned})
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	hits := 0
	for _, p := range planned {
		state := "would run"
		if p.Hit {
			state = "cached"
			hits++
		}
		fmt.Fprintf(w, "%-28s %-10s key %s  %s\n", p.Target, state, shortKey(p.Key), strings.Join(p.Argv, " "))
	}
	fmt.Fprintf(w, "%s: %d would run, %d from the cache\n", plural(len(planned), "target"), len(planned)-hits, hits)
	return nil
}

// selectTargets is what core run's selection flags name: the targets
// args select (with --projects), or those --affected names in every
// affected project (then the set is published to a running server). None
// affected is not an error: the caller has nothing to do.
func selectTargets(ctx context.Context, cmd *cobra.Command, e *env, ws *backend.Workspace, args []string, projects, affectedTarget, base string) ([]string, error) {
	if affectedTarget == "" {
		return backend.Select(ws, args, projects)
	}
	targets, set, err := affectedTargets(ctx, e.local(), ws, base, affectedTarget, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	publishAffected(cmd, e, set, base)
	return targets, nil
}

// shardTargets are shard spec's targets of the plan of targets, with the
// shard's name and the plan's digest for the journals; it says what the
// shard runs, and what it needs from others.
func shardTargets(ctx context.Context, cmd *cobra.Command, e *env, ws *backend.Workspace, targets []string, spec string, history []string) ([]string, string, string, error) {
	i, n, err := backend.ParseShard(spec)
	if err != nil {
		return nil, "", "", err
	}
	plan, err := e.local().ShardPlan(ctx, ws, targets, n, history...)
	if err != nil {
		return nil, "", "", err
	}
	sh := plan.Of(i)
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "shard %s of plan %s: %s of %d, %s of %s of work\n", sh.Spec, plan.Digest,
		plural(len(sh.Targets), "target"), len(plan.Targets), formatMS(sh.WorkMS), formatMS(plan.TotalMS))
	if len(sh.Needs) > 0 {
		fmt.Fprintf(w, "needs %s: from the cache, else built here too (up to %s more)\n", needsList(sh.Needs), formatMS(sh.ColdMS))
	}
	if len(sh.Targets) == 0 {
		fmt.Fprintln(w, "nothing to run on this shard")
	}
	return sh.Targets, sh.Spec, plan.Digest, nil
}

// affectedTargets resolves --affected TARGET to PROJECT:TARGET ids, and
// says so when nothing is affected.
func affectedTargets(ctx context.Context, l *backend.Local, ws *backend.Workspace, base, target string, w io.Writer) ([]string, backend.AffectedSet, error) {
	ids, ch, err := l.AffectedTargets(ctx, ws, base, target)
	if err != nil {
		return nil, backend.AffectedSet{}, err
	}
	switch {
	case len(ch.Set.Files) == 0:
		fmt.Fprintln(w, "nothing affected: no files changed")
	case len(ids) == 0:
		fmt.Fprintf(w, "nothing affected: %s changed, in no project that declares %q\n", plural(len(ch.Set.Files), "file"), target)
	}
	return ids, ch.Set, nil
}

// progress prints one line per target state change, each with a
// done/total counter, in colour on a terminal (NO_COLOR and --color
// decide), and a line naming what is still running, with elapsed times,
// when nothing else was printed for heartbeatEvery.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	start   map[string]time.Time
	total   int
	done    int
	last    time.Time     // when a line was last printed
	quiet   time.Duration // how long a silence lasts before the heartbeat line
	ok      *color.Color
	bad     *color.Color
	dim     *color.Color
	running *color.Color
}

// heartbeatEvery is how long a run stays silent before progress says what
// is still running.
const heartbeatEvery = 10 * time.Second

func newProgress(w io.Writer, colour bool) *progress {
	p := &progress{w: w, start: map[string]time.Time{}, last: time.Now(), quiet: heartbeatEvery,
		ok: color.New(color.FgGreen), bad: color.New(color.FgRed, color.Bold), dim: color.New(color.Faint), running: color.New(color.FgCyan)}
	for _, c := range []*color.Color{p.ok, p.bad, p.dim, p.running} {
		if colour {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// useColour decides --color: always, never, or auto (a terminal, and no
// NO_COLOR in the environment).
func useColour(flag string, w io.Writer) (bool, error) {
	switch flag {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		f, ok := w.(*os.File)
		return ok && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(f.Fd()), nil
	}
	return false, fmt.Errorf("--color %q: use auto, always or never", flag)
}

// heartbeat prints what is still running whenever the run has been quiet
// for heartbeatEvery, until stop is closed.
func (p *progress) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(min(time.Second, p.quiet))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if len(p.start) > 0 && now.Sub(p.last) >= p.quiet {
				names := slices.Sorted(maps.Keys(p.start))
				parts := make([]string, len(names))
				for i, n := range names {
					parts[i] = n + " " + formatDuration(now.Sub(p.start[n]).Round(time.Second))
				}
				fmt.Fprintf(p.w, "%s %s\n", p.counter(), p.dim.Sprint("still running: "+strings.Join(parts, ", ")))
				p.last = now
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) counter() string {
	return p.dim.Sprintf("[%d/%d]", p.done, p.total)
}

func (p *progress) event(e backend.RunEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := func(format string, args ...any) {
		fmt.Fprintf(p.w, "%s %s\n", p.counter(), fmt.Sprintf(format, args...))
		p.last = time.Now()
	}
	switch e.State {
	case backend.StateQueued:
		p.total++
		return
	case backend.StateRunning:
		p.start[e.Target] = e.Time
		line("%s %s", p.running.Sprint("▶"), e.Target)
		return
	}
	p.done++
	defer delete(p.start, e.Target)
	switch e.State {
	case backend.StateSucceeded:
		line("%s %s (%s)", p.ok.Sprint("✔"), e.Target, p.elapsed(e))
	case backend.StateCached:
		how := "(cached)"
		if e.From == backend.FromRemote {
			how = "(remote cache)"
		}
		line("%s %s %s", p.ok.Sprint("⚡"), e.Target, p.dim.Sprint(how))
	case backend.StateFailed:
		why := e.Err
		if e.RunID != "" && e.ExitCode > 0 {
			why = fmt.Sprintf("exit %d", e.ExitCode)
		}
		line("%s %s (%s)", p.bad.Sprint("✘"), p.bad.Sprint(e.Target), why)
	case backend.StateInterrupted:
		line("■ %s (interrupted after %s)", e.Target, p.elapsed(e))
	case backend.StateSkipped:
		line("%s", p.dim.Sprintf("· %s (skipped: %s)", e.Target, e.Err))
	default:
		p.done--
	}
}

// warn prints a warning among the progress lines.
func (p *progress) warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s %s\n", p.bad.Sprint("warning:"), msg)
	p.last = time.Now()
}

// humanBytes is n in B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 2; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMG"[exp])
}

func (p *progress) elapsed(e backend.RunEvent) string {
	if s, ok := p.start[e.Target]; ok {
		return formatDuration(e.Time.Sub(s))
	}
	return "?"
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

func summarize(w io.Writer, res *backend.RunResult, took time.Duration, remote *backend.RemoteClient, envMode string) {
	var parts []string
	for _, s := range []string{backend.StateSucceeded, backend.StateCached, backend.StateFailed, backend.StateInterrupted, backend.StateSkipped} {
		if n := res.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	fmt.Fprintf(w, "\n%s: %s in %s\n", plural(len(res.Targets), "target"), strings.Join(parts, ", "), formatDuration(took))
	if remote != nil {
		from := map[string]int{}
		for _, t := range res.Targets {
			from[t.From]++
		}
		fmt.Fprintf(w, "cache: %d local hits, %d remote hits, %d built; remote %s (%s): %s down, %s up",
			from[backend.FromLocal], from[backend.FromRemote], from[backend.FromBuilt], remote, remote.Mode(),
			humanBytes(res.Remote.BytesDown), humanBytes(res.Remote.BytesUp))
		if res.Remote.Uploaded > 0 {
			fmt.Fprintf(w, ", %s uploaded", plural(res.Remote.Uploaded, "result"))
		}
		fmt.Fprintln(w)
	}
	for _, t := range res.Targets {
		if t.Status != backend.StateFailed {
			continue
		}
		if t.RunID != "" {
			fmt.Fprintf(w, "  ✘ %s: %s (core runs show %s)\n", t.Target, describeFailure(t), t.RunID)
		} else {
			fmt.Fprintf(w, "  ✘ %s: %s\n", t.Target, describeFailure(t))
		}
		if advice := backend.EnvAdvice(t.Target, t.Withheld, "    "); advice != "" {
			fmt.Fprintf(w, "    %s\n", advice)
		}
	}
	if envMode == backend.EnvLoose {
		fmt.Fprintln(w, "environment: loose: every variable of core's environment reached the targets, and only those in env: are in their keys (env_mode, --env-mode; strict is the default)")
	}
}

// githubGroups prints each failed target's output in a collapsed log group
// when the run is a GitHub Actions step: there the interleaved output of a
// parallel run is hard to read, and a failure's own output is what one
// opens first.
func githubGroups(w io.Writer, l *backend.Local, res *backend.RunResult) {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	for _, t := range res.Targets {
		if t.Status != backend.StateFailed || t.RunID == "" {
			continue
		}
		j, err := l.Journal(t.RunID)
		if err != nil {
			continue
		}
		fmt.Fprintf(w, "::group::%s failed: its output\n%s", t.Target, j.Output)
		if !strings.HasSuffix(j.Output, "\n") {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "::endgroup::")
	}
}

// openRun opens a browser on the run a person wants to read after a run:
// the failed target's, else the last. With log_viewer_url set it opens
// that viewer with run=<id> in its query, and nothing else: no token or
// code ever goes to another host. Without it, the console's run viewer on
// the running server, paired like `core open`. Nothing here changes the
// run's exit status: without a server (or its console) it says where the
// log is instead.
func openRun(cmd *cobra.Command, e *env, res *backend.RunResult) {
	stderr := cmd.ErrOrStderr()
	id := runToOpen(res)
	if id == "" {
		fmt.Fprintln(stderr, "--open: no target ran or came from the cache, so there is no run to show")
		return
	}
	if viewer := e.cfg.LogViewerURL; viewer != "" {
		link, err := viewerLink(viewer, id)
		if err != nil {
			fmt.Fprintf(stderr, "--open: log_viewer_url: %v; `core runs show %s` prints the log here\n", err, id)
			return
		}
		fmt.Fprintln(stderr, "log viewer: "+link)
		openBrowser(cmd, link)
		return
	}
	c, err := e.server()
	if errors.Is(err, errNoServer) {
		fmt.Fprintf(stderr, "--open: no core server is running for this workspace, so no console can show run %s: start one with `core server start` (then --open opens its run viewer), or read the log here with `core runs show %s`\n", id, id)
		return
	}
	if err == nil {
		var off string
		if off, err = probeConsole(cmd.Context(), c.st.BaseURL); err == nil && off != "" {
			fmt.Fprintf(stderr, "--open: the server at %s has no console (%s): `core runs show %s` prints the log here\n", c.st.BaseURL, off, id)
			return
		}
	}
	var code string
	if err == nil {
		code, err = pairingCode(cmd.Context(), c.client, c.st.BaseURL)
	}
	if err != nil {
		fmt.Fprintf(stderr, "--open: %v; `core runs show %s` prints the log here\n", err, id)
		return
	}
	link := RunsURL(c.st.BaseURL, code, id)
	fmt.Fprintln(stderr, "run viewer: "+link)
	openBrowser(cmd, link)
}

// runToOpen is the run --open shows: the first failed target's, else the
// last one that has a journal ("" when none has).
func runToOpen(res *backend.RunResult) string {
	id := ""
	for _, t := range res.Targets {
		if t.RunID == "" {
			continue
		}
		if t.Status == backend.StateFailed {
			return t.RunID
		}
		id = t.RunID
	}
	return id
}

// viewerLink is log_viewer_url with run=<id> added to its query, which it
// may already have (the base's own query and fragment are kept as written).
func viewerLink(viewer, id string) (string, error) {
	u, err := url.Parse(viewer)
	if err != nil {
		return "", err
	}
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += "run=" + url.QueryEscape(id)
	return u.String(), nil
}

func describeFailure(t backend.TargetResult) string {
	if t.ExitCode > 0 {
		return fmt.Sprintf("exit %d", t.ExitCode)
	}
	return t.Err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.ContainsAny(word[len(word)-2:len(word)-1], "aeiou") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	return fmt.Sprintf("%d %ss", n, word)
}
