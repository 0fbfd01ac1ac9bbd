package handlers

import (
	"github.com/corehq/core/backend"

	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/live"
)

// demoWorkspace is the live view of a fresh copy of testdata/demo.
// backendOf is the backend of a server over ws alone.
func backendOf(ws *live.Workspace) *backend.Backend {
	return backend.New(backend.Options{Workspace: ws})
}

func demoWorkspace(t *testing.T) *live.Workspace {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "demo"))); err != nil {
		t.Fatal(err)
	}
	ws := live.New(root, filepath.Join(t.TempDir(), "cache"), nil, zerolog.Nop())
	t.Cleanup(func() { _ = ws.Close() })
	if _, err := ws.Current(); err != nil {
		t.Fatalf("the demo does not load: %v", err)
	}
	return ws
}

func graphRequest(rawQuery string, header ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/graph", nil)
	r.URL.RawQuery = rawQuery
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r
}

// graphDoc is the part of an encoded graph the tests look at.
type graphDoc struct {
	Nodes []struct {
		ID, Kind string
		Holds    map[string]int
	}
	Edges []struct{ Source, Target string }
}

func decodeGraphDoc(t *testing.T, body []byte) graphDoc {
	t.Helper()
	var g graphDoc
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatalf("the body is not a graph: %v\n%.300s", err, body)
	}
	return g
}

func (g graphDoc) has(id string) bool {
	for _, n := range g.Nodes {
		if n.ID == id {
			return true
		}
	}
	return false
}

