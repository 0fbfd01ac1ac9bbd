// Command explorer measures the explorer in headless Chromium: time to
// first render and frames per second while panning, for synthetic graphs
// of several sizes. It serves the embedded console and a graph from a
// loopback server and drives Debian's chromium with chromedp.
//
//	go run ./bench/explorer -sizes 1000,10000,50000
//
// With -workspace it measures the project level on a live server instead
// (workspace.go): the first paint of a 100k-node workspace's projects, the
// opening of one project of 5,000 files, and panning it, beside the same
// page on a workspace of 20 projects of 5 files.
//
//	go run ./bench/explorer -workspace /tmp/wide -core /tmp/core
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/console"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/server"
)

var (
	profile   bool
	phases    bool
	traceFile string
)

func main() {
	sizes := flag.String("sizes", "1000,10000,50000", "graph sizes (nodes), comma-separated")
	pan := flag.Duration("pan", 4*time.Second, "how long to pan while counting frames")
	reps := flag.Int("reps", 3, "repetitions per size (the median is reported)")
	flag.BoolVar(&profile, "profile", false, "print the page's top JavaScript functions while panning, or with -workspace while a project opens (CPU profile)")
	flag.BoolVar(&phases, "phases", false, "with -workspace: print the opening's phases in the page's clock (the request, the answer, the user timing marks of a build that makes some, the frames), without -profile's profiler and call counting, which slow the page")
	flag.StringVar(&traceFile, "trace", "", "with -workspace: write a DevTools trace of each opening to this file (the last one stays; chrome://tracing or ui.perfetto.dev read it) and print its longest tasks by thread")
	ws := flag.String("workspace", "", "measure the project level on a live server of this workspace instead (written with -wide when it does not exist)")
	coreBin := flag.String("core", "", "the core binary (with -workspace)")
	wide := flag.String("wide", "20x5000", "with -workspace: projects x files of the workspace written when it does not exist")
	expand := flag.String("expand", "p03", "with -workspace: the project opened")
	small := flag.String("small", "20x5", "with -workspace: projects x files of the small workspace measured beside it (the baseline), written beside it")
	flag.Parse()
	if *ws != "" {
		if err := workspaceMode(*ws, *coreBin, *wide, *small, *expand, *reps, *pan); err != nil {
			log.Fatal(err)
		}
		return
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		log.Fatal("chromium is not installed: apt-get install chromium")
	}
	fmt.Println("| nodes | edges | first render (median) | frames/s while panning (median) | redraw on release (median) | runs |")
	fmt.Println("|---:|---:|---:|---:|---:|---|")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			log.Fatal(err)
		}
		g := synthetic(n)
		data := g.Encode()
		var renders, fps, releases []float64
		var runs []string
		for r := 0; r < *reps; r++ {
			m, err := measure(chromium, data, *pan)
			if err != nil {
				log.Fatalf("%d nodes: %v", n, err)
			}
			renders = append(renders, stats.Ms(m.render))
			fps = append(fps, m.fps)
			releases = append(releases, stats.Ms(m.release))
			runs = append(runs, fmt.Sprintf("%.0f ms / %.1f fps / %.0f ms", stats.Ms(m.render), m.fps, stats.Ms(m.release)))
		}
		fmt.Printf("| %d | %d | %.0f ms | %.1f | %.0f ms | %s |\n", len(g.Nodes), len(g.Edges), stats.Median(renders), stats.Median(fps), stats.Median(releases), strings.Join(runs, "; "))
	}
}

// synthetic is a graph shaped like a workspace's: projects owning files and
// packages, imports between files, a few docs.
func synthetic(n int) *graph.Graph {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	g := &graph.Graph{}
	projects := max(4, n/250)
	for p := 0; p < projects; p++ {
		g.Nodes = append(g.Nodes, graph.Node{ID: fmt.Sprintf("project:p%d", p), Kind: graph.KindProject, Name: fmt.Sprintf("p%d", p)})
	}
	for i := len(g.Nodes); i < n; i++ {
		p := rng.IntN(projects)
		kind := []string{graph.KindFile, graph.KindFile, graph.KindFile, graph.KindPackage, graph.KindDoc, graph.KindTarget}[rng.IntN(6)]
		id := fmt.Sprintf("%s:p%d/n%d", kind, p, i)
		g.Nodes = append(g.Nodes, graph.Node{ID: id, Kind: kind, Name: fmt.Sprintf("n%d", i), Project: fmt.Sprintf("p%d", p)})
		g.Edges = append(g.Edges, graph.Edge{Source: fmt.Sprintf("project:p%d", p), Target: id, Kind: graph.EdgeOwns})
		for k := 0; k < 2; k++ {
			j := rng.IntN(i)
			g.Edges = append(g.Edges, graph.Edge{Source: id, Target: g.Nodes[j].ID, Kind: graph.EdgeImports})
		}
	}
	g.Sort()
	return g
}

