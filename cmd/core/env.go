package main

import (
	"github.com/corehq/core/backend"

	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/server"
)

// env is what most commands need: the workspace root, the effective
// configuration and the cache directory.
type env struct {
	root     string
	cfg      *config.Config
	cacheDir string
}

// resolveRoot finds the workspace: --workspace, else a walk up from the
// current directory.
func (g *globals) resolveRoot() (string, error) {
	if g.workspace != "" {
		abs, err := filepath.Abs(g.workspace)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(abs, backend.TargetsFile)); err != nil {
			return "", fmt.Errorf("--workspace %s: no %s there; point --workspace at the directory that holds it, or make one with `core init %s`", g.workspace, backend.TargetsFile, g.workspace)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return backend.FindWorkspace(wd)
}

// load resolves the workspace and loads the configuration with flags (by
// key) on top.
func (g *globals) load(flags map[string]any) (*env, error) {
	root, err := g.resolveRoot()
	if err != nil {
		return nil, err
	}
	if g.logLevel != "" {
		if flags == nil {
			flags = map[string]any{}
		}
		flags["log.level"] = g.logLevel
	}
	if g.logFormat != "" {
		if flags == nil {
			flags = map[string]any{}
		}
		flags["log.format"] = g.logFormat
	}
	cfg, err := config.Load(config.Sources{WorkspaceRoot: root, Flags: flags, Warn: warnUntrusted})
	if err != nil {
		return nil, err
	}
	return &env{root: root, cfg: cfg, cacheDir: server.CacheDir(root, cfg)}, nil
}

// local is the in-process backend of the workspace: what a command that
// needs no server calls.
func (e *env) local() *backend.Local { return backend.Open(e.root, e.cacheDir, e.cfg) }

// resolved loads the workspace with the dependencies between projects
// that the code's imports imply, read by the index: what a run's keys and
// an affected set need. When the index cannot be read it warns on w and
// goes on with every project counted as a dependency of every other.
func (e *env) resolved(w io.Writer) (*backend.Workspace, error) {
	ws, err := e.local().Resolved()
	if ws == nil {
		return nil, err
	}
	if err != nil {
		fmt.Fprintln(w, "core: warning: "+err.Error())
	}
	return ws, nil
}

// warnUntrusted prints the configuration's one warning about values of the
// workspace's .core/config.yaml it ignored until the file is trusted. It
// goes to stderr, where a script that reads stdout does not trip on it.
func warnUntrusted(msg string) {
	fmt.Fprintln(os.Stderr, "core: warning: "+msg)
}
