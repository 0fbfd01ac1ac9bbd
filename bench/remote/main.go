// Command remote measures the remote build cache against a real nginx
// (scripts/cache-server) on loopback: a full remote-hit run of N targets
// with outputs against a full local-hit run of the same targets, and the
// remote-hit run's transfer against curl fetching the same blobs from the
// same server. bench/remote.sh calls it; it prints a markdown table.
//
//	remote -url http://127.0.0.1:PORT/cache [-targets 1000] [-size 65536] [-rounds 5] [-curl curl]
//
// The workspace has N projects, each with one target [/bin/true, ID] whose
// output is one file of -size random bytes (written beforehand: the command
// does nothing, so every variant measures the cache, not the build). Clone
// A runs once in read-write mode and uploads everything. Clone B, a copy of
// A's sources in another directory, then takes, in every round (the order
// rotates):
//
//	local    outputs deleted, B's local cache full: every target a local
//	         hit that restores its output
//	remote   outputs deleted, B's local cache emptied: every target a remote
//	         hit (action result, output blob, then the same restore)
//	fetch    outputs in place, local cache emptied: remote hits whose
//	         restore is skipped (the outputs on disk are already the
//	         entry's), so this is the transfer and the local entry's write
//	client   core's remote-cache client alone (remotecache.Client, the same
//	         parallelism) fetching the same action results and blobs into
//	         files, each checked against its digest: the transfer
//	curl     curl --parallel (the same parallelism) fetching the same
//	         action results and blobs from the same server into files
package main

import (
	"context"
	crand "crypto/rand"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/workspace"
	"google.golang.org/protobuf/proto"
)

