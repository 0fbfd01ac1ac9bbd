// Command prof profiles core's knowledge-graph paths in process, on a
// workspace made by bench/synth (see bench/graph/run.sh):
//
//	prof -ws DIR -mode phases            time each stage of a cold index alone
//	prof -ws DIR -mode cold   -cpuprofile F   what `core graph --json` does, fresh cache
//	prof -ws DIR -mode warm   -cpuprofile F [-n N]   the same with the cache of a cold run (N times)
//	prof -ws DIR -mode update -cpuprofile F -edit REL -toggle IMPORTPATH -n N
//	                                     the server's change path: live.Workspace.Changed
//	                                     on one edited Go file (no watcher, no debounce);
//	                                     without -toggle every edit only appends a function
//	prof -ws DIR -mode symbols -cpuprofile F -name SYM -n N [-edit REL]
//	                                     a symbol query: shard load, AssembleSymbols, merge
//	                                     (first, then later ones; with -edit, the query
//	                                     after one edited file again)
//	prof -ws DIR -mode owner             graph.OwnerOf over every indexed path (as
//	                                     writeShards and Assemble call it) against two
//	                                     allocation-free alternatives
//
// Phases re-create the stages with the exported API (Discover, parse.File,
// Assemble, Encode, gzip, sha256), so their times add up to about a cold
// index minus the cache writes; the profiles of cold and update show the
// real code, cache writes included.
package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/watch"
	"github.com/corehq/core/internal/workspace"
)

