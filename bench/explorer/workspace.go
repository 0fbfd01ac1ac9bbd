package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/testbed"
)

// workspaceMode measures the project level against a live server of ws:
// navigation to the first frame of the projects, a click on a project to
// the first frame that shows it open, and the frames per second while
// dragging the view with that project open. The baselines, measured in the
// same run, interleaved: the same page on a small workspace of the same
// shape (small, opened with &level=projects), the server's answers the
// page waits for (GET /api/v1/graph?level=projects, and
// ?select=project:P&edge_limit=1500 for the opening) fetched from Go, and
// the page's idle frame rate.
func workspaceMode(ws, coreBin, wide, small, project string, reps int, pan time.Duration) error {
	if coreBin == "" {
		return fmt.Errorf("-workspace needs -core BIN")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("chromium is not installed: apt-get install chromium")
	}
	big, err := serveWide(coreBin, ws, wide)
	if err != nil {
		return err
	}
	defer big.stop()
	little, err := serveWide(coreBin, ws+"-small", small)
	if err != nil {
		return err
	}
	defer little.stop()

	var paints, opens, fpss, idles, getProjects, getSelect, smallPaints, smallOpens []float64
	var nodes, shown, smallNodes, smallShown int
	for r := 0; r < reps; r++ {
		gp, err := big.get("level=projects")
		if err != nil {
			return err
		}
		// What the page asks for an opening (edge_limit since issue 34;
		// a server before it refuses the parameter, and is asked without).
		gs, err := big.get("select=" + url.QueryEscape("project:"+project) + "&edge_limit=1500")
		if err != nil {
			gs, err = big.get("select=" + url.QueryEscape("project:"+project))
		}
		if err != nil {
			return err
		}
		getProjects, getSelect = append(getProjects, gp), append(getSelect, gs)
		log.Printf("run %d: GET level=projects %.0f ms, select=project:%s %.0f ms", r+1, gp, project, gs)
		sm, err := measureLevel(chromium, little.link+"&level=projects", "project:"+project, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", small, err)
		}
		smallPaints, smallOpens = append(smallPaints, stats.Ms(sm.paint)), append(smallOpens, stats.Ms(sm.open))
		smallNodes, smallShown = sm.total, sm.opened
		m, err := measureLevel(chromium, big.link, "project:"+project, pan)
		if err != nil {
			return err
		}
		paints = append(paints, stats.Ms(m.paint))
		opens = append(opens, stats.Ms(m.open))
		fpss = append(fpss, m.fps)
		idles = append(idles, m.idle)
		nodes, shown = m.total, m.opened
		log.Printf("run %d: %s: first paint %.0f ms, open %.0f ms; %s: first paint %.0f ms, open %.0f ms, %.1f frames/s panning (idle %.1f)", r+1, small, stats.Ms(sm.paint), stats.Ms(sm.open), wide, stats.Ms(m.paint), stats.Ms(m.open), m.fps, m.idle)
	}
	p, o := stats.Median(paints), stats.Median(opens)
	sp, so := stats.Median(smallPaints), stats.Median(smallOpens)
	gp, gs := stats.Median(getProjects), stats.Median(getSelect)
	fmt.Printf("medians of %d runs\n\n", reps)
	fmt.Println("| | first paint of the projects | open one project | frames/s panning it |")
	fmt.Println("|---|---:|---:|---:|")
	fmt.Printf("| the page, %s nodes (%s) | **%.0f ms** | **%.0f ms** (%s nodes shown) | **%.1f** |\n", fmtInt(nodes), wide, p, o, fmtInt(shown), stats.Median(fpss))
	fmt.Printf("| baseline: the page, %s nodes (%s) | %.0f ms | %.0f ms (%d nodes shown) | |\n", fmtInt(smallNodes), small, sp, so, smallShown)
	fmt.Printf("| baseline: the server's answer, from Go | %.0f ms (GET level=projects) | %.0f ms (GET select=project:%s, edge_limit=1500 where taken) | |\n", gp, gs, project)
	fmt.Printf("| baseline: the page's idle frame rate | | | %.1f |\n", stats.Median(idles))
	fmt.Printf("| ratio to the small workspace's page | %.2f× | %.2f× | |\n", p/sp, o/so)
	fmt.Printf("| ratio to the idle frame rate | | | %.2f× |\n", stats.Median(fpss)/stats.Median(idles))
	return nil
}

