package e2e

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// TestServer covers the bearer-token contract of the console routes against
// one running server.
func TestServer(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	_, before := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws)
	graphURL := s.URL + "/api/v1/graph"

	t.Run("server_json_is_private_and_names_the_running_server", func(t *testing.T) {
		t.Parallel()
		fi, err := os.Stat(statePath(ws))
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("server.json mode = %o, want 600", perm)
		}
		st := readState(t, ws)
		if st.PID != s.PID {
			t.Errorf("server.json pid = %d, want the server's %d", st.PID, s.PID)
		}
		if st.BaseURL != s.BaseURL {
			t.Errorf("server.json base_url = %q, want the ready line's %q", st.BaseURL, s.BaseURL)
		}
		if !strings.HasSuffix(st.Address, ":"+s.Port) {
			t.Errorf("server.json address = %q, want port %s", st.Address, s.Port)
		}
		if st.AdminToken == "" {
			t.Error("server.json holds no admin_token")
		}
	})

	t.Run("a_token_created_before_start_reads_the_graph", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL, before)
		if r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
		if !strings.HasPrefix(string(r.Body), `{"nodes":[`) {
			t.Errorf("the body is not a graph:\n%s", r)
		}
	})

	t.Run("a_token_created_after_start_works_without_a_restart", func(t *testing.T) {
		t.Parallel()
		_, after := createToken(t, ws, "--grant", "console=read")
		if r := get(t, graphURL, after); r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
	})

	t.Run("a_request_without_a_token_gets_401_with_a_bearer_challenge", func(t *testing.T) {
		t.Parallel()
		want401(t, get(t, graphURL, ""))
		want401(t, get(t, s.URL+"/api/v1/events", ""))
	})

	t.Run("a_garbage_token_gets_401", func(t *testing.T) {
		t.Parallel()
		for _, auth := range []string{
			"Bearer garbage",
			"Bearer core_console_" + strings.Repeat("A", 43), // well formed, unknown
			"Bearer core_console_" + strings.Repeat("A", 42) + "!",
			"Bearer " + before + "x",
			"Basic dXNlcjpwYXNz",
			"Bearer",
			"Bearer  " + before, // two spaces
			before,              // no scheme
			"Bearer " + strings.Repeat("x", 8000),
		} {
			r := do(t, newRequest(t, http.MethodGet, graphURL, "", nil, "Authorization", auth))
			if r.Status != http.StatusUnauthorized {
				t.Errorf("Authorization %.40q: HTTP %d, want 401", auth, r.Status)
				continue
			}
			want401(t, r)
		}
	})

	t.Run("an_expired_token_gets_401", func(t *testing.T) {
		t.Parallel()
		_, short := createToken(t, ws, "--expires", "1s", "--grant", "console=read")
		var last response
		eventually(t, "the 1s token expires", func() bool {
			last = get(t, graphURL, short)
			return last.Status == http.StatusUnauthorized
		})
		want401(t, last)
	})

	t.Run("a_token_in_the_query_string_does_not_authenticate", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"access_token", "token", "bearer"} {
			want401(t, get(t, graphURL+"?"+name+"="+url.QueryEscape(before), ""))
			want401(t, get(t, s.URL+"/api/v1/events?"+name+"="+url.QueryEscape(before), ""))
		}
	})

	t.Run("a_pairing_code_used_as_a_console_token_gets_403", func(t *testing.T) {
		t.Parallel()
		res, err := tokenClient(s, s.AdminToken).CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
		if err != nil {
			t.Fatal(err)
		}
		wantAPIError(t, get(t, graphURL, res.GetCode()), http.StatusForbidden, "permission_denied")
		wantAPIError(t, get(t, s.URL+"/api/v1/events", res.GetCode()), http.StatusForbidden, "permission_denied")
		// Refused, not spent: the code still trades for a console token.
		if _, err := tokenClient(s, res.GetCode()).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{}); err != nil {
			t.Errorf("the code no longer trades after a refused graph read: %v", err)
		}
	})

	t.Run("a_revoked_token_stops_working", func(t *testing.T) {
		t.Parallel()
		id, secret := createToken(t, ws, "--grant", "console=read")
		if r := get(t, graphURL, secret); r.Status != http.StatusOK {
			t.Fatalf("before revoke: want 200\n%s", r)
		}
		list := mustCore(t, ws, nil, "config", "console", "token", "list")
		if !strings.Contains(list.Stdout, id) || strings.Contains(list.Stdout, secret) {
			t.Errorf("token list should name %s and never show a secret:\n%s", id, list)
		}
		mustCore(t, ws, nil, "config", "console", "token", "revoke", id)
		var last response
		eventually(t, "the revoked token is refused", func() bool {
			last = get(t, graphURL, secret)
			return last.Status == http.StatusUnauthorized
		})
		want401(t, last)
		if list := mustCore(t, ws, nil, "config", "console", "token", "list"); strings.Contains(list.Stdout, id) {
			t.Errorf("token list still names the revoked %s:\n%s", id, list)
		}
	})

	t.Run("a_foreign_host_gets_403_before_the_token_is_checked", func(t *testing.T) {
		t.Parallel()
		for _, token := range []string{"", before} {
			req := newRequest(t, http.MethodGet, graphURL, token, nil)
			req.Host = "evil.example"
			wantAPIError(t, do(t, req), http.StatusForbidden, "forbidden_host")
		}
		for _, host := range []string{"localhost:" + s.Port, "LOCALHOST.:" + s.Port, "127.0.0.2:" + s.Port, "[::1]:" + s.Port} {
			req := newRequest(t, http.MethodGet, graphURL, before, nil)
			req.Host = host
			if r := do(t, req); r.Status != http.StatusOK {
				t.Errorf("Host %s: want 200 (a loopback host)\n%s", host, r)
			}
		}
	})

	t.Run("a_foreign_origin_gets_403_and_a_loopback_origin_gets_CORS", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL, before, "Origin", "https://evil.example")
		wantAPIError(t, r, http.StatusForbidden, "forbidden_origin")
		if acao := r.Header.Get("Access-Control-Allow-Origin"); acao != "" {
			t.Errorf("a foreign origin got Access-Control-Allow-Origin %q", acao)
		}
		own := "http://127.0.0.1:" + s.Port
		r = get(t, graphURL, before, "Origin", own)
		if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != own {
			t.Errorf("Origin %s: want 200 with Access-Control-Allow-Origin %s\n%s", own, own, r)
		}
	})

	t.Run("a_non_GET_method_on_a_GET_route_gets_405_with_Allow_GET", func(t *testing.T) {
		t.Parallel()
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodHead, "BREW"} {
			r := do(t, newRequest(t, m, graphURL, before, nil))
			if m != http.MethodHead {
				if ev := do(t, newRequest(t, m, s.URL+"/api/v1/events", before, nil)); ev.Status != http.StatusMethodNotAllowed {
					t.Errorf("%s /api/v1/events: HTTP %d, want 405\n%s", m, ev.Status, ev)
				}
			}
			if r.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s: HTTP %d, want 405\n%s", m, r.Status, r)
				continue
			}
			if allow := r.Header.Get("Allow"); allow != "GET" {
				t.Errorf("%s: Allow = %q, want GET", m, allow)
			}
		}
	})
}

