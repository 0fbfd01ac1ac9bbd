package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/rs/zerolog"

	core "github.com/corehq/core"
	"github.com/corehq/core/gateway"
)

// snapshotListener is the pipeline of `core open --serve` on port 7391: the
// real snapshot.routes.yaml, with RegisterSnapshot's handlers.
func snapshotListener(t *testing.T, console fstest.MapFS, graph []byte) http.Handler {
	t.Helper()
	reg := gateway.NewPlainRegistry()
	RegisterSnapshot(reg, console, graph)
	table, err := gateway.Load(core.SnapshotRoutesFile, core.SnapshotRoutes, reg)
	if err != nil {
		t.Fatalf("%s: %v", core.SnapshotRoutesFile, err)
	}
	l, err := gateway.NewListener(table, reg, gateway.ListenerConfig{Exposure: gateway.ExposureLoopback, Port: "7391", Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRegisterSnapshotServesTheSnapshotTable(t *testing.T) {
	t.Parallel()
	graph := []byte(`{"nodes":[{"id":"project:api"}],"edges":[]}` + "\n")
	console := fstest.MapFS{
		"index.html":     {Data: []byte("<!doctype html><title>snapshot</title>")},
		"assets/app.js":  {Data: []byte("console.log(3)")},
		"graph.json":     {Data: []byte("the console's own file, not the graph")},
		"dir/index.html": {Data: []byte("dir")},
	}
	l := snapshotListener(t, console, graph)

	cases := []struct {
		name, method, url string
		header            []string
		status            int
		body              string   // "" to skip
		headers           []string // name, value pairs to check
		code              string   // the error code of a refusal
	}{
		{name: "graph.json is the graph's exact bytes, never stored", method: http.MethodGet, url: "http://127.0.0.1:7391/graph.json",
			status: http.StatusOK, body: string(graph), headers: []string{"Cache-Control", "no-store", "Content-Type", "application/json"}},
		{name: "graph.json on localhost", method: http.MethodGet, url: "http://localhost:7391/graph.json",
			status: http.StatusOK, body: string(graph)},
		{name: "graph.json with a query is the same graph", method: http.MethodGet, url: "http://127.0.0.1:7391/graph.json?flavor=targets",
			status: http.StatusOK, body: string(graph)},
		{name: "the console page is the given index.html", method: http.MethodGet, url: "http://127.0.0.1:7391/console/graph/",
			status: http.StatusOK, body: "<!doctype html><title>snapshot</title>", headers: []string{"Content-Type", "text/html; charset=utf-8", "Cache-Control", "no-cache"}},
		{name: "a console asset", method: http.MethodGet, url: "http://127.0.0.1:7391/console/graph/assets/app.js",
			status: http.StatusOK, body: "console.log(3)", headers: []string{"Cache-Control", "public, max-age=31536000, immutable"}},
		{name: "a console file named like the graph is the console's", method: http.MethodGet, url: "http://127.0.0.1:7391/console/graph/graph.json",
			status: http.StatusOK, body: "the console's own file, not the graph"},
		{name: "a missing console file is 404", method: http.MethodGet, url: "http://127.0.0.1:7391/console/graph/missing.js",
			status: http.StatusNotFound, code: "not_found"},
		{name: "a foreign Host is 403", method: http.MethodGet, url: "http://evil.example/graph.json",
			status: http.StatusForbidden, code: "forbidden_host"},
		{name: "a foreign Host is 403 on the console too", method: http.MethodGet, url: "http://evil.example:7391/console/graph/",
			status: http.StatusForbidden, code: "forbidden_host"},
		{name: "a foreign Origin is 403", method: http.MethodGet, url: "http://127.0.0.1:7391/graph.json", header: []string{"Origin", "https://evil.example"},
			status: http.StatusForbidden, code: "forbidden_origin"},
		{name: "POST to the graph is 405", method: http.MethodPost, url: "http://127.0.0.1:7391/graph.json",
			status: http.StatusMethodNotAllowed, code: "method_not_allowed", headers: []string{"Allow", "GET"}},
		{name: "POST to the console is 405", method: http.MethodPost, url: "http://127.0.0.1:7391/console/graph/",
			status: http.StatusMethodNotAllowed, code: "method_not_allowed", headers: []string{"Allow", "GET"}},
		{name: "the server's graph route is not in this table", method: http.MethodGet, url: "http://127.0.0.1:7391/api/v1/graph",
			status: http.StatusNotFound, code: "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(c.method, c.url, nil)
			for i := 0; i+1 < len(c.header); i += 2 {
				r.Header.Set(c.header[i], c.header[i+1])
			}
			w := httptest.NewRecorder()
			l.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Fatalf("%s %s: %d %q, want %d", c.method, c.url, w.Code, w.Body, c.status)
			}
			if c.body != "" && w.Body.String() != c.body {
				t.Errorf("body %q, want %q", w.Body, c.body)
			}
			for i := 0; i+1 < len(c.headers); i += 2 {
				if got := w.Header().Get(c.headers[i]); got != c.headers[i+1] {
					t.Errorf("%s: %q, want %q", c.headers[i], got, c.headers[i+1])
				}
			}
			if c.code != "" {
				var e struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Code != c.code {
					t.Errorf("body %q, want the error code %q", w.Body, c.code)
				}
				if w.Body.String() == string(graph) || w.Header().Get("Content-Security-Policy") != "" {
					t.Error("a refusal served content")
				}
			}
		})
	}
}
