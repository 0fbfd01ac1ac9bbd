package server

import (
	"github.com/corehq/core/backend"

	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/handlers"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/share"
)

// shareAddr is a loopback address other than 127.0.0.1, so that a share
// listener can be driven without a network: its Host guard still admits
// only its own address.
const shareAddr = "127.0.0.2"

// askShare asks the server for a share and returns its answer.
func askShare(t *testing.T, s *running, tok, body string) share.Info {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL+"/api/v1/share", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v1/share %s: %d %s", body, resp.StatusCode, data)
	}
	var info share.Info
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

func shareToken(t *testing.T, info share.Info) string {
	t.Helper()
	u, err := url.Parse(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	v, err := url.ParseQuery(u.Fragment)
	if err != nil || !strings.HasPrefix(v.Get("token"), "core_share_") {
		t.Fatalf("the share URL carries no share token in its fragment: %s", info.URL)
	}
	return v.Get("token")
}

// TestShareRouteMatrix drives every row of routes.yaml through a live share
// listener: the shared rows answer the share token on the share's own Host
// only, every other row is 404 there, and the loopback listener refuses the
// share token.
func TestShareRouteMatrix(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Share.Address = shareAddr })
	admin := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	info := askShare(t, s, admin, `{"ttl":"10m"}`)
	tok := shareToken(t, info)
	if !strings.HasPrefix(info.Address, shareAddr+":") || info.Expires.Before(time.Now().Add(9*time.Minute)) {
		t.Fatalf("share %+v", info)
	}
	share := &running{Ready: Ready{BaseURL: "http://" + info.Address}, port: info.Address[strings.LastIndexByte(info.Address, ':')+1:]}
	own := info.Address

	tab := realTable(t)
	shared := map[string]bool{}
	for _, row := range tab.Select(gateway.ExposureShare, Keep(true)) {
		shared[row.Name] = true
		row := row
		t.Run(row.Name, func(t *testing.T) {
			ok := share.do(t, row, probe{method: row.Method, host: own, token: tok})
			if ok.StatusCode == http.StatusUnauthorized || ok.StatusCode == http.StatusForbidden || ok.StatusCode == http.StatusMethodNotAllowed ||
				strings.Contains(ok.Header.Get("X-Test-Body"), "no such route") {
				t.Errorf("the share token on its own Host: %d %s", ok.StatusCode, ok.Header.Get("X-Test-Body"))
			}
			if row.Public() {
				return
			}
			want(t, share.do(t, row, probe{method: row.Method, host: own}), http.StatusUnauthorized)
			for _, other := range []string{admin, s.Tokens.Mint(auth.KindConsole, auth.ConsoleRead, time.Hour), s.Tokens.Mint(auth.KindShare, auth.ConsoleRead, time.Hour)} {
				want(t, share.do(t, row, probe{method: row.Method, host: own, token: other}), http.StatusUnauthorized)
			}
			for _, h := range []string{"127.0.0.1:" + share.port, "localhost:" + share.port, "evil.example", "10.9.9.9:" + share.port} {
				want(t, share.do(t, row, probe{method: row.Method, host: h, token: tok}), http.StatusForbidden)
			}
			for _, o := range []string{"http://127.0.0.1:" + share.port, "http://evil.example", "null"} {
				want(t, share.do(t, row, probe{method: row.Method, host: own, origin: o, token: tok}), http.StatusForbidden)
			}
			if r := share.do(t, row, probe{method: row.Method, host: own, origin: "http://" + own, token: tok}); r.StatusCode == http.StatusForbidden {
				t.Errorf("the share page's own origin is refused")
			}
			other := http.MethodGet
			if row.Method == http.MethodGet {
				other = http.MethodPost
			}
			want(t, share.do(t, row, probe{method: other, host: own, token: tok}), http.StatusMethodNotAllowed)
			// The loopback listener refuses the share token.
			if r := s.do(t, row, probe{method: row.Method, token: tok}); r.StatusCode != http.StatusUnauthorized && r.StatusCode != http.StatusForbidden {
				t.Errorf("the loopback listener served the share token: %d", r.StatusCode)
			}
		})
	}
	for _, row := range tab.Select(gateway.ExposureLoopback, Keep(true)) {
		if shared[row.Name] {
			continue
		}
		want(t, share.do(t, row, probe{method: row.Method, host: own, token: tok}), http.StatusNotFound)
	}
	for _, name := range []string{"events.stream", "insight.read", "status.get", "viewer.get", "activity.list", "metrics.get", "console.page"} {
		if !shared[name] {
			t.Errorf("%s is not on the share listener", name)
		}
	}
}

