package e2e

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var screenshots = flag.String("screenshots", "", "write screenshots of the explorer's main views into this directory (README images)")

// TestScreenshots renders the main views of the explorer against the demo
// workspace. It runs only with -screenshots DIR:
//
//	go test ./e2e -run TestScreenshots -screenshots "$PWD/docs/screenshots"
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("run with -screenshots DIR to write the README's screenshots")
	}
	if err := os.MkdirAll(*screenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	shot := func(name string) {
		t.Helper()
		time.Sleep(3 * time.Second) // let the layout settle
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*screenshots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(pairingCode(t, s)))
	b.waitFor(t, liveReady)
	shot("knowledge-graph.png")

	b.run(t, chromedp.SendKeys("#search", "project:api\n"))
	b.waitFor(t, `document.querySelectorAll('#results li button').length > 0`)
	b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li button')].find(b => b.textContent.trim() === 'api:build').click()`))
	b.waitFor(t, `document.querySelector('#details') && !document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('Command')`)
	shot("search-and-details.png")

	b.run(t, chromedp.Evaluate[chromedp.Void](`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", "\n"))
	b.run(t, chromedp.Click("#view-targets"))
	b.waitFor(t, liveReady)
	shot("target-graph.png")
}
