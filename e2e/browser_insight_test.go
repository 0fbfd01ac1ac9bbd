package e2e

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserDrawsTheInsightLenses opens the Insight view on a demo with a
// history (two authors, projects changed together, a rename) and a target
// that flips between runs with the same inputs, and checks that each of
// the five charts draws what GET /api/v1/insight answers.
func TestBrowserDrawsTheInsightLenses(t *testing.T) {
	ws := insightDemo(t)
	counter := filepath.Join(t.TempDir(), "n")
	addProject(t, ws, "flaky", "    targets:\n      test:\n        run: [sh, -c, 'echo x >> "+counter+"; test $(($(wc -l < "+counter+") % 2)) -eq 0']\n")
	wsGit(t, ws, "add", "-A")
	wsGit(t, ws, "commit", "-q", "-m", "flaky")
	s := startServer(t, ws)
	for i := 0; i < 5; i++ {
		mustCore(t, ws, nil, "server", "job", "clear-cache", "--wait")
		runCore(t, ws, nil, "run", "flaky:test") // fails every other time
	}
	_, token := createToken(t, ws)

	var want struct {
		Hotspots struct {
			Files []struct{ Score int64 }
		}
		Affinity   struct{ Projects []json.RawMessage }
		Ownership  struct{ Projects []json.RawMessage }
		Trend      struct{ Projects []json.RawMessage }
		Volatility struct {
			Targets []struct{ Target string }
		}
	}
	r := get(t, s.URL+"/api/v1/insight", token)
	if err := json.Unmarshal(r.Body, &want); err != nil {
		t.Fatalf("%v: %s", err, r)
	}
	cells := 0
	for _, f := range want.Hotspots.Files {
		if f.Score > 0 {
			cells++
		}
	}
	if cells == 0 || len(want.Affinity.Projects) == 0 || len(want.Ownership.Projects) == 0 || len(want.Trend.Projects) == 0 || len(want.Volatility.Targets) != 1 {
		t.Fatalf("the fixture has too little to draw: %s", r.Body)
	}

	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady+` && !document.querySelector('#view-insight').disabled`)
	b.run(t, chromedp.Click("#view-insight"))
	b.waitFor(t, `document.querySelector('#insight').dataset.state === 'ready'`)
	for _, c := range []struct {
		what, selector string
		want           int
	}{
		{"hotspot cells", `#insight .insight-hotspots svg rect.cell[data-path]`, cells},
		{"affinity ribbons", `#insight .insight-affinity svg path.ribbon[data-a][data-b]`, len(want.Affinity.Projects)},
		{"ownership bars", `#insight .insight-ownership .owner-bar[data-project]`, len(want.Ownership.Projects)},
		{"trend charts", `#insight .insight-trend svg.spark[data-project]`, len(want.Trend.Projects)},
		{"volatile targets", `#insight .insight-volatility li[data-target]`, len(want.Volatility.Targets)},
	} {
		if got := eval[int](t, b, `document.querySelectorAll('`+c.selector+`').length`); got != c.want {
			t.Errorf("%s: %d drawn, the route has %d", c.what, got, c.want)
		}
	}
	if got := eval[string](t, b, `document.querySelector('#insight .insight-volatility li').dataset.target`); got != "flaky:test" {
		t.Errorf("the volatile target drawn is %q", got)
	}
	// Every ribbon and cell has a real shape.
	if !eval[bool](t, b, `[...document.querySelectorAll('#insight path.ribbon')].every(p => p.getAttribute('d').length > 10) && [...document.querySelectorAll('#insight rect.cell')].every(r => +r.getAttribute('width') > 0)`) {
		t.Error("a chart element has no shape")
	}
	t.Run("every chart has a table of its numbers", func(t *testing.T) {
		for _, lens := range []string{"hotspots", "affinity", "ownership", "trend", "volatility"} {
			sel := `#insight .insight-` + lens + ` details.insight-table table.insight-data tbody tr`
			if n := eval[int](t, b, `document.querySelectorAll('`+sel+`').length`); n == 0 {
				t.Errorf("%s has no table rows", lens)
			}
		}
		if got := eval[int](t, b, `document.querySelectorAll('#insight .insight-trend table.insight-data tbody tr').length`); got != len(want.Trend.Projects) {
			t.Errorf("the trend table has %d rows, the route %d projects", got, len(want.Trend.Projects))
		}
	})
	t.Run("the status bar speaks of the history, not the graph", func(t *testing.T) {
		status := eval[string](t, b, `document.querySelector('#status-text').textContent`)
		if !strings.HasPrefix(status, "insight: ") || strings.Contains(status, " nodes") {
			t.Errorf("status bar %q", status)
		}
	})
	// The window selector asks again.
	b.run(t, chromedp.SetValue(`#insight select.insight-window`, "all"))
	eval[bool](t, b, `document.querySelector('#insight select.insight-window').dispatchEvent(new Event('change'))`)
	b.waitFor(t, `document.querySelector('#insight').dataset.state === 'ready' && document.querySelector('#insight select.insight-window').value === 'all'`)
}
