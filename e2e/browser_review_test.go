package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// reviewReady holds once the Review view has drawn the change.
const reviewReady = `document.querySelector('#review') && document.querySelector('#review').dataset.state === 'ready'`

// TestBrowserReviewsTheChange drives the Review view in headless Chromium
// against the real server: the files in reading order with their badges,
// a comment on a line and a viewed mark that survive a reload, the blast
// radius's chain on demand, and a changed symbol opened in the graph.
func TestBrowserReviewsTheChange(t *testing.T) {
	ws := changedDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady+` && !document.querySelector('#view-review').disabled`)
	b.run(t, chromedp.Click("#view-review"))
	b.waitFor(t, reviewReady)

	t.Run("files in reading order, with role and reach badges", func(t *testing.T) {
		first := eval[string](t, b, `document.querySelector('#review .review-file').dataset.path`)
		if first != "libs/util/slug.go" {
			t.Errorf("first file = %q, want libs/util/slug.go", first)
		}
		badges := eval[string](t, b, `document.querySelector('#review .review-file').textContent`)
		for _, want := range []string{"source", "modified", "reach"} {
			if !strings.Contains(badges, want) {
				t.Errorf("the first file's badges %q lack %q", badges, want)
			}
		}
		if eval[bool](t, b, `!!document.querySelector('#stage') && !document.querySelector('#stage').hidden`) {
			t.Error("the graph is still shown beside the review")
		}
	})

	t.Run("the blast radius's chain on demand", func(t *testing.T) {
		b.run(t, chromedp.Click(`#review .review-reached`))
		b.waitFor(t, `[...document.querySelectorAll('#review .chain')].some(p => !p.hidden && p.textContent.includes('←'))`)
	})

	t.Run("a comment on a line and a viewed mark are saved", func(t *testing.T) {
		b.run(t, chromedp.Click(`#review tr.add td.no.new`))
		b.waitFor(t, `!!document.querySelector('#review textarea.comment-input')`)
		b.run(t,
			chromedp.SendKeys(`#review textarea.comment-input`, "is the comment in the call on purpose?"),
			chromedp.Click(`#review .comment-save`),
		)
		b.waitFor(t, `[...document.querySelectorAll('#review tr.comment')].some(r => r.textContent.includes('on purpose?'))`)
		b.run(t, chromedp.Click(`#review input.review-viewed`))
		b.waitFor(t, `!!document.querySelector('#review .review-file.viewed')`)
	})

	t.Run("both are there again after a reload", func(t *testing.T) {
		b.run(t, chromedp.Reload())
		b.waitFor(t, liveReady+` && !document.querySelector('#view-review').disabled`)
		b.run(t, chromedp.Click("#view-review"))
		b.waitFor(t, reviewReady)
		b.waitFor(t, `[...document.querySelectorAll('#review tr.comment')].some(r => r.textContent.includes('on purpose?') && r.textContent.includes('console'))`)
		b.waitFor(t, `!!document.querySelector('#review .review-file.viewed')`)
		if !strings.Contains(eval[string](t, b, `document.querySelector('#review .review-session').textContent`), "1 comments (1 open)") {
			t.Errorf("session summary = %q", eval[string](t, b, `document.querySelector('#review .review-session').textContent`))
		}
	})

	t.Run("a changed symbol opens in the graph", func(t *testing.T) {
		b.run(t, chromedp.Click(`#review .review-symbol`))
		b.waitFor(t, `document.querySelector('#review').hidden && !document.querySelector('#stage').hidden && document.querySelector('#search').value === 'symbol:Slugify'`)
	})
}
