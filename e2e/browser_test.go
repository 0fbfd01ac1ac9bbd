package e2e

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/corehq/core/internal/testbed"
	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// browserTimeout bounds one page's work in headless Chromium (software
// WebGL on a busy machine).
const browserTimeout = 90 * time.Second

// chromiumPath finds Debian's chromium; without it the browser tests skip,
// unless CORE_BROWSER_TESTS=required (the test command sets it after
// installing chromium), when they fail; CORE_BROWSER_TESTS=skip skips them.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if os.Getenv("CORE_BROWSER_TESTS") == "skip" {
		t.Skip("CORE_BROWSER_TESTS=skip")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CORE_BROWSER_TESTS") == "required" {
		t.Fatal("chromium is not installed (apt-get install chromium); scripts/test installs it")
	}
	t.Skip("chromium is not installed: the browser tests need Debian's chromium (scripts/test installs it)")
	return ""
}

// browser is one headless Chromium with a fresh profile, recording every
// request the page makes and every error its console shows (a log entry
// of level error, a console.error, an uncaught exception).
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	req  []*network.Request
	errs []string
	info []string // console.info and console.log
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := testbed.ChromiumOptions(chromiumPath(t), t.TempDir())
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{}
	ctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.req = append(b.req, e.Request)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				b.errs = append(b.errs, fmt.Sprintf("%s: %s (%s)", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			switch e.Type {
			case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
				b.errs = append(b.errs, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			case runtime.ConsoleAPICalledTypeInfo, runtime.ConsoleAPICalledTypeLog:
				b.info = append(b.info, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			b.errs = append(b.errs, "exception: "+msg)
		}
	}))
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("watch the network: %v", err)
	}
	return b
}

// knownCSPError is the one console error the page is known to cause, and
// why it is harmless: the page policy is the spec's string, whose
// connect-src names http://[::1]:*, and Chromium has no syntax for an IPv6
// host in a source (no form of it parses: README, Decisions, "Page
// policy"), so it says it ignores that source. The page calls only its own
// origin, which 'self' covers on [::1] as on 127.0.0.1; the page says so
// itself, in a console.info beside the error.
func knownCSPError(msg string) bool {
	return strings.Contains(msg, "Content Security Policy") && strings.Contains(msg, "'http://[::1]:*'") && strings.Contains(msg, "ignored")
}

// consoleErrors are the errors the page's console showed, but the known
// CSP one.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.errs {
		if !knownCSPError(e) {
			out = append(out, e)
		}
	}
	return out
}

// explainsCSP says whether the console showed the known CSP error and the
// page's own explanation of it.
func (b *browser) explainsCSP() (sawError, sawNote bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errs {
		sawError = sawError || knownCSPError(e)
	}
	for _, m := range b.info {
		sawNote = sawNote || strings.Contains(m, "http://[::1]:*") && strings.Contains(m, "harmless")
	}
	return sawError, sawNote
}

func (b *browser) requests() []*network.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*network.Request(nil), b.req...)
}

// open loads link as a new document (a link that differs from the current
// one only in its fragment would otherwise not reload the page).
func (b *browser) open(t *testing.T, link string) {
	t.Helper()
	b.run(t, chromedp.Navigate("about:blank"), chromedp.Navigate(link))
}

func (b *browser) run(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitFor polls a JS condition until it holds.
func (b *browser) waitFor(t *testing.T, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserTimeout)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(100*time.Millisecond)))
		if err == nil {
			return
		}
		// A navigation that lands after the poll began replaces the page's
		// execution context under it: poll the new one.
		if ctx.Err() == nil && (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed")) {
			continue
		}
		state, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`JSON.stringify(window.__core || null) + " " + (document.querySelector('#message')||{}).textContent`))
		t.Fatalf("page never reached %s: %v (page: %s)", cond, err, state)
	}
}

// lanAddress is a non-loopback IPv4 address of this machine.
func lanAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			return ipn.IP.String()
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address")
	return ""
}

// pairingCode mints a one-time code with the admin credential.
func pairingCode(t *testing.T, s *Server) string {
	t.Helper()
	res, err := tokenClient(s, s.AdminToken).CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return res.GetCode()
}

