package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"

	core "github.com/corehq/core"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/testbed"
)

const hostedOrigin = "https://console.example.com"

// running is a server started in-process on a copy of the demo workspace.
type running struct {
	Ready
	port string
}

func startServer(t *testing.T, mutate func(*config.Config)) *running {
	t.Helper()
	root := copyDemo(t)
	cfg := config.Defaults()
	cfg.Server.Address = "127.0.0.1:0"
	cfg.Console.HostedOrigin = hostedOrigin
	cfg.Server.ShutdownTimeout = 2 * time.Second
	if mutate != nil {
		mutate(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan Ready, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Root: root, Config: &cfg, Log: zerolog.Nop(), Ready: func(r Ready) { ready <- r }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case r := <-ready:
		return &running{Ready: r, port: r.Address[strings.LastIndexByte(r.Address, ':')+1:]}
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start within 30s")
	}
	return nil
}

func copyDemo(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := testbed.CopyWorkspace(filepath.Join("..", "testdata", "demo"), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// realTable is routes.yaml as the server loads it.
func realTable(t *testing.T) *gateway.Table {
	t.Helper()
	tab, err := RouteTable()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

var allGrants = auth.ConsoleRead | auth.ConsoleWrite | auth.Admin | auth.Pair | auth.MCP

type probe struct {
	method  string
	host    string
	origin  string
	token   string
	headers map[string]string
	query   string
}

func (s *running) do(t *testing.T, row gateway.Row, p probe) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	var body io.Reader
	if row.Procedure != "" && p.method == http.MethodPost {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, p.method, s.BaseURL+row.Path+p.query, body)
	if err != nil {
		t.Fatal(err)
	}
	if row.Procedure != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.host != "" {
		req.Host = p.host
	}
	if p.origin != "" {
		req.Header.Set("Origin", p.origin)
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	for k, v := range p.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", p.method, row.Path, err)
	}
	// Streams never end on their own: read only the status and headers.
	if row.Stream == "" || resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Header.Set("X-Test-Body", string(body))
	}
	_ = resp.Body.Close()
	return resp
}

// TestRouteMatrix drives every row of routes.yaml, through the listener it
// is exposed on, with the credential, Host, Origin, method and preflight
// cases the gateway must refuse or answer.
func TestRouteMatrix(t *testing.T) {
	s := startServer(t, nil)
	tab := realTable(t)
	for _, row := range tab.Select(gateway.ExposureLoopback, Keep(true)) {
		row := row
		grant := row.Grant
		kind := auth.KindAdmin
		if grant == auth.Pair {
			kind = auth.KindPair // the exchange spends a real pairing code
		}
		// A fresh token per probe: the exchange spends its pairing code.
		fresh := func() string { return s.Tokens.Mint(kind, grant, time.Hour) }
		method := row.Method
		okOrigin := "http://127.0.0.1:" + s.port
		served := map[string]bool{} // the methods the rows of this path serve
		for _, r := range tab.Rows {
			if r.Path == row.Path {
				served[r.Method] = true
			}
		}
		t.Run(row.Name, func(t *testing.T) {
			if row.AnyOrigin {
				anyOriginMatrix(t, s, row, fresh)
			}
			if !row.Public() {
				t.Run("no token is 401 with a Bearer challenge", func(t *testing.T) {
					resp := s.do(t, row, probe{method: method})
					want(t, resp, http.StatusUnauthorized)
					if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
					}
				})
				t.Run("a garbage token is 401", func(t *testing.T) {
					want(t, s.do(t, row, probe{method: method, token: "core_console_" + strings.Repeat("A", 43)}), http.StatusUnauthorized)
					want(t, s.do(t, row, probe{method: method, token: "not-a-token"}), http.StatusUnauthorized)
				})
				t.Run("an expired token is 401", func(t *testing.T) {
					expired := s.Tokens.Mint(auth.KindAdmin, grant, time.Nanosecond)
					time.Sleep(time.Millisecond)
					want(t, s.do(t, row, probe{method: method, token: expired}), http.StatusUnauthorized)
				})
				t.Run("a token in the query string is not a token", func(t *testing.T) {
					want(t, s.do(t, row, probe{method: method, query: "?access_token=" + fresh() + "&token=" + fresh()}), http.StatusUnauthorized)
				})
				t.Run("a token without the grant is 403", func(t *testing.T) {
					without := s.Tokens.Mint(auth.KindAdmin, allGrants&^grant, time.Hour)
					want(t, s.do(t, row, probe{method: method, token: without}), http.StatusForbidden)
				})
			}
			t.Run("the token with the grant is served", func(t *testing.T) {
				resp := s.do(t, row, probe{method: method, token: fresh()})
				// The handler may refuse the empty request (a spell named "" is
				// not found), but the gateway must have let it through.
				switch body := resp.Header.Get("X-Test-Body"); {
				case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden, resp.StatusCode == http.StatusMethodNotAllowed:
					t.Errorf("status %d: %s", resp.StatusCode, body)
				case resp.StatusCode == http.StatusNotFound && strings.Contains(body, "no such route"):
					t.Errorf("the route is not mounted: %s", body)
				}
			})
			t.Run("other methods are 405 with Allow", func(t *testing.T) {
				others := []string{http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions}
				if method == http.MethodGet {
					others = append(others, http.MethodPost)
				} else {
					others = append(others, http.MethodGet)
				}
				for _, m := range others {
					if served[m] {
						continue // another row of the path serves it
					}
					resp := s.do(t, row, probe{method: m, token: fresh()})
					want(t, resp, http.StatusMethodNotAllowed)
					if allow := resp.Header.Get("Allow"); !strings.Contains(allow, method) {
						t.Errorf("%s: Allow = %q, want it to list %s", m, allow, method)
					}
				}
			})
			if row.AnyOrigin {
				return // the guards below are the ones an any_origin row drops
			}
			t.Run("a foreign Host is 403 before the token is looked at", func(t *testing.T) {
				for _, h := range []string{"evil.example", "127.0.0.1.evil.example", "localhost.evil.example:" + s.port, "192.168.1.10:" + s.port, "0.0.0.0:" + s.port} {
					want(t, s.do(t, row, probe{method: method, host: h}), http.StatusForbidden)
					want(t, s.do(t, row, probe{method: method, host: h, token: fresh()}), http.StatusForbidden)
				}
			})
			t.Run("a foreign Origin is 403", func(t *testing.T) {
				for _, o := range []string{"http://evil.example", "null", "http://127.0.0.1.evil.example:" + s.port, hostedOrigin + ".evil.example", "http://console.example.com"} {
					want(t, s.do(t, row, probe{method: method, origin: o, token: fresh()}), http.StatusForbidden)
				}
			})
			t.Run("the hosted console is admitted only on hosted rows", func(t *testing.T) {
				hosted := row.Hosted && s.ConsoleMount // a build without MCP has no console, hosted or not
				resp := s.do(t, row, probe{method: method, origin: hostedOrigin, token: fresh()})
				if hosted {
					if resp.StatusCode == http.StatusForbidden {
						t.Errorf("hosted origin refused on a hosted row")
					}
					if got := resp.Header.Get("Access-Control-Allow-Origin"); got != hostedOrigin {
						t.Errorf("Access-Control-Allow-Origin = %q", got)
					}
				} else {
					want(t, resp, http.StatusForbidden)
				}
				hostResp := s.do(t, row, probe{method: method, host: "console.example.com", token: fresh()})
				if hosted == (hostResp.StatusCode == http.StatusForbidden) {
					t.Errorf("Host console.example.com on hosted=%v row: status %d", hosted, hostResp.StatusCode)
				}
			})
			t.Run("a preflight answers Private Network Access only when asked", func(t *testing.T) {
				pre := map[string]string{"Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization"}
				resp := s.do(t, row, probe{method: http.MethodOptions, origin: okOrigin, headers: pre})
				want(t, resp, http.StatusNoContent)
				if resp.Header.Get("Access-Control-Allow-Origin") != okOrigin {
					t.Errorf("Access-Control-Allow-Origin = %q", resp.Header.Get("Access-Control-Allow-Origin"))
				}
				if resp.Header.Get("Access-Control-Allow-Private-Network") != "" {
					t.Errorf("Private Network Access allowed without being asked")
				}
				pre["Access-Control-Request-Private-Network"] = "true"
				resp = s.do(t, row, probe{method: http.MethodOptions, origin: okOrigin, headers: pre})
				want(t, resp, http.StatusNoContent)
				if resp.Header.Get("Access-Control-Allow-Private-Network") != "true" {
					t.Errorf("Access-Control-Allow-Private-Network = %q", resp.Header.Get("Access-Control-Allow-Private-Network"))
				}
				resp = s.do(t, row, probe{method: http.MethodOptions, origin: "http://evil.example", headers: pre})
				want(t, resp, http.StatusForbidden)
				if resp.Header.Get("Access-Control-Allow-Origin") != "" {
					t.Errorf("CORS headers for a foreign origin")
				}
			})
			t.Run("the CORS origins are exactly the spec's", func(t *testing.T) {
				for _, o := range []string{"http://127.0.0.1:" + s.port, "http://localhost:" + s.port} {
					resp := s.do(t, row, probe{method: method, origin: o, token: fresh()})
					if got := resp.Header.Get("Access-Control-Allow-Origin"); got != o {
						t.Errorf("origin %s: Access-Control-Allow-Origin = %q", o, got)
					}
				}
				resp := s.do(t, row, probe{method: method, origin: "http://[::1]:" + s.port, token: fresh()})
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
					t.Errorf("[::1] is same-origin only, yet got Access-Control-Allow-Origin %q", got)
				}
			})
		})
	}
}