func main() {
	wsDir := flag.String("ws", "", "workspace")
	cache := flag.String("cache", "", "cache directory (default: a fresh temporary one)")
	mode := flag.String("mode", "phases", "phases, cold, warm, update or symbols")
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the measured part")
	edit := flag.String("edit", "", "update: the Go file (relative) to edit")
	toggle := flag.String("toggle", "", "update: an import path the edit adds and removes in turn")
	name := flag.String("name", "", "symbols: the symbol name to query")
	n := flag.Int("n", 30, "update/symbols: iterations")
	gap := flag.Duration("gap", 0, "update: pause between edits (not timed), like the driver's spacing")
	all := flag.Bool("all", false, "update: print every latency in order")
	mem := flag.String("memprofile", "", "cold/warm: write the heap profile taken at the largest live heap seen (sampled every 50 ms)")
	flag.Parse()
	root, err := filepath.Abs(*wsDir)
	check(err)
	if *cache == "" {
		*cache, err = os.MkdirTemp("", "core-prof-cache-")
		check(err)
		defer os.RemoveAll(*cache)
	}
	profile := func() func() {
		if *cpu == "" {
			return func() {}
		}
		f, err := os.Create(*cpu)
		check(err)
		check(pprof.StartCPUProfile(f))
		return func() { pprof.StopCPUProfile(); f.Close() }
	}
	switch *mode {
	case "phases":
		phases(root)
	case "cold", "warm":
		if *mode == "warm" {
			_, _, err := live.Build(root, *cache)
			check(err)
		}
		runtime.GC()
		stop := profile()
		stopMem := peakHeap(*mem)
		defer stopMem()
		// A warm build is a few ms: -n repeats it so that a profile has
		// samples; the time printed is the mean.
		reps := 1
		if *mode == "warm" && *n > 1 {
			reps = *n
		}
		t0 := time.Now()
		var g *graph.Graph
		for range reps {
			g, _, err = live.Build(root, *cache)
			check(err)
		}
		build := time.Since(t0) / time.Duration(reps)
		t1 := time.Now()
		data := g.Encode()
		encode := time.Since(t1)
		stop()
		fmt.Printf("%s: live.Build %s, Encode %s (%d nodes, %d edges, %d bytes)\n", *mode, ms(build), ms(encode), len(g.Nodes), len(g.Edges), len(data))
	case "update":
		update(root, *cache, *edit, *toggle, *n, *gap, *all, profile)
	case "symbols":
		first := ""
		if *cpu != "" {
			first = *cpu + ".first"
		}
		symbols(root, *cache, *name, *edit, *n, profile, first)
	case "owner":
		owner(root)
	default:
		check(fmt.Errorf("unknown mode %q", *mode))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "prof:", err)
		os.Exit(1)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// fastPathNote says how many files of a language took the fast path and
// why the others fell back, most frequent reason first.
func fastPathNote(byReason map[string]int64) string {
	var total int64
	for _, n := range byReason {
		total += n
	}
	fast := byReason[parse.FastPath]
	note := fmt.Sprintf("%d of %d files (%.1f%%) on the fast path", fast, total, 100*float64(fast)/float64(max(total, 1)))
	reasons := slices.SortedFunc(maps.Keys(byReason), func(a, b string) int {
		if byReason[a] != byReason[b] {
			return cmp.Compare(byReason[b], byReason[a])
		}
		return strings.Compare(a, b)
	})
	var fell []string
	for _, r := range reasons {
		if r != parse.FastPath {
			fell = append(fell, fmt.Sprintf("%s %d", r, byReason[r]))
		}
	}
	if len(fell) > 0 {
		note += "; fell back: " + strings.Join(fell, ", ")
	}
	return note
}

// phases times the stages of a cold index one by one.
func phases(root string) {
	row := func(name string, d time.Duration, note string) {
		fmt.Printf("| %s | %s | %s |\n", name, ms(d), note)
	}
	fmt.Println("| stage | time | note |")
	fmt.Println("| --- | ---: | --- |")
	t := time.Now()
	ws, err := workspace.Load(root)
	check(err)
	row("load targets.yaml", time.Since(t), fmt.Sprintf("%d projects", len(ws.Projects)))

	t = time.Now()
	found, _ := index.Discover(root, index.WalkOptions{DocGlobs: ws.Docs})
	row("walk (Discover)", time.Since(t), fmt.Sprintf("%d files", len(found)))

	// Read alone, then parse per language, both on every core as the
	// indexer does.
	srcs := make([][]byte, len(found))
	t = time.Now()
	parallel.For(len(found), func(i int) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(found[i].Path)))
		check(err)
		srcs[i] = b
	})
	row("read files", time.Since(t), fmt.Sprintf("%d workers", runtime.GOMAXPROCS(0)))
	recs := make([]parse.FileRecord, len(found))
	var perLang sync.Map
	t = time.Now()
	parallel.For(len(found), func(i int) {
		t0 := time.Now()
		recs[i] = parse.File(found[i].Lang, found[i].Path, srcs[i])
		recs[i].Size, recs[i].ModTime = found[i].Size, found[i].ModTime
		v, _ := perLang.LoadOrStore(found[i].Lang, new(langStat))
		v.(*langStat).add(time.Since(t0))
	})
	row("parse (all languages)", time.Since(t), "wall, on every core")
	perLang.Range(func(k, v any) bool {
		s := v.(*langStat)
		row("  parse "+k.(string), time.Duration(s.ns.Load()), fmt.Sprintf("CPU sum over %d files, %.0f µs/file", s.n.Load(), float64(s.ns.Load())/1e3/float64(max(1, s.n.Load()))))
		return true
	})
	fastPaths := parse.FastPathStats()
	for _, lang := range slices.Sorted(maps.Keys(fastPaths)) {
		row("  fast path "+lang, 0, fastPathNote(fastPaths[lang]))
	}

	// The cache writes (shards and records in core's binary format) are
	// not re-created here; the cold profile shows them.
	files := make(map[string]*parse.FileRecord, len(recs))
	var nsym, nref int
	for i := range recs {
		r := recs[i]
		nsym += len(r.Symbols)
		nref += len(r.Refs)
		r.Symbols, r.Refs = nil, nil
		files[r.Path] = &r
	}
	row("symbols and references parsed", 0, fmt.Sprintf("%d symbols, %d refs", nsym, nref))

	t = time.Now()
	g := index.Assemble(ws, files)
	row("Assemble (default graph)", time.Since(t), fmt.Sprintf("%d nodes, %d edges", len(g.Nodes), len(g.Edges)))
	t = time.Now()
	data := g.Encode()
	row("Encode (JSON)", time.Since(t), fmt.Sprintf("%.1f MB", float64(len(data))/1e6))
	t = time.Now()
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestSpeed)
	_, _ = zw.Write(data)
	_ = zw.Close()
	row("gzip BestSpeed (server snapshot)", time.Since(t), fmt.Sprintf("%.1f MB", float64(zb.Len())/1e6))
	t = time.Now()
	_ = sha256.Sum256(data)
	row("sha256 (server ETag)", time.Since(t), "")
	t = time.Now()
	_ = query.NewIndex(g)
	row("query.NewIndex (first query of a version)", time.Since(t), "")

	full := make(map[string]*parse.FileRecord, len(recs))
	for i := range recs {
		full[recs[i].Path] = &recs[i]
	}
	t = time.Now()
	sg := index.AssembleSymbols(ws, full)
	row("AssembleSymbols (first symbol query)", time.Since(t), fmt.Sprintf("%d nodes, %d edges", len(sg.Nodes), len(sg.Edges)))
}