const liveReady = `window.__core && window.__core.ready && window.__core.state === 'live' && window.__core.nodes > 0`

func TestBrowserPairing(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	code := pairingCode(t, s)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(code))
	b.waitFor(t, liveReady)

	t.Run("the fragment is gone from the address", func(t *testing.T) {
		if h := eval[string](t, b, `location.hash`); h != "" {
			t.Fatalf("location.hash = %q", h)
		}
	})
	t.Run("the console token is in session storage only", func(t *testing.T) {
		if tok := eval[string](t, b, `sessionStorage.getItem('core-live-token') || ''`); !strings.HasPrefix(tok, "core_console_") {
			t.Fatalf("session storage holds %q", tok)
		}
		if n := eval[int](t, b, `localStorage.length`); n != 0 {
			t.Fatalf("local storage holds %d keys", n)
		}
	})
	t.Run("no cookies", func(t *testing.T) {
		if c := eval[string](t, b, `document.cookie`); c != "" {
			t.Fatalf("document.cookie = %q", c)
		}
	})
	t.Run("the badge names the workspace", func(t *testing.T) {
		if badge := eval[string](t, b, `document.querySelector('#badge').textContent`); !strings.HasPrefix(strings.TrimSpace(badge), "live: ") {
			t.Fatalf("badge %q", badge)
		}
	})
	t.Run("every API call carries a bearer token and no URL carries one", func(t *testing.T) {
		tokenish := regexp.MustCompile(`core_[a-z]+_[A-Za-z0-9_-]{20,}`)
		api := 0
		for _, r := range b.requests() {
			if tokenish.MatchString(r.URL) || strings.Contains(r.URL, "token=") && !strings.Contains(r.URL, "/console/graph/") {
				t.Errorf("a token in a URL: %s", r.URL)
			}
			if strings.Contains(r.URL, "/api/") || strings.Contains(r.URL, "/core.") {
				api++
				if auth, _ := r.Headers["Authorization"].(string); !strings.HasPrefix(auth, "Bearer core_") {
					t.Errorf("%s %s without a bearer token", r.Method, r.URL)
				}
			}
		}
		if api == 0 {
			t.Fatal("the page made no API call")
		}
	})
	t.Run("the code was spent", func(t *testing.T) {
		_, err := tokenClient(s, code).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
		if err == nil {
			t.Fatal("the pairing code works twice")
		}
	})

	t.Run("'Remember this workspace' moves the token to local storage", func(t *testing.T) {
		label := eval[string](t, b, `document.querySelector('label[for=remember]') ? document.querySelector('label[for=remember]').textContent : document.querySelector('#remember').closest('label').textContent`)
		if !strings.Contains(label, "Remember this workspace") {
			t.Fatalf("the checkbox is labelled %q", label)
		}
		b.run(t, chromedp.Click("#remember"))
		b.waitFor(t, `localStorage.getItem('core-live-remember') !== null`)
		if tok := eval[string](t, b, `localStorage.getItem('core-live-token') || ''`); !strings.HasPrefix(tok, "core_console_") {
			t.Fatalf("local storage token %q", tok)
		}
		// A new visit without a fragment is live from the remembered token.
		b.open(t, s.URL+"/console/graph/")
		b.waitFor(t, liveReady)
		b.run(t, chromedp.Click("#remember"))
		b.waitFor(t, `localStorage.getItem('core-live-remember') === null && localStorage.getItem('core-live-token') === null`)
	})
}

