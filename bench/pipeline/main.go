// Command pipeline serves one trivial read route twice, for bench/pipeline.sh:
// once behind bare net/http (an http.ServeMux) and once behind the full
// gateway listener (recover, access log and request counters, Host guard,
// Origin check, CORS, authenticate, method, grant), each on its own loopback port with the same
// http.Server settings, so that wrk can compare their throughput.
//
// It prints, on stdout, a console=read token and both URLs, then "ready":
//
//	token=core_console_...
//	bare=http://127.0.0.1:41231/api/v1/bench
//	pipeline=http://127.0.0.1:41232/api/v1/bench
//	ready
//
// and serves until SIGINT or SIGTERM. The token lives in a temporary cache
// directory that is removed on exit. The access log is on, at info level, and
// written to io.Discard: what is measured is the pipeline, not a terminal.
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
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
)

const path = "/api/v1/bench"

// body is the ~300-byte JSON document both sides serve (the same bytes as
// gateway/bench_test.go).
var body = []byte(`{"workspace":"/src/acme","nodes":[` +
	`{"id":"services/api","kind":"project","targets":["build","test"]},` +
	`{"id":"services/web","kind":"project","targets":["build"]},` +
	`{"id":"libs/auth","kind":"project","targets":["test"]}],` +
	`"edges":[{"from":"services/api","to":"libs/auth"},{"from":"services/web","to":"libs/auth"}]}` + "\n")

var (
	contentType   = []string{"application/json"}
	contentLength = []string{strconv.Itoa(len(body))}
)

func serve(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h["Content-Type"] = contentType
	h["Content-Length"] = contentLength
	_, _ = w.Write(body)
}

const routes = `
- name: bench.read
  path: ` + path + `
  method: GET
  grant: console=read
  handler: bench
`

func main() {
	bareAddr := flag.String("bare", "127.0.0.1:0", "address of the bare net/http server")
	pipeAddr := flag.String("pipeline", "127.0.0.1:0", "address of the gateway pipeline server")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile to this file on exit")
	flag.Parse()
	if err := profile(*cpuProfile, *memProfile, func() error { return run(*bareAddr, *pipeAddr) }); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
}

// profile runs fn, under the CPU profiler if cpu is set, and writes an
// allocation profile to mem afterwards if mem is set. Load one side only
// while profiling: both share the process.
func profile(cpu, mem string, fn func() error) error {
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if err := fn(); err != nil {
		return err
	}
	if mem == "" {
		return nil
	}
	f, err := os.Create(mem)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	runtime.GC()
	return pprof.Lookup("allocs").WriteTo(f, 0)
}

func run(bareAddr, pipeAddr string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	dir, err := os.MkdirTemp("", "core-bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	store, err := auth.OpenStore(dir)
	if err != nil {
		return err
	}
	token, _, err := store.Create(auth.KindConsole, auth.ConsoleRead, 24*time.Hour)
	if err != nil {
		return err
	}

	bareLn, err := net.Listen("tcp", bareAddr)
	if err != nil {
		return err
	}
	pipeLn, err := net.Listen("tcp", pipeAddr)
	if err != nil {
		return err
	}

	reg := gateway.NewRegistry()
	reg.Handle("bench", func(w http.ResponseWriter, r *http.Request) error {
		serve(w, r)
		return nil
	})
	table, err := gateway.Load("bench.yaml", []byte(routes), reg)
	if err != nil {
		return err
	}
	cfg := config.Defaults()
	log := logx.New(io.Discard, "info", "json")
	listener, err := gateway.NewListener(table, reg, gateway.ListenerConfig{
		Exposure: gateway.ExposureLoopback,
		Port:     strconv.Itoa(pipeLn.Addr().(*net.TCPAddr).Port),
		Tokens:   store,
		Kinds:    []auth.Kind{auth.KindConsole, auth.KindAdmin, auth.KindPair, auth.KindMCP},
		MaxBody:  cfg.Server.MaxBody,
		Log:      log,
		Metrics:  metrics.New(),
	})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, serve)

	// Both servers get core's own http.Server settings; only the handler
	// differs.
	timeouts := gateway.Timeouts{ReadHeader: cfg.Server.ReadHeaderTimeout, Idle: cfg.Server.IdleTimeout}
	servers := []*http.Server{
		gateway.NewHTTPServer(mux, timeouts, log),
		gateway.NewHTTPServer(listener, timeouts, log),
	}
	errc := make(chan error, len(servers))
	for i, ln := range []net.Listener{bareLn, pipeLn} {
		go func() { errc <- servers[i].Serve(ln) }()
	}

	fmt.Printf("token=%s\n", token)
	fmt.Printf("bare=http://%s%s\n", bareLn.Addr(), path)
	fmt.Printf("pipeline=http://%s%s\n", pipeLn.Addr(), path)
	fmt.Println("ready")

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdownCtx)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