// TestTokenCLI covers the CLI's refusals; none of them may echo a secret.
func TestTokenCLI(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	_, secret := createToken(t, ws, "--grant", "console=read")
	before, err := os.ReadFile(filepath.Join(ws, ".core", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a_zero_lifetime", []string{"create", "--expires", "0s"}, "--expires"},
		{"a_lifetime_over_90_days", []string{"create", "--expires", "2161h"}, "--expires"},
		{"an_unknown_grant", []string{"create", "--grant", "console=admin"}, "--grant"},
		{"an_mcp_grant_on_a_console_token", []string{"create", "--grant", "mcp"}, "grant"},
		{"an_unknown_id", []string{"revoke", "tok_000000000000"}, "tok_000000000000"},
		{"a_secret_instead_of_an_id", []string{"revoke", secret}, "token id"},
	} {
		t.Run("token_"+tc.args[0]+"_refuses_"+tc.name, func(t *testing.T) {
			res := runCore(t, ws, nil, append([]string{"config", "console", "token"}, tc.args...)...)
			if res.Code == 0 {
				t.Fatalf("want a non-zero exit\n%s", res)
			}
			if !strings.Contains(res.Stderr, tc.want) {
				t.Errorf("stderr does not mention %q\n%s", tc.want, res)
			}
			if strings.Contains(res.Stdout+res.Stderr, secret) {
				t.Errorf("the refusal echoes a token secret\n%s", res)
			}
		})
	}
	after, err := os.ReadFile(filepath.Join(ws, ".core", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("refused token commands changed tokens.json")
	}
	if fi, err := os.Stat(filepath.Join(ws, ".core", "tokens.json")); err != nil {
		t.Error(err)
	} else if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("tokens.json mode = %o, want 600", perm)
	}
	if strings.Contains(string(after), secret) {
		t.Error("tokens.json holds a token secret")
	}
}
