package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diagnosticData is the payload of `event: diagnostic`.
type diagnosticData struct {
	Source  string `json:"source"`
	Message string `json:"message"`
}

func decodeDiagnostic(t testing.TB, e sseEvent) diagnosticData {
	t.Helper()
	var d diagnosticData
	if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
		t.Fatalf("diagnostic data is not JSON: %v: %q", err, e.Data)
	}
	return d
}

func isGraphEvent(e sseEvent) bool { return e.Type == "graph" }

// TestLiveUpdates watches the event stream while the workspace changes.
// The steps build on each other, so they run in order on one server.
func TestLiveUpdates(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws, "CORE_EVENTS_DEBOUNCE=20ms", "CORE_EVENTS_KEEPALIVE=200ms")
	_, token := createToken(t, ws, "--grant", "console=read")
	graphURL := s.URL + "/api/v1/graph"

	a := openSSE(t, s, token, "a")
	b := openSSE(t, s, token, "b")
	for _, st := range []*sseStream{a, b} {
		if e := st.next(t); e.Comment != "connected" {
			t.Fatalf("stream %s: first line is %s, want the comment `: connected`", st.name, e)
		}
	}

	if !t.Run("an_idle_stream_gets_keep_alive_comments", func(t *testing.T) {
		for _, st := range []*sseStream{a, b} {
			st.waitFor(t, "a keep-alive comment", func(e sseEvent) bool { return e.Type == "" && e.Comment == "keep-alive" })
		}
	}) {
		return
	}

	if !t.Run("a_new_doc_sends_a_graph_event_to_every_subscriber_and_joins_the_graph", func(t *testing.T) {
		writeFileAtomic(t, ws, filepath.Join(ws, "docs", "new.md"), []byte("# Brand new page\n\nWritten by the e2e test.\n"))
		for _, st := range []*sseStream{a, b} {
			e := st.waitFor(t, "event: graph", isGraphEvent)
			var data map[string]any
			if err := json.Unmarshal([]byte(e.Data), &data); err != nil {
				t.Errorf("stream %s: graph event data is not JSON: %v: %q", st.name, err, e.Data)
			}
		}
		var g graphDoc
		eventually(t, "the graph holds doc:docs/new.md", func() bool {
			r := get(t, graphURL, token)
			if r.Status != http.StatusOK {
				t.Fatalf("want 200\n%s", r)
			}
			g = decodeGraph(t, r.Body)
			return g.node("doc:docs/new.md") != nil
		})
		n := g.node("doc:docs/new.md")
		if n["kind"] != "doc" || n["title"] != "Brand new page" {
			t.Errorf("doc:docs/new.md = %v, want kind doc with title %q", n, "Brand new page")
		}
		if cli := mustCore(t, ws, nil, "graph", "--json"); cli.Stdout != string(get(t, graphURL, token).Body) {
			t.Error("after the change, core graph --json and GET /api/v1/graph differ")
		}
	}) {
		return
	}

	targets := filepath.Join(ws, "targets.yaml")
	good, err := os.ReadFile(targets)
	if err != nil {
		t.Fatal(err)
	}

	if !t.Run("a_broken_targets_yaml_sends_a_diagnostic_and_the_last_good_graph_stays_served", func(t *testing.T) {
		before := get(t, graphURL, token)
		if before.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", before)
		}
		writeFileAtomic(t, ws, targets, []byte("projects:\n  util: [unclosed\n    path: : :\n"))
		for _, st := range []*sseStream{a, b} {
			e := st.waitFor(t, "event: diagnostic", func(e sseEvent) bool { return e.Type == "diagnostic" })
			d := decodeDiagnostic(t, e)
			if d.Message == "" || d.Source != "targets.yaml" {
				t.Errorf("stream %s: diagnostic = %+v, want source targets.yaml and a message", st.name, d)
			}
			if !strings.Contains(d.Message, "targets.yaml") {
				t.Errorf("stream %s: the diagnostic does not name the file: %q", st.name, d.Message)
			}
		}
		after := get(t, graphURL, token)
		if after.Status != http.StatusOK {
			t.Fatalf("with a broken targets.yaml GET /api/v1/graph must serve the last good graph\n%s", after)
		}
		if !bytes.Equal(after.Body, before.Body) {
			t.Error("with a broken targets.yaml the served graph changed")
		}
		if cli := runCore(t, ws, nil, "graph", "--json"); cli.Code == 0 || !strings.Contains(cli.Stderr, "targets.yaml") {
			t.Errorf("core graph --json on a broken targets.yaml should fail naming the file:\n%s", cli)
		}
	}) {
		return
	}

	t.Run("fixing_targets_yaml_clears_the_diagnostic_and_sends_a_graph_event", func(t *testing.T) {
		fixed := bytes.Replace(good, []byte("\nspells:\n"), []byte("\nspells:\n  e2e-spell:\n    run: [go, env]\n    description: added by the e2e test\n"), 1)
		if bytes.Equal(fixed, good) {
			t.Fatal("testdata/demo/targets.yaml has no top-level spells: mapping to add a spell to")
		}
		writeFileAtomic(t, ws, targets, fixed)
		for _, st := range []*sseStream{a, b} {
			gotClear, gotGraph := false, false
			for !gotClear || !gotGraph {
				e := st.waitFor(t, "a cleared diagnostic and a graph event", func(e sseEvent) bool {
					return e.Type == "diagnostic" || e.Type == "graph"
				})
				switch e.Type {
				case "graph":
					gotGraph = true
				case "diagnostic":
					if d := decodeDiagnostic(t, e); d.Message == "" {
						gotClear = true
					}
				}
			}
		}
		r := get(t, graphURL, token)
		if r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
		g := decodeGraph(t, r.Body)
		if g.node("spell:e2e-spell") == nil || g.node("doc:docs/new.md") == nil {
			t.Errorf("after the fix the graph lacks spell:e2e-spell or doc:docs/new.md:\n%.500s", r.Body)
		}
	})
}