func TestGraphQueryParameters(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	h := graphHandler(backendOf(ws))

	t.Run("variants are served fresh as JSON", func(t *testing.T) {
		t.Parallel()
		cases := []struct {
			name, query string
			check       func(t *testing.T, g graphDoc)
		}{
			{"flavor=targets holds the declared targets", "flavor=targets", func(t *testing.T, g graphDoc) {
				if !g.has("target:api:build") {
					t.Error("no target:api:build node")
				}
			}},
			{"level=projects holds only projects, each with what it owns", "level=projects", func(t *testing.T, g graphDoc) {
				if !g.has("project:api") || !g.has("project:util") {
					t.Error("project:api or project:util is missing")
				}
				for _, n := range g.Nodes {
					if n.Kind != "project" {
						t.Errorf("node %s is a %s", n.ID, n.Kind)
					}
					if n.ID == "project:util" && (n.Holds["file"] == 0 || n.Holds["target"] == 0) {
						t.Errorf("project:util holds %v, want its files and targets counted", n.Holds)
					}
				}
				if len(g.Edges) == 0 {
					t.Error("no edges between the projects")
				}
			}},
			{"select=<terms> is the query's answer", "select=" + url.QueryEscape("project:api depth:0"), func(t *testing.T, g graphDoc) {
				if len(g.Nodes) != 1 || g.Nodes[0].ID != "project:api" {
					t.Errorf("nodes %v, want project:api alone", g.Nodes)
				}
			}},
			{"select=kind:project holds every project", "select=kind:project", func(t *testing.T, g graphDoc) {
				if !g.has("project:billing") {
					t.Error("no project:billing node")
				}
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				a := serve(t, h, graphRequest(c.query, "Accept-Encoding", "gzip"))
				if a.Code != http.StatusOK {
					t.Fatalf("?%s: %d %s", c.query, a.Code, a.message())
				}
				hd := a.Header()
				if hd.Get("Content-Type") != "application/json" || hd.Get("Cache-Control") != "no-store" {
					t.Errorf("Content-Type %q, Cache-Control %q", hd.Get("Content-Type"), hd.Get("Cache-Control"))
				}
				if hd.Get("ETag") != "" || hd.Get("Content-Encoding") != "" {
					t.Errorf("a variant has ETag %q and Content-Encoding %q; it is neither cached nor compressed", hd.Get("ETag"), hd.Get("Content-Encoding"))
				}
				if hd.Get("Content-Length") != strconv.Itoa(a.Body.Len()) {
					t.Errorf("Content-Length %q for %d bytes", hd.Get("Content-Length"), a.Body.Len())
				}
				c.check(t, decodeGraphDoc(t, a.Body.Bytes()))
			})
		}
	})

	t.Run("bad queries are 400 naming the problem", func(t *testing.T) {
		t.Parallel()
		cases := []struct{ query, want string }{
			{"unknown=1", `unknown query parameter "unknown"; /api/v1/graph takes flavor=targets, level=projects or select=<terms>`},
			{"access_token=x", `unknown query parameter "access_token"`},
			{"Flavor=targets", `unknown query parameter "Flavor"`},
			{"=targets", `unknown query parameter ""`},
			{"flavor=targets&unknown=1", `unknown query parameter "unknown"`},
			{"flavor=targets&flavor=targets", `query parameter "flavor" is given 2 times; give it once`},
			{"level=projects&level=projects&level=projects", `query parameter "level" is given 3 times`},
			{"select=kind:file&select=kind:file", `query parameter "select" is given 2 times`},
			{"flavor=targets&level=projects", "flavor, level and select are alternatives; give one of them"},
			{"select=kind:file&flavor=targets", "alternatives"},
			{"level=projects&select=kind:file", "alternatives"},
			{"flavor=targets&level=projects&select=kind:file", "alternatives"},
			{"flavor=nodes", `flavor "nodes" is not allowed; allowed: targets`},
			{"flavor=Targets", `flavor "Targets" is not allowed`},
			{"flavor=", `flavor "" is not allowed`},
			{"flavor", `flavor "" is not allowed`},
			{"level=files", `level "files" is not allowed; allowed: projects`},
			{"level=", `level "" is not allowed`},
			{"select=", "select: empty query"},
			{"select=kinds:file", `select: unknown term "kinds:file"`},
			{"select=kind:widget", "is not a kind"},
			{"edge_limit=10", "edge_limit goes with select=<terms>"},
			{"level=projects&edge_limit=10", "edge_limit goes with select=<terms>"},
			{"select=kind:file&edge_limit=-1", `edge_limit "-1" is not a number of edges`},
			{"select=kind:file&edge_limit=many", `edge_limit "many" is not a number of edges`},
			{"select=kind:file&edge_limit=", `edge_limit "" is not a number of edges`},
			{"select=kind:file&edge_limit=1&edge_limit=2", `query parameter "edge_limit" is given 2 times`},
			{"select=&edge_limit=1", "select: empty query"},
			{"select=kind:file&flavor=targets&edge_limit=1", "alternatives"},
			{"flavor=%zz", "the query string does not parse"},
			{"flavor=targets;level=projects", "the query string does not parse"},
		}
		for _, c := range cases {
			t.Run(c.query, func(t *testing.T) {
				t.Parallel()
				a := serve(t, h, graphRequest(c.query))
				if a.Code != http.StatusBadRequest || a.Err.Code != "invalid_argument" {
					t.Fatalf("?%s: %d %q, want 400 invalid_argument", c.query, a.Code, a.message())
				}
				if !strings.Contains(a.message(), c.want) {
					t.Errorf("?%s: message %q does not say %q", c.query, a.message(), c.want)
				}
			})
		}
	})

	t.Run("edge_limit sends the edges a drawing shows and counts the rest", func(t *testing.T) {
		t.Parallel()
		type doc struct {
			Nodes   []struct{ ID, Kind, Project string }
			Edges   []struct{ Source, Target, Kind string }
			Omitted map[string]int
		}
		get := func(query string) doc {
			a := serve(t, h, graphRequest(query))
			if a.Code != http.StatusOK {
				t.Fatalf("?%s: %d %s", query, a.Code, a.message())
			}
			var d doc
			if err := json.Unmarshal(a.Body.Bytes(), &d); err != nil {
				t.Fatalf("?%s: %v", query, err)
			}
			return d
		}
		sel := "select=" + url.QueryEscape("project:api")
		all, none, many := get(sel), get(sel+"&edge_limit=0"), get(sel+"&edge_limit=100000")
		if all.Omitted != nil {
			t.Errorf("without edge_limit the answer says it omitted %v", all.Omitted)
		}
		isProject := map[string]bool{}
		for _, n := range all.Nodes {
			isProject[n.ID] = n.Kind == "project"
		}
		inner, between := 0, 0
		for _, e := range all.Edges {
			switch {
			case e.Kind == "owns" || e.Kind == "contains":
			case isProject[e.Source] || isProject[e.Target]:
				between++
			default:
				inner++
			}
		}
		if inner == 0 || between == 0 {
			t.Fatalf("project:api's answer has %d relations inside and %d between projects; the test needs both", inner, between)
		}
		for name, d := range map[string]doc{"edge_limit=0": none, "edge_limit=100000": many} {
			if len(d.Nodes) != len(all.Nodes) {
				t.Errorf("%s: %d nodes, without it %d", name, len(d.Nodes), len(all.Nodes))
			}
			sent := 0
			for _, e := range d.Edges {
				if e.Kind == "owns" || e.Kind == "contains" {
					t.Errorf("%s: %s edge %s -> %s sent", name, e.Kind, e.Source, e.Target)
				}
				if !isProject[e.Source] && !isProject[e.Target] {
					sent++
				}
			}
			left := 0
			for _, n := range d.Omitted {
				left += n
			}
			if len(d.Edges)+left != len(all.Edges) {
				t.Errorf("%s: %d edges sent and %d omitted (%v), of %d", name, len(d.Edges), left, d.Omitted, len(all.Edges))
			}
			want := inner
			if name == "edge_limit=0" {
				want = 0
			}
			if sent != want {
				t.Errorf("%s: %d relations inside sent, want %d", name, sent, want)
			}
		}
		if none.Omitted["owns"] == 0 {
			t.Errorf("omitted %v counts no owns edge", none.Omitted)
		}
		// Each owned node names its owner: what the owns edges said.
		for _, e := range all.Edges {
			if e.Kind != "owns" || e.Source != "project:api" {
				continue
			}
			for _, n := range none.Nodes {
				if n.ID == e.Target && n.Project != "api" {
					t.Errorf("%s is owned by project:api and names project %q", n.ID, n.Project)
				}
			}
		}
	})

	t.Run("an empty query string serves the current snapshot", func(t *testing.T) {
		t.Parallel()
		a := serve(t, h, graphRequest(""))
		if a.Code != http.StatusOK {
			t.Fatalf("%d %s", a.Code, a.message())
		}
		snap, err := ws.Current()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Body.Bytes(), snap.JSON()) {
			t.Error("the body is not the snapshot's JSON")
		}
		if a.Header().Get("ETag") != snap.ETag || a.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("ETag %q Cache-Control %q, want %q and no-cache", a.Header().Get("ETag"), a.Header().Get("Cache-Control"), snap.ETag)
		}
	})
}

