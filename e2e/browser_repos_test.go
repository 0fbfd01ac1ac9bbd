package e2e

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corehq/core/internal/testbed"
)

// The explorer on real sizes: core's own repository (about 900 nodes, a
// few hundred commits) and a generated workspace of 100k nodes. The demo
// is pleasant at 90 nodes; these are where a hairball, colliding labels,
// "index.ts" four times, a flat list of affected ids and charts dwarfed by
// one lockfile used to be.

// cloneCore is a clone of this checkout's repository (its history and its
// committed tree), to run core on.
func cloneCore(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "core")
	out, err := exec.Command("git", "clone", "-q", moduleRoot, dst).CombinedOutput()
	if err != nil {
		t.Skipf("cannot clone this checkout (%v): %s", err, out)
	}
	return dst
}

// label is one label the page drew, with its box.
type label struct {
	ID, Text   string
	X, Y, W, H float64
}

// labelsDoNotOverlap checks the labels of the last frame: some are drawn,
// and no two boxes overlap.
func labelsDoNotOverlap(t *testing.T, b *browser) []label {
	t.Helper()
	// Labels of a frame at rest, drawn after the last change: a camera
	// still moving (a fit after a click) or a layout still running draws
	// labels that are about to change, or none.
	b.waitFor(t, `window.__core.settled && window.__core.labels.length > 0`)
	ls := eval[[]label](t, b, `window.__core.labels`)
	if len(ls) == 0 {
		t.Fatal("no label drawn")
	}
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			a, c := ls[i], ls[j]
			if a.X < c.X+c.W && c.X < a.X+a.W && a.Y < c.Y+c.H && c.Y < a.Y+a.H {
				t.Errorf("%q (%v,%v %vx%v) overlaps %q (%v,%v %vx%v)", a.Text, a.X, a.Y, a.W, a.H, c.Text, c.X, c.Y, c.W, c.H)
			}
		}
	}
	return ls
}

