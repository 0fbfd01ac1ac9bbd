package gateway

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"
)

const callRoutes = `
- name: files.page
  path: /files/
  prefix: true
  method: GET
  grant: none
  handler: page
- name: who.read
  path: /api/v1/who
  method: GET
  grant: console=read
  handler: who
`

// TestCallInContext checks what the pipeline hands a handler in the
// request's context: the caller's principal, the listener, the row, its
// path and a logger that carries the listener's and the route's fields.
func TestCallInContext(t *testing.T) {
	store, err := auth.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	token, rec, err := store.Create(auth.KindConsole, auth.ConsoleRead, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var seen *caller.Call
	var logs bytes.Buffer
	reg := NewRegistry()
	record := func(w http.ResponseWriter, r *http.Request) error {
		c, ok := caller.From(r.Context())
		if !ok {
			t.Error("no call in the request's context")
			return nil
		}
		seen = c
		c.Log.Info().Msg("from the handler")
		return nil
	}
	reg.Handle("who", record)
	reg.Handle("page", record)
	table, err := Load("call.yaml", []byte(callRoutes), reg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewListener(table, reg, ListenerConfig{
		Exposure: ExposureLoopback, Port: "7391", Tokens: store, Kinds: []auth.Kind{auth.KindConsole},
		MaxBody: 1 << 20, Log: logx.New(&logs, "info", "json"), AccessLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(path, token string) {
		t.Helper()
		seen = nil
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7391"+path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		if w.Code != http.StatusOK || seen == nil {
			t.Fatalf("GET %s: %d, call %v", path, w.Code, seen)
		}
	}

	t.Run("an authenticated row sees its caller, its row and its listener", func(t *testing.T) {
		logs.Reset()
		serve("/api/v1/who", token)
		p, ok := caller.Principal(callerContext(seen))
		if !ok || p.ID != rec.ID || p.Kind != auth.KindConsole || p.Grants != auth.ConsoleRead {
			t.Errorf("principal %+v (ok %v), want %s console=read", p, ok, rec.ID)
		}
		if seen.Route != "who.read" || seen.Listener != ExposureLoopback || seen.Path != "/api/v1/who" {
			t.Errorf("call %+v", seen)
		}
	})
	t.Run("the handler's log lines and the access line name the route and the listener", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("log lines:\n%s", logs.String())
		}
		for _, line := range lines {
			if !strings.Contains(line, `"route":"who.read"`) || !strings.Contains(line, `"listener":"loopback"`) {
				t.Errorf("line without the route's fields: %s", line)
			}
		}
		if strings.Contains(logs.String(), token) {
			t.Error("the token reached the log")
		}
	})
	t.Run("a public row has no principal and gets its prefix", func(t *testing.T) {
		serve("/files/app.js", "")
		if _, ok := caller.Principal(callerContext(seen)); ok {
			t.Error("a public row has an authenticated caller")
		}
		if seen.Path != "/files/" || seen.Route != "files.page" {
			t.Errorf("call %+v", seen)
		}
	})
}

// callerContext is a context carrying c, to ask the package's accessors.
func callerContext(c *caller.Call) *caller.Context {
	ctx := &caller.Context{}
	ctx.Init(httptest.NewRequest(http.MethodGet, "/", nil).Context(), *c)
	return ctx
}

// TestOriginHeaders: one allowed Origin is served, two are refused (CORS
// would answer for both), an empty one is no Origin.
func TestOriginHeaders(t *testing.T) {
	reg := NewRegistry()
	reg.Handle("who", func(http.ResponseWriter, *http.Request) error { return nil })
	reg.Handle("page", func(http.ResponseWriter, *http.Request) error { return nil })
	table, err := Load("call.yaml", []byte(callRoutes), reg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewListener(table, reg, ListenerConfig{Exposure: ExposureLoopback, Port: "7391", MaxBody: 1 << 20, Log: logx.New(io.Discard, "error", "json")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		origins []string
		want    int
	}{
		{"one allowed Origin is served", []string{"http://127.0.0.1:7391"}, http.StatusOK},
		{"two allowed Origins are refused", []string{"http://127.0.0.1:7391", "http://localhost:7391"}, http.StatusForbidden},
		{"an allowed and a foreign Origin are refused", []string{"http://127.0.0.1:7391", "http://evil.example"}, http.StatusForbidden},
		{"an empty Origin is no Origin", []string{""}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7391/files/x", nil)
			r.Header["Origin"] = c.origins
			w := httptest.NewRecorder()
			l.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Errorf("status %d, want %d", w.Code, c.want)
			}
			if c.want == http.StatusForbidden && w.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Error("CORS headers on a refusal")
			}
		})
	}
}

