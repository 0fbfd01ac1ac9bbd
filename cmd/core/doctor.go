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
	"regexp"
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
spells call (found on PATH, and their version; the program a "sh -c" line
starts; an npx program in node_modules/.bin, which npx would otherwise
download on every run; a "python3 -m" module; a program "uv run" or
"poetry run" starts, in the project's environment or named by its lock
file or pyproject.toml), the configuration, the cache
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
	modules := map[pyModule][]string{}
	bins := map[npxBin][]string{}
	runs := map[envRun][]string{}
	for _, p := range ws.Projects {
		dir := filepath.Join(ws.Root, filepath.FromSlash(p.Path))
		for _, t := range p.Targets {
			if len(t.Run) > 0 && !strings.Contains(t.Run[0], "/") {
				users[t.Run[0]] = append(users[t.Run[0]], t.ID())
			}
			if m, ok := pythonModule(t.Run); ok {
				m.dir = dir
				modules[m] = append(modules[m], t.ID())
			}
			// What a shell command line starts, or npx finds for it.
			if name, ok := shellProgram(t.Run); ok {
				users[name] = append(users[name], t.ID())
			}
			if name, ok := npxProgram(t.Run); ok {
				b := npxBin{name: name, dir: dir, root: ws.Root}
				bins[b] = append(bins[b], t.ID())
			}
			if runner, program, ok := envRunProgram(t.Run); ok {
				r := envRun{runner: runner, program: program, dir: dir, root: ws.Root}
				runs[r] = append(runs[r], t.ID())
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
	out = append(out, moduleLines(ctx, modules)...)
	out = append(out, envRunLines(runs)...)
	return append(out, npxLines(bins)...)
}

// shellProgram is the program a shell's -c line starts (sh -c "tsc -b &&
// ..." starts tsc), when its first word is a plain name and no shell
// builtin or keyword.
func shellProgram(argv []string) (string, bool) {
	if len(argv) < 3 || !slices.Contains([]string{"sh", "bash", "dash", "zsh"}, argv[0]) || argv[1] != "-c" {
		return "", false
	}
	fields := strings.Fields(argv[2])
	if len(fields) == 0 || !plainName.MatchString(fields[0]) || shellWords[fields[0]] {
		return "", false
	}
	return fields[0], true
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// shellWords are the builtins and keywords a -c line may start with: none
// is a program on the PATH to look for.
var shellWords = map[string]bool{
	"cd": true, "export": true, "set": true, "unset": true, "exec": true, "eval": true, "test": true, "true": true, "false": true,
	"if": true, "for": true, "while": true, "until": true, "case": true, "source": true, ".": true, "exit": true, "echo": true, "printf": true, "command": true,
}

// npxBin is a program a target runs with npx, looked for in the
// node_modules/.bin of its project's directory and those above it, up
// to the workspace root.
type npxBin struct{ name, dir, root string }

// npxProgram is the program of npx [options] NAME: a plain name (a
// package spec with a version or a path is npx's to resolve).
func npxProgram(argv []string) (string, bool) {
	if len(argv) < 2 || argv[0] != "npx" {
		return "", false
	}
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "-p" || a == "--package":
			i++ // its value
		case a == "-c" || a == "--call":
			return "", false
		case strings.HasPrefix(a, "-"):
		default:
			return a, plainName.MatchString(a)
		}
	}
	return "", false
}

// npxLines says for each npx program whether it is installed: npx runs
// what node_modules/.bin has, and otherwise downloads the package on
// every run (and asks first where no terminal answers, so the target
// fails in CI).
func npxLines(bins map[npxBin][]string) []toolLine {
	type result struct {
		ok   bool
		used []string
	}
	by := map[string]*result{}
	for b, used := range bins {
		r := by[b.name]
		if r == nil {
			r = &result{ok: true}
			by[b.name] = r
		}
		r.ok = r.ok && installedBin(b)
		r.used = append(r.used, used...)
	}
	var out []toolLine
	for _, name := range slices.Sorted(maps.Keys(by)) {
		r := by[name]
		if r.ok {
			out = append(out, toolLine{true, fmt.Sprintf("tool npx %s: ok (in node_modules/.bin; used by %s)", name, users(r.used))})
			continue
		}
		out = append(out, toolLine{false, fmt.Sprintf("tool npx %s: not installed: no node_modules/.bin/%s, so npx would download it on every run (used by %s); add its package to devDependencies and run npm install", name, name, users(r.used))})
	}
	return out
}

// installedBin reports whether node_modules/.bin/NAME is in b's directory
// or one above it, up to the workspace root.
func installedBin(b npxBin) bool {
	for _, d := range dirsUpTo(b.dir, b.root) {
		if _, err := os.Stat(filepath.Join(d, "node_modules", ".bin", b.name)); err == nil {
			return true
		}
	}
	return false
}

// dirsUpTo are dir and the directories above it, nearest first, up to the
// workspace root (none above it).
func dirsUpTo(dir, root string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || d == filepath.Dir(d) || !strings.HasPrefix(d, root) {
			return out
		}
	}
}

