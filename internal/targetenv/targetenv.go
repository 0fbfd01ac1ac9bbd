// Package targetenv decides the environment a target's process gets: the
// one home of the base list, of the two modes, and of the hint that names
// a variable a failed target may have needed.
//
// In strict mode (the default) a target gets the base (Base: what says
// where things are, never what to build: PATH, HOME, the locale, the
// temporary directory, the CI system's name, where the toolchains keep
// themselves and their caches), the variables targets.yaml lists in env:
// (their values are in the target's cache key) and those it lists in
// pass_env: (passed, not in the key: credentials, proxies, certificates),
// at the top level and on the target. Nothing else of core's environment
// reaches it. Two reasons, as Turborepo's strict mode and Bazel's cleared
// action environment give:
//
//   - a variable that reaches a target without being in its key can change
//     what it makes while the key stays the same, and the cache then
//     replays a result made under another value;
//   - what a machine sets for its own sake costs every process: a
//     NODE_EXTRA_CA_CERTS makes every Node start read and parse a
//     certificate bundle (50 ms here), and an npm script starts Node twice.
//
// In loose mode a target gets core's whole environment, as before strict
// mode existed; only the variables in env: are in its key. The mode is in
// every key, so a result made in one mode is never replayed in the other.
package targetenv

import (
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/corehq/core/internal/workspace"
)

// The modes (configuration key env_mode, flag --env-mode).
const (
	Strict = "strict"
	Loose  = "loose"
)

// Modes lists the modes, the default first.
func Modes() []string { return []string{Strict, Loose} }

// base is the strict environment's base: names, and prefixes ending in *.
// It is what a process needs to find itself, its user, its tools and their
// caches. Nothing here names what to build (GOFLAGS, NODE_ENV, GOOS: those
// go in env:) or carries a credential, a proxy or a certificate (those go
// in pass_env:). Keep docs/targets.md's list in step (a test reads it).
var base = []string{
	// The process and its user.
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "TZ",
	"LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	// Windows' equivalents.
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE",
	"HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
	// Which CI system this is (tools change their output's form on it).
	"CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD",
	"JENKINS_URL", "TEAMCITY_VERSION", "TRAVIS", "BITBUCKET_BUILD_NUMBER",
	"CODEBUILD_BUILD_ID", "DRONE", "APPVEYOR",
	// Where the toolchains are and keep their caches. GOTOOLCHAIN says
	// which go to be (toolchain: [go, version] keys what it chose).
	"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOENV", "GOTMPDIR", "GOTOOLCHAIN",
	"NVM_DIR", "VOLTA_HOME", "PNPM_HOME", "COREPACK_HOME", "BUN_INSTALL", "YARN_CACHE_FOLDER",
	"npm_config_cache", "NPM_CONFIG_CACHE", "npm_config_prefix", "NPM_CONFIG_PREFIX",
	"npm_config_userconfig", "NPM_CONFIG_USERCONFIG",
	"PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "PIP_CACHE_DIR", "UV_CACHE_DIR",
	"CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
}

// Lists are the names and prefixes targets.yaml passes to t in strict
// mode: its env: and pass_env:, and the top level's.
func Lists(ws *workspace.Workspace, t *workspace.Target) [][]string {
	return [][]string{t.Env, t.PassEnv, ws.Env, ws.PassEnv}
}

// Base returns the base of the strict environment: names, and prefixes
// ending in * (LC_*).
func Base() []string { return slices.Clone(base) }

// maintained are what a shell keeps up to date itself: never worth a hint.
var maintained = []string{"_", "PWD", "OLDPWD", "SHLVL"}

// Env is core's environment as one run reads it: the targets' environments
// are drawn from it, and their keys' values read from it, so a run sees
// one state of it throughout.
type Env struct {
	mode  string
	vars  map[string]string
	names []string // sorted
	fold  bool     // names match case-insensitively (Windows)
}

// New reads environ (nil: os.Environ()) for a run in mode. A mode other
// than Loose is Strict: the configuration refuses any other value before
// a run starts, and an unknown one must not widen what targets see.
func New(mode string, environ []string) *Env {
	if environ == nil {
		environ = os.Environ()
	}
	e := &Env{mode: Normalize(mode), vars: make(map[string]string, len(environ)), fold: runtime.GOOS == "windows"}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if _, dup := e.vars[name]; !dup {
			e.names = append(e.names, name)
		}
		e.vars[name] = value // the last wins, as for exec
	}
	slices.Sort(e.names)
	return e
}

// Normalize is mode as a run takes it: Loose, or else Strict.
func Normalize(mode string) string {
	if mode == Loose {
		return Loose
	}
	return Strict
}

// Mode is Strict or Loose.
func (e *Env) Mode() string { return e.mode }

// Lookup reads a variable of core's environment.
func (e *Env) Lookup(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// For is the whole environment of a target's process that runs in dir: in
// strict mode the base and the variables lists name (each list holds names,
// and prefixes ending in *), in loose mode all of core's; with PWD set to
// dir, as a shell would (exec sets it only when it builds the environment
// itself).
func (e *Env) For(dir string, lists ...[]string) []string {
	out := make([]string, 0, len(e.names)+1)
	for _, name := range e.names {
		if name == "PWD" || !e.passes(name, lists) {
			continue
		}
		out = append(out, name+"="+e.vars[name])
	}
	if dir != "" {
		out = append(out, "PWD="+dir)
	}
	return out
}

// Withheld lists the variables of core's environment that a target with
// lists does not get (none in loose mode), sorted, without those a shell
// maintains itself.
func (e *Env) Withheld(lists ...[]string) []string {
	if e.mode == Loose {
		return nil
	}
	var out []string
	for _, name := range e.names {
		if !e.passes(name, lists) && !slices.Contains(maintained, name) {
			out = append(out, name)
		}
	}
	return out
}

func (e *Env) passes(name string, lists [][]string) bool {
	if e.mode == Loose || e.matches(name, base) {
		return true
	}
	for _, l := range lists {
		if e.matches(name, l) {
			return true
		}
	}
	return false
}

// matches reports whether name is in list: by name, or under a prefix
// written PREFIX*.
func (e *Env) matches(name string, list []string) bool {
	for _, p := range list {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if len(name) >= len(prefix) && e.equal(name[:len(prefix)], prefix) {
				return true
			}
		} else if e.equal(name, p) {
			return true
		}
	}
	return false
}

func (e *Env) equal(a, b string) bool {
	if e.fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}
