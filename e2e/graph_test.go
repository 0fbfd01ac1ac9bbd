package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// graphDoc is the graph contract's JSON: {"nodes":[...],"edges":[...]}.
type graphDoc struct {
	Nodes []map[string]any `json:"nodes"`
	Edges []struct {
		Source string `json:"source"`
		Target string `json:"target"`
		Kind   string `json:"kind"`
	} `json:"edges"`
}

func decodeGraph(t testing.TB, body []byte) graphDoc {
	t.Helper()
	var g graphDoc
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatalf("the graph does not decode: %v\n%.500s", err, body)
	}
	return g
}

// node returns the node with id, nil when there is none.
func (g graphDoc) node(id string) map[string]any {
	for _, n := range g.Nodes {
		if n["id"] == id {
			return n
		}
	}
	return nil
}

// TestGraph checks the graph route against the CLI's JSON output and the
// route's query parameters.
func TestGraph(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws, "--grant", "console=read")
	graphURL := s.URL + "/api/v1/graph"

	t.Run("core_graph_json_prints_exactly_the_bytes_of_GET_api_v1_graph", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL, token)
		if r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
		cli := mustCore(t, ws, nil, "graph", "--json")
		if cli.Stdout != string(r.Body) {
			t.Errorf("core graph --json (%d bytes) differs from GET /api/v1/graph (%d bytes)\ncli: %.300s\napi: %.300s",
				len(cli.Stdout), len(r.Body), cli.Stdout, r.Body)
		}
		g := decodeGraph(t, r.Body)
		if len(g.Nodes) == 0 || len(g.Edges) == 0 {
			t.Errorf("the demo graph has %d nodes and %d edges; want some of each", len(g.Nodes), len(g.Edges))
		}
		for _, n := range g.Nodes {
			if n["kind"] == "symbol" {
				t.Errorf("the default graph holds symbol node %v", n["id"])
			}
		}
	})

	t.Run("core_query_json_prints_exactly_the_bytes_of_select", func(t *testing.T) {
		t.Parallel()
		for _, terms := range []string{"project:api", "symbol:Slug* depth:2", "path:docs/** kind:target", "billing"} {
			r := get(t, graphURL+"?select="+url.QueryEscape(terms), token)
			if r.Status != http.StatusOK {
				t.Fatalf("select=%s: want 200\n%s", terms, r)
			}
			cli := mustCore(t, ws, nil, append([]string{"query"}, append(strings.Fields(terms), "--json")...)...)
			if cli.Stdout != string(r.Body) {
				t.Errorf("core query %s --json differs from ?select=\ncli: %.300s\napi: %.300s", terms, cli.Stdout, r.Body)
			}
			if len(decodeGraph(t, r.Body).Nodes) == 0 {
				t.Errorf("select=%s found nothing", terms)
			}
		}
	})

	t.Run("core_describe_graph_json_prints_exactly_the_bytes_of_flavor_targets", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL+"?flavor=targets", token)
		if r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
		cli := mustCore(t, ws, nil, "describe", "graph", "--json")
		if cli.Stdout != string(r.Body) {
			t.Errorf("core describe graph --json differs from ?flavor=targets\ncli: %.300s\napi: %.300s", cli.Stdout, r.Body)
		}
		g := decodeGraph(t, r.Body)
		if g.node("target:api:build") == nil {
			t.Errorf("the target graph has no target:api:build node:\n%.500s", r.Body)
		}
	})

	t.Run("level_projects_holds_only_project_nodes_and_edges_between_them", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL+"?level=projects", token)
		if r.Status != http.StatusOK {
			t.Fatalf("want 200\n%s", r)
		}
		g := decodeGraph(t, r.Body)
		ids := map[string]bool{}
		for _, n := range g.Nodes {
			id, _ := n["id"].(string)
			if n["kind"] != "project" || !strings.HasPrefix(id, "project:") {
				t.Errorf("level=projects holds a non-project node: %v", n)
			}
			ids[id] = true
		}
		for _, want := range []string{"api", "auth", "billing", "docs", "ml", "schemas", "util", "web"} {
			if !ids["project:"+want] {
				t.Errorf("level=projects lacks project:%s", want)
			}
		}
		if len(g.Edges) == 0 {
			t.Error("level=projects has no edges; the demo declares project dependencies")
		}
		for _, e := range g.Edges {
			if !ids[e.Source] || !ids[e.Target] {
				t.Errorf("edge %s -> %s (%s) leaves the project skeleton", e.Source, e.Target, e.Kind)
			}
		}
		if e := findEdge(g, "project:api", "project:util"); !e {
			t.Error("level=projects lacks the declared dependency project:api -> project:util")
		}
	})

	t.Run("gzip_is_served_to_a_client_that_asks_and_decodes_to_the_same_bytes", func(t *testing.T) {
		t.Parallel()
		plain := get(t, graphURL, token)
		zipped := get(t, graphURL, token, "Accept-Encoding", "gzip")
		if zipped.Status != http.StatusOK || zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("want 200 with Content-Encoding gzip\n%s", zipped)
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(unzipped, plain.Body) {
			t.Error("the gzipped graph does not decode to the plain one")
		}
	})

	t.Run("a_matching_If_None_Match_gets_304", func(t *testing.T) {
		t.Parallel()
		r := get(t, graphURL, token)
		etag := r.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("no ETag\n%s", r)
		}
		if r := get(t, graphURL, token, "If-None-Match", etag); r.Status != http.StatusNotModified || len(r.Body) != 0 {
			t.Errorf("If-None-Match %s: want 304 without a body\n%s", etag, r)
		}
		if r := get(t, graphURL, token, "If-None-Match", `"other"`); r.Status != http.StatusOK {
			t.Errorf(`If-None-Match "other": want 200\n%s`, r)
		}
	})

	t.Run("bad_query_parameters_get_400_with_a_JSON_error", func(t *testing.T) {
		t.Parallel()
		for _, q := range []string{
			"flavor=nodes",
			"flavor=",
			"level=files",
			"level=projects&flavor=targets",
			"flavor=targets&flavor=targets",
			"unknown=1",
			"access_token=x",
			"flavor=%zz",
		} {
			r := get(t, graphURL+"?"+q, token)
			if r.Status != http.StatusBadRequest {
				t.Errorf("?%s: HTTP %d, want 400\n%s", q, r.Status, r)
				continue
			}
			wantAPIError(t, r, http.StatusBadRequest, "invalid_argument")
		}
	})
}

