// Command prof measures the runner's own cost per executed target on the
// workspace bench/turbo writes: it rebuilds LOW's dependents ROUNDS times
// in-process (a new line in LOW's source each round, the workspace loaded
// as `core run` loads it, the runner as `core run` builds it, strict
// environment), under a CPU profile, and prints the process's own CPU
// (getrusage of itself: what the runner spent, not the builds) per
// executed target. With -cached N it then does N fully cached runs (nothing
// changed) under a second profile, -cachedprofile: what a no-op run costs
// in-process, without the process's start. bench/turbo.sh runs it and
// splits the profiles with go tool pprof.
//
//	prof -ws DIR [-low p003] [-rounds 5] [-concurrency 2] [-cpuprofile F]
//	     [-cached 0] [-cachedprofile F]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/runner"
)

func main() {
	ws := flag.String("ws", "", "the workspace bench/turbo wrote (required)")
	low := flag.String("low", "p003", "the package whose source changes each round")
	rounds := flag.Int("rounds", 5, "rebuilds (0: only the cached runs)")
	concurrency := flag.Int("concurrency", 2, "the pool's size")
	cpuprofile := flag.String("cpuprofile", "", "write the rebuilds' CPU profile here")
	cached := flag.Int("cached", 0, "fully cached runs after the rebuilds")
	cachedprofile := flag.String("cachedprofile", "", "write the cached runs' CPU profile here")
	flag.Parse()
	if *ws == "" {
		log.Fatal("-ws DIR is required")
	}
	// The collector as core run tunes it (backend.ForThroughput), and as
	// core's main lets an index pass tune it.
	gc := index.GC{Percent: debug.SetGCPercent, Limit: debug.SetMemoryLimit}
	live.GC = gc
	defer index.Throughput(gc)()
	root, err := filepath.Abs(*ws)
	check(err)
	cacheDir := filepath.Join(root, ".core")
	var targets []string
	w, err := live.Resolved(root, cacheDir)
	check(err)
	for _, p := range w.Projects {
		if p.Target("build") != nil {
			targets = append(targets, p.Name+":build")
		}
	}
	stop := profile(*cpuprofile)
	src := filepath.Join(root, "packages", *low, "src", "index.js")
	var built int
	var wall time.Duration
	before := selfCPU()
	for r := range *rounds {
		f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
		check(err)
		_, err = fmt.Fprintf(f, "// prof round %d %d\n", r, time.Now().UnixNano())
		check(err)
		check(f.Close())
		// What core run does before it runs: load the workspace, with the
		// imports the index reads.
		start := time.Now()
		w, err := live.Resolved(root, cacheDir)
		check(err)
		res, err := runner.New(runner.Options{Root: root, CacheDir: cacheDir, Capacity: *concurrency, Output: io.Discard}).Run(context.Background(), w, targets)
		check(err)
		wall += time.Since(start)
		n := res.Count(runner.StateSucceeded)
		if res.Failed() {
			log.Fatalf("round %d: a build failed", r)
		}
		built += n
	}
	cpu := selfCPU() - before
	stop()
	if *rounds > 0 && built > 0 {
		fmt.Printf("rounds %d, built %d (%d a round), wall %.0f ms a round; the runner's own CPU %.0f ms a round, %.2f ms per executed target\n",
			*rounds, built, built / *rounds, ms(wall)/float64(*rounds), ms(cpu)/float64(*rounds), ms(cpu)/float64(built))
	}
	if *cached <= 0 {
		return
	}
	// Nothing changes between these runs: every target is served from the
	// cache, as in a no-op `core run build`, minus the process's start.
	stop = profile(*cachedprofile)
	wall = 0
	before = selfCPU()
	for r := range *cached {
		start := time.Now()
		w, err := live.Resolved(root, cacheDir)
		check(err)
		res, err := runner.New(runner.Options{Root: root, CacheDir: cacheDir, Capacity: *concurrency, Output: io.Discard}).Run(context.Background(), w, targets)
		check(err)
		wall += time.Since(start)
		if n := res.Count(runner.StateCached); n != len(targets) {
			log.Fatalf("cached round %d: %d of %d targets cached", r, n, len(targets))
		}
	}
	cpu = selfCPU() - before
	stop()
	fmt.Printf("cached runs %d, %d targets each: wall %.1f ms a run, the runner's own CPU %.1f ms a run\n",
		*cached, len(targets), ms(wall)/float64(*cached), ms(cpu)/float64(*cached))
}

// profile starts a CPU profile written to path (none if path is empty)
// and returns what stops it.
func profile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	check(err)
	check(pprof.StartCPUProfile(f))
	return func() { pprof.StopCPUProfile(); check(f.Close()) }
}

// selfCPU is this process's user and system time (its children's are not
// in it: the builds are theirs).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