// TestBrowserPairingWithAConsoleToken: a link that carries a console token
// (from `core config console token create`) instead of a pairing code is
// used as it is; it used to be sent to ExchangePairingCode and refused
// with a 403.
func TestBrowserPairingWithAConsoleToken(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(token))
	b.waitFor(t, liveReady)

	t.Run("the token left the address bar", func(t *testing.T) {
		if h := eval[string](t, b, `location.hash`); h != "" {
			t.Fatalf("location.hash = %q", h)
		}
		if href := eval[string](t, b, `location.href`); strings.Contains(href, token) || strings.Contains(href, "token=") {
			t.Fatalf("location.href = %q", href)
		}
	})
	t.Run("it is kept in session storage, as a traded one is", func(t *testing.T) {
		if got := eval[string](t, b, `sessionStorage.getItem('core-live-token') || ''`); got != token {
			t.Fatalf("session storage holds %q, want the link's token", got)
		}
		if n := eval[int](t, b, `localStorage.length`); n != 0 {
			t.Fatalf("local storage holds %d keys", n)
		}
	})
	t.Run("nothing was traded and every call carries the token", func(t *testing.T) {
		api := 0
		for _, r := range b.requests() {
			if strings.Contains(r.URL, "ExchangePairingCode") {
				t.Errorf("the page tried to trade a console token: %s", r.URL)
			}
			if strings.Contains(r.URL, "/api/") || strings.Contains(r.URL, "/core.") {
				api++
				if auth, _ := r.Headers["Authorization"].(string); auth != "Bearer "+token {
					t.Errorf("%s %s without the link's token", r.Method, r.URL)
				}
			}
		}
		if api == 0 {
			t.Fatal("the page made no API call")
		}
	})
	t.Run("another kind of token is refused, and leaves the address bar too", func(t *testing.T) {
		b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(s.AdminToken))
		b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'error'`)
		if msg := eval[string](t, b, `window.__core.lastError`); !strings.Contains(msg, "core_admin_") || strings.Contains(msg, s.AdminToken) {
			t.Fatalf("lastError %q", msg)
		}
		if h := eval[string](t, b, `location.hash`); h != "" {
			t.Fatalf("location.hash = %q", h)
		}
	})
}

func TestBrowserRefusesForeignOrigins(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	code := pairingCode(t, s)
	b.open(t, "http://localhost:"+s.Port+"/console/graph/#token="+url.QueryEscape(code))
	b.waitFor(t, `window.__core && window.__core.ready`)
	t.Run("opened through localhost the page fetches nothing", func(t *testing.T) {
		for _, r := range b.requests() {
			if strings.Contains(r.URL, "/api/") || strings.Contains(r.URL, "/core.") {
				t.Errorf("fetched %s", r.URL)
			}
		}
	})
	t.Run("and stores nothing", func(t *testing.T) {
		if n := eval[int](t, b, `sessionStorage.length + localStorage.length`); n != 0 {
			t.Fatalf("%d keys stored", n)
		}
		if msg := eval[string](t, b, `document.querySelector('#message').textContent`); !strings.Contains(msg, "127.0.0.1") {
			t.Fatalf("message %q does not point at 127.0.0.1", msg)
		}
	})
	t.Run("so the code is still unspent", func(t *testing.T) {
		if _, err := tokenClient(s, code).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{}); err != nil {
			t.Fatalf("the code was spent: %v", err)
		}
	})
	t.Run("the CSP refuses a #src= on a reachable foreign host", func(t *testing.T) {
		// A real server on a LAN address, willing to answer anyone: only
		// the page's policy stands between it and the page.
		ip := lanAddress(t)
		var hits atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Access-Control-Allow-Origin", "*")
			_, _ = w.Write([]byte(`{"nodes":[{"id":"project:x","kind":"project","name":"x"}],"edges":[]}`))
		}))
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		srv.Listener = ln
		srv.Start()
		defer srv.Close()
		if resp, err := http.Get(srv.URL + "/graph.json"); err != nil || resp.StatusCode != 200 {
			t.Skipf("the LAN server is not reachable: %v", err)
		}
		hits.Store(0)
		b.open(t, s.URL+"/console/graph/#src="+url.QueryEscape(srv.URL+"/graph.json"))
		b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'error'`)
		if msg := eval[string](t, b, `window.__core.lastError`); !strings.Contains(msg, "blocked or unreachable") {
			t.Fatalf("lastError %q", msg)
		}
		if n := eval[int](t, b, `window.__core.nodes`); n != 0 {
			t.Fatalf("%d nodes from a foreign host", n)
		}
		if hits.Load() != 0 {
			t.Fatalf("the foreign server got %d requests: the policy did not stop them", hits.Load())
		}
	})
	t.Run("the CSP refuses a #src= on an unknown host", func(t *testing.T) {
		b.open(t, s.URL+"/console/graph/#src="+url.QueryEscape("http://evil.example/graph.json"))
		b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'error'`)
		if msg := eval[string](t, b, `window.__core.lastError`); !strings.Contains(msg, "blocked or unreachable") {
			t.Fatalf("lastError %q", msg)
		}
		if n := eval[int](t, b, `window.__core.nodes`); n != 0 {
			t.Fatalf("%d nodes from a foreign host", n)
		}
	})
}

func TestBrowserReconnectsAfterARestart(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(pairingCode(t, s)))
	b.waitFor(t, liveReady)
	nodes := eval[int](t, b, `window.__core.nodes`)

	if code := s.Stop(); code != 0 {
		t.Fatalf("server exited %d", code)
	}
	b.waitFor(t, `(document.querySelector('#banner').textContent || '').startsWith('disconnected - showing workspace as of ')`)
	t.Run("the banner says when the data is from", func(t *testing.T) {
		banner := eval[string](t, b, `document.querySelector('#banner').textContent`)
		if !regexp.MustCompile(`^disconnected - showing workspace as of \d\d:\d\d, reconnecting\.\.\.$`).MatchString(strings.TrimSpace(banner)) {
			t.Fatalf("banner %q", banner)
		}
	})
	t.Run("the last data stays visible", func(t *testing.T) {
		if n := eval[int](t, b, `window.__core.nodes`); n != nodes {
			t.Fatalf("%d nodes, had %d", n, nodes)
		}
	})
	// The same port again: the remembered console token still works, since
	// tokens are stored hashed on disk, not in the server's memory.
	s2 := startServer(t, ws, "CORE_MCP_ADDRESS=127.0.0.1:"+s.Port)
	_ = s2
	b.waitFor(t, `window.__core.state === 'live' && (document.querySelector('#banner').hidden || document.querySelector('#banner').textContent === '')`)
}

func TestBrowserSnapshotFromADataLink(t *testing.T) {
	ws := copyDemo(t)
	res := mustCore(t, ws, nil, "open", "--print")
	link := res.lastLine()
	if !strings.HasPrefix(link, "file://") || !strings.Contains(link, "#data=") {
		t.Fatalf("core open without a server printed %q", link)
	}
	b := newBrowser(t)
	b.open(t, link)
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'snapshot'`)
	if badge := eval[string](t, b, `document.querySelector('#badge').textContent`); !strings.HasPrefix(strings.TrimSpace(badge), "snapshot: ") {
		t.Fatalf("badge %q", badge)
	}
	if n := eval[int](t, b, `window.__core.nodes`); n == 0 {
		t.Fatal("the snapshot shows no nodes")
	}
	for _, r := range b.requests() {
		if strings.HasPrefix(r.URL, "http") {
			t.Errorf("a snapshot made a network request: %s", r.URL)
		}
	}
}

