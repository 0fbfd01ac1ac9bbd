package e2e

import (
	"net"
	"net/http"
	"strings"
	"testing"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// TestConsoleMount covers when the console routes exist at all: only on a
// loopback bind and only with console.enabled.
func TestConsoleMount(t *testing.T) {
	t.Parallel()

	t.Run("on_a_non_loopback_bind_the_console_is_not_mounted_and_a_warning_is_logged", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		_, token := createToken(t, ws, "--grant", "console=read")
		s := startServer(t, ws, "CORE_MCP_ADDRESS=0.0.0.0:0")
		if !strings.Contains(s.Stdout.String(), "console: not mounted (server.address 0.0.0.0:0 is not a loopback address") {
			t.Errorf("stdout does not say the console is not mounted because of the bind:\n%s", s.logs())
		}
		logs := s.Stderr.String()
		if !strings.Contains(logs, `"level":"warn"`) || !strings.Contains(logs, "not a loopback address") {
			t.Errorf("stderr has no warning about the non-loopback bind:\n%s", s.logs())
		}
		for _, path := range []string{"/api/v1/graph", "/api/v1/events", "/api/v1/graph?flavor=targets"} {
			if msg := wantAPIError(t, get(t, s.URL+path, token), http.StatusNotFound, "not_found"); !strings.Contains(msg, "not a loopback address") {
				t.Errorf("GET %s: the 404 does not say why: %q", path, msg)
			}
		}
		// The rest of the server still answers.
		if _, err := tokenClient(s, s.AdminToken).ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{}); err != nil {
			t.Errorf("token management on the non-loopback bind: %v", err)
		}
	})

	t.Run("on_a_non_loopback_bind_status_and_doctor_see_a_running_server_without_a_console", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		env := []string{"CORE_MCP_ADDRESS=0.0.0.0:0"}
		s := startServer(t, ws, env...)
		if strings.Contains(s.BaseURL, "[::]") || strings.Contains(s.BaseURL, "0.0.0.0") {
			t.Errorf("the server advertises the unspecified address %s; a client cannot reach it by that name", s.BaseURL)
		}
		if res := runCore(t, ws, env, "server", "status"); res.Code != 0 {
			t.Errorf("server status of a running, answering server: want exit 0\n%s", res)
		}
		res := runCore(t, ws, env, "doctor")
		if lines := consoleLines(res.Stdout); len(lines) != 1 || !strings.HasPrefix(lines[0], "console: not mounted (server.address 0.0.0.0:0 is not a loopback address") || strings.Contains(lines[0], "console.enabled") {
			t.Errorf("doctor console lines = %q, want one `console: not mounted (server.address 0.0.0.0:0 is not a loopback address...)` that names the bind alone\n%s", lines, res)
		}
	})

	t.Run("on_an_IPv6_loopback_bind_the_console_is_mounted", func(t *testing.T) {
		t.Parallel()
		probe, err := net.Listen("tcp", "[::1]:0")
		if err != nil {
			t.Skipf("no IPv6 loopback here: %v", err)
		}
		_ = probe.Close()
		ws := copyDemo(t)
		_, token := createToken(t, ws, "--grant", "console=read")
		s := startServer(t, ws, "CORE_MCP_ADDRESS=[::1]:0")
		if s.BaseURL != "http://[::1]:"+s.Port {
			t.Errorf("ready line names %s, want http://[::1]:%s", s.BaseURL, s.Port)
		}
		if r := get(t, s.BaseURL+"/api/v1/graph", token); r.Status != http.StatusOK {
			t.Errorf("GET /api/v1/graph on [::1]: want 200\n%s", r)
		}
		if res := runCore(t, ws, []string{"CORE_MCP_ADDRESS=[::1]:0"}, "doctor"); !strings.Contains(res.Stdout, "console: reachable") {
			t.Errorf("doctor on [::1]: want console: reachable\n%s", res)
		}
	})

	t.Run("with_console_enabled_false_the_console_routes_are_404", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		_, token := createToken(t, ws, "--grant", "console=read")
		s := startServer(t, ws, "CORE_CONSOLE_ENABLED=false")
		if !strings.Contains(s.Stdout.String(), "console: not mounted (console.enabled is false on this server)") {
			t.Errorf("stdout does not say the console is not mounted because console.enabled is false:\n%s", s.logs())
		}
		for _, path := range []string{"/api/v1/graph", "/api/v1/events", "/api/v1/graph?level=projects", "/console/graph/"} {
			wantAPIError(t, get(t, s.URL+path, token), http.StatusNotFound, "not_found")
			if msg := wantAPIError(t, get(t, s.URL+path, ""), http.StatusNotFound, "not_found"); msg != "console.enabled is false on this server" {
				t.Errorf("GET %s without a token: the 404 says %q, not why", path, msg)
			}
		}
		if res := runCore(t, ws, nil, "open", "--print"); res.Code == 0 || !strings.Contains(res.Stderr, "has no console (console.enabled is false on this server)") {
			t.Errorf("core open on a server without a console does not say why:\n%s", res)
		}
		if _, err := tokenClient(s, s.AdminToken).ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{}); err != nil {
			t.Errorf("token management with the console disabled: %v", err)
		}
	})

	t.Run("an_unknown_path_is_404", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		_, token := createToken(t, ws, "--grant", "console=read")
		s := startServer(t, ws)
		for _, path := range []string{"/api/v1/", "/api/v1/status", "/api/v1/graph/", "/api/v1/graph/x", "/api/v2/graph", "/core.token.v1alpha1.TokenService/Nope"} {
			r := get(t, s.URL+path, token)
			if r.Status != http.StatusNotFound {
				t.Errorf("GET %s: HTTP %d, want 404\n%s", path, r.Status, r)
			}
		}
	})
}