// measurement is one page load: time to the first frame, frames per
// second that show the graph moved while panning, and the time from the
// mouse's release to the next frame (the one full redraw of a pan).
type measurement struct {
	render, release time.Duration
	fps             float64
}

func measure(chromium string, data []byte, pan time.Duration) (measurement, error) {
	srv, err := server.NewSnapshotServer(data, console.Built(), zerolog.Nop())
	if err != nil {
		return measurement{}, err
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	go func() { _ = srv.Serve(serveCtx) }()

	userData, err := os.MkdirTemp("", "core-bench-explorer-")
	if err != nil {
		return measurement{}, err
	}
	defer os.RemoveAll(userData)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), testbed.ChromiumOptions(chromium, userData)...)
	defer cancel()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()

	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: countDraws}); err != nil {
		return measurement{}, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return measurement{}, err
	}
	start := time.Now()
	// Every node, as this table has always measured (a graph this big
	// opens on its projects otherwise: workspace.go measures that).
	link := srv.Link(false) + "&level=all"
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		return measurement{}, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__core && window.__core.ready && window.__core.nodes > 0`, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return measurement{}, fmt.Errorf("the page never rendered: %w", err)
	}
	// The first render is the first frame after the graph is ready.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		return measurement{}, err
	}
	render := time.Since(start)
	// Panning is measured once the force layout has settled.
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`!(document.querySelector('#status-line')||{textContent:''}).textContent.includes('layout running')`, chromedp.WithPollingInterval(100*time.Millisecond)))
	// Idle frame rate, for comparison: what the browser gives a page that
	// draws nothing new.
	if idle, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { let n = 0; const t0 = performance.now(); (function f(){ n++; if (performance.now() - t0 < 1000) requestAnimationFrame(f); else r(n / ((performance.now() - t0) / 1000)); })(); })`, chromedp.EvalAwaitPromise)); err == nil {
		log.Printf("idle frame rate: %.1f/s", idle)
	}
	// Count the frames that show the graph somewhere new while the mouse
	// drags it around: frames after a WebGL draw call, or after the drawn
	// layers' CSS transform changed (the explorer pans a picture of a big
	// graph). A frame that merely ticks is not counted.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](movedFrames)); err != nil {
		return measurement{}, err
	}
	mouse := func(typ input.DispatchMouseEventType, x, y float64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, chromedp.ButtonLeft, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 })
	}
	cx, cy := 700.0, 400.0
	if err := chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMousePressed, cx, cy)); err != nil {
		return measurement{}, err
	}
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	if profile {
		_, _ = chromedp.Call(ctx, profiler.Enable, cdp.Empty{})
		_, _ = chromedp.Call(ctx, profiler.Start, cdp.Empty{})
	}
	t0 := time.Now()
	for i := 0; time.Since(t0) < pan; i++ {
		dx := 150 * float64((i/20)%2*2-1)
		_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseMoved, cx+dx*float64(i%20)/20, cy))
	}
	after, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	elapsed := time.Since(t0)
	if profile {
		if res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{}); err == nil && res.Profile != nil {
			printProfile(res.Profile)
		}
	}
	t1 := time.Now()
	_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseReleased, cx, cy))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		return measurement{}, err
	}
	return measurement{render: render, release: time.Since(t1), fps: float64(after-before) / elapsed.Seconds()}, nil
}

// countDraws marks every WebGL draw call, before the page's scripts run.
const countDraws = `window.__drew = false;
for (const P of [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype]) {
  for (const m of ['drawArrays', 'drawArraysInstanced', 'drawElements', 'drawElementsInstanced']) {
    const f = P[m];
    if (f) P[m] = function (...a) { window.__drew = true; return f.apply(this, a); };
  }
}`

// movedFrames counts animation frames that follow a draw or a new
// transform of the nodes layer.
const movedFrames = `window.__frames = 0; (function () {
  let last = '';
  (function tick() {
    const c = document.querySelector('.sigma-nodes');
    const t = c ? c.style.transform : '';
    if (window.__drew || t !== last) window.__frames++;
    window.__drew = false;
    last = t;
    requestAnimationFrame(tick);
  })();
})()`

// printProfile lists the functions with the most self time.
func printProfile(p *profiler.Profile) {
	self := map[string]int64{}
	var total int64
	for _, n := range p.Nodes {
		f := n.CallFrame
		key := fmt.Sprintf("%s %s:%d", f.FunctionName, f.URL[strings.LastIndex(f.URL, "/")+1:], f.LineNumber)
		self[key] += n.HitCount
		total += n.HitCount
	}
	type kv struct {
		k string
		v int64
	}
	var list []kv
	for k, v := range self {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v })
	for i := 0; i < len(list) && i < 15; i++ {
		log.Printf("%5.1f%% %s", 100*float64(list[i].v)/float64(total), list[i].k)
	}
}