// anyOriginMatrix drives an any_origin row (/mcp): every Host and Origin is
// served with the token, none without it, and any origin's preflight is
// answered, because the spec says /mcp "answers any origin and relies on
// its bearer token alone".
func anyOriginMatrix(t *testing.T, s *running, row gateway.Row, fresh func() string) {
	hosts := []string{"evil.example", "127.0.0.1.evil.example", "192.168.1.10:" + s.port, "0.0.0.0:" + s.port}
	origins := []string{"http://evil.example", "null", hostedOrigin, "http://[::1]:" + s.port}
	t.Run("a foreign Host or Origin is served with the token and refused without it", func(t *testing.T) {
		for _, h := range hosts {
			want(t, s.do(t, row, probe{method: row.Method, host: h}), http.StatusUnauthorized)
			if resp := s.do(t, row, probe{method: row.Method, host: h, token: fresh()}); resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
				t.Errorf("Host %s with the token: status %d", h, resp.StatusCode)
			}
		}
		for _, o := range origins {
			want(t, s.do(t, row, probe{method: row.Method, origin: o}), http.StatusUnauthorized)
			resp := s.do(t, row, probe{method: row.Method, origin: o, token: fresh()})
			if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
				t.Errorf("Origin %s with the token: status %d", o, resp.StatusCode)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != o {
				t.Errorf("Origin %s: Access-Control-Allow-Origin = %q", o, got)
			}
		}
	})
	t.Run("any origin's preflight is answered", func(t *testing.T) {
		pre := map[string]string{"Access-Control-Request-Method": row.Method, "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version"}
		resp := s.do(t, row, probe{method: http.MethodOptions, origin: "http://evil.example", host: "evil.example", headers: pre})
		want(t, resp, http.StatusNoContent)
		if resp.Header.Get("Access-Control-Allow-Origin") != "http://evil.example" {
			t.Errorf("Access-Control-Allow-Origin = %q", resp.Header.Get("Access-Control-Allow-Origin"))
		}
	})
}