// TestBrowserFileCopyRefusesAForeignSrc: the file:// copy that `core open`
// writes has no header to carry the page policy, so it carries it in a
// <meta> tag: a #src= on a foreign host is refused there too, before any
// request leaves the browser.
func TestBrowserFileCopyRefusesAForeignSrc(t *testing.T) {
	ws := copyDemo(t)
	link := mustCore(t, ws, nil, "open", "--print").lastLine()
	page, _, ok := strings.Cut(link, "#data=")
	if !ok || !strings.HasPrefix(page, "file://") {
		t.Fatalf("core open without a server printed %q", link)
	}
	b := newBrowser(t)
	b.open(t, page+"#src="+url.QueryEscape("http://evil.example/graph.json"))
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'error'`)
	if msg := eval[string](t, b, `window.__core.lastError`); !strings.Contains(msg, "blocked or unreachable") {
		t.Errorf("lastError %q", msg)
	}
	if msg := eval[string](t, b, `document.querySelector('#message').textContent`); !strings.Contains(msg, "evil.example") {
		t.Errorf("the page's message %q does not name what it refused", msg)
	}
	for _, r := range b.requests() {
		if strings.Contains(r.URL, "evil.example") {
			t.Errorf("the file:// page sent a request to a foreign host: %s %s", r.Method, r.URL)
		}
	}
}

// TestBrowserShowsIndexProblems: a file that grows past the 2 MiB indexing
// limit while the page is live shows in the status line ("1 path not
// indexed"), which opens to the path and the reason; with no problems the
// line says nothing.
func TestBrowserShowsIndexProblems(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(pairingCode(t, s)))
	b.waitFor(t, liveReady)
	// The page opens its event stream after the first load: the edit must
	// come after it, or the page would not hear of it.
	eventually(t, "the page opens its event stream", func() bool {
		for _, r := range b.requests() {
			if strings.Contains(r.URL, "/api/v1/events") {
				return true
			}
		}
		return false
	})
	time.Sleep(200 * time.Millisecond) // the request is on its way to the server
	if !eval[bool](t, b, `!!document.querySelector('#index-problems') && document.querySelector('#index-problems').hidden`) {
		t.Fatal("the index problems show with none to show (or the page has no #index-problems)")
	}

	writeFileAtomic(t, ws, filepath.Join(ws, "README.md"), []byte("# big\n\n"+strings.Repeat("x", 3<<20)+"\n"))
	b.waitFor(t, `!document.querySelector('#index-problems').hidden && document.querySelector('#index-problems summary').textContent.includes('not indexed')`)
	if summary := eval[string](t, b, `document.querySelector('#index-problems summary').textContent`); strings.TrimSpace(summary) != "1 path not indexed" {
		t.Errorf("summary %q", summary)
	}
	if eval[bool](t, b, `document.querySelector('#index-problems li').checkVisibility()`) {
		t.Error("the list shows before it is opened")
	}
	b.run(t, chromedp.Click("#index-problems summary"))
	b.waitFor(t, `document.querySelector('#index-problems').open && document.querySelector('#index-problems li').checkVisibility()`)
	item := eval[string](t, b, `document.querySelector('#index-problems li').textContent`)
	if !strings.Contains(item, "README.md") || !strings.Contains(item, "indexing limit") {
		t.Errorf("the list shows %q, want README.md and why", item)
	}
	if n := eval[int](t, b, `window.__core.nodes`); n == 0 {
		t.Error("the graph went away")
	}

	writeFileAtomic(t, ws, filepath.Join(ws, "README.md"), []byte("# small again\n"))
	b.waitFor(t, `document.querySelector('#index-problems').hidden`)
}

func TestBrowserPaintsWhatTheDiffTouches(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(pairingCode(t, s)))
	b.waitFor(t, liveReady)
	if !eval[bool](t, b, `document.querySelector('#diff-touch').disabled`) {
		t.Fatal("'What does my diff touch?' is enabled with no affected set")
	}
	_, err := svcStatus(s, s.AdminToken).PublishAffected(rpcCtx(t), &statusv1alpha1.PublishAffectedRequest{Affected: []string{"project:util", "target:util:build"}, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	b.run(t, chromedp.Navigate(s.URL+"/console/graph/"))
	b.waitFor(t, liveReady+` && !document.querySelector('#diff-touch').disabled`)
	b.run(t, chromedp.Click("#diff-touch"))
}

func TestBrowserSaysWhenTheSessionExpired(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#token="+url.QueryEscape(pairingCode(t, s)))
	b.waitFor(t, liveReady)
	list, err := tokenClient(s, s.AdminToken).ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range list.GetTokens() {
		if _, err := tokenClient(s, s.AdminToken).RevokeToken(rpcCtx(t), &tokenv1alpha1.RevokeTokenRequest{Id: tok.GetId()}); err != nil {
			t.Fatal(err)
		}
	}
	b.run(t, chromedp.Navigate(s.URL+"/console/graph/"))
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'error'`)
	if msg := eval[string](t, b, `document.querySelector('#message').textContent`); !strings.Contains(msg, "expired") || !strings.Contains(msg, "core open") {
		t.Fatalf("message %q", msg)
	}
	if n := eval[int](t, b, `sessionStorage.length + localStorage.length`); n != 0 {
		t.Fatalf("the dead token is still stored (%d keys)", n)
	}
}

