// Command screenshots writes the README's screenshots of the explorer
// (docs/screenshots/*.png) on core's own repository: it builds core, clones
// the checkout's repository (its history and its committed tree) to a
// temporary directory, changes one line there for the Review view to show,
// starts a server on the clone, pairs a headless Chromium with it the way a
// user would (`core open --print`), and captures the knowledge graph on its
// projects, one project opened, a search with a node's details, the target
// graph, the Review view and Insight. Run it from the checkout:
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

	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/testbed"
)

func main() {
	out := flag.String("out", filepath.Join("docs", "screenshots"), "write the PNGs into this `directory` (created when missing; relative to the current directory)")
	flag.Usage = func() {
		w := flag.CommandLine.Output()
		fmt.Fprintf(w, "Usage: go run ./scripts/screenshots [-out DIR]\n\n")
		fmt.Fprintf(w, "Renders the explorer's views of a clone of core's own repository in headless\n")
		fmt.Fprintf(w, "Chromium and writes the README's screenshots:")
		for _, s := range shots {
			fmt.Fprintf(w, " %s", s.name)
		}
		fmt.Fprintf(w, ".\nNeeds Debian's chromium (apt-get install chromium).\n\n")
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
	ws, err := cloneCore(ctx, root, filepath.Join(tmp, "core"))
	if err != nil {
		return err
	}
	// The console drawn is this checkout's build, not the clone's.
	env := testbed.IsolatedEnv(filepath.Join(tmp, "home"), "CORE_CONSOLE_DIR="+filepath.Join(root, "console", "gen"))
	c := &core{bin: bin, ws: ws, dir: tmp, env: env}
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
	for i, s := range shots {
		path := filepath.Join(out, s.name)
		small, err := shrink(png[i])
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := os.WriteFile(path, small, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "wrote", path)
	}
	return nil
}

// cloneCore clones the repository of the checkout at root into dst and
// changes one line of a package many others import, so that the Review
// view has a change and the targets it affects to show.
func cloneCore(ctx context.Context, root, dst string) (string, error) {
	clone := gitx.Command(ctx, root, "clone", "-q", root, dst)
	if out, err := clone.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git clone %s: %v\n%s", root, err, out)
	}
	changed := filepath.Join(dst, "internal", "gitx", "gitx.go")
	data, err := os.ReadFile(changed)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(changed, append(data, "\n// A change for the Review view's screenshot.\n"...), 0o644); err != nil {
		return "", err
	}
	return dst, nil
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
