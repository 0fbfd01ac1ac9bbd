// Command demo runs core on the bundled demo workspace, in a working copy
// with a history of its own, so that every view of the console has
// something to show: it writes the copy (internal/demorepo: six authors
// over five months, two renames, files that change together, an
// uncommitted change to review) under .cache/demo/shop, builds core into
// .cache/demo/core, then starts the server there and opens the console.
// Run it from the checkout:
//
//	go run ./scripts/demo [-fresh] [-print] [server start flags...]
//
// The copy is kept between runs (comments, runs and the review session
// with it) until testdata/demo or the history changes, or -fresh.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/corehq/core/internal/demorepo"
)

func main() {
	fresh := flag.Bool("fresh", false, "build the working copy again, dropping what was done in it")
	printOnly := flag.Bool("print", false, "only build the working copy and print its path")
	flag.Usage = func() {
		w := flag.CommandLine.Output()
		fmt.Fprintf(w, "Usage: go run ./scripts/demo [-fresh] [-print] [core server start flags...]\n\n")
		fmt.Fprintf(w, "Builds a working copy of testdata/demo with a history of its own under\n")
		fmt.Fprintf(w, ".cache/demo/shop, builds core into .cache/demo/core and runs\n")
		fmt.Fprintf(w, "`core server start --open` on it (its log is text; --log-format json for JSON).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if _, err := os.Stat(filepath.Join("testdata", "demo", "targets.yaml")); err != nil {
		fail("run it from core's checkout (testdata/demo/targets.yaml is not here)")
	}
	dst, err := filepath.Abs(filepath.Join(".cache", "demo", "shop"))
	if err != nil {
		fail(err.Error())
	}
	built, err := demorepo.Build(filepath.Join("testdata", "demo"), dst, time.Now(), *fresh)
	if err != nil {
		fail(err.Error())
	}
	if built {
		fmt.Fprintf(os.Stderr, "demo: wrote a working copy with its history at %s\n", dst)
	} else {
		fmt.Fprintf(os.Stderr, "demo: the working copy at %s is up to date (-fresh builds it again)\n", dst)
	}
	if *printOnly {
		fmt.Println(dst)
		return
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		fail("go is not on the PATH: " + err.Error())
	}
	// go run would compile as silently as this does, for a minute or two
	// the first time: the build is its own step, said before it starts.
	bin := filepath.Join(filepath.Dir(dst), "core")
	fmt.Fprintln(os.Stderr, "demo: building core (the first time takes a minute or two)…")
	start := time.Now()
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/core")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail("go build ./cmd/core: " + err.Error())
	}
	fmt.Fprintf(os.Stderr, "demo: built %s in %s; starting the server (it indexes the demo, then prints the console's link)\n", bin, time.Since(start).Round(100*time.Millisecond))
	// The demo is for a person: the server's log is text, as on a
	// terminal, unless the flags say otherwise (--log-format json).
	args := append([]string{bin, "--workspace", dst, "--log-format", "console", "server", "start", "--open"}, flag.Args()...)
	// The server takes this process's place: Ctrl-C reaches it directly.
	if err := syscall.Exec(bin, args, os.Environ()); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "demo: "+msg)
	os.Exit(1)
}