// bigGraph is a graph whose redraw is too slow to follow the mouse in
// software WebGL: projects owning files, two imports a file.
func bigGraph(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for p := 0; p < 5; p++ {
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"project:p%d","kind":"project","name":"p%d"}`, p, p)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `,{"id":"file:p%d/f%d.go","kind":"file","name":"f%d.go","project":"p%d"}`, i%5, i, i, i%5)
	}
	b.WriteString(`],"edges":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"source":"project:p%d","target":"file:p%d/f%d.go","kind":"owns"}`, i%5, i%5, i)
		for _, j := range []int{(i * 7) % n, (i*13 + 1) % n} {
			if j != i {
				fmt.Fprintf(&b, `,{"source":"file:p%d/f%d.go","target":"file:p%d/f%d.go","kind":"imports"}`, i%5, i, j%5, j)
			}
		}
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func TestBrowserPansABigGraphAsAPicture(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	data := bigGraph(1500)
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	}))
	defer src.Close()
	b := newBrowser(t)
	b.open(t, s.URL+"/console/graph/#src="+url.QueryEscape(src.URL+"/graph.json"))
	// A graph this big opens on its projects; every node is one click away.
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.level === 'projects' && window.__core.nodes === 5`)
	b.run(t, chromedp.Click("#level"))
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.level === 'all' && window.__core.nodes > 1500`)
	b.waitFor(t, `!document.querySelector('#status-line').textContent.includes('layout running')`)

	b.run(t, chromedp.SendKeys("#search", "f42.go\n"))
	b.waitFor(t, `document.querySelectorAll('#results li button').length > 0`)
	b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li button')].find(b => b.textContent.includes('f42.go')).click()`))
	b.waitFor(t, `!document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('file:p2/f42.go')`)

	type camera struct{ X, Y, Ratio float64 }
	cam := func() camera {
		return eval[camera](t, b, `({X: window.__core.camera.x, Y: window.__core.camera.y, Ratio: window.__core.camera.ratio})`)
	}
	// Selecting centres the camera on the node, animated: wait until it rests.
	for prev := cam(); ; {
		time.Sleep(500 * time.Millisecond)
		now := cam()
		if now == prev {
			break
		}
		prev = now
	}
	transform := func() string { return eval[string](t, b, `document.querySelector('.sigma-nodes').style.transform`) }
	rect := eval[[]float64](t, b, `(() => { const r = document.querySelector('.sigma-mouse').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	x, y := rect[0], rect[1]
	mouse := func(typ input.DispatchMouseEventType, x, y float64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, chromedp.ButtonLeft, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 })
	}
	before := cam()
	steps := []chromedp.Action[chromedp.Void]{mouse(input.DispatchMouseEventTypeMousePressed, x, y)}
	for i := 1; i <= 10; i++ {
		steps = append(steps, mouse(input.DispatchMouseEventTypeMouseMoved, x+float64(20*i), y))
	}
	b.run(t, steps...)

	t.Run("while the mouse drags, the drawn layers move and the camera waits", func(t *testing.T) {
		if got := transform(); got != "translate(200px, 0px)" {
			t.Fatalf("nodes layer transform %q, want translate(200px, 0px)", got)
		}
		if mouseLayer := eval[string](t, b, `document.querySelector('.sigma-mouse').style.transform`); mouseLayer != "" {
			t.Fatalf("the mouse layer moved too (%q): events would land in the wrong place", mouseLayer)
		}
		if got := cam(); got != before {
			t.Fatalf("the camera moved during the drag: %+v -> %+v", before, got)
		}
	})
	b.run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x+200, y, chromedp.ButtonLeft))
	t.Run("on release the camera lands where the picture was", func(t *testing.T) {
		if got := transform(); got != "" {
			t.Fatalf("nodes layer transform %q after the drag", got)
		}
		after := cam()
		if after.X >= before.X || math.Abs(after.Y-before.Y) > 1e-9 || after.Ratio != before.Ratio {
			t.Fatalf("a drag to the right should move the camera left only: %+v -> %+v", before, after)
		}
	})
	t.Run("the release is not a click: the selection stays", func(t *testing.T) {
		if !eval[bool](t, b, `!document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('file:p2/f42.go')`) {
			t.Fatal("the drag cleared or changed the selection")
		}
	})

	before = cam()
	// DevTools requires deltaX on a wheel event and cdproto omits a zero:
	// a sideways scroll of a billionth of a pixel.
	b.run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x+200, y, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 1e-9, -120 }))
	t.Run("the wheel scales the picture and the camera waits", func(t *testing.T) {
		if got := transform(); !strings.Contains(got, "scale(") {
			t.Fatalf("nodes layer transform %q after a wheel step, want a scale", got)
		}
		if got := cam(); got != before {
			t.Fatalf("the camera moved at once: %+v -> %+v", before, got)
		}
	})
	t.Run("when the wheel rests the camera zooms in where the picture was", func(t *testing.T) {
		b.waitFor(t, `document.querySelector('.sigma-nodes').style.transform === ''`)
		after := cam()
		if after.Ratio >= before.Ratio {
			t.Fatalf("a wheel step up should zoom in (a smaller ratio): %+v -> %+v", before, after)
		}
		// Zooming in about a point right of the centre keeps that point
		// still, so the camera's centre moves towards it: right, not up or
		// down.
		if dx, dy := after.X-before.X, after.Y-before.Y; dx <= 0 || math.Abs(dy) > dx/100 {
			t.Fatalf("the zoom did not keep the point under the cursor: %+v -> %+v", before, after)
		}
	})

	// In about one point and out about another: the scale comes back to
	// 1 but the picture has moved left, and so must the view.
	before = cam()
	wheel := func(x, dy float64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 1e-9, dy })
	}
	b.run(t, wheel(x+200, -120), wheel(x-200, 120))
	t.Run("a zoom in and out about two points keeps what the picture showed", func(t *testing.T) {
		b.waitFor(t, `document.querySelector('.sigma-nodes').style.transform === ''`)
		after := cam()
		if math.Abs(after.Ratio-before.Ratio) > before.Ratio*1e-9 || after.X <= before.X || math.Abs(after.Y-before.Y) > (after.X-before.X)/100 {
			t.Fatalf("want the same ratio and the view moved right: %+v -> %+v", before, after)
		}
	})

	// A drag whose release never arrives (a context menu, lost focus): the
	// next move without a button ends it where it is.
	before = cam()
	b.run(t, mouse(input.DispatchMouseEventTypeMousePressed, x, y), mouse(input.DispatchMouseEventTypeMouseMoved, x+50, y),
		mouse(input.DispatchMouseEventTypeMouseMoved, x+100, y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x+120, y, func(p *input.DispatchMouseEventParams) { p.Buttons = 0 }))
	t.Run("a move with no button down ends a drag whose release was lost", func(t *testing.T) {
		if got := transform(); got != "" {
			t.Fatalf("nodes layer transform %q: the picture still follows the mouse", got)
		}
		if after := cam(); after.X >= before.X {
			t.Fatalf("the drag did not land: %+v -> %+v", before, after)
		}
	})
	b.run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x+120, y, chromedp.ButtonLeft))

	// A camera move of the page's own during a wheel gesture (a search
	// result centres its node) lands the gesture first: no layer stays
	// scaled over the new view.
	b.run(t, chromedp.Evaluate[chromedp.Void](`document.querySelector('#search').value = ''`), chromedp.SendKeys("#search", "f7.go\n"))
	b.waitFor(t, `[...document.querySelectorAll('#results li button')].some(b => b.textContent.includes('f7.go'))`)
	b.run(t, wheel(x, -120))
	if got := transform(); !strings.Contains(got, "scale(") {
		t.Fatalf("nodes layer transform %q after a wheel step, want a scale", got)
	}
	b.run(t, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#results li button')].find(b => b.textContent.includes('f7.go')).click()`))
	t.Run("centring on a node ends a wheel gesture under way", func(t *testing.T) {
		if got := transform(); got != "" {
			t.Fatalf("nodes layer transform %q after the camera moved", got)
		}
	})
}