// TestAccessLogIsOptIn: without AccessLog only a 5xx writes an access
// line, so that no client can grow the log at will; with it, every
// request does.
func TestAccessLogIsOptIn(t *testing.T) {
	for _, all := range []bool{false, true} {
		var logs bytes.Buffer
		reg := NewRegistry()
		reg.Handle("who", func(http.ResponseWriter, *http.Request) error { return errors.New("boom") })
		reg.Handle("page", func(http.ResponseWriter, *http.Request) error { return nil })
		table, err := Load("call.yaml", []byte(callRoutes), reg)
		if err != nil {
			t.Fatal(err)
		}
		store, err := auth.OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		token, _, _ := store.Create(auth.KindConsole, auth.ConsoleRead, time.Hour)
		l, err := NewListener(table, reg, ListenerConfig{Exposure: ExposureLoopback, Port: "7391", Tokens: store, Kinds: []auth.Kind{auth.KindConsole},
			MaxBody: 1 << 20, Log: logx.New(&logs, "info", "json"), AccessLog: all})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/files/x", "/nowhere", "/api/v1/who"} {
			r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7391"+path, nil)
			r.Header.Set("Authorization", "Bearer "+token)
			l.ServeHTTP(httptest.NewRecorder(), r)
		}
		lines := strings.Count(logs.String(), `"message":"request"`)
		switch {
		case all && lines != 3:
			t.Errorf("AccessLog: %d access lines for 3 requests:\n%s", lines, logs.String())
		case !all && (lines != 1 || !strings.Contains(logs.String(), `"status":500`)):
			t.Errorf("without AccessLog: %d access lines, want the 500's alone:\n%s", lines, logs.String())
		}
	}
}

// TestRefusalsNameTheirCause: the share listener's Host refusal names the
// address it answers (not the loopback names, which it refuses too), and a
// row Keep dropped answers 404 with Dropped's reason, not "no such route".
func TestRefusalsNameTheirCause(t *testing.T) {
	reg := NewRegistry()
	reg.Handle("who", func(http.ResponseWriter, *http.Request) error { return nil })
	reg.Handle("page", func(http.ResponseWriter, *http.Request) error { return nil })
	table, err := Load("call.yaml", []byte(callRoutes), reg)
	if err != nil {
		t.Fatal(err)
	}
	serve := func(l *Listener, host, path string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "http://"+host+path, nil)
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	quiet := logx.New(io.Discard, "error", "json")

	t.Run("the share listener's Host refusal names its own address", func(t *testing.T) {
		l, err := NewListener(table, reg, ListenerConfig{Exposure: ExposureLoopback, Port: "41234", Own: "192.168.1.5:41234", MaxBody: 1 << 20, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		code, body := serve(l, "127.0.0.1:41234", "/files/x")
		if code != http.StatusForbidden || !strings.Contains(body, "answers 192.168.1.5:41234 only") || strings.Contains(body, "loopback") {
			t.Errorf("Host 127.0.0.1 on the share listener: %d %s", code, body)
		}
	})
	t.Run("the loopback listener's Host refusal names the loopback hosts", func(t *testing.T) {
		l, err := NewListener(table, reg, ListenerConfig{Exposure: ExposureLoopback, Port: "7391", MaxBody: 1 << 20, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if code, body := serve(l, "evil.example", "/files/x"); code != http.StatusForbidden || !strings.Contains(body, "loopback hosts only") {
			t.Errorf("Host evil.example on the loopback listener: %d %s", code, body)
		}
	})
	t.Run("a dropped row's path says why it is not served", func(t *testing.T) {
		l, err := NewListener(table, reg, ListenerConfig{
			Exposure: ExposureLoopback, Port: "7391", MaxBody: 1 << 20, Log: quiet,
			Keep:    func(r *Row) bool { return r.Name != "files.page" },
			Dropped: func(r *Row) string { return "the files are switched off here" },
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/files/", "/files/deep/x"} {
			if code, body := serve(l, "127.0.0.1:7391", p); code != http.StatusNotFound || !strings.Contains(body, `"message":"the files are switched off here"`) {
				t.Errorf("GET %s: %d %s", p, code, body)
			}
		}
		if code, body := serve(l, "127.0.0.1:7391", "/nowhere"); code != http.StatusNotFound || !strings.Contains(body, "no such route") {
			t.Errorf("GET /nowhere: %d %s", code, body)
		}
	})
}