func TestRemovedAndUnknownPathsAre404(t *testing.T) {
	s := startServer(t, nil)
	tok := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	for _, p := range []string{"/api/v1/status", "/api/v1/runs", "/api/v1/graph/", "/api/v1//graph", "/api/v2/graph", "/", "/core.job.v1.JobService/SyncGraph"} {
		resp := s.do(t, gateway.Row{Path: p}, probe{method: http.MethodGet, token: tok})
		want(t, resp, http.StatusNotFound)
	}
}

func TestConsoleDisabledAdmitsNoHostedConsole(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Console.Enabled = false })
	tok := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	for _, row := range realTable(t).Rows {
		if !row.Hosted || row.IsConsole() {
			continue
		}
		want(t, s.do(t, row, probe{method: row.Method, token: tok, origin: hostedOrigin}), http.StatusForbidden)
		want(t, s.do(t, row, probe{method: row.Method, token: tok, host: "console.example.com"}), http.StatusForbidden)
	}
}

func TestConsoleDisabledRegistersNoConsoleRoute(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Console.Enabled = false })
	tok := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	for _, row := range realTable(t).Select(gateway.ExposureLoopback, Keep(true)) {
		resp := s.do(t, row, probe{method: row.Method, token: tok})
		if row.IsConsole() {
			want(t, resp, http.StatusNotFound)
		} else if strings.Contains(resp.Header.Get("X-Test-Body"), "no such route") {
			t.Errorf("%s: a non-console route disappeared", row.Name)
		}
	}
}

