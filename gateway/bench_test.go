package gateway

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
)

// These benchmarks put the whole pipeline (recover, access log and request
// counters, Host guard, Origin check, CORS, authenticate, method, grant) in
// front of a trivial read route and compare it with bare net/http (an
// http.ServeMux) serving the same bytes. BENCHMARKS.md records the figures;
// bench/gateway.sh reproduces them, which amounts to
//
//	go test -c -o gateway.test ./gateway
//	for i in 1 2 3 4 5 6; do ./gateway.test -test.run '^$' -test.bench '^BenchmarkSideBySide$' -test.benchmem; done | tee gateway.txt
//	go run golang.org/x/perf/cmd/benchstat@<pinned> -col /impl gateway.txt
//
// BenchmarkSideBySide measures bare then pipeline for each request; the
// script runs it COUNT times with -count 1 (go test -count would repeat each
// sub-benchmark in a row) so that drift on a shared machine hits both sides
// alike. BenchmarkBare and BenchmarkPipeline run one side alone. Nothing here
// asserts a time.

const (
	benchPath = "/api/v1/bench"
	benchHost = "127.0.0.1:7391"
	benchPort = "7391"
)

// benchBody is the ~300-byte JSON document both sides serve.
var benchBody = []byte(`{"workspace":"/src/acme","nodes":[` +
	`{"id":"services/api","kind":"project","targets":["build","test"]},` +
	`{"id":"services/web","kind":"project","targets":["build"]},` +
	`{"id":"libs/auth","kind":"project","targets":["test"]}],` +
	`"edges":[{"from":"services/api","to":"libs/auth"},{"from":"services/web","to":"libs/auth"}]}` + "\n")

// The header values are shared slices, as net/http does for its own
// defaults, so the handler itself allocates nothing and every allocation the
// pipeline reports is the pipeline's.
var (
	benchContentType   = []string{"application/json"}
	benchContentLength = []string{strconv.Itoa(len(benchBody))}
)

// serveBench is the trivial read route, identical on both sides.
func serveBench(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h["Content-Type"] = benchContentType
	h["Content-Length"] = benchContentLength
	_, _ = w.Write(benchBody)
}

// discardWriter is a ResponseWriter that allocates nothing per request: its
// header map is cleared (keeping its buckets) between requests and the body
// is counted, not kept. httptest.ResponseRecorder would allocate a map, a
// buffer and a snapshot per request and drown what is measured here.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func newDiscardWriter() *discardWriter { return &discardWriter{h: make(http.Header, 8)} }

func (d *discardWriter) Header() http.Header { return d.h }

func (d *discardWriter) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}

func (d *discardWriter) Write(b []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	d.n += len(b)
	return len(b), nil
}

func (d *discardWriter) reset() {
	clear(d.h)
	d.code, d.n = 0, 0
}

const benchRoutes = `
- name: bench.read
  path: ` + benchPath + `
  method: GET
  grant: console=read
  handler: bench
`

// benchFixture is one bare mux and one listener serving the same route.
type benchFixture struct {
	bare     http.Handler
	pipeline http.Handler
	token    string
}

