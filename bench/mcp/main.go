// Command mcp measures core's /mcp as a coding agent uses it (results:
// BENCHMARKS.md, "MCP answers"). Against a running server it calls every
// tool through the official Go SDK's client, with the arguments that give
// its largest answers on the workspace (the change against -base), and
// prints one row per call: the answer's bytes (the text block a client
// reads, and the structured content) and the median latency of -reps
// calls, with a bare MCP round trip of the same run as the
// baseline (prompts/get: the SDK's ping is refused by its own transport
// under protocol 2026-07-28). Then, interleaved, run_affected on the server against `core
// run --affected NAME --base BASE` on the CLI over the same cache, and
// their ratio. bench/mcp.sh starts the server and fills the cache.
//
//	mcp -url URL -token TOKEN -core BIN -ws DIR [-base HEAD~150] [-reps 5]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/bench/internal/stats"
)

// answerBudget is backend.AnswerBudget: the most bytes of JSON one answer
// takes.
const answerBudget = 64 << 10

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// call is one tool call of the table.
type call struct {
	tool string
	args map[string]any
}

func main() {
	url := flag.String("url", "", "the server's base URL")
	token := flag.String("token", "", "an mcp token")
	coreBin := flag.String("core", "core", "core's binary, for the CLI side")
	ws := flag.String("ws", "", "the workspace")
	base := flag.String("base", "HEAD~150", "the change's base")
	name := flag.String("name", "test", "run_affected's target name")
	reps := flag.Int("reps", 5, "calls per row (the median is reported)")
	runReps := flag.Int("run-reps", 5, "interleaved rounds of run_affected and the CLI")
	tools := flag.Bool("tools", true, "measure every tool (false: run_affected against the CLI only)")
	flag.Parse()
	if *url == "" || *token == "" || *ws == "" {
		log.Fatal("usage: mcp -url URL -token TOKEN -core BIN -ws DIR")
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "core-bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: *url + "/mcp", HTTPClient: &http.Client{Transport: bearer(*token)}, MaxRetries: -1,
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	var pings []float64
	for range *reps * 2 {
		t0 := time.Now()
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_my_change"}); err != nil {
			log.Fatal(err)
		}
		pings = append(pings, stats.Ms(time.Since(t0)))
	}
	ping := stats.Median(pings)
	fmt.Printf("baseline: prompts/get review_my_change, a round trip through the gateway and the SDK that reads nothing of the workspace: p50 %.1f ms\n\n", ping)

	// Ids the later calls need, from earlier answers.
	att := first(cs, "request_attention", map[string]any{"need": "May I rename quote.Short? (a benchmark asks)", "timeout_seconds": 1}, "id")
	calls := []call{
		{"query_graph", map[string]any{"query": "kind:file"}},
		{"query_graph", map[string]any{"query": "kind:symbol", "limit": 400}},
		{"explain_node", map[string]any{"id": "project:core"}},
		{"explain_node", map[string]any{"id": "project:core", "limit": 500}},
		{"find_symbol", map[string]any{"name": "*"}},
		{"find_symbol", map[string]any{"name": "Start"}},
		{"symbol_context", map[string]any{"id": "symbol:internal/quote/quote.go#Short"}},
		{"symbol_context", map[string]any{"id": "symbol:internal/apierr/apierr.go#NotFound"}},
		{"affected", map[string]any{"base": *base}},
		{"affected", map[string]any{"base": *base, "limit": 500}},
		{"read_diff", map[string]any{"base": *base}},
		{"read_diff", map[string]any{"base": *base, "mode": "full"}},
		{"read_diff", map[string]any{"base": *base, "mode": "full", "limit": 200}},
		{"read_patch", map[string]any{"base": *base}},
		{"read_patch", map[string]any{"base": *base, "paths": []string{"handlers"}}},
		{"insight", map[string]any{"lens": "hotspots", "window": "all"}},
		{"insight", map[string]any{"lens": "affinity", "window": "all"}},
		{"insight", map[string]any{"lens": "ownership", "window": "all"}},
		{"insight", map[string]any{"lens": "trend", "window": "all"}},
		{"insight", map[string]any{"lens": "volatility", "window": "all"}},
		{"list_runs", map[string]any{"limit": 200}},
		{"review_status", map[string]any{}},
		{"review", map[string]any{"op": "comment", "path": "internal/quote/quote.go", "line": 40, "body": "A benchmark's comment."}},
		{"await_attention", map[string]any{"id": att, "timeout_seconds": 1}},
		{"request_attention", map[string]any{"need": "A benchmark asks.", "timeout_seconds": 1}},
		{"list_session_jobs", map[string]any{"limit": 200}},
		{"claim_job", map[string]any{}},
		{"complete_job", map[string]any{"name": "bench-none", "result": "succeeded", "message": "none"}},
		{"run_target", map[string]any{"target": "quote:test", "wait_seconds": 120}},
	}
	if run := first(cs, "list_runs", map[string]any{"limit": 1}, "runs", "0", "id"); run != "" {
		calls = append(calls, call{"read_run", map[string]any{"run": run}})
	}

	if !*tools {
		calls = nil
	}
	fmt.Println("| tool | arguments | text bytes | structured bytes | of the budget | p50 | × baseline |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	for _, c := range calls {
		var times []float64
		var text, structured int
		var isErr bool
		var first string
		for range *reps {
			t0 := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			times = append(times, stats.Ms(time.Since(t0)))
			if err != nil {
				log.Fatalf("%s %v: %v", c.tool, c.args, err)
			}
			t, s := sizes(res)
			text, structured, isErr = max(text, t), max(structured, s), res.IsError
			if isErr && first == "" {
				first = textOf(res)
			}
		}
		p50 := stats.Median(times)
		note := ""
		if isErr {
			note = " (a tool error: " + shorten(first, 80) + ")"
		}
		fmt.Printf("| `%s` | %s%s | %d | %d | %.0f%% | %.0f ms | %.0f× |\n", c.tool, argText(c.args), note, text, structured, 100*float64(max(text, structured))/answerBudget, p50, p50/ping)
	}

	// The resources, read through a session of the protocol before
	// 2026-07-28, whose client keeps no cache of what it read.
	legacy, err := mcp.NewClient(&mcp.Implementation{Name: "core-bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: *url + "/mcp", HTTPClient: &http.Client{Transport: bearer(*token)}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		log.Fatal(err)
	}
	defer legacy.Close()
	var uris []string
	if *tools {
		uris = []string{"core://workspace/targets.yaml", "core://workspace/docs", "core://workspace/doc/BENCHMARKS.md", "core://workspace/doc/docs/mcp.md"}
	}
	for _, uri := range uris {
		var times []float64
		n := 0
		for range *reps {
			t0 := time.Now()
			res, err := legacy.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			times = append(times, stats.Ms(time.Since(t0)))
			if err != nil {
				log.Fatalf("resources/read %s: %v", uri, err)
			}
			n = len(res.Contents[0].Text)
		}
		p50 := stats.Median(times)
		fmt.Printf("| resources/read | `%s` | %d | | %.0f%% | %.0f ms | %.0f× |\n", uri, n, 100*float64(n)/answerBudget, p50, p50/ping)
	}

	// run_affected on the server and the CLI's core run --affected, over
	// the same cache, alternating (each after one untimed call of each).
	args := map[string]any{"base": *base, "name": *name, "wait_seconds": 600}
	cli := func() float64 {
		cmd := exec.Command(*coreBin, "--workspace", *ws, "run", "--affected", *name, "--base", *base, "--color", "never")
		cmd.Env = os.Environ()
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		d := stats.Ms(time.Since(t0))
		if err != nil {
			log.Fatalf("core run --affected: %v\n%s", err, tail(out))
		}
		if !strings.Contains(string(out), "cached") {
			log.Printf("warning: core run --affected served nothing from the cache:\n%s", tail(out))
		}
		return d
	}
	srv := func() (float64, string) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_affected", Arguments: args})
		d := stats.Ms(time.Since(t0))
		if err != nil || res.IsError {
			log.Fatalf("run_affected: %v %s", err, textOf(res))
		}
		return d, textOf(res)
	}
	cli()
	_, answer := srv()
	var counts struct {
		Counts map[string]int
		Done   bool
	}
	_ = json.Unmarshal([]byte(answer), &counts)
	var cs1, ss, ratios []float64
	for range *runReps {
		c := cli()
		s, _ := srv()
		cs1, ss, ratios = append(cs1, c), append(ss, s), append(ratios, s/c)
	}
	fmt.Printf("\nrun_affected (base %s, name %s): %v, done %v, %d bytes\n", *base, *name, counts.Counts, counts.Done, len(answer))
	fmt.Printf("| `core run --affected %s --base %s` (CLI, a process) | `run_affected` (MCP, a call) | run_affected / CLI | paired |\n|---:|---:|---:|---:|\n", *name, *base)
	fmt.Printf("| %.0f ms | %.0f ms | **%.2f×** | %.2f× |\n", stats.Median(cs1), stats.Median(ss), stats.Median(ss)/stats.Median(cs1), stats.Median(ratios))
	fmt.Printf("rounds, CLI: %s; MCP: %s\n", list(cs1), list(ss))
}

// first calls tool once and returns the string at path in its structured
// answer ("" when there is none).
func first(cs *mcp.ClientSession, tool string, args map[string]any, path ...string) string {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		log.Printf("%s: %v %s", tool, err, textOf(res))
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(textOf(res)), &v); err != nil {
		return ""
	}
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	s, _ := v.(string)
	return s
}

func sizes(res *mcp.CallToolResult) (text, structured int) {
	text = len(textOf(res))
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			structured = len(b)
		}
	}
	return text, structured
}

func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func argText(args map[string]any) string {
	b, _ := json.Marshal(args)
	s := string(b)
	if s == "{}" {
		return "none"
	}
	return "`" + shorten(s, 90) + "`"
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func tail(out []byte) string {
	s := string(out)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

func list(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	return strings.Join(parts, " ") + " ms"
}
