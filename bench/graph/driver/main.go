// Command driver measures core's knowledge graph from the outside, on a
// workspace made by bench/synth, against universal-ctags on the same tree.
// bench/graph/run.sh calls it; every number is printed as a markdown table
// and saved as JSON (-json).
//
//	driver time   [-dir DIR] -- ARGV...
//	    one run of ARGV (output discarded): wall and CPU seconds and peak
//	    RSS in KB on one line, timed to the microsecond around fork and
//	    wait (bench/graph/real.sh; /usr/bin/time rounds wall time to 10 ms
//	    and a shell's clock reads add milliseconds of their own)
//	driver cli    -core BIN -ws DIR [-reps 3]
//	    cold `core graph --json` (fresh CORE_CACHE_DIR), warm (cache kept),
//	    `ctags -R --fields=+n`, interleaved per repetition; medians.
//	driver server -core BIN -ws DIR -only-start -symbol NAME [-starts 3]
//	    only the server starts, on any workspace (bench/graph/real.sh)
//	driver server -core BIN -ws DIR -summary SYNTH.json [-baseline CLI.json]
//	    server start (fresh cache) to the first symbol answered; GET
//	    /api/v1/graph latency (identity, gzip, 304); symbol and project
//	    queries; peak RSS; change-to-event latency over SSE with the default
//	    debounce and with CORE_EVENTS_DEBOUNCE=5ms, for symbol-only edits
//	    (append a function) and for edits that also toggle an import.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corehq/core/bench/internal/stats"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver cli|server [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "time":
		err = timeCmd(os.Args[2:])
	case "cli":
		err = cliCmd(os.Args[2:])
	case "server":
		err = serverCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

// ---- helpers ----

type run struct {
	WallMS  float64 `json:"wall_ms"`
	CPUMS   float64 `json:"cpu_ms"` // user + system
	MaxRSSK int64   `json:"max_rss_kb"`
}

// timed runs argv in dir with extra env, stdout to /dev/null.
func timed(dir string, env []string, argv ...string) (run, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t := time.Now()
	err := cmd.Run()
	wall := time.Since(t)
	if err != nil {
		return run{}, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return run{WallMS: stats.Ms(wall), CPUMS: stats.Ms(cpu), MaxRSSK: ru.Maxrss}, nil
}

func timeCmd(args []string) error {
	fs := flag.NewFlagSet("time", flag.ExitOnError)
	dir := fs.String("dir", "", "directory to run in")
	fs.Parse(args)
	if fs.NArg() == 0 {
		return errors.New("time: no command (driver time [-dir DIR] -- ARGV...)")
	}
	r, err := timed(*dir, nil, fs.Args()...)
	if err != nil {
		return err
	}
	fmt.Printf("%.6f %.6f %d\n", r.WallMS/1000, r.CPUMS/1000, r.MaxRSSK)
	return nil
}

func writeJSON(path string, v any) {
	if path == "" {
		return
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	_ = os.WriteFile(path, append(b, '\n'), 0o644)
}

// ---- cli ----

type CLIResult struct {
	Workspace string `json:"workspace"`
	Reps      int    `json:"reps"`
	Cold      []run  `json:"cold"`
	ColdOne   []run  `json:"cold_one_core"` // GOMAXPROCS=1, for the serial/parallel split
	Warm      []run  `json:"warm"`
	Ctags     []run  `json:"ctags"`
	Query     *run   `json:"query_symbol_warm,omitempty"`
	ColdMS    float64
	WarmMS    float64
	CtagsMS   float64
	CacheKB   int64
	TagsKB    int64
	JSONBytes int64
}

func walls(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.WallMS
	}
	return out
}

func cpus(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.CPUMS
	}
	return out
}

func rsss(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = float64(r.MaxRSSK)
	}
	return out
}

func dirKB(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n / 1024
}

