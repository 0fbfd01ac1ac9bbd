// Command services measures the latency of the job and status RPCs of a
// running core server, through the generated Connect clients (proto/gen)
// with the admin credential the server writes to <ws>/.core/server.json:
// JobService/RunJob and StatusService/GetStatus. bench/runner.sh calls it.
//
//	services [-ws DIR] [-n 2000] [-blocks 10] [-jobs jobs/rotate-logs,jobs/sync-graph] [-json F]
//
// Without -ws it copies testdata/demo to a temporary directory. It starts
// the server with `go run ./cmd/core --workspace WS server start --address
// 127.0.0.1:0` (from the repository root, in its own process group; -core
// BIN runs a built binary instead), waits for server.json, and sends the
// RPCs one after another over one keep-alive connection: -blocks rounds,
// each a block of n/blocks calls of every RPC in turn, after 50 warm-up
// calls of each. Every call is timed to the decoded response. The server's
// CPU time per call comes from /proc/<pid>/stat around each block.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/server"

	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
)

type result struct {
	Name      string    `json:"name"`
	N         int       `json:"n"`
	P50       float64   `json:"p50_ms"`
	P90       float64   `json:"p90_ms"`
	P99       float64   `json:"p99_ms"`
	P999      float64   `json:"p99_9_ms"`
	Max       float64   `json:"max_ms"`
	ServerCPU float64   `json:"server_cpu_us_per_call"`
	Started   int       `json:"jobs_started,omitempty"` // RunJob: calls that started a run (the rest joined one in flight)
	All       []float64 `json:"all_ms"`
	cpu       time.Duration
}

func main() {
	wsFlag := flag.String("ws", "", "workspace (default: a copy of testdata/demo)")
	core := flag.String("core", "", "a built core binary (default: go run ./cmd/core)")
	n := flag.Int("n", 2000, "calls per RPC")
	blocks := flag.Int("blocks", 10, "interleaved blocks")
	jobList := flag.String("jobs", "jobs/rotate-logs,jobs/sync-graph", "jobs to submit with RunJob, each its own series")
	out := flag.String("json", "", "write the results here")
	inproc := flag.Bool("inproc", false, "run the server in this process (server.Run), so that -cpuprofile sees it")
	cpuprofile := flag.String("cpuprofile", "", "with -inproc: CPU profile of the timed calls (client and server)")
	noGzip := flag.Bool("nogzip", false, "clients do not offer gzip (by default connect-go clients accept it, and the server then compresses every response)")
	flag.Parse()

	ws := *wsFlag
	if ws == "" {
		tmp, err := os.MkdirTemp("", "core-bench-services-")
		check(err)
		defer os.RemoveAll(tmp)
		removeTmp = func() { _ = os.RemoveAll(tmp) }
		ws = filepath.Join(tmp, "demo")
		check(exec.Command("cp", "-a", "testdata/demo", ws).Run())
	}
	cacheDir := filepath.Join(ws, ".core")

	var st state.State
	var stop func()
	if *inproc {
		st, stop = startInProcess(ws, cacheDir)
	} else {
		st, stop = startProcess(ws, cacheDir, *core)
	}
	cleanup = stop
	defer func() { stop() }()
	fmt.Fprintf(os.Stderr, "services bench: server pid %d at %s (workspace %s)\n", st.PID, st.BaseURL, ws)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: st.AdminToken, Next: &http.Transport{MaxIdleConnsPerHost: 2}}}
	var opts []connect.ClientOption
	if *noGzip {
		opts = append(opts, connect.WithAcceptCompression("gzip", nil, nil))
	}
	jobs := jobv1alpha1connect.NewJobServiceClient(hc, st.BaseURL, opts...)
	status := statusv1alpha1connect.NewStatusServiceClient(hc, st.BaseURL, opts...)
	ctx := context.Background()

	type rpc struct {
		res  *result
		call func() error
	}
	rpcs := []rpc{{res: &result{Name: "StatusService/GetStatus"}, call: func() error {
		r, err := status.GetStatus(ctx, &statusv1alpha1.GetStatusRequest{})
		if err == nil && r.GetWorkspace() == "" {
			err = errors.New("empty status")
		}
		return err
	}}}
	for _, name := range strings.Split(*jobList, ",") {
		if name == "" {
			continue
		}
		res := &result{Name: "JobService/RunJob " + name}
		rpcs = append(rpcs, rpc{res: res, call: func() error {
			r, err := jobs.RunJob(ctx, &jobv1alpha1.RunJobRequest{Name: name})
			if err == nil && r.GetStarted() {
				res.Started++
			}
			return err
		}})
	}
	for _, r := range rpcs { // warm-up
		for i := 0; i < 50; i++ {
			check(r.call())
		}
		r.res.Started = 0
	}
	per := max(1, *n / *blocks)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	for b := 0; b < *blocks; b++ {
		for k := range rpcs {
			r := rpcs[(k+b)%len(rpcs)] // rotate which goes first
			c0 := procCPU(st.PID)
			for i := 0; i < per; i++ {
				t := time.Now()
				check(r.call())
				r.res.All = append(r.res.All, stats.Ms(time.Since(t)))
			}
			r.res.cpu += procCPU(st.PID) - c0
		}
	}
	var all []result
	fmt.Printf("\n`core server start` on a copy of testdata/demo; %d calls per RPC in %d interleaved blocks, one after another over one keep-alive connection\n\n", per*(*blocks), *blocks)
	fmt.Println("| RPC | n | p50 | p90 | p99 | p99.9 | max | server CPU per call |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rpcs {
		x := r.res
		x.N = len(x.All)
		x.P50, x.P90, x.P99, x.P999, x.Max = stats.Percentile(x.All, 50), stats.Percentile(x.All, 90), stats.Percentile(x.All, 99), stats.Percentile(x.All, 99.9), stats.Percentile(x.All, 100)
		x.ServerCPU = float64(x.cpu.Microseconds()) / float64(x.N)
		note := ""
		if strings.HasPrefix(x.Name, "JobService") {
			note = fmt.Sprintf(" (%d started a run, %d joined one in flight)", x.Started, x.N-x.Started)
		}
		fmt.Printf("| %s%s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.0f µs |\n", x.Name, note, x.N, x.P50, x.P90, x.P99, x.P999, x.Max, x.ServerCPU)
		all = append(all, *x)
	}
	if *out != "" {
		b, _ := json.MarshalIndent(all, "", "  ")
		check(os.WriteFile(*out, append(b, '\n'), 0o644))
	}
}

