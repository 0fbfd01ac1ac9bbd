package e2e

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRunOpenShowsTheRun follows `core run --open` into the browser:
// the link a failed run opens (captured from a fake xdg-open) boots the
// console on its Runs view, trades the pairing code, takes the code out of
// the address bar and shows the failed run selected, with its command and
// output; the other runs are a click away.
func TestBrowserRunOpenShowsTheRun(t *testing.T) {
	chromiumPath(t)
	ws := copyDemo(t)
	addProject(t, ws, "opener", "    targets:\n"+
		"      fine:\n        run: [sh, -c, 'echo all-is-well']\n"+
		"      broken:\n        run: [sh, -c, 'echo it-broke-here; exit 3']\n        deps: [fine]\n")
	startServer(t, ws)
	pathEnv, opened := fakeOpener(t)
	if res := runCore(t, ws, []string{pathEnv}, "run", "opener:broken", "--open"); res.Code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.Code, res)
	}
	link := opened(1)[0]
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	id := frag.Get("run")
	if u.Path != "/console/runs/" || id == "" {
		t.Fatalf("core run --open opened %q", link)
	}

	b := newBrowser(t)
	b.open(t, link)
	b.waitFor(t, `document.querySelector('#runs').dataset.state === 'ready' && window.__core.ready`)
	if href := eval[string](t, b, `location.href`); strings.Contains(href, "core_pair_") || !strings.HasSuffix(href, "/console/runs/#run="+id) {
		t.Errorf("the address bar reads %q: want the code gone and #run=%s", href, id)
	}
	if sel := eval[string](t, b, `(document.querySelector('#runs li.run.selected') || {dataset: {}}).dataset.run || ''`); sel != id {
		t.Errorf("the selected run is %q, want %s", sel, id)
	}
	head := eval[string](t, b, `document.querySelector('#runs .runs-head').textContent`)
	if !strings.Contains(head, "opener:broken") || !strings.Contains(head, "failed (exit 3)") {
		t.Errorf("the run's header reads %q", head)
	}
	log := eval[string](t, b, `document.querySelector('#runs .runs-log').textContent`)
	if !regexp.MustCompile(`(?s)^\$ sh -c 'echo it-broke-here; exit 3'\n.*it-broke-here`).MatchString(log) {
		t.Errorf("the log reads %q: want the command, then the output", log)
	}
	if !eval[bool](t, b, `document.querySelector('#stage').hidden && document.querySelector('#search-form').hidden`) {
		t.Error("the Runs view shows the graph's controls")
	}

	b.run(t, chromedp.Click(`#runs li.run.succeeded .runs-run`))
	b.waitFor(t, `document.querySelector('#runs .runs-log').textContent.includes('all-is-well') && document.querySelector('#runs').dataset.state === 'ready'`)

	// A reload keeps the run shown, from the token this tab keeps.
	b.run(t, chromedp.Reload())
	b.waitFor(t, `document.querySelector('#runs').dataset.state === 'ready' && document.querySelector('#runs .runs-log').textContent.includes('all-is-well')`)
}

func TestBrowserRunsViewNamesTheCIShardThatRanARun(t *testing.T) {
	chromiumPath(t)
	ws := copyDemo(t)
	addProject(t, ws, "sharded", "    targets:\n      check:\n        run: [sh, -c, 'echo checked']\n")
	startServer(t, ws)
	pathEnv, opened := fakeOpener(t)
	if res := runCore(t, ws, []string{pathEnv}, "run", "sharded:check", "--shard", "1/1", "--open"); res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res)
	}
	b := newBrowser(t)
	b.open(t, opened(1)[0])
	b.waitFor(t, `document.querySelector('#runs').dataset.state === 'ready' && window.__core.ready`)
	if head := eval[string](t, b, `document.querySelector('#runs .runs-head').textContent`); !strings.Contains(head, "on CI shard 1/1") {
		t.Errorf("the run's header reads %q: want the shard", head)
	}
	if line := eval[string](t, b, `document.querySelector('#runs li.run.selected').textContent`); !strings.Contains(line, "shard 1/1") {
		t.Errorf("the run's line in the list reads %q: want the shard", line)
	}
}