func cliCmd(args []string) error {
	fs := flag.NewFlagSet("cli", flag.ExitOnError)
	core := fs.String("core", "/tmp/bench-core", "core binary")
	ws := fs.String("ws", "", "workspace")
	reps := fs.Int("reps", 3, "repetitions")
	symbol := fs.String("symbol", "", "also time one `core query symbol:NAME --json` on the warm cache")
	out := fs.String("json", "", "write the results here")
	_ = fs.Parse(args)
	tmp, err := os.MkdirTemp("", "core-bench-cli-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tags := filepath.Join(tmp, "tags")
	ctags := []string{"ctags", "-R", "--fields=+n", "-f", tags, "."}
	graph := []string{"sh", "-c", `exec "$0" graph --json > /dev/null`, *core}
	graphToFile := []string{"sh", "-c", `exec "$0" graph --json > "$1"`, *core, filepath.Join(tmp, "graph.json")}
	res := CLIResult{Workspace: *ws, Reps: *reps}

	// Warm-up, not counted: the page cache holds the tree after it, for
	// both tools alike.
	if _, err := timed(*ws, nil, ctags...); err != nil {
		return err
	}
	cache := filepath.Join(tmp, "cache")
	if _, err := timed(*ws, []string{"CORE_CACHE_DIR=" + cache}, graphToFile...); err != nil {
		return err
	}
	for i := 0; i < *reps; i++ {
		_ = os.RemoveAll(cache)
		_ = os.Remove(tags)
		r, err := timed(*ws, nil, ctags...)
		if err != nil {
			return err
		}
		res.Ctags = append(res.Ctags, r)
		if r, err = timed(*ws, []string{"CORE_CACHE_DIR=" + cache}, graph...); err != nil {
			return err
		}
		res.Cold = append(res.Cold, r)
		if r, err = timed(*ws, []string{"CORE_CACHE_DIR=" + cache}, graph...); err != nil {
			return err
		}
		res.Warm = append(res.Warm, r)
		_ = os.RemoveAll(cache)
		if r, err = timed(*ws, []string{"CORE_CACHE_DIR=" + cache, "GOMAXPROCS=1"}, graph...); err != nil {
			return err
		}
		res.ColdOne = append(res.ColdOne, r)
		fmt.Fprintf(os.Stderr, "  rep %d: ctags %.0f ms, cold %.0f ms, warm %.0f ms, cold on one core %.0f ms\n", i+1, res.Ctags[i].WallMS, res.Cold[i].WallMS, res.Warm[i].WallMS, res.ColdOne[i].WallMS)
	}
	res.ColdMS, res.WarmMS, res.CtagsMS = stats.Median(walls(res.Cold)), stats.Median(walls(res.Warm)), stats.Median(walls(res.Ctags))
	res.CacheKB, res.TagsKB = dirKB(cache), dirKB(tags)
	if st, err := os.Stat(filepath.Join(tmp, "graph.json")); err == nil {
		res.JSONBytes = st.Size()
	}
	if *symbol != "" {
		r, err := timed(*ws, []string{"CORE_CACHE_DIR=" + cache}, *core, "query", "symbol:"+*symbol, "--json")
		if err != nil {
			return err
		}
		res.Query = &r
	}

	fmt.Printf("\n%s: %d repetitions, medians (wall; CPU = user+sys; peak RSS)\n\n", *ws, *reps)
	fmt.Println("| run | wall | CPU | peak RSS | vs ctags (wall) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	row := func(name string, rs []run) {
		fmt.Printf("| %s | %.0f ms | %.0f ms | %.0f MB | %.2f× |\n", name, stats.Median(walls(rs)), stats.Median(cpus(rs)), stats.Median(rsss(rs))/1024, stats.Median(walls(rs))/res.CtagsMS)
	}
	row("`ctags -R --fields=+n`", res.Ctags)
	row("`core graph --json`, cold (empty cache)", res.Cold)
	row("`core graph --json`, warm (cache present)", res.Warm)
	row("`core graph --json`, cold, `GOMAXPROCS=1`", res.ColdOne)
	if res.Query != nil {
		row("`core query symbol:"+*symbol+" --json`, warm", []run{*res.Query})
	}
	fmt.Printf("\nwarm / cold = %.2f; cache %0.1f MB, tags file %0.1f MB, graph JSON %.1f MB\n", res.WarmMS/res.ColdMS, float64(res.CacheKB)/1024, float64(res.TagsKB)/1024, float64(res.JSONBytes)/1e6)
	fmt.Printf("all walls (ms): ctags %v, cold %v, warm %v, cold on one core %v\n", walls(res.Ctags), walls(res.Cold), walls(res.Warm), walls(res.ColdOne))
	// Amdahl from the two core counts this machine has: T(n) = S + P/n.
	if n := runtime.NumCPU(); n >= 2 && len(res.ColdOne) > 0 {
		t1, tn := stats.Median(walls(res.ColdOne)), res.ColdMS
		p := (t1 - tn) * float64(n) / float64(n-1)
		sSer := t1 - p
		fmt.Printf("cold split (Amdahl, from 1 and %d cores): serial %.0f ms, parallel %.0f ms; projected cold on 4 cores %.0f ms (%.2f× ctags), on 8 cores %.0f ms (%.2f× ctags); ctags -R runs on one core\n",
			n, sSer, p, sSer+p/4, (sSer+p/4)/res.CtagsMS, sSer+p/8, (sSer+p/8)/res.CtagsMS)
	}
	writeJSON(*out, res)
	return nil
}

// ---- server ----

type synthSummary struct {
	SampleSymbols []string `json:"sample_symbols"`
	SampleProject string   `json:"sample_project"`
	EditFile      string   `json:"edit_file"`
	ToggleImport  string   `json:"toggle_import"`
}

type server struct {
	cmd    *exec.Cmd
	url    string
	start  time.Time
	listen time.Duration // process start to the serving line
	stderr *os.File
}

var servingLine = regexp.MustCompile(`core server: serving .* at (http://\S+)`)

func startServer(core, ws, cache string, env []string) (*server, error) {
	cmd := exec.Command(core, "--workspace", ws, "--log-level", "warn", "server", "start", "--address", "127.0.0.1:0")
	cmd.Env = append(append(os.Environ(), "CORE_CACHE_DIR="+cache), env...)
	errf, err := os.CreateTemp("", "core-bench-server-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stderr: errf}
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			_ = cmd.Wait()
			b, _ := os.ReadFile(errf.Name())
			return nil, fmt.Errorf("server exited before serving: %s", b)
		}
		s.url = u
		s.listen = time.Since(s.start)
	case <-time.After(10 * time.Minute):
		s.stop()
		return nil, errors.New("server did not start within 10 minutes")
	}
	return s, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.stderr.Close()
	_ = os.Remove(s.stderr.Name())
}