// served is a running `core server start` on a workspace, with a console
// token.
type served struct {
	base, token, link string
	stop              func()
}

// get times one GET of /api/v1/graph?query.
func (s served) get(query string) (float64, error) {
	req, err := http.NewRequest(http.MethodGet, s.base+"/api/v1/graph?"+query, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", query, resp.Status)
	}
	return stats.Ms(time.Since(start)), err
}

// serveWide writes a wide workspace of shape PROJECTSxFILES at ws when
// there is none, and starts a server on it.
func serveWide(coreBin, ws, shape string) (served, error) {
	if _, err := os.Stat(ws); os.IsNotExist(err) {
		var p, f int
		if _, err := fmt.Sscanf(shape, "%dx%d", &p, &f); err != nil {
			return served{}, fmt.Errorf("%q: want PROJECTSxFILES", shape)
		}
		start := time.Now()
		if _, err := testbed.WriteWideWorkspace(ws, p, f); err != nil {
			return served{}, err
		}
		log.Printf("wrote %d projects of %d files in %v", p, f, time.Since(start).Round(time.Millisecond))
	}
	srv := exec.Command(coreBin, "--workspace", ws, "server", "start", "--address", "127.0.0.1:0")
	out, err := srv.StdoutPipe()
	if err != nil {
		return served{}, err
	}
	srv.Stderr = io.Discard
	start := time.Now()
	if err := srv.Start(); err != nil {
		return served{}, err
	}
	stop := func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }
	ready := regexp.MustCompile(`serving .+ at (http://\S+)`)
	sc := bufio.NewScanner(out)
	base := ""
	for sc.Scan() {
		if m := ready.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if base == "" {
		stop()
		return served{}, fmt.Errorf("the server on %s printed no ready line", ws)
	}
	log.Printf("server on %s ready in %v", ws, time.Since(start).Round(time.Millisecond))
	tok, err := exec.Command(coreBin, "--workspace", ws, "config", "console", "token", "create").Output()
	if err != nil {
		stop()
		return served{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(tok)), "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	return served{base: base, token: token, link: base + "/console/graph/#token=" + token, stop: stop}, nil
}

func fmtInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

type levelMeasurement struct {
	paint, open   time.Duration
	fps, idle     float64
	total, opened int
}

func measureLevel(chromium, link, project string, pan time.Duration) (levelMeasurement, error) {
	var m levelMeasurement
	userData, err := os.MkdirTemp("", "core-bench-explorer-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(userData)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), testbed.ChromiumOptions(chromium, userData)...)
	defer cancel()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	script := countDraws
	if profile {
		script += ";" + timeCalls
	}
	if profile || phases {
		script += ";" + openPhases
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		return m, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return m, err
	}
	frame := func() error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
		return err
	}
	t0 := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		return m, err
	}
	if err := poll(ctx, `window.__core && window.__core.ready && window.__core.level === 'projects' && window.__core.nodes > 0`, 10*time.Millisecond); err != nil {
		return m, fmt.Errorf("the projects never showed: %w", err)
	}
	if err := frame(); err != nil {
		return m, err
	}
	m.paint = time.Since(t0)
	if profile {
		// Where the first paint's time went: the page's requests and the
		// navigation's milestones, in ms since navigation started.
		timeline, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const n = performance.getEntriesByType('navigation')[0]; const out = ['responseEnd ' + n.responseEnd.toFixed(0), 'domInteractive ' + n.domInteractive.toFixed(0), 'domContentLoaded ' + n.domContentLoadedEventEnd.toFixed(0), 'load ' + n.loadEventEnd.toFixed(0)]; for (const r of performance.getEntriesByType('resource')) out.push(r.name.replace(location.origin, '') + ' ' + r.startTime.toFixed(0) + '..' + r.responseEnd.toFixed(0)); for (const p of performance.getEntriesByType('paint')) out.push(p.name + ' ' + p.startTime.toFixed(0)); out.push('now ' + performance.now().toFixed(0)); return out.join('\n'); })()`))
		fmt.Printf("the first paint's timeline (ms since navigation):\n%s\n", timeline)
	}
	status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#status-text').textContent`))
	fmt.Sscanf(strings.ReplaceAll(status[strings.Index(status, "of ")+3:], ",", ""), "%d", &m.total)

	type point struct{ X, Y float64 }
	p, err := chromedp.Run(ctx, chromedp.Evaluate[*point](fmt.Sprintf(`window.__core.where(%q)`, project)))
	if err != nil || p == nil {
		return m, fmt.Errorf("%s is not shown: %v", project, err)
	}
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__core.nodes`))
	if profile {
		_, _ = chromedp.Call(ctx, profiler.Enable, cdp.Empty{})
		_, _ = chromedp.Call(ctx, profiler.Start, cdp.Empty{})
		_ = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__calls = {}; window.__tasks = []`))
	}
	var tr *tracer
	if traceFile != "" {
		if tr, err = startTrace(ctx); err != nil {
			return m, err
		}
	}
	t1 := time.Now()
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y)); err != nil {
		return m, err
	}
	if err := poll(ctx, fmt.Sprintf(`window.__core.nodes > %d`, before), 5*time.Millisecond); err != nil {
		return m, fmt.Errorf("%s never opened: %w", project, err)
	}
	inGraph := time.Since(t1)
	if err := frame(); err != nil {
		return m, err
	}
	m.open = time.Since(t1)
	if tr != nil {
		if err := tr.stop(ctx, traceFile); err != nil {
			return m, err
		}
	}
	if profile || phases {
		fmt.Printf("opening: in the graph after %.0f ms, drawn after %.0f ms\n", stats.Ms(inGraph), stats.Ms(m.open))
		phases, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__phases()`))
		fmt.Printf("the opening's phases in the page (ms since the mouse went down):\n%s\n", phases)
	}
	if profile {
		calls, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Object.entries(window.__calls).sort((a, b) => b[1].ms - a[1].ms).slice(0, 12).map(([k, v]) => k + ' ' + v.ms.toFixed(0) + ' ms in ' + v.n + ' calls').join('\n') + '\nlong tasks: ' + window.__tasks.map(t => t.toFixed(0)).join(', ')`))
		fmt.Printf("time in the page's canvas and WebGL calls while it opens:\n%s\n", calls)
	}
	if profile {
		if res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{}); err == nil && res.Profile != nil {
			fmt.Println("the page's top functions while a project opens:")
			printProfile(res.Profile)
		}
	}
	m.opened, _ = chromedp.Run(ctx, chromedp.Evaluate[int](`window.__core.nodes`))
	if pan == 0 {
		return m, nil
	}
	time.Sleep(800 * time.Millisecond) // the camera's move onto the project ends
	if idle, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { let n = 0; const t0 = performance.now(); (function f(){ n++; if (performance.now() - t0 < 1000) requestAnimationFrame(f); else r(n / ((performance.now() - t0) / 1000)); })(); })`, chromedp.EvalAwaitPromise)); err == nil {
		m.idle = idle
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](movedFrames)); err != nil {
		return m, err
	}
	mouse := func(typ input.DispatchMouseEventType, x, y float64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, chromedp.ButtonLeft, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 })
	}
	cx, cy := 700.0, 400.0
	if err := chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMousePressed, cx, cy)); err != nil {
		return m, err
	}
	f0, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	t2 := time.Now()
	for i := 0; time.Since(t2) < pan; i++ {
		dx := 150 * float64((i/20)%2*2-1)
		_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseMoved, cx+dx*float64(i%20)/20, cy))
	}
	f1, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__frames`))
	m.fps = float64(f1-f0) / time.Since(t2).Seconds()
	_ = chromedp.Do(ctx, mouse(input.DispatchMouseEventTypeMouseReleased, cx, cy))
	return m, nil
}

