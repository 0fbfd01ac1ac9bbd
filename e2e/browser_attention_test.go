package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAnswersAnAgent drives the whole loop in headless Chromium
// against the real server: an agent's request_attention (the SDK's client
// on /mcp) blocks; the console's Attention badge counts it (event:
// attention), the queue view shows it, the person answers in its form,
// and the agent continues with that answer.
func TestBrowserAnswersAnAgent(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws)
	_, mcpTok := createMCPToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady+` && !document.querySelector('#view-attention').disabled`)
	if got := eval[string](t, b, `document.querySelector('#attention-count').textContent`); got != "" {
		t.Errorf("the badge counts %q before any request", got)
	}

	cs := connectMCP(t, s, mcpTok, "")
	answer := make(chan string, 1)
	go func() {
		out, err := tryTool(cs, "request_attention", map[string]any{"need": "Shall I <b>rename</b> Slugify to Slug?", "node": "project:util", "timeout_seconds": 300}, false)
		if err != nil {
			out = err.Error()
		}
		answer <- out
	}()

	// The event stream brings the count without a reload.
	b.waitFor(t, `document.querySelector('#attention-count').textContent === '1'`)
	b.run(t, chromedp.Click("#view-attention"))
	b.waitFor(t, `!!document.querySelector('#attention .attention-request.open')`)
	need := eval[string](t, b, `document.querySelector('#attention .attention-request.open .attention-need').textContent`)
	if need != "Shall I <b>rename</b> Slugify to Slug?" {
		t.Errorf("the request reads %q (an agent's words are text, never HTML)", need)
	}
	if eval[bool](t, b, `!!document.querySelector('#attention b')`) {
		t.Error("the agent's words were parsed as HTML")
	}
	if !eval[bool](t, b, `document.querySelector('#stage').hidden`) {
		t.Error("the graph is still shown beside the queue")
	}

	// One step in the page: the view redraws its list when an event
	// arrives, and a node found in one CDP call may be gone by the next.
	eval[bool](t, b, `(() => {
		const ta = document.querySelector('#attention textarea.attention-reason');
		ta.value = 'No: other services import it by name.';
		ta.dispatchEvent(new Event('input', { bubbles: true }));
		document.querySelector('#attention .attention-dispose').click();
		return true;
	})()`)
	b.waitFor(t, `!!document.querySelector('#attention .attention-request.disposed') || !!document.querySelector('#attention .attention-notice')`)
	if n := eval[string](t, b, `(document.querySelector('#attention .attention-notice') || {}).textContent || ''`); n != "" {
		t.Fatalf("the answer was not sent: %s", n)
	}
	select {
	case out := <-answer:
		if !strings.Contains(out, `"state":"disposed"`) || !strings.Contains(out, "other services import it by name") {
			t.Errorf("the agent got: %s", out)
		}
	case <-b.ctx.Done():
		t.Fatal("the browser ended before the agent got its answer")
	}
	b.waitFor(t, `document.querySelector('#attention-count').textContent === '' && !!document.querySelector('#attention .attention-request.disposed')`)
}
