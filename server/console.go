package server

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	core "github.com/corehq/core"
	"github.com/corehq/core/console"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/config"
)

// The rows of routes.yaml whose paths are the console's pages: every link
// to the console is built from them.
const (
	consoleRow = "console.page"
	runsRow    = "console.runs"
)

// ConsolePath is the explorer's path on the server ("/console/graph/"),
// read from routes.yaml's console.page row.
var ConsolePath = sync.OnceValue(func() string { return rowPath(consoleRow) })

// RunsPath is the run viewer's path on the server ("/console/runs/"), read
// from routes.yaml's console.runs row.
var RunsPath = sync.OnceValue(func() string { return rowPath(runsRow) })

func rowPath(name string) string {
	t, err := gateway.Load(core.RoutesFile, core.Routes, nil)
	if err != nil {
		panic(fmt.Sprintf("the route table compiled into this binary is invalid (a bug): %v", err))
	}
	r, ok := t.Row(name)
	if !ok {
		panic("routes.yaml has no " + name + " row (a bug)")
	}
	return r.Path
}

// workspaceConsole is where a workspace keeps a built console of its own,
// the spec's fallback when CORE_CONSOLE_DIR is not set.
const workspaceConsole = "console/gen"

// consoleFiles is the built console to serve, as the spec resolves it:
// console.dir (CORE_CONSOLE_DIR) when set; else <workspace root>/console/gen
// when it holds an index.html; else the build embedded in the binary. A
// directory is opened as an os.Root, so a symlink inside it cannot lead a
// request (on a route that needs no token) out of it.
func consoleFiles(root string, cfg *config.Config) (fs.FS, string, error) {
	if cfg.Console.Dir != "" {
		files, err := openConsole(cfg.Console.Dir)
		if err != nil {
			return nil, "", fmt.Errorf("console.dir (CORE_CONSOLE_DIR) %s: %w", cfg.Console.Dir, err)
		}
		return files, cfg.Console.Dir, nil
	}
	dir := filepath.Join(root, filepath.FromSlash(workspaceConsole))
	if files, err := openConsole(dir); err == nil {
		return files, dir, nil
	}
	return console.Built(), "embedded", nil
}

// openConsole opens a built console directory.
func openConsole(dir string) (fs.FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(r.FS(), "index.html"); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("it holds no index.html: point it at a built console (console/gen)")
	}
	return r.FS(), nil
}