type langStat struct{ n, ns atomic.Int64 }

func (s *langStat) add(d time.Duration) { s.n.Add(1); s.ns.Add(int64(d)) }

type pub struct {
	mu   sync.Mutex
	last time.Time
	n    int
}

func (p *pub) Publish(kind string, _ []byte) {
	if kind == "graph" {
		p.mu.Lock()
		p.last, p.n = time.Now(), p.n+1
		p.mu.Unlock()
	}
}

// Variant returns the edited text of a Go file: src with an import of
// toggle added when with is set, and one function appended.
func Variant(src []byte, toggle string, with bool, k int) []byte {
	s := string(src)
	if with && toggle != "" {
		s = strings.Replace(s, "import (\n", "import (\n\t_ "+fmt.Sprintf("%q", toggle)+"\n", 1)
	}
	return []byte(s + fmt.Sprintf("\n// BenchAppended%d is appended by bench/graph.\nfunc BenchAppended%d() int { return %d }\n", k, k, k))
}

func update(root, cache, edit, toggle string, n int, gap time.Duration, all bool, profile func() func()) {
	abs := filepath.Join(root, filepath.FromSlash(edit))
	orig, err := os.ReadFile(abs)
	check(err)
	defer os.WriteFile(abs, orig, 0o644)
	p := &pub{}
	// Warm from the cache (a cold index first if it is empty).
	t := time.Now()
	w := live.New(root, cache, p, zerolog.Nop())
	fmt.Printf("update: live.New %s\n", ms(time.Since(t)))
	if _, err := w.Current(); err != nil {
		check(err)
	}
	var lat []time.Duration
	events := p.n
	stop := profile()
	for i := 0; i < n; i++ {
		time.Sleep(gap)
		check(os.WriteFile(abs, Variant(orig, toggle, i%2 == 0, i), 0o644))
		t := time.Now()
		check(w.Changed(watch.Batch{Paths: []string{edit}}))
		lat = append(lat, time.Since(t))
	}
	stop()
	if all {
		var xs []string
		for _, d := range lat {
			xs = append(xs, fmt.Sprintf("%.0f", float64(d.Microseconds())/1000))
		}
		fmt.Printf("update: every Changed in order (ms): %s\n", strings.Join(xs, " "))
	}
	slices.Sort(lat)
	kind := "edits toggling an import"
	if toggle == "" {
		kind = "symbol-only edits"
	}
	fmt.Printf("update (%s): Changed x%d: p50 %s, p90 %s, max %s; graph events %d\n", kind, n, ms(lat[n/2]), ms(lat[n*9/10]), ms(lat[n-1]), p.n-events)
}