// startProcess starts `core server start` (go run, or the binary core) in
// its own process group and returns its state and a stop function.
func startProcess(ws, cacheDir, core string) (state.State, func()) {
	var argv []string
	if core != "" {
		argv = []string{core}
	} else {
		argv = []string{"go", "run", "./cmd/core"}
	}
	argv = append(argv, "--workspace", ws, "--log-level", "warn", "server", "start", "--address", "127.0.0.1:0")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CORE_CACHE_DIR=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	check(cmd.Start())
	stopGroup := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	cleanup = stopGroup
	st, err := waitState(cacheDir, 5*time.Minute)
	check(err)
	// `go run` may exit before the server it started: wait for the server
	// itself too, so the workspace is not removed under it.
	return st, func() {
		stopGroup()
		for i := 0; i < 300 && syscall.Kill(st.PID, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// startInProcess runs server.Run here, configured as `core server start
// --log-level warn --address 127.0.0.1:0` would be.
func startInProcess(ws, cacheDir string) (state.State, func()) {
	_ = os.Unsetenv("CORE_CACHE_DIR")
	cfg, err := config.Load(config.Sources{WorkspaceRoot: ws, Flags: map[string]any{"server.address": "127.0.0.1:0", "log.level": "warn"}})
	check(err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.Options{Root: ws, Config: cfg, Log: logx.New(os.Stderr, cfg.Log.Level, cfg.Log.Format)})
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
	}
	cleanup = stop
	st, err := waitState(cacheDir, 5*time.Minute)
	check(err)
	return st, stop
}

// waitState waits for server.json naming a live process that answers.
func waitState(cacheDir string, timeout time.Duration) (state.State, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st, err := state.Read(cacheDir); err == nil && st.ProcessAlive() && st.BaseURL != "" {
			return st, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return state.State{}, fmt.Errorf("no running server in %s after %s", cacheDir, timeout)
}

// procCPU is utime+stime of pid from /proc/<pid>/stat.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stt, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+stt) * time.Second / 100 // USER_HZ = 100
}

// cleanup stops the server and removeTmp removes the copied workspace
// when check exits early.
var cleanup, removeTmp = func() {}, func() {}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "services bench:", err)
		cleanup()
		removeTmp()
		os.Exit(1)
	}
}