func newBenchFixture(b testing.TB) *benchFixture {
	b.Helper()
	store, err := auth.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	token, _, err := store.Create(auth.KindConsole, auth.ConsoleRead, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	reg := NewRegistry()
	reg.Handle("bench", func(w http.ResponseWriter, r *http.Request) error {
		serveBench(w, r)
		return nil
	})
	table, err := Load("bench.yaml", []byte(benchRoutes), reg)
	if err != nil {
		b.Fatal(err)
	}
	l, err := NewListener(table, reg, ListenerConfig{
		Exposure: ExposureLoopback,
		Port:     benchPort,
		Tokens:   store,
		Kinds:    []auth.Kind{auth.KindConsole, auth.KindAdmin, auth.KindPair, auth.KindMCP},
		MaxBody:  1 << 20,
		// The server's own logger, at info so every request writes its
		// access line (encoded in full, then discarded).
		Log: logx.New(io.Discard, "info", "json"),
		// The request counters, as the server sets them.
		Metrics: metrics.New(),
		// Every request's access line, the most work a request does.
		AccessLog: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+benchPath, serveBench)
	return &benchFixture{bare: mux, pipeline: l, token: token}
}

// benchRequest is one of the requests every benchmark replays.
type benchRequest struct {
	name string
	// want is the status the pipeline answers; bare always answers 200.
	want int
	make func(token string) *http.Request
}

var benchRequests = []benchRequest{
	{"read", http.StatusOK, func(token string) *http.Request {
		r := newBenchRequest()
		r.Header.Set("Authorization", "Bearer "+token)
		return r
	}},
	{"cors", http.StatusOK, func(token string) *http.Request {
		r := newBenchRequest()
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Origin", "http://"+benchHost)
		return r
	}},
	{"401", http.StatusUnauthorized, func(string) *http.Request {
		return newBenchRequest()
	}},
	// A well-formed token the store does not know: the 401 a guessing
	// client gets, after a hash, both lookups and a stat of tokens.json.
	{"401unknown", http.StatusUnauthorized, func(string) *http.Request {
		r := newBenchRequest()
		r.Header.Set("Authorization", "Bearer core_console_"+strings.Repeat("A", 43))
		return r
	}},
}

func newBenchRequest() *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://"+benchHost+benchPath, nil)
	r.RemoteAddr = "127.0.0.1:51000"
	return r
}

// serveOnce serves r on h and checks the answer, outside the timed loop.
func serveOnce(tb testing.TB, h http.Handler, r *http.Request, want int) {
	tb.Helper()
	w := newDiscardWriter()
	h.ServeHTTP(w, r)
	if w.code != want {
		tb.Fatalf("status %d, want %d", w.code, want)
	}
	if want == http.StatusOK && w.n != len(benchBody) {
		tb.Fatalf("body is %d bytes, want %d", w.n, len(benchBody))
	}
}

func runServe(b *testing.B, h http.Handler, r *http.Request, want int) {
	serveOnce(b, h, r, want)
	w := newDiscardWriter()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, r)
	}
}

// TestPipelineAllocBudget holds the pipeline to the allocation goal:
// on the read route, with or without an Origin, it adds at most two
// allocations per request to what bare net/http needs. It counts
// allocations, which do not depend on the machine; it times nothing.
func TestPipelineAllocBudget(t *testing.T) {
	const budget = 2
	f := newBenchFixture(t)
	for _, br := range benchRequests {
		if br.want != http.StatusOK {
			continue
		}
		t.Run(br.name, func(t *testing.T) {
			r := br.make(f.token)
			serveOnce(t, f.bare, r, http.StatusOK)
			serveOnce(t, f.pipeline, r, br.want)
			w := newDiscardWriter()
			allocs := func(h http.Handler) float64 {
				return testing.AllocsPerRun(1000, func() {
					w.reset()
					h.ServeHTTP(w, r)
				})
			}
			bare, pipe := allocs(f.bare), allocs(f.pipeline)
			if pipe-bare > budget {
				t.Errorf("the pipeline adds %v allocations per request (bare %v, pipeline %v); the budget is %d", pipe-bare, bare, pipe, budget)
			}
		})
	}
}

// BenchmarkSideBySide runs, for each request, bare then pipeline, so that
// benchstat -col /impl puts them in adjacent columns with the delta.
func BenchmarkSideBySide(b *testing.B) {
	f := newBenchFixture(b)
	for _, br := range benchRequests {
		r := br.make(f.token)
		b.Run("req="+br.name, func(b *testing.B) {
			b.Run("impl=bare", func(b *testing.B) { runServe(b, f.bare, r, http.StatusOK) })
			b.Run("impl=pipeline", func(b *testing.B) { runServe(b, f.pipeline, r, br.want) })
		})
	}
}

// BenchmarkBare is net/http's ServeMux alone in front of the route.
func BenchmarkBare(b *testing.B) {
	f := newBenchFixture(b)
	for _, br := range benchRequests {
		r := br.make(f.token)
		b.Run("req="+br.name, func(b *testing.B) { runServe(b, f.bare, r, http.StatusOK) })
	}
}

// BenchmarkPipeline is the gateway listener alone in front of the route.
func BenchmarkPipeline(b *testing.B) {
	f := newBenchFixture(b)
	for _, br := range benchRequests {
		r := br.make(f.token)
		b.Run("req="+br.name, func(b *testing.B) { runServe(b, f.pipeline, r, br.want) })
	}
}
