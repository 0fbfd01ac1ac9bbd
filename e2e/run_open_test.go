package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestRunOpen: `core run --open` opens the run a person wants to read (the
// failed target's, else the last). With log_viewer_url unset, the
// console's run viewer on the running server, with a pairing code the page
// can trade; set, that address with run=<id> added to its query and no
// credential. Without a server it says where the log is. It never changes
// the run's exit status.
func TestRunOpen(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	addProject(t, ws, "opener", "    targets:\n"+
		"      fine:\n        run: [sh, -c, 'echo all-is-well']\n"+
		"      broken:\n        run: [sh, -c, 'echo it-broke-here; exit 3']\n        deps: [fine]\n")
	pathEnv, opened := fakeOpener(t)
	lastRun := func(t *testing.T, target string) string {
		t.Helper()
		list := mustCore(t, ws, nil, "runs", "--target", target, "--limit", "1")
		m := regexp.MustCompile(`(?m)^(r\S+)\s+` + regexp.QuoteMeta(target)).FindStringSubmatch(list.Stdout)
		if m == nil {
			t.Fatalf("core runs --target %s:\n%s", target, list.Stdout)
		}
		return m[1]
	}

	t.Run("without a server it says where the log is and opens nothing", func(t *testing.T) {
		res := runCore(t, ws, []string{pathEnv}, "run", "opener:broken", "--open")
		if res.Code != 1 {
			t.Errorf("a failed run with --open: exit %d, want 1 (the run's own)\n%s", res.Code, res)
		}
		id := lastRun(t, "opener:broken")
		for _, want := range []string{"no core server is running", "core server start", "core runs show " + id} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.Stderr)
			}
		}
		if res := runCore(t, ws, []string{pathEnv}, "run", "opener:fine", "--open"); res.Code != 0 {
			t.Errorf("a good run with --open and no server: exit %d, want 0\n%s", res.Code, res)
		}
		if links := opened(0); len(links) != 0 {
			t.Errorf("opened %q without a server", links)
		}
	})

	s := startServer(t, ws)
	base, _ := url.Parse(s.BaseURL)

	t.Run("with the variable unset it opens the console's run viewer on the failed run, paired", func(t *testing.T) {
		before := len(opened(0))
		res := runCore(t, ws, []string{pathEnv}, "run", "opener:broken", "--open", "--force")
		if res.Code != 1 {
			t.Fatalf("a failed run with --open: exit %d, want 1\n%s", res.Code, res)
		}
		id := lastRun(t, "opener:broken")
		link := opened(before + 1)[before]
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		if u.Scheme != "http" || u.Host != base.Host || u.Path != "/console/runs/" || u.RawQuery != "" {
			t.Fatalf("opened %q, want %s/console/runs/ with nothing in the query", link, s.BaseURL)
		}
		frag, err := url.ParseQuery(u.Fragment)
		if err != nil || frag.Get("run") != id || !strings.HasPrefix(frag.Get("token"), "core_pair_") {
			t.Fatalf("the fragment of %q: want token=core_pair_… and run=%s", link, id)
		}
		if !strings.Contains(res.Stderr, link) {
			t.Errorf("stderr does not print the link it opened:\n%s", res.Stderr)
		}

		// The page is there, and its code trades for a token that reads the run.
		if r := get(t, s.URL+u.Path, ""); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "<!doctype html>") {
			t.Errorf("GET %s: %s", u.Path, r)
		}
		pair := do(t, newRequest(t, http.MethodPost, s.URL+"/core.token.v1alpha1.TokenService/ExchangePairingCode", frag.Get("token"),
			strings.NewReader("{}"), "Content-Type", "application/json"))
		var traded struct{ Token string }
		if pair.Status != http.StatusOK || json.Unmarshal(pair.Body, &traded) != nil || !strings.HasPrefix(traded.Token, "core_console_") {
			t.Fatalf("trading the code: %s", pair)
		}
		run := do(t, newRequest(t, http.MethodPost, s.URL+"/core.viewer.v1alpha1.ViewerService/GetRun", traded.Token,
			strings.NewReader(`{"id":"`+id+`"}`), "Content-Type", "application/json"))
		if run.Status != http.StatusOK || !strings.Contains(string(run.Body), "it-broke-here") {
			t.Errorf("GetRun %s with the traded token: %s", id, run)
		}
	})

	t.Run("a good run opens its last run", func(t *testing.T) {
		before := len(opened(0))
		if res := runCore(t, ws, []string{pathEnv}, "run", "opener:fine", "--open", "--force"); res.Code != 0 {
			t.Fatalf("exit %d\n%s", res.Code, res)
		}
		link := opened(before + 1)[before]
		if !strings.Contains(link, "&run="+lastRun(t, "opener:fine")) {
			t.Errorf("opened %q, want the last run of opener:fine", link)
		}
	})

	t.Run("with the variable set it opens that viewer with run= in its query and no credential", func(t *testing.T) {
		for _, viewer := range []string{"https://logs.example.com/view", "https://logs.example.com/view?org=acme&tab=log", "https://logs.example.com/view?org=acme#top"} {
			before := len(opened(0))
			res := runCore(t, ws, []string{pathEnv, "CORE_LOG_VIEWER_URL=" + viewer}, "run", "opener:broken", "--open", "--force")
			if res.Code != 1 {
				t.Fatalf("exit %d, want 1\n%s", res.Code, res)
			}
			id := lastRun(t, "opener:broken")
			link := opened(before + 1)[before]
			u, err := url.Parse(link)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := url.Parse(viewer)
			q, wantQ := u.Query(), want.Query()
			if u.Host != "logs.example.com" || u.Path != "/view" || q.Get("run") != id || q.Get("org") != wantQ.Get("org") || q.Get("tab") != wantQ.Get("tab") || u.Fragment != want.Fragment {
				t.Errorf("CORE_LOG_VIEWER_URL=%s: opened %q, want the viewer's own query and fragment with run=%s", viewer, link, id)
			}
			if strings.Contains(link, "core_") || strings.Contains(link, "token") {
				t.Errorf("a credential went to the log viewer: %q", link)
			}
		}
	})
}
