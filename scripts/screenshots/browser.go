package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corehq/core/internal/testbed"
)

const (
	// stepTimeout bounds one step's work in headless Chromium (software
	// WebGL on a busy machine).
	stepTimeout = 90 * time.Second
	// settle is how long a view gets to come to rest before a shot.
	settle = 3 * time.Second
)

// liveReady holds once the explorer is paired, live, and has drawn a graph.
const liveReady = `window.__core && window.__core.ready && window.__core.state === 'live' && window.__core.nodes > 0`

// findChromium finds Debian's chromium (or another Chromium on the PATH).
func findChromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium is not installed: install Debian's chromium (apt-get install chromium)")
}

// shot is one screenshot: the steps that bring the page to it, then the
// condition it waits for.
type shot struct {
	name  string
	steps []chromedp.Action[chromedp.Void]
	ready string
}

// js runs a script in the page as a step.
func js(code string) chromedp.Action[chromedp.Void] { return chromedp.Evaluate[chromedp.Void](code) }

// poll waits for a condition as a step.
func poll(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error { return waitFor(ctx, cond) })
}

// clickNode clicks a node (or a project level circle) where the page draws it.
func clickNode(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		type point struct{ X, Y float64 }
		p, err := chromedp.Run(ctx, chromedp.Evaluate[*point](fmt.Sprintf(`window.__core.where(%q)`, id)))
		if err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("%s is not shown", id)
		}
		return chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y))
	})
}

// shots are the README's pictures of core's own repository, in order.
var shots = []shot{
	{name: "knowledge-graph.png", ready: liveReady + ` && window.__core.level === 'projects' && window.__core.labels.length > 0`},
	{
		name:  "project-open.png",
		steps: []chromedp.Action[chromedp.Void]{clickNode("project:index")},
		ready: `document.querySelector('#status-text').textContent.includes('open: index') && window.__core.labels.length > 0`,
	},
	{
		name: "search-and-details.png",
		steps: []chromedp.Action[chromedp.Void]{
			chromedp.SendKeys("#search", "main.go\n"),
			poll(`document.querySelectorAll('#results li .node-link').length > 0`),
			js(`[...document.querySelectorAll('#results li .node-link')].find(b => b.title === 'file:cmd/core/main.go').click()`),
		},
		ready: `!document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('file:cmd/core/main.go') && window.__core.labels.length > 0`,
	},
	{
		name: "target-graph.png",
		steps: []chromedp.Action[chromedp.Void]{
			js(`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", "\n"),
			chromedp.Click("#view-targets"),
		},
		ready: liveReady,
	},
	{
		name:  "review.png",
		steps: []chromedp.Action[chromedp.Void]{chromedp.Click("#view-review")},
		ready: `document.querySelector('#review').dataset.state === 'ready'`,
	},
	{
		name:  "insight.png",
		steps: []chromedp.Action[chromedp.Void]{chromedp.Click("#view-insight")},
		ready: `document.querySelector('#insight').dataset.state === 'ready'`,
	},
}

// capture opens link (a pairing link) in a headless Chromium with a fresh
// profile in profileDir and returns the PNGs of shots, in order.
func capture(ctx context.Context, chromium, profileDir, link string) ([][]byte, error) {
	// The flags of the e2e browser tests, so the pictures match what they
	// see.
	opts := append(testbed.ChromiumOptions(chromium, profileDir), chromedp.WindowSize(1440, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	b, cancel := chromedp.NewContext(alloc)
	defer cancel() // closes the browser before the profile is removed
	if err := chromedp.Do(b, chromedp.Navigate("about:blank")); err != nil {
		return nil, fmt.Errorf("start chromium (%s): %w", chromium, err)
	}
	if err := do(b, chromedp.Navigate(link)); err != nil {
		return nil, err
	}
	if err := waitFor(b, liveReady); err != nil {
		return nil, err
	}
	var pngs [][]byte
	for _, s := range shots {
		if err := do(b, s.steps...); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		if err := waitFor(b, s.ready); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		select {
		case <-time.After(settle):
		case <-b.Done():
			return nil, b.Err()
		}
		png, err := chromedp.Run(b, chromedp.CaptureScreenshot())
		if err != nil {
			return nil, fmt.Errorf("capture %s: %w", s.name, err)
		}
		pngs = append(pngs, png)
	}
	return pngs, nil
}

// do runs steps within stepTimeout.
func do(b context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	return nil
}

// waitFor polls a JS condition until it holds, within stepTimeout.
func waitFor(b context.Context, cond string) error {
	ctx, cancel := context.WithTimeout(b, stepTimeout)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(100*time.Millisecond)))
		if err == nil {
			return nil
		}
		// A navigation that lands after the poll began replaces the page's
		// execution context under it: poll the new one.
		if ctx.Err() == nil && (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed")) {
			continue
		}
		if b.Err() != nil {
			return b.Err()
		}
		state, _ := chromedp.Run(b, chromedp.Evaluate[string](`JSON.stringify(window.__core || null) + " " + (document.querySelector('#message')||{}).textContent`))
		return fmt.Errorf("the page never reached %s: %v (page: %s)", cond, err, state)
	}
}