func (s *server) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

func mintToken(core, ws, cache string) (string, error) {
	cmd := exec.Command(core, "--workspace", ws, "config", "console", "token", "create")
	cmd.Env = append(os.Environ(), "CORE_CACHE_DIR="+cache)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

type client struct {
	c     *http.Client
	token string
}

func newClient(token string) *client {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}
	return &client{c: &http.Client{Transport: tr, Timeout: 5 * time.Minute}, token: token}
}

// get returns status, body length, ETag and the time to the last byte; the
// body itself only when keep is set (timed requests discard it, so that a
// growing client buffer does not count as server latency).
func (c *client) get(u string, hdr map[string]string, keep ...bool) (int, int64, string, time.Duration, []byte, error) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	t := time.Now()
	resp, err := c.c.Do(req)
	if err != nil {
		return 0, 0, "", 0, nil, err
	}
	var buf bytes.Buffer
	var dst io.Writer = io.Discard
	if len(keep) > 0 && keep[0] {
		dst = &buf
	}
	n, err := io.Copy(dst, resp.Body)
	resp.Body.Close()
	d := time.Since(t)
	return resp.StatusCode, n, resp.Header.Get("ETag"), d, buf.Bytes(), err
}

type Latency struct {
	Name  string  `json:"name"`
	N     int     `json:"n"`
	Bytes int64   `json:"bytes"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
	Note  string  `json:"note,omitempty"`
}

func latency(name string, n int, budget time.Duration, f func(i int) (int64, time.Duration, error)) (Latency, error) {
	var xs []float64
	var size int64
	deadline := time.Now().Add(budget)
	for i := 0; i < n; i++ {
		b, d, err := f(i)
		if err != nil {
			return Latency{}, fmt.Errorf("%s: %w", name, err)
		}
		size = b
		xs = append(xs, stats.Ms(d))
		if i >= 9 && time.Now().After(deadline) {
			break
		}
	}
	return Latency{Name: name, N: len(xs), Bytes: size, P50: stats.Percentile(xs, 50), P95: stats.Percentile(xs, 95), P99: stats.Percentile(xs, 99), Max: stats.Percentile(xs, 100)}, nil
}

type Events struct {
	Debounce string `json:"debounce"`
	// Edit is what every sample changes in the edited Go file: "import"
	// appends a function and adds or removes one import (the default graph
	// changes); "symbols" only appends a function (a body/symbol-only
	// change: the default graph stays as it is, the symbols change).
	Edit     string    `json:"edit"`
	Samples  int       `json:"samples"`
	Timeouts int       `json:"timeouts"`
	P50      float64   `json:"p50_ms"`
	P90      float64   `json:"p90_ms"`
	P99      float64   `json:"p99_ms"`
	Max      float64   `json:"max_ms"`
	Min      float64   `json:"min_ms"`
	WithSymV int       `json:"events_with_symbols_version"` // events whose data carries symbols_version
	All      []float64 `json:"all_ms"`
	// After a symbols series: the first query for the last appended
	// function (the symbol graph is rebuilt after an edit), and whether
	// the answer contained it.
	SymbolAfterEditMS    float64 `json:"symbol_query_after_edit_ms,omitempty"`
	SymbolAfterEditFound bool    `json:"symbol_query_after_edit_found,omitempty"`
	SymbolAgainMS        float64 `json:"symbol_query_again_ms,omitempty"`
}

type ServerResult struct {
	Workspace      string    `json:"workspace"`
	StartListenMS  []float64 `json:"start_to_listen_ms"`
	StartSymbolMS  []float64 `json:"start_to_first_symbol_ms"`
	CtagsMS        float64   `json:"ctags_ms"`
	WarmListenMS   float64   `json:"warm_start_to_listen_ms"`
	Latencies      []Latency `json:"latencies"`
	HWMAfterQueryK int64     `json:"vmhwm_after_queries_kb"`
	RSSAfterQueryK int64     `json:"vmrss_after_queries_kb"`
	HWMEndK        int64     `json:"vmhwm_end_kb"`
	Events         []Events  `json:"events"`
}

// firstSymbol polls a symbol query until it answers with the symbol.
func firstSymbol(c *client, base, name string) error {
	u := base + "/api/v1/graph?select=" + url.QueryEscape("symbol:"+name)
	want := []byte(`"kind":"symbol","name":"` + name + `"`)
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		st, _, _, _, body, err := c.get(u, nil, true)
		if err == nil && st == 200 && bytes.Contains(body, want) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("no answer with symbol %s", name)
}

func serverCmd(args []string) error {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	core := fs.String("core", "/tmp/bench-core", "core binary")
	ws := fs.String("ws", "", "workspace")
	summaryPath := fs.String("summary", "", "bench/synth's summary of the workspace")
	baseline := fs.String("baseline", "", "the cli command's JSON, for the ctags time")
	starts := fs.Int("starts", 3, "cold server starts timed to the first symbol")
	n := fs.Int("n", 300, "requests per GET /api/v1/graph variant")
	nq := fs.Int("nq", 100, "requests per query variant (within -qbudget)")
	qbudget := fs.Duration("qbudget", 30*time.Second, "time budget per query variant (at least 10 requests)")
	samples := fs.Int("samples", 120, "change-to-event samples per debounce and kind of edit (symbol-only, import)")
	gap := fs.Duration("gap", 150*time.Millisecond, "quiet time between change samples")
	debounces := fs.String("debounces", "default,5ms", "debounce settings to measure change-to-event with (default = unset)")
	out := fs.String("json", "", "write the results here")
	onlyStart := fs.Bool("only-start", false, "time the server starts only, then stop")
	symbol := fs.String("symbol", "", "with -only-start and no -summary: the symbol to ask for")
	_ = fs.Parse(args)

	var sum synthSummary
	if *symbol != "" && *summaryPath == "" && *onlyStart {
		sum.SampleSymbols = []string{*symbol}
	} else {
		b, err := os.ReadFile(*summaryPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			return err
		}
	}
	res := ServerResult{Workspace: *ws}
	if *baseline != "" {
		var cr CLIResult
		if b, err := os.ReadFile(*baseline); err == nil && json.Unmarshal(b, &cr) == nil {
			res.CtagsMS = cr.CtagsMS
		}
	}
	tmp, err := os.MkdirTemp("", "core-bench-server-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// 1. Server start (fresh cache) to the first symbol answered.
	var srv *server
	var c *client
	var cache string
	for i := 0; i < *starts; i++ {
		cache = filepath.Join(tmp, fmt.Sprintf("cache%d", i))
		tok, err := mintToken(*core, *ws, cache) // before the clock starts
		if err != nil {
			return err
		}
		c = newClient(tok)
		s, err := startServer(*core, *ws, cache, nil)
		if err != nil {
			return err
		}
		if err := firstSymbol(c, s.url, sum.SampleSymbols[0]); err != nil {
			s.stop()
			return err
		}
		sym := time.Since(s.start)
		res.StartListenMS = append(res.StartListenMS, stats.Ms(s.listen))
		res.StartSymbolMS = append(res.StartSymbolMS, stats.Ms(sym))
		fmt.Fprintf(os.Stderr, "  start %d: listening after %.0f ms, first symbol after %.0f ms\n", i+1, stats.Ms(s.listen), stats.Ms(sym))
		if i < *starts-1 {
			s.stop()
			_ = os.RemoveAll(cache)
		} else {
			srv = s
		}
	}

	if *onlyStart {
		srv.stop()
		return nil
	}

	// 2. GET /api/v1/graph: identity, gzip, revalidation.
	base := srv.url + "/api/v1/graph"
	st, size, etag, _, _, err := c.get(base, nil)
	if err != nil || st != 200 {
		srv.stop()
		return fmt.Errorf("GET graph: %d %v", st, err)
	}
	for i := 0; i < 5; i++ { // warm-up
		_, _, _, _, _, _ = c.get(base, nil)
		_, _, _, _, _, _ = c.get(base, map[string]string{"Accept-Encoding": "gzip"})
	}
	check := func(want int, hdr map[string]string) func(int) (int64, time.Duration, error) {
		return func(int) (int64, time.Duration, error) {
			st, n, _, d, _, err := c.get(base, hdr)
			if err == nil && st != want {
				err = fmt.Errorf("status %d, want %d", st, want)
			}
			return n, d, err
		}
	}
	add := func(l Latency, err error) error {
		if err != nil {
			return err
		}
		res.Latencies = append(res.Latencies, l)
		fmt.Fprintf(os.Stderr, "  %s: p50 %.2f ms (n=%d)\n", l.Name, l.P50, l.N)
		return nil
	}
	if err := add(latency("GET /api/v1/graph (identity)", *n, 2*time.Minute, check(200, nil))); err != nil {
		srv.stop()
		return err
	}
	if err := add(latency("GET /api/v1/graph (Accept-Encoding: gzip)", *n, 2*time.Minute, check(200, map[string]string{"Accept-Encoding": "gzip"}))); err != nil {
		srv.stop()
		return err
	}
	if err := add(latency("GET /api/v1/graph (If-None-Match → 304)", *n, 2*time.Minute, check(304, map[string]string{"If-None-Match": etag}))); err != nil {
		srv.stop()
		return err
	}
	_ = size

	// 3. Queries, after the first symbol load (done above).
	qget := func(terms func(i int) string) func(int) (int64, time.Duration, error) {
		return func(i int) (int64, time.Duration, error) {
			st, n, _, d, _, err := c.get(base+"?select="+url.QueryEscape(terms(i)), nil)
			if err == nil && st != 200 {
				err = fmt.Errorf("status %d", st)
			}
			return n, d, err
		}
	}
	if err := add(latency("select=symbol:NAME (10 names in turn)", *nq, *qbudget, qget(func(i int) string {
		return "symbol:" + sum.SampleSymbols[i%len(sum.SampleSymbols)]
	}))); err != nil {
		srv.stop()
		return err
	}
	if err := add(latency("select=project:"+sum.SampleProject+" depth:2", *nq, *qbudget, qget(func(int) string {
		return "project:" + sum.SampleProject + " depth:2"
	}))); err != nil {
		srv.stop()
		return err
	}
	res.HWMAfterQueryK, res.RSSAfterQueryK = srv.status("VmHWM"), srv.status("VmRSS")

	// 4. Change to `event: graph`.
	for _, db := range strings.Split(*debounces, ",") {
		if db != "default" {
			srv.stop()
			t := time.Now()
			s, err := startServer(*core, *ws, cache, []string{"CORE_EVENTS_DEBOUNCE=" + db})
			if err != nil {
				return err
			}
			srv = s
			res.WarmListenMS = stats.Ms(time.Since(t))
		}
		evs, err := changeToEvent(srv.url, c.token, *ws, sum, db, *samples, *gap)
		if err != nil {
			srv.stop()
			return err
		}
		res.Events = append(res.Events, evs...)
		for _, ev := range evs {
			fmt.Fprintf(os.Stderr, "  change-to-event (%s, %s edits): p50 %.1f ms p99 %.1f ms, %d timeouts\n", db, ev.Edit, ev.P50, ev.P99, ev.Timeouts)
		}
		if res.HWMEndK == 0 {
			res.HWMEndK = srv.status("VmHWM")
		}
	}
	srv.stop()
	report(res)
	writeJSON(*out, res)
	return nil
}

// variant is the edited text of the Go file: its original text with an
// import of toggle added when with is set, and one function appended.
func variant(src []byte, toggle string, with bool, k int) []byte {
	s := string(src)
	if with && toggle != "" {
		s = strings.Replace(s, "import (\n", "import (\n\t_ "+strconv.Quote(toggle)+"\n", 1)
	}
	return []byte(s + fmt.Sprintf("\n// BenchAppended%d is appended by bench/graph.\nfunc BenchAppended%d() int { return %d }\n", k, k, k))
}

type sseEvent struct {
	at   time.Time
	data string
}

// changeToEvent measures, over one SSE connection, from just before each
// write of the edit file to its `event: graph` line: first a series of
// symbol-only edits, then a series that also toggles an import. It returns
// one Events per series.
func changeToEvent(base, token, ws string, sum synthSummary, debounce string, samples int, gap time.Duration) ([]Events, error) {
	abs := filepath.Join(ws, filepath.FromSlash(sum.EditFile))
	orig, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.WriteFile(abs, orig, 0o644) }()

	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("events: %s", resp.Status)
	}
	got := make(chan sseEvent, 1024)
	go func() {
		rd := bufio.NewReader(resp.Body)
		var cur *sseEvent
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "event: graph":
				cur = &sseEvent{at: time.Now()}
			case cur != nil && strings.HasPrefix(line, "data:"):
				cur.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			case line == "" && cur != nil:
				got <- *cur
				cur = nil
			}
		}
	}()
	drain := func() {
		for {
			select {
			case <-got:
			default:
				return
			}
		}
	}
	wait := func(t0 time.Time, timeout time.Duration) (time.Duration, string, bool) {
		select {
		case e := <-got:
			return e.at.Sub(t0), e.data, true
		case <-time.After(timeout):
			return 0, "", false
		}
	}
	time.Sleep(500 * time.Millisecond)

	series := func(edit string, n int, variantOf func(k int) []byte, then func() error) (Events, error) {
		ev := Events{Debounce: debounce, Edit: edit}
		for k := 0; k < n; k++ {
			time.Sleep(gap)
			drain()
			t0 := time.Now()
			if err := os.WriteFile(abs, variantOf(k), 0o644); err != nil {
				return ev, err
			}
			d, data, ok := wait(t0, 15*time.Second)
			if !ok {
				ev.Timeouts++
				continue
			}
			if strings.Contains(data, `"symbols_version"`) {
				ev.WithSymV++
			}
			if then != nil {
				if err := then(); err != nil {
					return ev, err
				}
				d = time.Since(t0)
			}
			ev.All = append(ev.All, stats.Ms(d))
		}
		ev.Samples = len(ev.All)
		ev.P50, ev.P90, ev.P99, ev.Max, ev.Min = stats.Percentile(ev.All, 50), stats.Percentile(ev.All, 90), stats.Percentile(ev.All, 99), stats.Percentile(ev.All, 100), stats.Percentile(ev.All, 0)
		return ev, nil
	}
	var out []Events
	// 1. Edits that only append a function (k from 1000 so the names never
	// repeat the import series'): the default graph stays the same.
	sym, err := series("symbols", samples, func(k int) []byte { return variant(orig, "", false, 1000+k) }, nil)
	if err != nil {
		return nil, err
	}
	// The symbol graph is rebuilt after an edit: time the first query for
	// the function the last edit appended, then the same query again.
	if samples > 0 {
		c := newClient(token)
		name := fmt.Sprintf("BenchAppended%d", 1000+samples-1)
		u := base + "/api/v1/graph?select=" + url.QueryEscape("symbol:"+name)
		st, _, _, d, body, err := c.get(u, nil, true)
		if err == nil && st == 200 {
			sym.SymbolAfterEditMS = stats.Ms(d)
			sym.SymbolAfterEditFound = bytes.Contains(body, []byte(`"name":"`+name+`"`))
			if _, _, _, d, _, err := c.get(u, nil); err == nil {
				sym.SymbolAgainMS = stats.Ms(d)
			}
		}
	}
	out = append(out, sym)
	// 2. Edits that also add or remove an import: the default graph changes.
	imp, err := series("import", samples, func(k int) []byte { return variant(orig, sum.ToggleImport, k%2 == 0, k) }, nil)
	if err != nil {
		return nil, err
	}
	out = append(out, imp)
	// 3. The same edits, timed until the new graph has been fetched the way
	// the console fetches it after the event (gzip): the version is laid
	// out and encoded on this first read.
	c := newClient(token)
	fetch := func() error {
		st, _, _, _, _, err := c.get(base+"/api/v1/graph", map[string]string{"Accept-Encoding": "gzip"}, true)
		if err == nil && st != 200 {
			err = fmt.Errorf("GET /api/v1/graph after an edit: %d", st)
		}
		return err
	}
	got2, err := series("import+get", min(samples, 30), func(k int) []byte { return variant(orig, sum.ToggleImport, k%2 == 0, 2000+k) }, fetch)
	if err != nil {
		return nil, err
	}
	out = append(out, got2)
	// Put the file back and let the server catch up before it is stopped.
	_ = os.WriteFile(abs, orig, 0o644)
	_, _, _ = wait(time.Now(), 15*time.Second)
	return out, nil
}

func report(r ServerResult) {
	fmt.Printf("\n%s: server\n\n", r.Workspace)
	fmt.Println("| measure | median | all runs | vs ctags -R |")
	fmt.Println("| --- | ---: | --- | ---: |")
	ratio := func(x float64) string {
		if r.CtagsMS == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", x/r.CtagsMS)
	}
	fmt.Printf("| `core server start` (fresh cache) to listening | %.0f ms | %v | %s |\n", stats.Median(r.StartListenMS), r.StartListenMS, ratio(stats.Median(r.StartListenMS)))
	fmt.Printf("| `core server start` (fresh cache) to first `symbol:` answer | %.0f ms | %v | %s |\n", stats.Median(r.StartSymbolMS), r.StartSymbolMS, ratio(stats.Median(r.StartSymbolMS)))
	if r.WarmListenMS > 0 {
		fmt.Printf("| `core server start` (warm cache) to listening | %.0f ms | | %s |\n", r.WarmListenMS, ratio(r.WarmListenMS))
	}
	if r.CtagsMS > 0 {
		fmt.Printf("| `ctags -R --fields=+n` (same run, cli step) | %.0f ms | | 1.00× |\n", r.CtagsMS)
	}
	fmt.Println("\n| request | n | response | p50 | p95 | p99 | max |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, l := range r.Latencies {
		fmt.Printf("| %s | %d | %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n", l.Name, l.N, human(l.Bytes), l.P50, l.P95, l.P99, l.Max)
	}
	fmt.Printf("\nserver memory after the queries: VmHWM %.0f MB, VmRSS %.0f MB; VmHWM after the first change series %.0f MB\n",
		float64(r.HWMAfterQueryK)/1024, float64(r.RSSAfterQueryK)/1024, float64(r.HWMEndK)/1024)
	fmt.Println("\n| change → `event: graph` | edit | samples | timeouts | min | p50 | p90 | p99 | max | events with symbols_version |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, e := range r.Events {
		name := "debounce " + e.Debounce
		if e.Debounce == "default" {
			name = "debounce default (20ms)"
		}
		edit := "append a function + toggle an import"
		switch e.Edit {
		case "symbols":
			edit = "append a function only"
		case "import+get":
			edit = "the same, timed to the graph fetched after the event (gzip)"
		}
		fmt.Printf("| %s | %s | %d | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %d |\n", name, edit, e.Samples, e.Timeouts, e.Min, e.P50, e.P90, e.P99, e.Max, e.WithSymV)
	}
	for _, e := range r.Events {
		if e.Edit == "symbols" && e.SymbolAfterEditMS > 0 {
			fmt.Printf("\nafter the symbol-only series (debounce %s): first `symbol:` query for the last appended function %.0f ms (found: %v), same query again %.1f ms\n", e.Debounce, e.SymbolAfterEditMS, e.SymbolAfterEditFound, e.SymbolAgainMS)
		}
	}
}

func human(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