// pyModule is a module a target runs with python -m, in its project's
// directory (where a module of the project's own is found too).
type pyModule struct {
	python, module, dir string
}

// pythonModule is the module of an argv python3 -m MODULE (python,
// python3, python3.12, with options before -m).
func pythonModule(argv []string) (pyModule, bool) {
	if len(argv) < 3 || strings.Contains(argv[0], "/") || (argv[0] != "python" && !strings.HasPrefix(argv[0], "python3")) {
		return pyModule{}, false
	}
	for i := 1; i+1 < len(argv); i++ {
		switch a := argv[i]; {
		case a == "-m":
			if mod := argv[i+1]; moduleName.MatchString(mod) {
				return pyModule{python: argv[0], module: mod}, true
			}
			return pyModule{}, false
		case !strings.HasPrefix(a, "-") || a == "-c":
			return pyModule{}, false // a script, or code
		}
	}
	return pyModule{}, false
}

var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// findSpec exits 0 when the top-level package of the module named by its
// first argument is found, on the interpreter's path or in the directory
// its second argument names. It runs under -I (no current directory on
// the path, no environment), and it finds without importing: find_spec of
// a dotted name imports its parent package, which may be the cloned
// repository's own code, and doctor runs none of it.
const findSpec = "import importlib.machinery, importlib.util, sys\nname = sys.argv[1].split('.')[0]\ntry:\n    found = importlib.util.find_spec(name) is not None or importlib.machinery.PathFinder.find_spec(name, [sys.argv[2]]) is not None\nexcept Exception:\n    found = False\nsys.exit(0 if found else 3)"

// moduleLines checks that the interpreter finds each module, from its
// project's directory: python3 on the PATH says nothing of pytest.
func moduleLines(ctx context.Context, modules map[pyModule][]string) []toolLine {
	type key struct{ python, module string }
	missing, found := map[key][]string{}, map[key][]string{}
	for m, used := range modules {
		path, err := exec.LookPath(m.python)
		if err != nil {
			continue // said on the interpreter's line
		}
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		cmd := exec.CommandContext(c, path, "-I", "-c", findSpec, m.module, m.dir)
		cmd.Dir = m.dir
		err = cmd.Run()
		cancel()
		k := key{m.python, m.module}
		var exit *exec.ExitError
		switch {
		case err == nil:
			found[k] = append(found[k], used...)
		case errors.As(err, &exit) && exit.ExitCode() == 3:
			missing[k] = append(missing[k], used...)
		}
	}
	var out []toolLine
	for _, k := range slices.SortedFunc(maps.Keys(missing), func(a, b key) int { return strings.Compare(a.python+" "+a.module, b.python+" "+b.module) }) {
		out = append(out, toolLine{false, fmt.Sprintf("tool %s -m %s: not installed: %s cannot import %s (used by %s); install it for that interpreter", k.python, k.module, k.python, k.module, users(missing[k]))})
	}
	for _, k := range slices.SortedFunc(maps.Keys(found), func(a, b key) int { return strings.Compare(a.python+" "+a.module, b.python+" "+b.module) }) {
		if _, bad := missing[k]; !bad {
			out = append(out, toolLine{true, fmt.Sprintf("tool %s -m %s: ok (used by %s)", k.python, k.module, users(found[k]))})
		}
	}
	return out
}

// users names at most three users of a tool.
func users(used []string) string {
	slices.Sort(used)
	what := strings.Join(used[:min(3, len(used))], ", ")
	if len(used) > 3 {
		what += fmt.Sprintf(" and %d more", len(used)-3)
	}
	return what
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
