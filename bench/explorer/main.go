// Command explorer measures the explorer in headless Chromium: time to
// first render and frames per second while panning, for synthetic graphs
// of several sizes. It serves the embedded console and a graph from a
// loopback server and drives Debian's chromium with chromedp.
//
//	go run ./bench/explorer -sizes 1000,10000,50000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/corehq/core/console"
	"github.com/corehq/core/handlers"
	"github.com/corehq/core/internal/graph"
)

func main() {
	sizes := flag.String("sizes", "1000,10000,50000", "graph sizes (nodes), comma-separated")
	pan := flag.Duration("pan", 4*time.Second, "how long to pan while counting frames")
	reps := flag.Int("reps", 3, "repetitions per size (the median is reported)")
	flag.Parse()

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		log.Fatal("chromium is not installed: apt-get install chromium")
	}
	fmt.Println("| nodes | edges | first render (median) | frames/s while panning (median) | runs |")
	fmt.Println("|---:|---:|---:|---:|---|")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			log.Fatal(err)
		}
		g := synthetic(n)
		data := g.Encode()
		var renders, fps []float64
		var runs []string
		for r := 0; r < *reps; r++ {
			render, f, err := measure(chromium, data, *pan)
			if err != nil {
				log.Fatalf("%d nodes: %v", n, err)
			}
			renders = append(renders, render.Seconds()*1000)
			fps = append(fps, f)
			runs = append(runs, fmt.Sprintf("%.0f ms / %.1f fps", render.Seconds()*1000, f))
		}
		fmt.Printf("| %d | %d | %.0f ms | %.1f | %s |\n", len(g.Nodes), len(g.Edges), median(renders), median(fps), strings.Join(runs, "; "))
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

func measure(chromium string, data []byte, pan time.Duration) (time.Duration, float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	files := console.Built()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /graph.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	})
	mux.HandleFunc("GET "+handlers.ConsolePrefix, func(w http.ResponseWriter, r *http.Request) {
		_ = handlers.ServeConsoleFile(w, r, files, strings.TrimPrefix(r.URL.Path, handlers.ConsolePrefix))
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("enable-unsafe-swiftshader", true), chromedp.WindowSize(1280, 800))
	defer cancel()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()

	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	link := base + handlers.ConsolePrefix + "#src=" + url.QueryEscape(base+"/graph.json")
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		return 0, 0, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__core && window.__core.ready && window.__core.nodes > 0`, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return 0, 0, fmt.Errorf("the page never rendered: %w", err)
	}
	// The first render is the first frame after the graph is ready.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		return 0, 0, err
	}
	render := time.Since(start)
	// Panning is measured once the force layout has settled.
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`!(document.querySelector('#status-line')||{textContent:''}).textContent.includes('layout running')`, chromedp.WithPollingInterval(100*time.Millisecond)))
	if blank, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { const f = document.createElement('iframe'); r(0); })`, chromedp.EvalAwaitPromise)); err == nil {
		_ = blank
	}

	// Idle frame rate, for comparison: what the browser gives a page that
	// draws nothing new.
	if idle, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { let n = 0; const t0 = performance.now(); (function f(){ n++; if (performance.now() - t0 < 1000) requestAnimationFrame(f); else r(n / ((performance.now() - t0) / 1000)); })(); })`, chromedp.EvalAwaitPromise)); err == nil {
		log.Printf("idle frame rate: %.1f/s", idle)
	}
	// Count animation frames while the mouse drags the graph around.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__frames = 0; (function tick(){ window.__frames++; requestAnimationFrame(tick); })()`)); err != nil {
		return 0, 0, err
	}
	mouse := func(typ input.DispatchMouseEventType, x, y float64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, chromedp.ButtonLeft, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 })
	}
	cx, cy := 700.0, 400.0
	if err := chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMousePressed, cx, cy)); err != nil {
		return 0, 0, err
	}
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	t0 := time.Now()
	for i := 0; time.Since(t0) < pan; i++ {
		dx := 150 * float64((i/20)%2*2-1)
		_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseMoved, cx+dx*float64(i%20)/20, cy))
	}
	after, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	elapsed := time.Since(t0)
	_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseReleased, cx, cy))
	return render, float64(after-before) / elapsed.Seconds(), nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
