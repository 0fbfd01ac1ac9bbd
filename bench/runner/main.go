// Command runner measures what the runner adds to each target it executes,
// when the target itself does nothing: N targets whose argv is /bin/true
// (its id as the one argument, so that no two share a cache key; no
// dependencies, one 16-byte input each), run by runner.Run with an
// empty build cache, against exec'ing /bin/true N times directly with the
// same parallelism. bench/runner.sh calls it; it prints a markdown table
// and can save JSON (-json).
//
//	runner [-targets 1000] [-rounds 5] [-capacity 0] [-json F] [-cpuprofile F]
//
// Variants, each timed in every round (the order rotates per round so that
// drift and order effects cancel):
//
//	exec     os/exec.Command("/bin/true").Run(), `capacity` at a time
//	execx    execx.Exec with the runner's output capture, `capacity` at a time
//	         (the runner's own exec path, without the pool and bookkeeping)
//	run      runner.Run of the N targets, fresh cache directory: every target
//	         hashes its input, misses, takes a pool slot, writes its journal
//	         ("running", then the end), runs /bin/true and stores a cache entry
//	cached   runner.Run of the same N targets again: all cache hits
//
// Wall time is per variant; CPU is this process plus its children (rusage),
// so it includes /bin/true itself.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/workspace"
)

