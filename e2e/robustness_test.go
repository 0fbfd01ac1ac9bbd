package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// connectErr decodes a Connect-protocol error body {"code","message"}.
func connectErr(t testing.TB, r response) string {
	t.Helper()
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Code == "" {
		t.Fatalf("not a Connect error body (%v)\n%s", err, r)
	}
	return e.Code
}

// rawExchange writes raw bytes to the server and returns the status line of
// the answer ("" when the server closed without one).
func rawExchange(t testing.TB, s *Server, payload []byte) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+s.Port, 10*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	// The server may answer (and close) before it has read everything.
	go func() { _, _ = conn.Write(payload) }()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	return strings.TrimSpace(line)
}

// doRetry is do that retries transport errors: a server that answers a huge
// upload early and closes may reset the connection under the client.
func doRetry(t testing.TB, mk func() *http.Request) response {
	t.Helper()
	var lastErr error
	for range 5 {
		req := mk()
		resp, err := httpClient.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			lastErr = err
			continue
		}
		return response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	}
	t.Fatalf("no answer after 5 tries: %v", lastErr)
	return response{}
}

// TestBadInput throws malformed and oversized requests at one server and then
// checks that it still answers and never panicked.
func TestBadInput(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws, "CORE_LOG_LEVEL=debug")
	_, token := createToken(t, ws, "--grant", "console=read")
	graphURL := s.URL + "/api/v1/graph"
	procURL := func(name string) string { return s.URL + "/core.token.v1alpha1.TokenService/" + name }
	big := bytes.Repeat([]byte("a"), 2<<20) // 2 MiB, over the 1 MiB default

	t.Run("attacks", func(t *testing.T) {
		t.Run("malformed_Connect_JSON_bodies_get_invalid_argument", func(t *testing.T) {
			t.Parallel()
			malformed := []string{
				"{",
				"not json",
				`{"kind":`,
				`[]`,
				`"a string"`,
				"\x00\xff\xfe\xfd",
				strings.Repeat("[", 100000),
				strings.Repeat(`{"a":`, 50000),
				`{"kind":"` + strings.Repeat("\\u0000", 1000) + `"`,
			}
			// Fields of CreateTokenRequest with the wrong JSON type.
			wrongType := []string{`{"grants":"console=read"}`, `{"ttl":"forever"}`, `{"ttl":{"seconds":"x"}}`, `{"kind":7}`}
			for _, body := range append(malformed, wrongType...) {
				procs := []string{"CreateToken", "ListTokens", "RevokeToken"}
				if slices.Contains(wrongType, body) {
					procs = []string{"CreateToken"}
				}
				for _, proc := range procs {
					r := do(t, newRequest(t, http.MethodPost, procURL(proc), s.AdminToken, strings.NewReader(body),
						"Content-Type", "application/json"))
					if r.Status != http.StatusBadRequest {
						t.Errorf("%s with body %.30q: HTTP %d, want 400\n%s", proc, body, r.Status, r)
						continue
					}
					if code := connectErr(t, r); code != "invalid_argument" {
						t.Errorf("%s with body %.30q: Connect code %s, want invalid_argument", proc, body, code)
					}
				}
			}
		})

		t.Run("malformed_protobuf_bodies_get_invalid_argument", func(t *testing.T) {
			t.Parallel()
			for _, body := range [][]byte{{0xff, 0xff, 0xff, 0xff}, {0x0a, 0x7f}, {0x12}, bytes.Repeat([]byte{0x80}, 20)} {
				r := do(t, newRequest(t, http.MethodPost, procURL("CreateToken"), s.AdminToken, bytes.NewReader(body),
					"Content-Type", "application/proto"))
				if r.Status != http.StatusBadRequest || connectErr(t, r) != "invalid_argument" {
					t.Errorf("body %x: want 400 invalid_argument\n%s", body, r)
				}
			}
		})

		t.Run("an_unsupported_content_type_gets_415", func(t *testing.T) {
			t.Parallel()
			r := do(t, newRequest(t, http.MethodPost, procURL("ListTokens"), s.AdminToken, strings.NewReader("{}"),
				"Content-Type", "text/plain"))
			if r.Status != http.StatusUnsupportedMediaType {
				t.Errorf("want 415\n%s", r)
			}
		})

		t.Run("a_body_over_1MiB_gets_413_payload_too_large", func(t *testing.T) {
			t.Parallel()
			// Any Content-Type outside application/* is not Connect's, so the
			// gateway's own error body answers.
			for _, ct := range []string{"text/plain", "multipart/form-data; boundary=x"} {
				r := doRetry(t, func() *http.Request {
					return newRequest(t, http.MethodPost, procURL("ListTokens"), s.AdminToken, bytes.NewReader(big), "Content-Type", ct)
				})
				wantAPIError(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
			}
		})

		t.Run("a_Connect_request_over_1MiB_gets_resource_exhausted", func(t *testing.T) {
			t.Parallel()
			// Connect rows answer through connect's error writer, whose code
			// for a body over the limit is resource_exhausted.
			known := doRetry(t, func() *http.Request {
				return newRequest(t, http.MethodPost, procURL("ListTokens"), s.AdminToken, bytes.NewReader(big), "Content-Type", "application/json")
			})
			chunked := doRetry(t, func() *http.Request {
				// An io.Reader of unknown length goes out chunked, so only
				// the body reader's limit can catch it. (Close: see
				// TestOversizedChunkedBodyKeepsHTTPFraming.)
				req := newRequest(t, http.MethodPost, procURL("ListTokens"), s.AdminToken, io.MultiReader(bytes.NewReader(big)), "Content-Type", "application/json")
				req.Close = true
				return req
			})
			for name, r := range map[string]response{"with Content-Length": known, "chunked": chunked} {
				if r.Status < 400 || r.Status >= 500 {
					t.Errorf("%s: HTTP %d, want a 4xx\n%s", name, r.Status, r)
					continue
				}
				if code := connectErr(t, r); code != "resource_exhausted" {
					t.Errorf("%s: Connect code %s, want resource_exhausted", name, code)
				}
			}
			// The generated client sees the same code.
			_, err := tokenClient(s, s.AdminToken).CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{Grants: []string{string(big)}})
			wantConnectCode(t, err, connect.CodeResourceExhausted)
		})

		t.Run("a_header_flood_gets_431", func(t *testing.T) {
			t.Parallel()
			var many bytes.Buffer
			for i := range 2000 {
				fmt.Fprintf(&many, "X-Flood-%d: %s\r\n", i, strings.Repeat("f", 100))
			}
			huge := "X-Huge: " + strings.Repeat("h", 200<<10) + "\r\n"
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					headers := many.String()
					if i%2 == 1 {
						headers = huge
					}
					req := "GET /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n" + headers + "\r\n"
					// The server hangs up while the flood is still being
					// written; a reset can eat its answer, so try again
					// when there was none.
					line := ""
					for try := 0; try < 3 && line == ""; try++ {
						line = rawExchange(t, s, []byte(req))
					}
					if !strings.Contains(line, " 431 ") {
						t.Errorf("flood %d: status line %q, want 431", i, line)
					}
				}()
			}
			wg.Wait()
			// Many small headers under the limit are just a request.
			var some []string
			for i := range 200 {
				some = append(some, fmt.Sprintf("X-Some-%d", i), "v")
			}
			if r := get(t, graphURL, token, some...); r.Status != http.StatusOK {
				t.Errorf("200 small headers: want 200\n%s", r)
			}
		})

		t.Run("invalid_methods_and_request_lines_are_refused", func(t *testing.T) {
			t.Parallel()
			for _, m := range []string{"BREW", "get", "PROPFIND", "TRACE", "OPTIONS", "M-SEARCH"} {
				r := do(t, newRequest(t, m, graphURL, token, nil))
				if r.Status != http.StatusMethodNotAllowed {
					t.Errorf("%s /api/v1/graph: HTTP %d, want 405\n%s", m, r.Status, r)
				}
			}
			for _, m := range []string{"BREW", http.MethodPut, http.MethodDelete} {
				r := do(t, newRequest(t, m, procURL("ListTokens"), s.AdminToken, nil))
				if r.Status < 400 || r.Status >= 500 && r.Status != http.StatusNotImplemented {
					t.Errorf("%s on a Connect procedure: HTTP %d, want a refusal\n%s", m, r.Status, r)
				}
			}
			for _, raw := range []string{
				"G@T /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
				"GET\x00 /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
				"garbage\r\n\r\n",
				"GET /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
				"GET /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
				"GET /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
				"GET /api/v1/graph HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
				"GET /api/v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
				"GET \x7f HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
				"POST /core.token.v1alpha1.TokenService/ListTokens HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
			} {
				// net/http answers 4xx, or 501 for a transfer coding it
				// does not implement; never a success and never a 500.
				line := rawExchange(t, s, []byte(raw))
				if !strings.HasPrefix(line, "HTTP/1.1 4") && !strings.HasPrefix(line, "HTTP/1.1 501 ") {
					t.Errorf("%q: status line %q, want a 4xx", raw, line)
				}
			}
			if line := rawExchange(t, s, []byte("GET /api/v1/graph HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n")); !strings.Contains(line, " 505 ") {
				t.Errorf("HTTP/9.9: status line %q, want 505", line)
			}
			// HTTP/1.0 without a Host header.
			if line := rawExchange(t, s, []byte("GET /api/v1/graph HTTP/1.0\r\n\r\n")); !strings.HasPrefix(line, "HTTP/1.0 4") && !strings.HasPrefix(line, "HTTP/1.1 4") {
				t.Errorf("HTTP/1.0 without Host: status line %q, want a 4xx", line)
			}
		})

		t.Run("bad_query_strings_and_paths_are_refused", func(t *testing.T) {
			t.Parallel()
			for _, path := range []string{
				"/api/v1/graph?flavor=%zz",
				"/api/v1/graph?flavor=targets;level=projects",
				"/api/v1/graph?" + strings.Repeat("a=1&", 5000),
				"/api/v1/graph?flavor=" + strings.Repeat("x", 30000),
				"/api/v1/../v1/graph",
				"/api/v1/graph%00",
				"//api/v1/graph",
			} {
				r := get(t, s.URL+path, token)
				if r.Status < 400 || r.Status >= 500 {
					t.Errorf("%.50s: HTTP %d, want a 4xx\n%s", path, r.Status, r)
				}
			}
		})

		t.Run("connections_that_stop_mid_request_do_not_hurt", func(t *testing.T) {
			t.Parallel()
			for _, partial := range []string{
				"GET /api/v1/gr",
				"POST /core.token.v1alpha1.TokenService/ListTokens HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + s.AdminToken + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":",
			} {
				conn, err := net.Dial("tcp", "127.0.0.1:"+s.Port)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = conn.Write([]byte(partial))
				_ = conn.Close()
			}
		})
	})

	t.Run("after_all_of_it_the_server_still_answers_without_a_panic", func(t *testing.T) {
		if r := get(t, graphURL, token); r.Status != http.StatusOK {
			t.Fatalf("GET /api/v1/graph: want 200\n%s", r)
		}
		if _, err := tokenClient(s, s.AdminToken).ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{}); err != nil {
			t.Fatalf("ListTokens: %v", err)
		}
		if s.Exited() {
			t.Fatalf("the server exited\n%s", s.logs())
		}
		s.assertNoPanic(t)
	})
}

// TestOversizedChunkedBodyKeepsHTTPFraming sends one Connect request whose
// chunked body is over the limit and checks that the server answers it once:
// no byte of that body may be read as a request of its own.
func TestOversizedChunkedBodyKeepsHTTPFraming(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws)
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+s.Port, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := bytes.Repeat([]byte("a"), 2<<20)
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST /core.token.v1alpha1.TokenService/ListTokens HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
		"Authorization: Bearer %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n", s.AdminToken, len(body))
	req.Write(body)
	req.WriteString("\r\n0\r\n\r\n")
	go func() {
		_, _ = conn.Write(req.Bytes())
		// Nothing follows: the server sees EOF after this one request.
		_ = conn.(*net.TCPConn).CloseWrite()
	}()
	answer, _ := io.ReadAll(conn)
	if n := bytes.Count(answer, []byte("HTTP/1.1 ")); n != 1 {
		t.Errorf("one request got %d answers, want 1:\n%.1000s", n, answer)
	}
}
