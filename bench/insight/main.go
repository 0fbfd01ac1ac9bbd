// Command insight measures the insight lenses on a git repository (results:
// BENCHMARKS.md, "Insight"), each against a baseline from the same run:
//
//   - the cold pass (the whole history read into the kept form) against the
//     same `git log --numstat -M` alone, its output discarded;
//   - GET /api/v1/insight on a running server from the kept result: p50;
//   - one new commit reflected in GET /api/v1/insight: the latency of the
//     first GET after `git commit`.
//
// Usage: go run ./bench/insight -repo DIR -core BIN [-reps 3]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/workspace"
)

func main() {
	repo := flag.String("repo", "", "a git repository with a targets.yaml")
	coreBin := flag.String("core", "", "the core binary")
	reps := flag.Int("reps", 3, "repetitions of the cold pass")
	gets := flag.Int("gets", 50, "GETs for the p50")
	coldOnly := flag.Bool("cold", false, "measure the cold pass only (no server)")
	flag.Parse()
	if *repo == "" || *coreBin == "" {
		fmt.Fprintln(os.Stderr, "usage: insight -repo DIR -core BIN")
		os.Exit(2)
	}
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "insight bench:", err)
			os.Exit(1)
		}
	}
	ctx := context.Background()
	commits := strings.TrimSpace(run(*repo, "git", "rev-list", "--count", "--no-merges", "HEAD"))
	fmt.Printf("history: %s commits, %s files at HEAD\n", commits, strings.TrimSpace(run(*repo, "sh", "-c", "git ls-files | wc -l")))

	// Cold pass against git log alone, interleaved.
	ws, err := workspace.Load(*repo)
	must(err)
	var gitMs, coreMs []float64
	for i := 0; i < *reps; i++ {
		start := time.Now()
		cmd := exec.Command("git", "-C", *repo, "log", "--reverse", "--no-merges", "-z", "--numstat", "-M", "--relative", "--use-mailmap", "--format=%x1e%H%x1f%at%x1f%aN", "HEAD", "--", ".")
		cmd.Stdout = io.Discard
		must(cmd.Run())
		gitMs = append(gitMs, stats.Ms(time.Since(start)))

		cache, err := os.MkdirTemp("", "insight-bench-")
		must(err)
		e := insight.New(insight.Options{Root: *repo, CacheDir: cache, Declared: func() (*workspace.Workspace, error) { return ws, nil }})
		start = time.Now()
		_, err = e.Update(ctx)
		must(err)
		coreMs = append(coreMs, stats.Ms(time.Since(start)))
		start = time.Now()
		rep, err := e.Report(ctx, insight.Params{})
		must(err)
		if i == 0 {
			fmt.Printf("first report from the kept history (every lens, 1y): %.0f ms\n", stats.Ms(time.Since(start)))
			for _, note := range rep.Notes {
				fmt.Printf("note: %s\n", note)
			}
		}
		_ = os.RemoveAll(cache)
	}
	var n float64
	fmt.Sscan(commits, &n)
	g, c := stats.Median(gitMs), stats.Median(coreMs)
	fmt.Printf("cold pass: git log %.0f ms, core %.0f ms (%.2fx git log), %.0f commits/s\n", g, c, c/g, n/(c/1000))

	if *coldOnly {
		return
	}

	// A running server: p50 of GETs from the kept result, then new commits.
	srv := exec.Command(*coreBin, "--workspace", *repo, "server", "start", "--address", "127.0.0.1:0")
	out, err := srv.StdoutPipe()
	must(err)
	srv.Stderr = io.Discard
	must(srv.Start())
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
	ready := regexp.MustCompile(`serving .+ at (http://\S+)`)
	sc := bufio.NewScanner(out)
	base := ""
	for sc.Scan() {
		if m := ready.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if base == "" {
		must(fmt.Errorf("the server printed no ready line"))
	}
	token := lastLine(run(*repo, *coreBin, "--workspace", *repo, "config", "console", "token", "create"))
	get := func() (string, time.Duration) {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/insight", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		must(err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != 200 {
			must(fmt.Errorf("GET /api/v1/insight: %d %s", resp.StatusCode, body))
		}
		var r struct{ Head string }
		must(json.Unmarshal(body, &r))
		return r.Head, d
	}
	_, first := get()
	fmt.Printf("server: first GET (waits for its warm-up read) %.0f ms\n", stats.Ms(first))
	var ms []float64
	for i := 0; i < *gets; i++ {
		_, d := get()
		ms = append(ms, stats.Ms(d))
	}
	fmt.Printf("GET /api/v1/insight from the kept result: p50 %.1f ms, p90 %.1f ms\n", stats.Median(ms), stats.Percentile(ms, 90))

	var commitMs []float64
	for i := 0; i < 5; i++ {
		f := filepath.Join(*repo, "bench-new.txt")
		must(os.WriteFile(f, []byte(fmt.Sprintf("%d\n", i)), 0o644))
		run(*repo, "git", "add", "bench-new.txt")
		run(*repo, "git", "-c", "user.name=Bench", "-c", "user.email=b@example.com", "commit", "-q", "-m", "bench")
		want := strings.TrimSpace(run(*repo, "git", "rev-parse", "HEAD"))
		head, d := get()
		if head != want {
			must(fmt.Errorf("the GET after a commit answered %s, not %s", head, want))
		}
		commitMs = append(commitMs, stats.Ms(d))
	}
	fmt.Printf("one new commit reflected in GET /api/v1/insight: median %.0f ms (%v)\n", stats.Median(commitMs), commitMs)
}

func run(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", name, strings.Join(args, " "), err)
		os.Exit(1)
	}
	return string(out)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