// graphETags are the ETags of the current graph's plain and gzip
// representations, as the handler hands them out.
func graphETags(t *testing.T, h gateway.HandlerFunc) (plain, zipped string) {
	t.Helper()
	p := serve(t, h, graphRequest(""))
	z := serve(t, h, graphRequest("", "Accept-Encoding", "gzip"))
	if p.Code != http.StatusOK || z.Code != http.StatusOK {
		t.Fatalf("the graph is not served: %d %d", p.Code, z.Code)
	}
	return p.Header().Get("ETag"), z.Header().Get("ETag")
}

func TestGraphETag(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	h := graphHandler(backendOf(ws))
	plainTag, gzipTag := graphETags(t, h)

	t.Run("each representation has its own strong ETag", func(t *testing.T) {
		t.Parallel()
		snap, err := ws.Current()
		if err != nil {
			t.Fatal(err)
		}
		if plainTag != snap.ETag {
			t.Errorf("plain ETag %s, want the snapshot's %s", plainTag, snap.ETag)
		}
		if want := strings.TrimSuffix(snap.ETag, `"`) + `-gzip"`; gzipTag != want {
			t.Errorf("gzip ETag %s, want %s", gzipTag, want)
		}
		for _, tag := range []string{plainTag, gzipTag} {
			if strings.HasPrefix(tag, "W/") || len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.Count(tag, `"`) != 2 {
				t.Errorf("%s is not a strong, quoted ETag", tag)
			}
		}
	})

	cases := []struct {
		name, ifNoneMatch, acceptEncoding string
		status                            int
		etag                              string
	}{
		{"the plain ETag is 304", plainTag, "", http.StatusNotModified, plainTag},
		{"the plain ETag from a client that takes gzip is 304 naming it", plainTag, "gzip", http.StatusNotModified, plainTag},
		{"the gzip ETag is 304", gzipTag, "gzip", http.StatusNotModified, gzipTag},
		{"the weak form of the plain ETag is 304", "W/" + plainTag, "", http.StatusNotModified, plainTag},
		{"the weak form of the gzip ETag is 304", "W/" + gzipTag, "gzip", http.StatusNotModified, gzipTag},
		{"a list holding the plain ETag is 304", `"other", ` + plainTag + `, "more"`, "", http.StatusNotModified, plainTag},
		{"a list holding the gzip ETag without spaces is 304", `"other",` + gzipTag, "gzip", http.StatusNotModified, gzipTag},
		{"a list of weak ETags is 304", `W/"other", W/` + plainTag, "", http.StatusNotModified, plainTag},
		{"a list holding both names the gzip one to a client that takes gzip", plainTag + ", " + gzipTag, "gzip", http.StatusNotModified, gzipTag},
		{"a list holding both names the plain one to a client that does not take gzip", gzipTag + ", " + plainTag, "", http.StatusNotModified, plainTag},
		{"* names the gzip ETag to a client that takes gzip", "*", "gzip", http.StatusNotModified, gzipTag},
		{"* names the plain ETag to a client that does not take gzip", "*", "", http.StatusNotModified, plainTag},
		{"the gzip ETag from a client that does not take gzip is 200 plain", gzipTag, "identity", http.StatusOK, plainTag},
		{"another ETag is 200", `"other"`, "", http.StatusOK, plainTag},
		{"another ETag from a client that takes gzip is 200 gzip", `"other"`, "gzip", http.StatusOK, gzipTag},
		{"an unquoted ETag is 200", strings.Trim(plainTag, `"`), "", http.StatusOK, plainTag},
		{"a prefix of the ETag is 200", plainTag[:len(plainTag)-2] + `"`, "", http.StatusOK, plainTag},
		{"an empty If-None-Match is 200", "", "", http.StatusOK, plainTag},
		{"an empty list is 200", " , ", "", http.StatusOK, plainTag},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := graphRequest("", "If-None-Match", c.ifNoneMatch, "Accept-Encoding", c.acceptEncoding)
			a := serve(t, h, r)
			if a.Code != c.status || a.Header().Get("ETag") != c.etag {
				t.Fatalf("If-None-Match %s, Accept-Encoding %q: %d ETag %s, want %d ETag %s", c.ifNoneMatch, c.acceptEncoding, a.Code, a.Header().Get("ETag"), c.status, c.etag)
			}
			if c.status == http.StatusNotModified && a.Body.Len() != 0 {
				t.Errorf("a 304 with a %d-byte body", a.Body.Len())
			}
			if c.status == http.StatusOK && a.Body.Len() == 0 {
				t.Error("a 200 without a body")
			}
		})
	}
}

