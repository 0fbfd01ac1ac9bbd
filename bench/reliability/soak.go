package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/auth"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"
)

// opStats is one kind of request of the soak.
type opStats struct {
	Name string  `json:"name"`
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
}

// rssSample is the server's RSS at T seconds into the soak.
type rssSample struct {
	T   float64 `json:"t"`
	RSS int64   `json:"rss"`
}

type soakMetrics struct {
	Seconds      float64        `json:"seconds"`
	Requests     int64          `json:"requests"`
	Errors       map[string]int `json:"errors"`
	ErrorSamples []string       `json:"error_samples,omitempty"`
	Ops          []opStats      `json:"ops"`
	All          opStats        `json:"all"`
	Edits        int            `json:"edits"`
	SSEOpen      int            `json:"sse_open_at_end"`
	SSEEvents    int            `json:"sse_events_min"` // graph events the least served SSE client got
	RSSStart     int64          `json:"rss_start"`
	RSSThird     int64          `json:"rss_after_first_third"`
	RSSMax       int64          `json:"rss_max"`
	RSSEnd       int64          `json:"rss_end"`
	RSSLimit     int64          `json:"rss_limit"`
	SlopeMBMin   float64        `json:"rss_slope_mib_per_min"` // over the last two thirds
	Samples      []rssSample    `json:"rss_samples"`
	ServerExit   string         `json:"server_exit,omitempty"`
}

func soakFlags(fs *flag.FlagSet) func(*env) (*Result, error) {
	duration := fs.Duration("duration", 3*time.Minute, "how long to soak")
	conns := fs.Int("conns", 32, "concurrent request loops, each its own connection")
	sse := fs.Int("sse", 20, "SSE clients open throughout")
	editEvery := fs.Duration("edit-every", 5*time.Second, "edit README.md's title this often, so the graph (and its caches) change and the streams carry events (0: never)")
	growPct := fs.Float64("grow-pct", 10, "PASS only if the end RSS is at most the RSS after the first third plus this percentage...")
	growMB := fs.Int64("grow-mb", 20, "...plus this many MiB")
	return func(e *env) (*Result, error) {
		return runSoak(e, *duration, *conns, *sse, *editEvery, *growPct, *growMB)
	}
}

// errClass names the kind of a failed request.
func errClass(err error) string {
	var ce *connect.Error
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		return "connect " + ce.Code().String()
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	default:
		return "transport"
	}
}

type httpStatusError struct {
	code int
	body string
}

func (e httpStatusError) Error() string { return fmt.Sprintf("HTTP %d: %.200s", e.code, e.body) }

