package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSharesAndAColleagueSeesTheShare: the Share button opens a
// share (link, QR code, countdown); the link, opened as a colleague would,
// shows the status, the activity and the runs with their logs, and nothing
// of the graph; when the share is stopped the page says it has ended. The
// share binds 127.0.0.2 here (share.address), a loopback address the share
// listener treats as foreign to loopback: only its own Host is admitted.
func TestBrowserSharesAndAColleagueSeesTheShare(t *testing.T) {
	ws := insightDemo(t)
	s := startServer(t, ws, "CORE_SHARE_ADDRESS=127.0.0.2")
	mustCore(t, ws, hostGoEnv(t), "run", "util:lint") // go vet: the host's build cache keeps it quick
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady+` && !document.querySelector('#share-button').hidden`)
	b.run(t, chromedp.Click("#share-button"))
	b.waitFor(t, `document.querySelector('#share-panel').dataset.state === 'open'`)
	link := eval[string](t, b, `document.querySelector('#share-panel .share-link').value`)
	if !strings.HasPrefix(link, "http://127.0.0.2:") || !strings.Contains(link, "#token=core_share_") {
		t.Fatalf("the share link %q", link)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#share-panel svg.share-qr rect').length`); n < 50 {
		t.Errorf("the QR code has %d modules", n)
	}
	if c := eval[string](t, b, `document.querySelector('#share-panel .share-countdown').textContent`); !strings.Contains(c, "left") {
		t.Errorf("countdown %q", c)
	}

	// The colleague's side.
	b.open(t, link)
	b.waitFor(t, `document.body.dataset.mode === 'share' && document.querySelector('#share-view').dataset.state === 'ready'`)
	if strings.Contains(eval[string](t, b, `location.href`), "core_share_") {
		t.Error("the share token stayed in the address bar")
	}
	view := eval[string](t, b, `document.querySelector('#share-view').textContent`)
	for _, want := range []string{"shared read-only", "Activity", "Runs", "util:lint", "Insight", "Hotspots", "Ownership"} {
		if !strings.Contains(view, want) {
			t.Errorf("the shared view lacks %q: %s", want, view)
		}
	}
	if eval[int](t, b, `document.querySelectorAll('#share-view .insight-hotspots svg rect.cell').length`) == 0 {
		t.Error("the shared view draws no hotspot")
	}
	if !eval[bool](t, b, `document.querySelector('#stage').hidden && document.querySelector('#search').hidden`) {
		t.Error("the shared view shows the graph's controls")
	}
	b.run(t, chromedp.Click(`#share-view .share-run`))
	b.waitFor(t, `!document.querySelector('#share-view .share-log').hidden && document.querySelector('#share-view .share-log').textContent.includes('$ go vet')`)

	mustCore(t, ws, nil, "share", "stop")
	b.waitFor(t, `document.querySelector('#share-view').dataset.state === 'ended' && document.querySelector('#message').textContent.includes('share has ended')`)
}