func main() {
	targets := flag.Int("targets", 1000, "targets (5 per project)")
	rounds := flag.Int("rounds", 5, "rounds; every variant runs once per round")
	capacity := flag.Int("capacity", 0, "pool size and direct-exec parallelism (0: the runner's default, min(CPUs, 8))")
	out := flag.String("json", "", "write the results here")
	cpuprofile := flag.String("cpuprofile", "", "CPU profile of three more runs of the `run` variant, after the rounds")
	flag.Parse()
	if *capacity <= 0 {
		*capacity, _ = runner.Capacity(0, func(string) string { return "" })
	}
	tmp, err := os.MkdirTemp("", "core-bench-runner-")
	check(err)
	defer os.RemoveAll(tmp)
	removeTmp = func() { _ = os.RemoveAll(tmp) }
	root := filepath.Join(tmp, "ws")
	ws, ids := workspaceOf(root, *targets)
	dir := filepath.Join(root, ws.Projects[0].Path)

	var prof *os.File
	if *cpuprofile != "" {
		prof, err = os.Create(*cpuprofile)
		check(err)
	}
	type variant struct {
		name string
		f    func(round int) int // returns how many targets ran or hit
	}
	caches := map[int]string{}
	variants := []variant{
		{"exec", func(int) int {
			return parallel(*targets, *capacity, func() bool { return exec.Command("/bin/true", "p000:t0").Run() == nil })
		}},
		{"execx", func(int) int {
			return parallel(*targets, *capacity, func() bool {
				c := &execx.Capture{Max: runner.OutputCap}
				r := execx.Exec(context.Background(), []string{"/bin/true", "p000:t0"}, dir, nil, c)
				_, _ = c.Result()
				return r.ExitCode == 0 && r.Err == ""
			})
		}},
		{"run", func(round int) int {
			cache := filepath.Join(tmp, fmt.Sprintf("cache%d", round))
			caches[round] = cache
			return countRun(runner.New(runner.Options{Root: root, CacheDir: cache, Capacity: *capacity}), ws, ids, runner.StateSucceeded)
		}},
		{"cached", func(round int) int { // always right after run, on its cache
			cache := caches[round]
			return countRun(runner.New(runner.Options{Root: root, CacheDir: cache, Capacity: *capacity}), ws, ids, runner.StateCached)
		}},
	}
	type sample struct{ WallMS, CPUMS float64 }
	res := map[string][]sample{}
	// Warm-up: the page cache, the binary, the runtime.
	parallel(min(*targets, 100), *capacity, func() bool { return exec.Command("/bin/true").Run() == nil })
	fmt.Fprintf(os.Stderr, "runner bench: %d targets, capacity %d, %d rounds, %d CPUs\n", *targets, *capacity, *rounds, runtime.NumCPU())
	for round := 0; round < *rounds; round++ {
		// Rotate exec, execx and run; cached always follows run.
		k := round % 3
		base := append(slices.Clone(variants[k:3]), variants[:k]...)
		var order []variant
		for _, v := range base {
			order = append(order, v)
			if v.name == "run" {
				order = append(order, variants[3])
			}
		}
		var line []string
		for _, v := range order {
			runtime.GC()
			c0 := cpuNow()
			t0 := time.Now()
			n := v.f(round)
			wall := time.Since(t0)
			cpu := cpuNow() - c0
			if n != *targets {
				check(fmt.Errorf("%s: %d of %d targets", v.name, n, *targets))
			}
			res[v.name] = append(res[v.name], sample{stats.Ms(wall), stats.Ms(cpu)})
			line = append(line, fmt.Sprintf("%s %.0f ms", v.name, stats.Ms(wall)))
		}
		fmt.Fprintf(os.Stderr, "  round %d: %s\n", round+1, strings.Join(line, ", "))
		_ = os.RemoveAll(caches[round])
	}
	if prof != nil {
		// Three more runs of the run variant, profiled together.
		check(pprof.StartCPUProfile(prof))
		for i := 0; i < 3; i++ {
			cache := filepath.Join(tmp, fmt.Sprintf("prof%d", i))
			countRun(runner.New(runner.Options{Root: root, CacheDir: cache, Capacity: *capacity}), ws, ids, runner.StateSucceeded)
			_ = os.RemoveAll(cache)
		}
		pprof.StopCPUProfile()
		prof.Close()
	}

	med := func(name string, f func(sample) float64) float64 {
		var xs []float64
		for _, s := range res[name] {
			xs = append(xs, f(s))
		}
		return stats.Median(xs)
	}
	wall := func(s sample) float64 { return s.WallMS }
	cpu := func(s sample) float64 { return s.CPUMS }
	n := float64(*targets)
	fmt.Printf("\n%d targets running /bin/true, capacity %d, %d rounds (medians; CPU = this process + children)\n\n", *targets, *capacity, *rounds)
	fmt.Println("| variant | wall | wall per target | CPU | CPU per target | wall vs exec | added wall per target | added CPU per target |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	ew, ec := med("exec", wall), med("exec", cpu)
	for _, name := range []string{"exec", "execx", "run", "cached"} {
		w, c := med(name, wall), med(name, cpu)
		fmt.Printf("| %s | %.0f ms | %.3f ms | %.0f ms | %.3f ms | %.2f× | %+.3f ms | %+.3f ms |\n", name, w, w/n, c, c/n, w/ew, (w-ew)/n, (c-ec)/n)
	}
	all := map[string]any{"targets": *targets, "capacity": *capacity, "rounds": *rounds, "samples": res}
	if *out != "" {
		b, _ := json.MarshalIndent(all, "", "  ")
		check(os.WriteFile(*out, append(b, '\n'), 0o644))
	}
}

// workspaceOf writes n targets in n/5 projects, each target
// [/bin/true, <id>] with one 16-byte input file and no dependencies.
func workspaceOf(root string, n int) (*workspace.Workspace, []string) {
	var y strings.Builder
	y.WriteString("projects:\n")
	var ids []string
	for p := 0; p*5 < n; p++ {
		name := fmt.Sprintf("p%03d", p)
		fmt.Fprintf(&y, "  %s:\n    path: libs/%s\n    targets:\n", name, name)
		for t := 0; t < 5 && p*5+t < n; t++ {
			// The id in argv keeps the cache keys apart: a key covers argv,
			// project path and inputs, not the target's name.
			fmt.Fprintf(&y, "      t%d:\n        run: [/bin/true, \"%s:t%d\"]\n        inputs: [in.txt]\n", t, name, t)
			ids = append(ids, fmt.Sprintf("%s:t%d", name, t))
		}
		d := filepath.Join(root, "libs", name)
		check(os.MkdirAll(d, 0o755))
		check(os.WriteFile(filepath.Join(d, "in.txt"), []byte("sixteen bytes..\n"), 0o644))
	}
	check(os.WriteFile(filepath.Join(root, workspace.FileName), []byte(y.String()), 0o644))
	ws, err := workspace.Load(root)
	check(err)
	return ws, ids
}

func countRun(r *runner.Runner, ws *workspace.Workspace, ids []string, want string) int {
	res, err := r.Run(context.Background(), ws, ids)
	check(err)
	n := 0
	for _, t := range res.Targets {
		if t.Status == want {
			n++
		} else if n == 0 {
			fmt.Fprintf(os.Stderr, "  %s: %s %s\n", t.Target, t.Status, t.Err)
		}
	}
	return n
}

// parallel calls f n times, k at a time, and counts the successes.
func parallel(n, k int, f func() bool) int {
	var next, ok atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if f() {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(ok.Load())
}

// cpuNow is the CPU time of this process and its waited-for children.
func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

// removeTmp removes the temporary directory when check exits early.
var removeTmp = func() {}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "runner bench:", err)
		removeTmp()
		os.Exit(1)
	}
}