func want(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s %s (Host %s): status %d, want %d", resp.Request.Method, resp.Request.URL.Path, resp.Request.Host, resp.StatusCode, status)
	}
}

// TestANonLoopbackBindServesLoopbackPeersOnly: on 0.0.0.0 a LAN peer that
// claims `Host: 127.0.0.1` is still refused, token or not.
func TestANonLoopbackBindServesLoopbackPeersOnly(t *testing.T) {
	var lan string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			lan = ipn.IP.String()
		}
	}
	if lan == "" {
		t.Skip("no non-loopback address")
	}
	s := startServer(t, func(c *config.Config) { c.Server.Address = "0.0.0.0:0" })
	tok := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	for _, row := range realTable(t).Select(gateway.ExposureLoopback, Keep(true)) {
		if row.IsConsole() {
			continue
		}
		req, _ := http.NewRequest(http.MethodPost, "http://"+net.JoinHostPort(lan, s.port)+row.Path, strings.NewReader("{}"))
		req.Host = "127.0.0.1:" + s.port
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s from a LAN peer: %d, want 403", row.Name, resp.StatusCode)
		}
	}
	// The same call from loopback works.
	resp := s.do(t, gateway.Row{Path: "/core.token.v1alpha1.TokenService/ListTokens", Procedure: "core.token.v1alpha1.TokenService/ListTokens"}, probe{method: http.MethodPost, token: tok})
	want(t, resp, http.StatusOK)
}

// TestSnapshotRouteMatrix drives every row of snapshot.routes.yaml, the
// table of `core open --serve`, through its listener: served with no token,
// other methods 405, a foreign Host or Origin 403.
func TestSnapshotRouteMatrix(t *testing.T) {
	graph := []byte(`{"nodes":[],"edges":[]}`)
	srv, err := NewSnapshotServer(graph, fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("snapshot server: %v", err)
		}
	})
	s := &running{Ready: Ready{BaseURL: srv.URL}, port: srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]}
	table, err := gateway.Load(core.SnapshotRoutesFile, core.SnapshotRoutes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range table.Rows {
		t.Run(row.Name, func(t *testing.T) {
			if !row.Public() || row.Exposed(gateway.ExposureShare) {
				t.Fatalf("the snapshot server serves only public loopback rows; %s is not one", row.Name)
			}
			t.Run("it is served without a token", func(t *testing.T) {
				want(t, s.do(t, row, probe{method: row.Method}), http.StatusOK)
			})
			t.Run("other methods are 405 with Allow", func(t *testing.T) {
				for _, m := range []string{http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete} {
					resp := s.do(t, row, probe{method: m})
					want(t, resp, http.StatusMethodNotAllowed)
					if allow := resp.Header.Get("Allow"); allow != row.Method {
						t.Errorf("%s: Allow = %q", m, allow)
					}
				}
			})
			t.Run("a foreign Host is 403", func(t *testing.T) {
				for _, h := range []string{"evil.example", "127.0.0.1.evil.example", "192.168.1.10:" + s.port} {
					want(t, s.do(t, row, probe{method: row.Method, host: h}), http.StatusForbidden)
				}
			})
			t.Run("a foreign Origin is 403", func(t *testing.T) {
				for _, o := range []string{"http://evil.example", "null", hostedOrigin} {
					want(t, s.do(t, row, probe{method: row.Method, origin: o}), http.StatusForbidden)
				}
			})
		})
	}
}
