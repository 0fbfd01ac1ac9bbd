package server

import (
	"fmt"
	"io/fs"
	"os"
	"sync"

	core "github.com/corehq/core"
	"github.com/corehq/core/console"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/config"
)

// consoleRow is the row of routes.yaml whose path is the explorer's
// address: every link to the console is built from it.
const consoleRow = "console.page"

// ConsolePath is the explorer's path on the server ("/console/graph/"),
// read from routes.yaml's console.page row.
var ConsolePath = sync.OnceValue(func() string {
	t, err := gateway.Load(core.RoutesFile, core.Routes, nil)
	if err != nil {
		panic(fmt.Sprintf("the route table compiled into this binary is invalid (a bug): %v", err))
	}
	r, ok := t.Row(consoleRow)
	if !ok {
		panic("routes.yaml has no " + consoleRow + " row (a bug)")
	}
	return r.Path
})

// consoleFiles is the built console to serve: console.dir
// (CORE_CONSOLE_DIR) when set, else the one embedded in the binary. The
// directory is opened as an os.Root, so a symlink inside it cannot lead a
// request (on a route that needs no token) out of it.
func consoleFiles(cfg *config.Config) (fs.FS, error) {
	if cfg.Console.Dir == "" {
		return console.Built(), nil
	}
	root, err := os.OpenRoot(cfg.Console.Dir)
	if err != nil {
		return nil, fmt.Errorf("console.dir (CORE_CONSOLE_DIR) %s: %w", cfg.Console.Dir, err)
	}
	if _, err := fs.Stat(root.FS(), "index.html"); err != nil {
		return nil, fmt.Errorf("console.dir (CORE_CONSOLE_DIR) %s holds no index.html: point it at a built console (console/gen)", cfg.Console.Dir)
	}
	return root.FS(), nil
}
