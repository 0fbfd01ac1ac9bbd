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
	// settle is how long the layout gets to come to rest before a shot.
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

// capture opens link (a pairing link) in a headless Chromium with a fresh
// profile in profileDir and returns the PNGs of shots, in order.
func capture(ctx context.Context, chromium, profileDir, link string) ([][]byte, error) {
	// The flags of the e2e browser tests, so the pictures match what they
	// see.
	opts := testbed.ChromiumOptions(chromium, profileDir)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	b, cancel := chromedp.NewContext(alloc)
	defer cancel() // closes the browser before the profile is removed
	if err := chromedp.Do(b, chromedp.Navigate("about:blank")); err != nil {
		return nil, fmt.Errorf("start chromium (%s): %w", chromium, err)
	}

	var pngs [][]byte
	shot := func() error {
		select {
		case <-time.After(settle):
		case <-b.Done():
			return b.Err()
		}
		png, err := chromedp.Run(b, chromedp.CaptureScreenshot())
		if err != nil {
			return fmt.Errorf("capture %s: %w", shots[len(pngs)], err)
		}
		pngs = append(pngs, png)
		return nil
	}

	// The knowledge graph, as the pairing link opens it.
	if err := do(b, chromedp.Navigate(link)); err != nil {
		return nil, err
	}
	if err := waitFor(b, liveReady); err != nil {
		return nil, err
	}
	if err := shot(); err != nil {
		return nil, err
	}

	// A search, and the details of the target it found.
	if err := do(b, chromedp.SendKeys("#search", "project:api\n")); err != nil {
		return nil, err
	}
	if err := waitFor(b, `document.querySelectorAll('#results li button').length > 0`); err != nil {
		return nil, err
	}
	if err := do(b, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li button')].find(b => b.textContent.trim() === 'api:build').click()`)); err != nil {
		return nil, err
	}
	if err := waitFor(b, `document.querySelector('#details') && !document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('Command')`); err != nil {
		return nil, err
	}
	if err := shot(); err != nil {
		return nil, err
	}

	// The target graph, with the search cleared.
	if err := do(b, chromedp.Evaluate[chromedp.Void](`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", "\n")); err != nil {
		return nil, err
	}
	if err := do(b, chromedp.Click("#view-targets")); err != nil {
		return nil, err
	}
	if err := waitFor(b, liveReady); err != nil {
		return nil, err
	}
	if err := shot(); err != nil {
		return nil, err
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
