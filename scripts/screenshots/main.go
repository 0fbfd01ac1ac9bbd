// Command screenshots writes the README's screenshots of the explorer
// (docs/screenshots/*.png): it builds core, copies the demo workspace
// (testdata/demo) to a temporary directory, starts a server there, pairs a
// headless Chromium with it the way a user would (`core open --print`), and
// captures the knowledge graph, a search with a node's details, and the
// target graph. Run it from the checkout:
//
//	go run ./scripts/screenshots [-out docs/screenshots]
//
// It needs Debian's chromium (apt-get install chromium).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/corehq/core/internal/testbed"
)

func main() {
	out := flag.String("out", filepath.Join("docs", "screenshots"), "write the PNGs into this `directory` (created when missing; relative to the current directory)")
	flag.Usage = func() {
		w := flag.CommandLine.Output()
		fmt.Fprintf(w, "Usage: go run ./scripts/screenshots [-out DIR]\n\n")
		fmt.Fprintf(w, "Renders the explorer's main views against a copy of testdata/demo in headless\n")
		fmt.Fprintf(w, "Chromium and writes %s, %s and %s:\nthe README's screenshots. Needs Debian's chromium (apt-get install chromium).\n\n", shots[0], shots[1], shots[2])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

// shots are the files run writes, in the order it takes them.
var shots = [...]string{"knowledge-graph.png", "search-and-details.png", "target-graph.png"}

func run(ctx context.Context, out string) (err error) {
	chromium, err := findChromium()
	if err != nil {
		return err
	}
	root, err := findModuleRoot()
	if err != nil {
		return err
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "core-screenshots-")
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
			err = rmErr
		}
	}()

	fmt.Fprintln(os.Stderr, "building core")
	bin, err := buildCore(ctx, root, tmp)
	if err != nil {
		return err
	}
	ws := filepath.Join(tmp, "ws")
	if err := testbed.CopyWorkspace(filepath.Join(root, "testdata", "demo"), ws); err != nil {
		return fmt.Errorf("copy the demo workspace: %w", err)
	}
	c := &core{bin: bin, ws: ws, dir: tmp, env: testbed.IsolatedEnv(filepath.Join(tmp, "home"))}
	srv, err := c.startServer(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := c.stopServer(srv); stopErr != nil && err == nil {
			err = stopErr
		}
	}()
	fmt.Fprintln(os.Stderr, "core server at", srv.baseURL)
	link, err := c.pairingLink(ctx)
	if err != nil {
		return err
	}

	png, err := capture(ctx, chromium, filepath.Join(tmp, "profile"), link)
	if err != nil {
		return err
	}
	// Write only once every view was captured, so a failed run leaves the
	// old set whole.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for i, name := range shots {
		path := filepath.Join(out, name)
		if err := os.WriteFile(path, png[i], 0o644); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "wrote", path)
	}
	return nil
}

// findModuleRoot walks up from the current directory to the go.mod of
// github.com/corehq/core.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	module := regexp.MustCompile(`(?m)^module\s+github\.com/corehq/core\s*$`)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && module.Match(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/corehq/core above the current directory: run it inside the core checkout")
		}
		dir = parent
	}
}