// poll waits for a condition in the page, and polls the new execution
// context when the one it began in went away under it (seen once in
// twenty runs: "Cannot find context with specified id").
func poll(ctx context.Context, cond string, every time.Duration) error {
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(every)))
		if err != nil && ctx.Err() == nil && (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed")) {
			continue
		}
		return err
	}
}

// openPhases notes, in the page's clock, when the mouse went down and up,
// when the request for the project's contents left and its answer
// arrived, when the status bar first said the project was open (the end
// of the task that put it in the graph), the two animation frames after
// that, the long tasks in between, and the user timing marks of a build
// of the page that makes some: where an opening's time goes.
const openPhases = `(() => {
  const t = window.__open = { tasks: [] };
  addEventListener('pointerdown', () => { t.down = performance.now(); t.tasks = []; t.shown = t.f1 = t.f2 = undefined; }, true);
  addEventListener('pointerup', () => { t.up = performance.now(); }, true);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) t.tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(() => {
      if (t.down === undefined || t.shown !== undefined) return;
      if (!/open: /.test(document.querySelector('#status-text').textContent)) return;
      t.shown = performance.now();
      requestAnimationFrame(() => { t.f1 = performance.now(); requestAnimationFrame(() => { t.f2 = performance.now(); }); });
    }).observe(document.querySelector('#status-text'), { childList: true, characterData: true, subtree: true });
  });
  window.__phases = () => {
    const r = performance.getEntriesByType('resource').filter((e) => e.name.includes('select=')).pop();
    const at = (v) => (v === undefined ? '-' : (v - t.down).toFixed(0));
    const out = ['mouse up ' + at(t.up)];
    if (r) out.push('request sent ' + at(r.requestStart || r.startTime) + ', answer starts ' + at(r.responseStart) + ', answer ends ' + at(r.responseEnd) + ' (' + (r.encodedBodySize / 1024).toFixed(0) + ' KB on the wire, ' + (r.decodedBodySize / 1024).toFixed(0) + ' KB)');
    out.push('in the graph (status) ' + at(t.shown) + ', next frame ' + at(t.f1) + ', the one after ' + at(t.f2));
    const marks = performance.getEntriesByType('mark').filter((m) => m.startTime >= t.down);
    if (marks.length > 0) out.push('marks: ' + marks.map((m) => m.name + ' ' + at(m.startTime)).join(', '));
    out.push('long tasks: ' + t.tasks.filter(([s]) => s >= t.down).map(([s, d]) => at(s) + '+' + d.toFixed(0)).join(', '));
    return out.join('\\n');
  };
})()`

// timeCalls adds up the time spent in each method of the WebGL and 2D
// canvas contexts (window.__calls) and lists the page's long tasks
// (window.__tasks): where a native "(program)" share of a profile goes.
const timeCalls = `window.__calls = {}; window.__tasks = [];
for (const [name, P] of [['gl', WebGLRenderingContext.prototype], ['gl2', WebGL2RenderingContext.prototype], ['2d', CanvasRenderingContext2D.prototype]]) {
  for (const m of Object.getOwnPropertyNames(P)) {
    const d = Object.getOwnPropertyDescriptor(P, m);
    if (!d || typeof d.value !== 'function' || m === 'constructor') continue;
    const f = d.value, key = name + '.' + m;
    P[m] = function (...a) { const t = performance.now(); try { return f.apply(this, a); } finally { const c = window.__calls[key] || (window.__calls[key] = { ms: 0, n: 0 }); c.ms += performance.now() - t; c.n++; } };
  }
}
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__tasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });`