// TestHostedConsole covers the hosted console's origin: its host passes the
// Host guard and its origin gets CORS on hosted rows only, and preflights
// carry Private Network Access.
func TestHostedConsole(t *testing.T) {
	t.Parallel()
	const origin = "https://console.example.com"
	ws := copyDemo(t)
	_, token := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws, "CORE_CONSOLE_HOSTED_ORIGIN="+origin)
	graphURL := s.URL + "/api/v1/graph"

	t.Run("the_hosted_origin_gets_CORS_on_the_graph", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL, token, "Origin", origin)
		if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("want 200 with Access-Control-Allow-Origin %s\n%s", origin, r)
		}
	})

	t.Run("a_lookalike_origin_gets_403_without_CORS", func(t *testing.T) {
		t.Parallel()
		for _, o := range []string{"https://console.example.com.evil.example", "https://evilconsole.example.com", "http://console.example.com", "https://console.example.com:8443", "null"} {
			r := get(t, graphURL, token, "Origin", o)
			if r.Status != http.StatusForbidden || r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("Origin %s: want 403 without CORS headers\n%s", o, r)
			}
		}
	})

	t.Run("the_hosted_host_passes_the_host_guard_on_hosted_rows_only", func(t *testing.T) {
		t.Parallel()
		req := newRequest(t, http.MethodGet, graphURL, token, nil)
		req.Host = "console.example.com"
		if r := do(t, req); r.Status != http.StatusOK {
			t.Errorf("Host console.example.com on the graph: want 200\n%s", r)
		}
		req = newRequest(t, http.MethodPost, s.URL+"/core.token.v1alpha1.TokenService/ListTokens", s.AdminToken,
			strings.NewReader("{}"), "Content-Type", "application/json")
		req.Host = "console.example.com"
		if r := do(t, req); r.Status != http.StatusForbidden {
			t.Errorf("Host console.example.com on token management: want 403\n%s", r)
		}
	})

	t.Run("a_preflight_gets_private_network_access", func(t *testing.T) {
		t.Parallel()
		req := newRequest(t, http.MethodOptions, graphURL, "", nil,
			"Origin", origin,
			"Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "authorization",
			"Access-Control-Request-Private-Network", "true")
		r := do(t, req)
		if r.Status >= 300 {
			t.Fatalf("preflight: want 2xx\n%s", r)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != origin || r.Header.Get("Access-Control-Allow-Private-Network") != "true" {
			t.Errorf("preflight: want Access-Control-Allow-Origin %s and Access-Control-Allow-Private-Network true\n%s", origin, r)
		}
	})
}
