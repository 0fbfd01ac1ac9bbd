package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/testbed"
)

// workspaceMode measures the project level against a live server of ws:
// navigation to the first frame of the projects, a click on a project to
// the first frame that shows it open, and the frames per second while
// dragging the view with that project open (beside the page's idle frame
// rate, the baseline).
func workspaceMode(ws, coreBin, wide, project string, reps int, pan time.Duration) error {
	if coreBin == "" {
		return fmt.Errorf("-workspace needs -core BIN")
	}
	if _, err := os.Stat(ws); os.IsNotExist(err) {
		var p, f int
		if _, err := fmt.Sscanf(wide, "%dx%d", &p, &f); err != nil {
			return fmt.Errorf("-wide %q: want PROJECTSxFILES", wide)
		}
		start := time.Now()
		if _, err := testbed.WriteWideWorkspace(ws, p, f); err != nil {
			return err
		}
		log.Printf("wrote %d projects of %d files in %v", p, f, time.Since(start).Round(time.Millisecond))
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("chromium is not installed: apt-get install chromium")
	}
	srv := exec.Command(coreBin, "--workspace", ws, "server", "start", "--address", "127.0.0.1:0")
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	srv.Stderr = io.Discard
	start := time.Now()
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
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
		return fmt.Errorf("the server printed no ready line")
	}
	log.Printf("server ready in %v", time.Since(start).Round(time.Millisecond))
	tok, err := exec.Command(coreBin, "--workspace", ws, "config", "console", "token", "create").Output()
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(tok)), "\n")
	link := base + "/console/graph/#token=" + strings.TrimSpace(lines[len(lines)-1])

	var paints, opens, fpss, idles []float64
	var nodes, shown int
	for r := 0; r < reps; r++ {
		m, err := measureLevel(chromium, link, "project:"+project, pan)
		if err != nil {
			return err
		}
		paints = append(paints, stats.Ms(m.paint))
		opens = append(opens, stats.Ms(m.open))
		fpss = append(fpss, m.fps)
		idles = append(idles, m.idle)
		nodes, shown = m.total, m.opened
		log.Printf("run %d: first paint %.0f ms, open %.0f ms, %.1f frames/s panning (idle %.1f)", r+1, stats.Ms(m.paint), stats.Ms(m.open), m.fps, m.idle)
	}
	fmt.Println("| workspace | first paint of the projects (median) | open one project (median) | nodes shown once open | frames/s panning it (median) | idle frames/s (baseline) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	fmt.Printf("| %s nodes, %s | %.0f ms | %.0f ms | %d | %.1f | %.1f |\n", fmtInt(nodes), wide, stats.Median(paints), stats.Median(opens), shown, stats.Median(fpss), stats.Median(idles))
	return nil
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
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: countDraws}); err != nil {
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
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__core && window.__core.ready && window.__core.level === 'projects' && window.__core.nodes > 0`, chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		return m, fmt.Errorf("the projects never showed: %w", err)
	}
	if err := frame(); err != nil {
		return m, err
	}
	m.paint = time.Since(t0)
	status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#status-text').textContent`))
	fmt.Sscanf(strings.ReplaceAll(status[strings.Index(status, "of ")+3:], ",", ""), "%d", &m.total)

	type point struct{ X, Y float64 }
	p, err := chromedp.Run(ctx, chromedp.Evaluate[*point](fmt.Sprintf(`window.__core.where(%q)`, project)))
	if err != nil || p == nil {
		return m, fmt.Errorf("%s is not shown: %v", project, err)
	}
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__core.nodes`))
	t1 := time.Now()
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y)); err != nil {
		return m, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`window.__core.nodes > %d`, before), chromedp.WithPollingInterval(5*time.Millisecond))); err != nil {
		return m, fmt.Errorf("%s never opened: %w", project, err)
	}
	if err := frame(); err != nil {
		return m, err
	}
	m.open = time.Since(t1)
	m.opened, _ = chromedp.Run(ctx, chromedp.Evaluate[int](`window.__core.nodes`))
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