func main() {
	url := flag.String("url", "", "the remote cache's base URL")
	targets := flag.Int("targets", 1000, "targets, one project each")
	size := flag.Int("size", 64<<10, "bytes of each target's output")
	rounds := flag.Int("rounds", 5, "rounds; every variant runs once per round")
	curl := flag.String("curl", "curl", "the curl to compare with")
	parallelism := flag.Int("parallelism", 8, "requests in flight (core's cache.remote.parallelism and curl's --parallel-max)")
	flag.Parse()
	if *url == "" {
		check(fmt.Errorf("-url is required (bench/remote.sh starts nginx and passes it)"))
	}
	tmp, err := os.MkdirTemp("", "core-bench-remote-")
	check(err)
	defer os.RemoveAll(tmp)
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	ids := writeWorkspace(a, *targets, *size, true)
	writeWorkspace(b, *targets, *size, false)
	wsA, wsB := load(a), load(b)
	rw, err := remotecache.New(remotecache.Config{URL: *url, Mode: remotecache.ModeReadWrite, Parallelism: *parallelism})
	check(err)
	ro, err := remotecache.New(remotecache.Config{URL: *url, Mode: remotecache.ModeRead, Parallelism: *parallelism})
	check(err)
	capacity, _ := runner.Capacity(0, func(string) string { return "" })
	ctx := context.Background()

	// Clone A builds and uploads; its keys are B's.
	res, err := runner.New(runner.Options{Root: a, CacheDir: filepath.Join(a, ".core"), Capacity: capacity, Remote: rw}).Run(ctx, wsA, ids)
	check(err)
	if res.Remote.Uploaded != *targets {
		check(fmt.Errorf("clone A uploaded %d of %d results", res.Remote.Uploaded, *targets))
	}
	var urls []string
	var keys []string
	var blobs []remotecache.Digest
	for _, t := range res.Targets {
		urls = append(urls, *url+"/ac/"+t.CacheKey)
		keys = append(keys, t.CacheKey)
	}
	for _, p := range wsA.Projects {
		data, err := os.ReadFile(filepath.Join(a, p.Path, "out.bin"))
		check(err)
		d := remotecache.DigestOf(data)
		urls = append(urls, *url+"/cas/"+d.Hash)
		blobs = append(blobs, d)
	}
	bytesTotal := res.Remote.BytesUp

	localCache := filepath.Join(tmp, "b-local")
	removeOutputs := func() {
		for _, p := range wsB.Projects {
			_ = os.Remove(filepath.Join(b, p.Path, "out.bin"))
		}
	}
	run := func(cacheDir string, remote *remotecache.Client, want string) runner.RemoteStats {
		res, err := runner.New(runner.Options{Root: b, CacheDir: cacheDir, Capacity: capacity, Remote: remote}).Run(ctx, wsB, ids)
		check(err)
		for _, t := range res.Targets {
			if t.From != want {
				check(fmt.Errorf("%s came from %q, want %q", t.Target, t.From, want))
			}
		}
		return res.Remote
	}
	// Fill B's local cache (a remote-hit run), for the local variant.
	removeOutputs()
	run(localCache, ro, runner.FromRemote)

	type variant struct {
		name  string
		setup func() string // returns the cache dir to use
		f     func(cache string)
	}
	fresh := func() string {
		d := filepath.Join(tmp, "b-remote")
		check(os.RemoveAll(d))
		return d
	}
	curlDir := filepath.Join(tmp, "curl")
	clientDir := filepath.Join(tmp, "client")
	variants := []variant{
		{"local", func() string { removeOutputs(); return localCache }, func(c string) { run(c, ro, runner.FromLocal) }},
		{"remote", func() string { removeOutputs(); return fresh() }, func(c string) { run(c, ro, runner.FromRemote) }},
		{"fetch", func() string { return fresh() }, func(c string) { run(c, ro, runner.FromRemote) }},
		{"client", func() string {
			check(os.RemoveAll(clientDir))
			check(os.MkdirAll(clientDir, 0o755))
			return clientDir
		}, func(dir string) {
			jobs := make(chan int)
			var wg sync.WaitGroup
			for w := 0; w < *parallelism; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range jobs {
						if i < len(keys) {
							ar, err := ro.GetAction(ctx, keys[i])
							check(err)
							data, err := proto.Marshal(ar)
							check(err)
							check(os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), data, 0o644))
							continue
						}
						f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
						check(err)
						check(ro.GetBlob(ctx, blobs[i-len(keys)], f))
						check(f.Close())
					}
				}()
			}
			for i := 0; i < len(keys)+len(blobs); i++ {
				jobs <- i
			}
			close(jobs)
			wg.Wait()
		}},
		{"curl", func() string {
			check(os.RemoveAll(curlDir))
			check(os.MkdirAll(curlDir, 0o755))
			var cfg strings.Builder
			for i, u := range urls {
				fmt.Fprintf(&cfg, "url = %q\noutput = %q\n", u, filepath.Join(curlDir, fmt.Sprint(i)))
			}
			p := filepath.Join(tmp, "curl.cfg")
			check(os.WriteFile(p, []byte(cfg.String()), 0o644))
			return p
		}, func(cfg string) {
			out, err := exec.Command(*curl, "--silent", "--show-error", "--fail", "--parallel", "--parallel-max", fmt.Sprint(*parallelism), "--config", cfg).CombinedOutput()
			if err != nil {
				check(fmt.Errorf("curl: %v\n%s", err, out))
			}
		}},
	}
	res2 := map[string][]float64{}
	fmt.Fprintf(os.Stderr, "remote bench: %d targets of %d bytes, %d rounds, %d CPUs, parallelism %d\n", *targets, *size, *rounds, runtime.NumCPU(), *parallelism)
	for round := 0; round < *rounds; round++ {
		k := round % len(variants)
		order := append(slices.Clone(variants[k:]), variants[:k]...)
		var line []string
		for _, v := range order {
			arg := v.setup()
			runtime.GC()
			t0 := time.Now()
			v.f(arg)
			ms := stats.Ms(time.Since(t0))
			res2[v.name] = append(res2[v.name], ms)
			line = append(line, fmt.Sprintf("%s %.0f ms", v.name, ms))
		}
		fmt.Fprintf(os.Stderr, "  round %d: %s\n", round+1, strings.Join(line, ", "))
	}
	med := func(name string) float64 { return stats.Median(res2[name]) }
	mb := float64(bytesTotal) / (1 << 20)
	fmt.Printf("\n%d targets, one %d-byte output each (%.1f MiB of blobs and action results), nginx on loopback, parallelism %d, capacity %d, %d rounds (medians)\n\n", *targets, *size, mb, *parallelism, capacity, *rounds)
	fmt.Println("| variant | wall | per target | MiB/s | vs local | vs curl |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range []string{"local", "remote", "fetch", "client", "curl"} {
		w := med(name)
		fmt.Printf("| %s | %.0f ms | %.3f ms | %.0f | %.2f× | %.2f× |\n", name, w, w/float64(*targets), mb/(w/1000), w/med("local"), w/med("curl"))
	}
	// Each round has one sample of each variant: the ratio within a round
	// sees the same machine load on both sides.
	geo := func(x, y string) float64 {
		sum := 0.0
		for i := range res2[x] {
			sum += math.Log(res2[x][i] / res2[y][i])
		}
		return math.Exp(sum / float64(len(res2[x])))
	}
	fmt.Printf("\nGoals: remote-hit run within 2× the local-hit run: remote/local %.2f× (medians), %.2f× (geometric mean of the rounds' ratios); transfer within 1.2× of curl: client/curl %.2f×, %.2f×.\n",
		med("remote")/med("local"), geo("remote", "local"), med("client")/med("curl"), geo("client", "curl"))
}

// writeWorkspace writes n projects p0000..., each with a target whose
// output is out.bin; with outputs, the files are written too (the same
// bytes in every clone: a seed per project).
func writeWorkspace(root string, n, size int, outputs bool) []string {
	var y strings.Builder
	y.WriteString("projects:\n")
	var ids []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%04d", i)
		fmt.Fprintf(&y, "  %s:\n    path: libs/%s\n    targets:\n      build:\n        run: [/bin/true, %q]\n        inputs: [in.txt]\n        outputs: [out.bin]\n", name, name, name)
		ids = append(ids, name+":build")
		d := filepath.Join(root, "libs", name)
		check(os.MkdirAll(d, 0o755))
		check(os.WriteFile(filepath.Join(d, "in.txt"), []byte(name+"\n"), 0o644))
		if outputs {
			buf := make([]byte, size)
			_, _ = crand.Read(buf)
			check(os.WriteFile(filepath.Join(d, "out.bin"), buf, 0o644))
		}
	}
	check(os.WriteFile(filepath.Join(root, workspace.FileName), []byte(y.String()), 0o644))
	return ids
}

func load(root string) *workspace.Workspace {
	ws, err := workspace.Load(root)
	check(err)
	return ws
}

var removeTmp = func() {}

func check(err error) {
	if err != nil {
		removeTmp()
		fmt.Fprintln(os.Stderr, "remote bench:", err)
		os.Exit(1)
	}
}