func runSoak(e *env, duration time.Duration, conns, nSSE int, editEvery time.Duration, growPct float64, growMB int64) (*Result, error) {
	ws, err := e.workspace("soak")
	if err != nil {
		return nil, err
	}
	srv, err := e.startServer(ws, e.home("soak"))
	if err != nil {
		return nil, err
	}
	token, err := srv.Mint("console=read")
	if err != nil {
		return nil, err
	}
	m := &soakMetrics{Errors: map[string]int{}}
	res := &Result{Metrics: m}

	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	rpc := &http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: token, Next: tr}}
	status := statusv1alpha1connect.NewStatusServiceClient(rpc, srv.URL)
	viewer := viewerv1alpha1connect.NewViewerServiceClient(rpc, srv.URL)
	get := func(ctx context.Context, path, encoding string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept-Encoding", encoding)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		switch {
		case err != nil:
			return err
		case resp.StatusCode != http.StatusOK:
			return httpStatusError{resp.StatusCode, ""}
		case n == 0:
			return errors.New("empty body")
		case encoding == "gzip" && resp.Header.Get("Content-Encoding") != "gzip":
			return errors.New("asked for gzip, got Content-Encoding " + resp.Header.Get("Content-Encoding"))
		}
		return nil
	}
	ops := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"GET /api/v1/graph (gzip)", func(ctx context.Context) error { return get(ctx, "/api/v1/graph", "gzip") }},
		{"GET /api/v1/graph?select=project:api", func(ctx context.Context) error {
			return get(ctx, "/api/v1/graph?select=project:api", "identity")
		}},
		{"StatusService/GetStatus", func(ctx context.Context) error {
			r, err := status.GetStatus(ctx, &statusv1alpha1.GetStatusRequest{})
			if err == nil && r.GetWorkspace() == "" {
				err = errors.New("GetStatus: empty workspace")
			}
			return err
		}},
		{"ViewerService/ListRuns", func(ctx context.Context) error {
			_, err := viewer.ListRuns(ctx, &viewerv1alpha1.ListRunsRequest{})
			return err
		}},
	}

	var sse []*sseClient
	for i := 0; i < nSSE; i++ {
		c, err := openSSE(i, srv.URL, token)
		if err != nil {
			return nil, fmt.Errorf("SSE client %d: %w", i, err)
		}
		sse = append(sse, c)
		e.atClose(c.close)
	}

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	t0 := time.Now()
	m.RSSStart = srv.RSS()
	var wg sync.WaitGroup

	// The server's RSS, every second.
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			m.Samples = append(m.Samples, rssSample{T: round2(time.Since(t0).Seconds()), RSS: srv.RSS()})
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	// Edits of the workspace.
	if editEvery > 0 {
		readme := filepath.Join(ws, "README.md")
		doc, err := os.ReadFile(readme)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(editEvery)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					m.Edits++
					_ = writeFileAtomic(ws, readme, retitle(doc, fmt.Sprintf("Demo shop soak %d", m.Edits)))
				}
			}
		}()
	}

	// The request loops.
	lat := make([][][]float64, conns) // [loop][op] -> ms
	var requests atomic.Int64
	var emu sync.Mutex
	for w := 0; w < conns; w++ {
		lat[w] = make([][]float64, len(ops))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ctx.Err() == nil; i++ {
				k := i % len(ops)
				t := time.Now()
				err := ops[k].call(ctx)
				if ctx.Err() != nil {
					return // cut short by the end of the soak: not counted
				}
				requests.Add(1)
				if err != nil {
					class := errClass(err)
					var he httpStatusError
					if errors.As(err, &he) {
						class = fmt.Sprintf("HTTP %dxx", he.code/100)
					}
					emu.Lock()
					m.Errors[class]++
					if len(m.ErrorSamples) < 10 {
						m.ErrorSamples = append(m.ErrorSamples, ops[k].name+": "+err.Error())
					}
					emu.Unlock()
					continue
				}
				lat[w][k] = append(lat[w][k], stats.Ms(time.Since(t)))
			}
		}()
	}
	last := time.Now()
	for ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		if time.Since(last) >= 30*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "soak: %.0fs, %d requests, RSS %s\n", time.Since(t0).Seconds(), requests.Load(), mib(srv.RSS()))
		}
	}
	wg.Wait()
	m.Seconds = time.Since(t0).Seconds()
	m.Requests = requests.Load()

	var all []float64
	for k, op := range ops {
		var xs []float64
		for w := range lat {
			xs = append(xs, lat[w][k]...)
		}
		all = append(all, xs...)
		m.Ops = append(m.Ops, opStats{op.name, len(xs), stats.Percentile(xs, 50), stats.Percentile(xs, 99), stats.Percentile(xs, 100)})
	}
	m.All = opStats{"all", len(all), stats.Percentile(all, 50), stats.Percentile(all, 99), stats.Percentile(all, 100)}
	m.SSEEvents = -1
	for _, c := range sse {
		if c.failure() == nil {
			m.SSEOpen++
		}
		if n := c.received(); m.SSEEvents < 0 || n < m.SSEEvents {
			m.SSEEvents = n
		}
	}

	// RSS: the first third is warm-up; the rest must level off.
	third := duration.Seconds() / 3
	var tail []rssSample
	for _, s := range m.Samples {
		m.RSSMax = max(m.RSSMax, s.RSS)
		if s.T <= third {
			m.RSSThird = s.RSS
		} else {
			tail = append(tail, s)
		}
	}
	if n := len(m.Samples); n > 0 {
		m.RSSEnd = m.Samples[n-1].RSS
	}
	m.RSSLimit = int64(float64(m.RSSThird)*(1+growPct/100)) + growMB<<20
	m.SlopeMBMin = round2(slope(tail) * 60 / (1 << 20))

	for _, c := range sse {
		c.close()
	}
	tr.CloseIdleConnections()
	stopFail := srv.stopCheck()
	m.ServerExit = stopFail

	fmt.Printf("%d request loops for %.0f s, round-robin over the four requests below, with %d SSE clients open throughout and README.md's title edited every %s (%d edits)\n\n",
		conns, m.Seconds, nSSE, editEvery, m.Edits)
	fmt.Println("| request | n | p50 | p99 | max |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	for _, o := range append(m.Ops, m.All) {
		fmt.Printf("| %s | %d | %.1f ms | %.1f ms | %.0f ms |\n", o.Name, o.N, o.P50, o.P99, o.Max)
	}
	fmt.Println()
	var classes []string
	for c, n := range m.Errors {
		classes = append(classes, fmt.Sprintf("%s: %d", c, n))
	}
	sort.Strings(classes)
	errText := "none"
	if len(classes) > 0 {
		errText = strings.Join(classes, ", ")
	}
	fmt.Println("| measure | value |")
	fmt.Println("| --- | ---: |")
	fmt.Printf("| requests | %d (%.0f/s) |\n", m.Requests, float64(m.Requests)/m.Seconds)
	fmt.Printf("| errors | %s |\n", errText)
	fmt.Printf("| SSE clients still open at the end | %d of %d (the least served got %d graph events) |\n", m.SSEOpen, nSSE, max(m.SSEEvents, 0))
	fmt.Printf("| server RSS start / after the first third / max / end | %s / %s / %s / %s |\n", mib(m.RSSStart), mib(m.RSSThird), mib(m.RSSMax), mib(m.RSSEnd))
	fmt.Printf("| RSS slope over the last two thirds | %+.2f MiB/min |\n", m.SlopeMBMin)
	fmt.Printf("| RSS bound (after the first third + %.0f%% + %d MiB) | %s |\n", growPct, growMB, mib(m.RSSLimit))
	for _, s := range m.ErrorSamples {
		fmt.Println("- error:", s)
	}

	var fails []string
	if n := m.Requests - int64(len(all)); n > 0 {
		fails = append(fails, fmt.Sprintf("%d of %d requests failed (%s)", n, m.Requests, errText))
	}
	if m.SSEOpen < nSSE {
		fails = append(fails, fmt.Sprintf("%d of %d SSE streams ended", nSSE-m.SSEOpen, nSSE))
	}
	if m.RSSEnd > m.RSSLimit {
		fails = append(fails, fmt.Sprintf("RSS grew: %s at the end, over the bound %s (slope %+.2f MiB/min)", mib(m.RSSEnd), mib(m.RSSLimit), m.SlopeMBMin))
	}
	res.judge(fails, stopFail, func() string {
		return fmt.Sprintf("%d requests, none failed, p99 %.0f ms; RSS %s → %s, bound %s, slope %+.2f MiB/min",
			m.Requests, m.All.P99, mib(m.RSSThird), mib(m.RSSEnd), mib(m.RSSLimit), m.SlopeMBMin)
	})
	return res, nil
}

// slope is the least-squares slope of RSS over time, in bytes per second.
func slope(xs []rssSample) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var st, sr, stt, str float64
	for _, s := range xs {
		r := float64(s.RSS)
		st += s.T
		sr += r
		stt += s.T * s.T
		str += s.T * r
	}
	d := n*stt - st*st
	if d == 0 {
		return 0
	}
	return (n*str - st*sr) / d
}
