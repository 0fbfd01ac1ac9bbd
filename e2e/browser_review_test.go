package e2e

import (
	"fmt"
	"net/url"
	"path/filepath"
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

	t.Run("each affected target says why, and its chain folds", func(t *testing.T) {
		targets := eval[int](t, b, `document.querySelectorAll('#review details.review-reason.target').length`)
		if targets == 0 {
			t.Fatal("no affected target listed")
		}
		if !eval[bool](t, b, `[...document.querySelectorAll('#review details.review-reason.target')].every(d => d.querySelector('.reason').checkVisibility() && d.querySelector('.reason').textContent.trim() !== '' && d.querySelectorAll('.chain li').length > 0)`) {
			t.Errorf("a target without its reason or chain: %s", eval[string](t, b, `document.querySelector('#review .review-affected').innerText`))
		}
		first := `document.querySelector('#review details.review-reason.target')`
		open := eval[bool](t, b, first+`.open`)
		b.run(t, chromedp.Click(`#review details.review-reason.target summary`))
		b.waitFor(t, first+`.open === `+map[bool]string{true: "false", false: "true"}[open])
		if open {
			b.run(t, chromedp.Click(`#review details.review-reason.target summary`))
		}
		b.waitFor(t, first+`.open && `+first+`.querySelector('.chain li').checkVisibility() && `+first+`.querySelector('.reason').checkVisibility()`)
	})
	t.Run("files are grouped by project", func(t *testing.T) {
		if got := eval[string](t, b, `document.querySelector('#review .review-group').dataset.project`); got != "util" {
			t.Errorf("the first group is %q, want util (the first file's project)", got)
		}
	})
	t.Run("a local repository with no forge says nothing of one", func(t *testing.T) {
		if eval[bool](t, b, `!!document.querySelector('#review .review-forge')`) {
			t.Errorf("a forge line: %q", eval[string](t, b, `document.querySelector('#review .review-forge').textContent`))
		}
	})
	t.Run("the status bar speaks of the change, not the graph", func(t *testing.T) {
		status := eval[string](t, b, `document.querySelector('#status-text').textContent`)
		if !strings.HasPrefix(status, "review: ") || strings.Contains(status, " nodes") {
			t.Errorf("status bar %q", status)
		}
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

// TestBrowserShowsTheForgesCommentsBesideTheirLines: with a recorded
// GitHub configured, the Review view's header names the pull request and
// the forge's review comment sits under the line it was written on; with
// no token the header says so in one line.
func TestBrowserShowsTheForgesCommentsBesideTheirLines(t *testing.T) {
	ws := copyDemo(t)
	wsGitInit(t, ws)
	wsGit(t, ws, "checkout", "-q", "-b", "ricardo-add-pr-create-comment-reply")
	wsGit(t, ws, "remote", "add", "origin", "https://github.com/rsn491/PyGithub.git")
	// The recorded review comment is on line 7 of test/IssueEvent.py: the
	// change adds that file, so the line is in the diff.
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("line %d = %d", i, i))
	}
	writeFileAtomicAt(t, filepath.Join(ws, "test", "IssueEvent.py"), strings.Join(lines, "\n")+"\n")
	forge := recordedForge(t)
	s := startServer(t, ws, "CORE_FORGE_API_URL="+forge.URL+"/", "CORE_FORGE_TOKEN=ghp_e2eTOKENe2eTOKENe2eTOKENe2eTOKEN0000")
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady+` && !document.querySelector('#view-review').disabled`)
	b.run(t, chromedp.Click("#view-review"))
	b.waitFor(t, reviewReady)
	head := eval[string](t, b, `(document.querySelector('#review .review-forge') || {}).textContent || ''`)
	if !strings.HasPrefix(head, "#") || !strings.Contains(head, "open") {
		t.Errorf("the forge header reads %q", head)
	}
	b.run(t, chromedp.Click(`#review .review-file[data-path="test/IssueEvent.py"] .review-path`))
	b.waitFor(t, `!!document.querySelector('#review tr[data-line="7"]')`)
	next := `document.querySelector('#review tr[data-line="7"]').nextElementSibling`
	if !eval[bool](t, b, next+`.classList.contains('forge-comment')`) {
		t.Fatalf("no forge comment under line 7: %s", eval[string](t, b, `document.querySelector('#review .review-main').innerText`))
	}
	if got := eval[string](t, b, next+`.textContent`); !strings.Contains(got, "Test Case Dissmiss Review") || !strings.Contains(got, "on the forge") {
		t.Errorf("the forge comment reads %q", got)
	}
	if eval[int](t, b, `document.querySelectorAll('#review tr.forge-comment').length`) != 1 {
		t.Error("a forge comment on a file outside the change was drawn")
	}

	t.Run("without a token the header says so in one line", func(t *testing.T) {
		ws2 := copyDemo(t)
		wsGitInit(t, ws2)
		wsGit(t, ws2, "remote", "add", "origin", "https://github.com/rsn491/PyGithub.git")
		writeFileAtomicAt(t, filepath.Join(ws2, "new.txt"), "x\n")
		s2 := startServer(t, ws2, "CORE_FORGE_API_URL="+forge.URL+"/")
		_, token2 := createToken(t, ws2)
		b.open(t, s2.URL+"/console/graph/#token="+url.QueryEscape(token2))
		b.waitFor(t, liveReady+` && !document.querySelector('#view-review').disabled`)
		b.run(t, chromedp.Click("#view-review"))
		b.waitFor(t, reviewReady)
		if !eval[bool](t, b, `!!document.querySelector('#review .review-forge.state-no_token') && !document.querySelector('#review .review-error')`) {
			t.Errorf("the no-token note: %q", eval[string](t, b, `document.querySelector('#review .review-head').textContent`))
		}
	})
}