func symbols(root, cache, name, edit string, n int, profile func() func(), firstProfile string) {
	w := live.New(root, cache, nil, zerolog.Nop())
	q, err := query.Parse("symbol:" + name)
	check(err)
	// The first query loads every shard and assembles the symbol graph:
	// profiled on its own (cpuprofile.first) when profiling.
	stopFirst := func() {}
	if firstProfile != "" {
		f, err := os.Create(firstProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
		stopFirst = func() { pprof.StopCPUProfile(); f.Close() }
	}
	t := time.Now()
	g, err := w.Query(q)
	check(err)
	stopFirst()
	fmt.Printf("symbols: first query %s (%d nodes)\n", ms(time.Since(t)), len(g.Nodes))
	var lat []time.Duration
	stop := profile()
	for i := 0; i < n; i++ {
		t := time.Now()
		g, err := w.Query(q)
		check(err)
		_ = g.Encode()
		lat = append(lat, time.Since(t))
	}
	stop()
	slices.Sort(lat)
	fmt.Printf("symbols: later queries x%d (Query+Encode): p50 %s, max %s\n", n, ms(lat[n/2]), ms(lat[n-1]))
	if edit == "" {
		return
	}
	// One edit (re-indexed as the watcher would), then the same query.
	abs := filepath.Join(root, filepath.FromSlash(edit))
	orig, err := os.ReadFile(abs)
	check(err)
	defer os.WriteFile(abs, orig, 0o644)
	check(os.WriteFile(abs, Variant(orig, "", false, 1), 0o644))
	t = time.Now()
	check(w.Changed(watch.Batch{Paths: []string{edit}}))
	tc := time.Since(t)
	t = time.Now()
	_, err = w.Query(q)
	check(err)
	fmt.Printf("symbols: after one edit of %s (Changed %s): next query %s\n", edit, ms(tc), ms(time.Since(t)))
}

// owner times project lookups for every indexed path: graph.OwnerOf as it
// is, the same scan without building pr.Path+"/", and a map from project
// directory to project walked up from the path's directory. (The
// concatenation mostly lands in a stack buffer: its cost is the copying,
// not heap allocation.)
func owner(root string) {
	ws, err := workspace.Load(root)
	check(err)
	found, _ := index.Discover(root, index.WalkOptions{DocGlobs: ws.Docs})
	paths := make([]string, len(found))
	for i, f := range found {
		paths[i] = f.Path
	}
	noAlloc := func(p string) *workspace.Project {
		var best *workspace.Project
		bestLen := -1
		for _, pr := range ws.Projects {
			n := -1
			switch {
			case pr.Path == ".":
				n = 0
			case len(p) > len(pr.Path) && p[len(pr.Path)] == '/' && strings.HasPrefix(p, pr.Path):
				n = len(pr.Path)
			}
			if n > bestLen {
				best, bestLen = pr, n
			}
		}
		return best
	}
	byDir := map[string]*workspace.Project{}
	for _, pr := range ws.Projects {
		byDir[pr.Path] = pr
	}
	dirMap := func(p string) *workspace.Project {
		for d := filepath.ToSlash(filepath.Dir(p)); ; d = filepath.ToSlash(filepath.Dir(d)) {
			if pr, ok := byDir[d]; ok {
				return pr
			}
			if d == "." || d == "/" {
				return nil
			}
		}
	}
	fmt.Println("| lookup | work | time | heap allocated |")
	fmt.Println("| --- | --- | ---: | ---: |")
	var ref []*workspace.Project
	for _, c := range []struct {
		name string
		f    func(string) *workspace.Project
	}{
		{"graph.OwnerOf (as is)", func(p string) *workspace.Project { return graph.OwnerOf(ws, p) }},
		{"same scan, no pr.Path+\"/\" allocation", noAlloc},
		{"map of project dirs, walk up from the path", dirMap},
	} {
		runtime.GC()
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		t := time.Now()
		out := make([]*workspace.Project, len(paths))
		for i, p := range paths {
			out[i] = c.f(p)
		}
		d := time.Since(t)
		runtime.ReadMemStats(&ms1)
		if ref == nil {
			ref = out
		} else if !slices.Equal(ref, out) {
			check(fmt.Errorf("%s disagrees with graph.OwnerOf", c.name))
		}
		fmt.Printf("| %s | %d paths × %d projects | %s per pass | %.1f MB |\n", c.name, len(paths), len(ws.Projects), ms(d), float64(ms1.TotalAlloc-ms0.TotalAlloc)/1e6)
	}
}

// peakHeap samples the live heap every 50 ms and keeps the heap profile
// of the largest it saw, written to file when the returned func is
// called (with the largest live heap and the process's peak RSS).
func peakHeap(file string) func() {
	if file == "" {
		return func() {}
	}
	var best []byte
	var bestLive uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > bestLive*11/10 {
				var buf bytes.Buffer
				if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
					best, bestLive = buf.Bytes(), live
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		check(os.WriteFile(file, best, 0o644))
		status, _ := os.ReadFile("/proc/self/status")
		hwm := ""
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				hwm = strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
			}
		}
		fmt.Printf("largest live heap seen: %.1f MB; peak RSS %s\n", float64(bestLive)/1e6, hwm)
	}
}