// clickNode clicks a node (or a project level circle) where the page draws it.
func clickNode(t *testing.T, b *browser, id string) {
	t.Helper()
	type point struct{ X, Y float64 }
	p := eval[*point](t, b, `window.__core.where(`+jsString(id)+`)`)
	if p == nil {
		t.Fatalf("%s is not shown", id)
	}
	b.run(t, chromedp.MouseClickXY(p.X, p.Y))
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

// searchFor types a query into the search box and waits for its results.
func searchFor(t *testing.T, b *browser, q string) {
	t.Helper()
	b.run(t, chromedp.Evaluate[chromedp.Void](`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", q+"\n"))
	b.waitFor(t, `document.querySelectorAll('#results li .node-link').length > 0`)
}

// resultsHaveUniquePaths checks that the search results read differently
// (a name, and where it is), and that each file result says its path and
// has a name no other file result has.
func resultsHaveUniquePaths(t *testing.T, b *browser, min int) {
	t.Helper()
	type result struct{ ID, Name, Path string }
	rs := eval[[]result](t, b, `[...document.querySelectorAll('#results li .node-link')].map(b => ({ ID: b.title, Name: b.querySelector('.node-name').textContent, Path: (b.querySelector('.node-path') || {}).textContent || '' }))`)
	files := 0
	read := map[string]string{}
	names := map[string]string{}
	for _, r := range rs {
		if other, ok := read[r.Name+"\x00"+r.Path]; ok {
			t.Errorf("%s and %s both read %q at %q", other, r.ID, r.Name, r.Path)
		}
		read[r.Name+"\x00"+r.Path] = r.ID
		if !strings.HasPrefix(r.ID, "file:") {
			continue
		}
		files++
		if other, ok := names[r.Name]; ok {
			t.Errorf("files %s and %s are both called %q", other, r.ID, r.Name)
		}
		names[r.Name] = r.ID
		if want := strings.TrimPrefix(r.ID, "file:"); r.Path != want || !strings.HasSuffix(want, r.Name) {
			t.Errorf("%s reads %q at %q", r.ID, r.Name, r.Path)
		}
	}
	if files < min {
		t.Fatalf("%d file results, want at least %d: %v", files, min, rs)
	}
}

func TestBrowserOnCoresOwnRepository(t *testing.T) {
	ws := cloneCore(t)
	// A change to review: one line in a package many others import.
	if err := os.MkdirAll(filepath.Join(ws, ".core"), 0o700); err != nil {
		t.Fatal(err)
	}
	gitx := filepath.Join(ws, "internal", "gitx", "gitx.go")
	data, err := os.ReadFile(gitx)
	if err != nil {
		t.Fatal(err)
	}
	writeFileAtomic(t, ws, gitx, append(data, []byte("\n// reviewed in the browser test\n")...))
	// The console under test is this checkout's build, not the clone's.
	s := startServer(t, ws, "CORE_CONSOLE_DIR="+filepath.Join(moduleRoot, "console", "gen"))
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady)

	t.Run("the first view is the project level, a few hundred nodes at most", func(t *testing.T) {
		if lvl := eval[string](t, b, `window.__core.level`); lvl != "projects" {
			t.Fatalf("the first view is %q", lvl)
		}
		if n := eval[int](t, b, `window.__core.nodes`); n > 300 || n < 20 {
			t.Errorf("%d nodes shown", n)
		}
		if !eval[bool](t, b, `[...document.querySelectorAll('#legend .legend-item')].every(b => b.dataset.kind === 'project')`) {
			t.Error("the first view shows more than projects")
		}
		if status := eval[string](t, b, `document.querySelector('#status-text').textContent`); !strings.Contains(status, "projects of") {
			t.Errorf("status bar %q", status)
		}
	})
	t.Run("no two labels of the projects overlap", func(t *testing.T) {
		ls := labelsDoNotOverlap(t, b)
		if len(ls) < 10 {
			t.Errorf("only %d labels drawn", len(ls))
		}
	})
	audit(t, b, "the projects")
	t.Run("the one known console error, about the spec's [::1] source, is explained by the page beside it", func(t *testing.T) {
		sawError, sawNote := b.explainsCSP()
		if sawError && !sawNote {
			t.Error("Chromium logged the [::1] CSP error and the page did not say why it is harmless")
		}
		if !sawNote {
			t.Error("the page did not explain the [::1] source of its policy")
		}
	})

	t.Run("a click opens a project into its folders and files", func(t *testing.T) {
		before := eval[int](t, b, `window.__core.nodes`)
		if !eval[bool](t, b, `!document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('Nothing selected')`) {
			t.Error("with nothing selected, the details column does not say how to fill it")
		}
		width := `document.querySelector('.sigma-nodes').width`
		was := eval[int](t, b, width)
		clickNode(t, b, "project:index")
		b.waitFor(t, `document.querySelector('#status-text').textContent.includes('open: index') && window.__core.nodes > `+fmt.Sprint(before+20))
		if now := eval[int](t, b, width); now != was {
			// New canvases: sigma draws everything again into them.
			t.Errorf("the selection narrowed the graph's canvas from %d to %d px", was, now)
		}
		b.waitFor(t, `window.__core.labels.some(l => l.id.startsWith('folder:index/'))`)
		labelsDoNotOverlap(t, b)
		if !eval[bool](t, b, `!document.querySelector('#details').hidden && document.querySelector('#expand').textContent === 'Fold project'`) {
			t.Error("the opened project's details offer no fold")
		}
	})

	t.Run("two clicks at once on two files are two clicks, not a double click", func(t *testing.T) {
		// Sigma counts any two clicks within its timeout as a double click
		// (a focus), wherever they land.
		type point struct{ X, Y float64 }
		first := eval[*point](t, b, `window.__core.where('file:internal/index/codec.go')`)
		second := eval[*point](t, b, `window.__core.where('file:internal/index/cache.go')`)
		if first == nil || second == nil {
			t.Fatal("the opened project does not show codec.go and cache.go")
		}
		b.run(t, chromedp.MouseClickXY(first.X, first.Y), chromedp.MouseClickXY(second.X, second.Y))
		b.waitFor(t, `document.querySelector('#details').textContent.includes('file:internal/index/cache.go')`)
		if status := eval[string](t, b, `document.querySelector('#status-text').textContent`); strings.HasPrefix(status, "focus:") {
			t.Errorf("the second click focused: %q", status)
		}
	})

	t.Run("a search result shows a unique path", func(t *testing.T) {
		searchFor(t, b, "main.go")
		resultsHaveUniquePaths(t, b, 5)
	})
	t.Run("a result opens its project and shows the node", func(t *testing.T) {
		b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li .node-link')].find(b => b.title === 'file:cmd/core/main.go').click()`))
		b.waitFor(t, `document.querySelector('#status-text').textContent.includes('open: ') && document.querySelector('#status-text').textContent.includes('cli') && !document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('file:cmd/core/main.go')`)
	})
	t.Run("a focus from a result shows its neighbourhood, and Esc goes back", func(t *testing.T) {
		b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li')].find(li => li.querySelector('.node-link').title === 'file:cmd/core/main.go').querySelector('.node-focus').click()`))
		b.waitFor(t, `document.querySelector('#status-text').textContent.startsWith('focus: file:cmd/core/main.go')`)
		// The focus's own frame at rest: its layout done, and no camera
		// move begun by the click before it (the result's centring) still
		// going on.
		labelsDoNotOverlap(t, b)
		if !eval[bool](t, b, `(() => { const p = window.__core.where('file:cmd/core/main.go'), r = document.querySelector('#graph').getBoundingClientRect(); return !!p && p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom; })()`) {
			t.Errorf("the focus's root is not in view (camera %v)", eval[map[string]float64](t, b, `window.__core.camera`))
		}
		b.run(t, chromedp.KeyEvent("\x1b"))
		b.waitFor(t, `document.querySelector('#status-text').textContent.includes('projects of')`)
	})
	b.run(t, chromedp.Evaluate[chromedp.Void](`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", "\n"))

	t.Run("every node, laid out, with no two labels overlapping", func(t *testing.T) {
		b.run(t, chromedp.Click("#level"))
		b.waitFor(t, `window.__core.ready && window.__core.level === 'all' && window.__core.nodes > 500`)
		b.waitFor(t, `!document.querySelector('#status-line').textContent.includes('layout running')`)
		labelsDoNotOverlap(t, b)
		if !eval[bool](t, b, `window.__core.labels.filter(l => l.id.startsWith('file:')).every(l => l.text.includes('.'))`) {
			t.Error("a file's label is not its name")
		}
		b.run(t, chromedp.Click("#level"))
		b.waitFor(t, `window.__core.ready && window.__core.level === 'projects'`)
	})

	b.run(t, chromedp.Click("#view-targets"))
	b.waitFor(t, liveReady)
	audit(t, b, "the target graph")

	t.Run("the Review view gives each affected target its reason", func(t *testing.T) {
		b.run(t, chromedp.Click("#view-review"))
		b.waitFor(t, reviewReady)
		n := eval[int](t, b, `document.querySelectorAll('#review details.review-reason.target').length`)
		if n < 3 {
			t.Fatalf("%d affected targets listed for a change to internal/gitx", n)
		}
		if missing := eval[[]string](t, b, `[...document.querySelectorAll('#review details.review-reason.target')].filter(d => !d.querySelector('.reason').checkVisibility() || d.querySelector('.reason').textContent.trim() === '').map(d => d.dataset.id)`); len(missing) > 0 {
			t.Errorf("targets without a reason: %v", missing)
		}
		if eval[bool](t, b, `!!document.querySelector('#review .review-forge')`) {
			t.Errorf("a local clone names a forge: %q", eval[string](t, b, `document.querySelector('#review .review-forge').textContent`))
		}
		if status := eval[string](t, b, `document.querySelector('#status-text').textContent`); !strings.HasPrefix(status, "review: 1 file changed") {
			t.Errorf("status bar %q", status)
		}
	})
	audit(t, b, "the Review view")

	t.Run("hotspots hold no lockfile, and say what they left out", func(t *testing.T) {
		b.run(t, chromedp.Click("#view-insight"))
		b.waitFor(t, `document.querySelector('#insight').dataset.state === 'ready'`)
		cells := eval[[]string](t, b, `[...document.querySelectorAll('#insight .insight-hotspots rect.cell')].map(r => r.dataset.path)`)
		if len(cells) == 0 {
			t.Fatal("no hotspot drawn")
		}
		for _, p := range cells {
			base := filepath.Base(p)
			if strings.HasSuffix(base, ".lock") || strings.HasSuffix(base, "-lock.json") || strings.HasSuffix(base, "-lock.yaml") || base == "go.sum" || strings.HasSuffix(base, ".md") {
				t.Errorf("hotspot %s", p)
			}
		}
		if left := eval[string](t, b, `(document.querySelector('#insight .insight-left-out') || {}).textContent || ''`); !strings.Contains(left, "lockfiles") || !strings.Contains(left, "--include") {
			t.Errorf("the lens says it left out %q", left)
		}
		if got := eval[int](t, b, `document.querySelectorAll('#insight .insight-bars li[data-project]').length`); got == 0 {
			t.Error("no project bar")
		}
	})
	audit(t, b, "the Insight view")

	b.run(t, chromedp.Click("#view-attention"))
	b.waitFor(t, `document.querySelector('#attention').dataset.state === 'ready'`)
	audit(t, b, "the Attention view")
}

func TestBrowserOnA100kNodeWorkspace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "wide")
	if _, err := testbed.WriteWideWorkspace(ws, 20, 5000); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, ws)
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady)

	t.Run("the first view is its 20 projects", func(t *testing.T) {
		if lvl, n := eval[string](t, b, `window.__core.level`), eval[int](t, b, `window.__core.nodes`); lvl != "projects" || n != 20 {
			t.Fatalf("level %q with %d nodes", lvl, n)
		}
		if status := eval[string](t, b, `document.querySelector('#status-text').textContent`); !strings.Contains(status, "20 projects of 10") {
			t.Errorf("status bar %q", status)
		}
		labelsDoNotOverlap(t, b)
	})
	audit(t, b, "100k nodes, the projects")

	t.Run("a project of 5,000 files opens, its labels apart", func(t *testing.T) {
		clickNode(t, b, "project:p03")
		b.waitFor(t, `window.__core.nodes > 5000 && document.querySelector('#status-text').textContent.includes('open: p03')`)
		labelsDoNotOverlap(t, b)
	})
	t.Run("a file selected in it draws its own edge, which the opening left out", func(t *testing.T) {
		// The server sent none of the 5,000 imports among p03's files
		// (edge_limit); a selection asks for them.
		if status := eval[string](t, b, `document.querySelector('#status-text').textContent`); !strings.Contains(status, "5,000 edges inside p03 not drawn") {
			t.Errorf("status bar %q", status)
		}
		before := eval[int](t, b, `window.__core.edges`)
		clickNode(t, b, "file:projects/p03/d000/f00000.go")
		b.waitFor(t, fmt.Sprintf(`window.__core.edges > %d && [...document.querySelectorAll('#details .node-link')].some(b => b.title === 'package:example.com/wide/projects/p03/d001')`, before))
	})
	t.Run("an edit to the selected file is drawn from a new answer, not the kept one", func(t *testing.T) {
		// The whole answer a selection fetched is kept for the opening's
		// answer; the edit's graph event reopens the project, and the
		// selection asks again.
		f := filepath.Join(ws, "projects", "p03", "d000", "f00000.go")
		body := "package d000\n\nimport _ \"example.com/wide/projects/p03/d002\"\n\n// F00000 is file 0 of project 3.\nfunc F00000() int {\n\treturn 0\n}\n"
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		links := `[...document.querySelectorAll('#details .node-link')].map(b => b.title)`
		b.waitFor(t, fmt.Sprintf(`(l => l.includes('package:example.com/wide/projects/p03/d002') && !l.includes('package:example.com/wide/projects/p03/d001'))(%s)`, links))
	})
	t.Run("a search result shows a unique path among twenty files of one name", func(t *testing.T) {
		searchFor(t, b, "f01234.go")
		resultsHaveUniquePaths(t, b, 20)
	})
	t.Run("the console has no errors", func(t *testing.T) {
		if errs := b.consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	})
}