// TestEventsEndWithTheServer checks that an open stream does not hold up a
// graceful shutdown and is closed by it.
func TestEventsEndWithTheServer(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws, "--grant", "console=read")
	st := openSSE(t, s, token, "open")
	if e := st.next(t); e.Comment != "connected" {
		t.Fatalf("first line is %s, want `: connected`", e)
	}
	if code := s.Stop(); code != 0 {
		t.Fatalf("SIGTERM with an open SSE stream: exit %d, want 0\n%s", code, s.logs())
	}
	st.waitEnd(t)
}

// TestBrokenAtStart starts a server on a workspace whose targets.yaml does not
// load: it still starts, explains the problem, and serves the graph once the
// file is fixed.
func TestBrokenAtStart(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	targets := filepath.Join(ws, "targets.yaml")
	good, err := os.ReadFile(targets)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(targets, []byte("projects: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, ws, "CORE_EVENTS_DEBOUNCE=20ms")
	_, token := createToken(t, ws, "--grant", "console=read")

	r := get(t, s.URL+"/api/v1/graph", token)
	if r.Status < 500 {
		t.Fatalf("with no good graph yet: want a 5xx\n%s", r)
	}
	if _, msg := apiError(t, r); !strings.Contains(msg, "targets.yaml") {
		t.Errorf("the error does not name targets.yaml: %q", msg)
	}
	// Without a token there is no detail.
	want401(t, get(t, s.URL+"/api/v1/graph", ""))

	st := openSSE(t, s, token, "fix")
	st.waitFor(t, "the `: connected` comment", func(e sseEvent) bool { return e.Comment == "connected" })
	writeFileAtomic(t, ws, targets, good)
	st.waitFor(t, "event: graph", isGraphEvent)
	r = get(t, s.URL+"/api/v1/graph", token)
	if r.Status != http.StatusOK {
		t.Fatalf("after the fix: want 200\n%s", r)
	}
	if cli := mustCore(t, ws, nil, "graph", "--json"); cli.Stdout != string(r.Body) {
		t.Error("after the fix, core graph --json and GET /api/v1/graph differ")
	}
}