func TestAStaleGraphETagIs200WithTheNewVersion(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	h := graphHandler(backendOf(ws))
	oldPlain, oldGzip := graphETags(t, h)
	if err := os.WriteFile(filepath.Join(ws.Root(), "docs", "guide.md"), []byte("# Guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.Rebuild(); err != nil {
		t.Fatal(err)
	}
	newPlain, newGzip := graphETags(t, h)
	if newPlain == oldPlain || newGzip == oldGzip {
		t.Fatalf("the ETags did not change with a new document: %s %s", newPlain, newGzip)
	}
	snap, err := ws.Current()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ifNoneMatch, acceptEncoding, etag string }{
		{oldPlain, "", newPlain},
		{oldGzip, "gzip", newGzip},
		{oldPlain + ", " + oldGzip, "gzip", newGzip},
	} {
		a := serve(t, h, graphRequest("", "If-None-Match", c.ifNoneMatch, "Accept-Encoding", c.acceptEncoding))
		if a.Code != http.StatusOK || a.Header().Get("ETag") != c.etag {
			t.Errorf("If-None-Match %s: %d ETag %s, want 200 ETag %s", c.ifNoneMatch, a.Code, a.Header().Get("ETag"), c.etag)
		}
		body := a.Body.Bytes()
		if c.acceptEncoding == "gzip" {
			body = gunzip(t, body)
		}
		if !bytes.Equal(body, snap.JSON()) {
			t.Errorf("If-None-Match %s: the body is not the new version", c.ifNoneMatch)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the body is not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("the gzip body does not decode: %v", err)
	}
	return out
}

func TestGraphGzip(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	h := graphHandler(backendOf(ws))
	snap, err := ws.Current()
	if err != nil {
		t.Fatal(err)
	}
	plain := snap.JSON()
	cases := []struct {
		acceptEncoding string
		gzipped        bool
	}{
		{"gzip", true},
		{"br, gzip;q=0.5", true},
		{"x-gzip", true},
		{"*", true},
		{"", false},
		{"identity", false},
		{"br, deflate", false},
		{"gzip;q=0", false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("Accept-Encoding %q gzipped=%v", c.acceptEncoding, c.gzipped), func(t *testing.T) {
			t.Parallel()
			a := serve(t, h, graphRequest("", "Accept-Encoding", c.acceptEncoding))
			if a.Code != http.StatusOK {
				t.Fatalf("%d %s", a.Code, a.message())
			}
			hd := a.Header()
			if hd.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", hd.Get("Content-Type"))
			}
			if hd.Get("Content-Length") != strconv.Itoa(a.Body.Len()) {
				t.Errorf("Content-Length %q for %d bytes", hd.Get("Content-Length"), a.Body.Len())
			}
			body := a.Body.Bytes()
			if c.gzipped {
				if hd.Get("Content-Encoding") != "gzip" {
					t.Fatalf("Content-Encoding %q, want gzip", hd.Get("Content-Encoding"))
				}
				if len(body) >= len(plain) {
					t.Errorf("%d gzipped bytes for %d plain ones", len(body), len(plain))
				}
				body = gunzip(t, body)
			} else if ce, ok := hd["Content-Encoding"]; ok {
				t.Fatalf("Content-Encoding %q on a plain body", ce)
			}
			if !bytes.Equal(body, plain) {
				t.Error("the body is not exactly the plain graph")
			}
		})
	}
}

func TestGraphVaryAddsAcceptEncodingBesideCORS(t *testing.T) {
	t.Parallel()
	ws := demoWorkspace(t)
	h := graphHandler(backendOf(ws))
	plainTag, _ := graphETags(t, h)
	for _, c := range []struct{ name, ifNoneMatch, acceptEncoding string }{
		{"a plain 200", "", ""},
		{"a gzip 200", "", "gzip"},
		{"a 304", plainTag, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			w.Header().Set("Vary", "Origin") // as rs/cors leaves it
			a := serveTo(t, w, h, graphRequest("", "If-None-Match", c.ifNoneMatch, "Accept-Encoding", c.acceptEncoding))
			if got := a.Header().Values("Vary"); !slices.Equal(got, []string{"Origin", "Accept-Encoding"}) {
				t.Errorf("Vary %q, want Origin and Accept-Encoding", got)
			}
		})
	}
}