func findEdge(g graphDoc, source, target string) bool {
	for _, e := range g.Edges {
		if e.Source == source && e.Target == target {
			return true
		}
	}
	return false
}

// TestCoreGraphJSONServesTheStoredGraphUntilTheTreeChanges: a second
// `core graph --json` on an unchanged tree prints the graph the first one
// stored, without indexing; after a change it prints what a cold index of
// the changed tree prints.
func TestCoreGraphJSONServesTheStoredGraphUntilTheTreeChanges(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	index := filepath.Join(ws, ".core", "index")
	stored := filepath.Join(index, "graph.json.bin")
	// A tree changed under 100 ms before a walk is not stored (its times
	// could hide the next change): not the fresh copy, nor the first run,
	// which creates .core in the workspace's root.
	mustCore(t, ws, nil, "graph", "--json")
	time.Sleep(200 * time.Millisecond)
	first := mustCore(t, ws, nil, "graph", "--json").Stdout
	if _, err := os.Stat(stored); err != nil {
		t.Fatalf("a run on a settled tree stored no graph: %v", err)
	}
	// Without the records, only a served graph prints the same and leaves
	// them missing: an indexing pass would write them again.
	if err := os.Remove(filepath.Join(index, "files.bin")); err != nil {
		t.Fatal(err)
	}
	if again := mustCore(t, ws, nil, "graph", "--json").Stdout; again != first {
		t.Fatalf("the unchanged tree's graph differs from the first (%d bytes, was %d)", len(again), len(first))
	}
	if _, err := os.Stat(filepath.Join(index, "files.bin")); !os.IsNotExist(err) {
		t.Fatalf("the unchanged tree was indexed again instead of served (files.bin: %v)", err)
	}

	if err := os.WriteFile(filepath.Join(ws, "libs/util/extra.go"), []byte("package util\n\nfunc Extra() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := mustCore(t, ws, nil, "graph", "--json").Stdout
	if decodeGraph(t, []byte(changed)).node("file:libs/util/extra.go") == nil {
		t.Fatal("the graph after a new file was added has no node for it: the stored graph was served stale")
	}
	cold := mustCore(t, ws, []string{"CORE_CACHE_DIR=" + t.TempDir()}, "graph", "--json").Stdout
	if changed != cold {
		t.Fatalf("the graph after the change (%d bytes) differs from a cold index of the changed tree (%d bytes)", len(changed), len(cold))
	}
}