// TestAShareEndsOnSupersedeStopAndExpiry: the old listener closes (its
// streams end with it) and its token dies.
func TestAShareEndsOnSupersedeStopAndExpiry(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Share.Address = shareAddr })
	admin := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)

	first := askShare(t, s, admin, `{}`)
	if d := time.Until(first.Expires); d < 59*time.Minute || d > time.Hour {
		t.Errorf("the default time box: %s", d)
	}
	stream := openStream(t, first)
	second := askShare(t, s, admin, `{"ttl":"5m"}`)
	if second.Superseded != first.Address {
		t.Errorf("the new share does not say it superseded %s: %+v", first.Address, second)
	}
	waitClosed(t, stream)
	if _, err := freshGet("http://" + first.Address + "/api/v1/events"); !isRefused(err) {
		t.Errorf("the superseded listener still answers: %v", err)
	}
	if st := openShareStatus(t, s, admin); st.Address != second.Address || !st.Active {
		t.Errorf("status %+v", st)
	}
	askShare(t, s, admin, `{"action":"stop"}`)
	if _, err := freshGet("http://" + second.Address + "/api/v1/events"); !isRefused(err) {
		t.Errorf("a stopped share still answers: %v", err)
	}
	if st := openShareStatus(t, s, admin); st.Active {
		t.Errorf("status after stop %+v", st)
	}

	for _, body := range []string{`{"ttl":"1s"}`, `{"ttl":"13h"}`, `{"ttl":"soon"}`, `{"action":"explode"}`, `{"ttl":"1h","extra":1}`} {
		req, _ := http.NewRequest(http.MethodPost, s.BaseURL+"/api/v1/share", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", body, resp.StatusCode, data)
		}
		if strings.Contains(body, "13h") && !strings.Contains(string(data), "12h") {
			t.Errorf("an out-of-bounds ttl does not name the bounds: %s", data)
		}
	}
}

// TestAShareClosesAtTheEndOfItsTimeBox opens a share with a short time box
// directly (the route's lower bound is a minute).
func TestAShareClosesAtTheEndOfItsTimeBox(t *testing.T) {
	tab := realTable(t)
	reg := gateway.NewRegistry()
	hub := events.NewHub(time.Hour)
	t.Cleanup(func() { _ = hub.Shutdown(context.Background()) })
	handlers.Register(reg, &backend.Backend{Hub: hub}, nil)
	tokens, err := auth.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sh := &shares{table: tab, reg: reg, tokens: tokens, address: shareAddr, maxBody: 1 << 20, log: zerolog.Nop()}
	info, err := sh.Open(300 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	stream := openStream(t, info)
	waitClosed(t, stream)
	if _, err := tokens.Authenticate("Bearer " + shareToken(t, info)); err == nil {
		t.Error("the share token outlived its share")
	}
	// The stream ends when the share's token expires, which is when the
	// time box ends: the share's own close may come a moment later.
	for deadline := time.Now().Add(30 * time.Second); sh.Status().Active && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if sh.Status().Active {
		t.Error("the share is still open")
	}
}

func openShareStatus(t *testing.T, s *running, tok string) share.Info {
	return askShare(t, s, tok, `{"action":"status"}`)
}

// openStream opens the share's event stream and returns its reader.
func openStream(t *testing.T, info share.Info) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+info.Address+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+shareToken(t, info))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the share's event stream: %d", resp.StatusCode)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// waitClosed reads the stream until it ends.
func waitClosed(t *testing.T, resp *http.Response) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(resp.Body)
		for {
			if _, err := r.ReadBytes('\n'); err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the share's event stream did not end with the share")
	}
}

func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// freshGet asks on a new connection: the default client may hold an idle
// one to the address from before its listener closed (a stream that
// ended cleanly), and a request on it fails with a reset, not a refusal.
func freshGet(url string) (*http.Response, error) {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return c.Get(url)
}
