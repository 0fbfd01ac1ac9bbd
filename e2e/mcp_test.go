package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var createdMCPRE = regexp.MustCompile(`created mcp token (tok_[0-9a-f]+) `)

// createMCPToken mints an mcp token with the CLI, as the README says.
func createMCPToken(t testing.TB, ws string) (id, secret string) {
	t.Helper()
	res := mustCore(t, ws, nil, "config", "mcp", "token", "create")
	m := createdMCPRE.FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("mcp token create printed no token id:\n%s", res)
	}
	return m[1], res.lastLine()
}

// bearer adds a token (and an Origin, when set) to every request.
type bearer struct {
	token, origin string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectMCP connects the official SDK's client to the server's /mcp.
func connectMCP(t *testing.T, s *Server, token, origin string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "core-e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token, origin}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and returns its text; a tool error fails the test
// unless wantError.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantError bool) string {
	t.Helper()
	out, err := tryTool(cs, name, args, wantError)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryTool is callTool for another goroutine than the test's: it reports
// instead of failing.
func tryTool(cs *mcp.ClientSession, name string, args map[string]any, wantError bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("call %s: %w", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantError {
		return "", fmt.Errorf("call %s: IsError = %v, want %v: %s", name, res.IsError, wantError, text.String())
	}
	return text.String(), nil
}

func TestAnAgentUsesEveryToolOverMCP(t *testing.T) {
	ws := changedDemo(t)
	s := startServer(t, ws, hostGoEnv(t)...) // run_target runs go vet: the host's build cache keeps it quick
	agentID, mcpTok := createMCPToken(t, ws)
	_, consoleTok := createToken(t, ws)
	cs := connectMCP(t, s, mcpTok, "")

	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or schema", tool.Name)
		}
	}
	for _, want := range []string{"query_graph", "explain_node", "find_symbol", "affected", "run_target", "read_run", "read_diff", "read_patch", "review", "request_attention", "await_attention", "list_session_jobs", "claim_job", "complete_job"} {
		if !slices.Contains(names, want) {
			t.Errorf("no tool %s in %v", want, names)
		}
	}

	t.Run("the graph, a node and a symbol", func(t *testing.T) {
		if out := callTool(t, cs, "query_graph", map[string]any{"query": "project:util"}, false); !strings.Contains(out, `"target:util:build"`) {
			t.Errorf("query_graph project:util: %s", out)
		}
		if out := callTool(t, cs, "explain_node", map[string]any{"id": "project:auth"}, false); !strings.Contains(out, `"project:util"`) {
			t.Errorf("explain_node project:auth lacks its dependency on util: %s", out)
		}
		if out := callTool(t, cs, "find_symbol", map[string]any{"name": "Slugify"}, false); !strings.Contains(out, "libs/util/slug.go") || !strings.Contains(out, "services/auth/token.go") {
			t.Errorf("find_symbol Slugify: %s", out)
		}
		if out := callTool(t, cs, "query_graph", map[string]any{"query": "depth:99"}, true); !strings.Contains(out, "depth") {
			t.Errorf("a bad query's error does not name the term: %s", out)
		}
		callTool(t, cs, "explain_node", map[string]any{"id": "project:nope"}, true)
	})

	t.Run("affected, the diff and the patch", func(t *testing.T) {
		if out := callTool(t, cs, "affected", map[string]any{"base": "HEAD"}, false); !strings.Contains(out, "auth:build") || !strings.Contains(out, "libs/util/slug.go") {
			t.Errorf("affected: %s", out)
		}
		if out := callTool(t, cs, "read_diff", nil, false); !strings.Contains(out, `"libs/util/slug.go"`) || !strings.Contains(out, "Slugify") {
			t.Errorf("read_diff: %.500s", out)
		}
		if out := callTool(t, cs, "read_patch", nil, false); !strings.Contains(out, "+++ b/services/auth/extra.go") {
			t.Errorf("read_patch: %.500s", out)
		}
	})

	t.Run("a declared target runs and an undeclared one does not", func(t *testing.T) {
		out := callTool(t, cs, "run_target", map[string]any{"target": "util:lint", "wait_seconds": 120}, false)
		var run struct{ ID, Status string }
		if err := json.Unmarshal([]byte(out), &run); err != nil || run.Status != "succeeded" {
			t.Fatalf("run_target util:lint: %v %s", err, out)
		}
		if out := callTool(t, cs, "read_run", map[string]any{"run": run.ID}, false); !strings.Contains(out, `"go"`) {
			t.Errorf("read_run: %s", out)
		}
		if out := callTool(t, cs, "run_target", map[string]any{"target": "util:lnt"}, true); !strings.Contains(out, "did you mean") {
			t.Errorf("an undeclared target: %s", out)
		}
	})

	t.Run("the agent's review writes are stamped as the agent", func(t *testing.T) {
		callTool(t, cs, "review", map[string]any{"op": "comment", "path": "services/auth/extra.go", "line": 4, "body": "Extra needs a test"}, false)
		callTool(t, cs, "review", map[string]any{"op": "suggest", "path": "services/auth/extra.go", "line": 3, "body": "say why", "suggestion": "// Extra exists for the e2e test."}, false)
		// A payload naming an author fails the tool's schema.
		callTool(t, cs, "review", map[string]any{"op": "comment", "path": "services/auth/extra.go", "line": 4, "body": "x", "author": map[string]string{"kind": "console", "id": "tok_person"}}, true)

		var page struct {
			Session struct {
				Comments []struct {
					ID, Body string
					Author   struct{ Kind, ID string }
				}
			}
		}
		if err := json.Unmarshal(get(t, s.URL+"/api/v1/diff", consoleTok).Body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Session.Comments) != 2 {
			t.Fatalf("comments = %+v", page.Session.Comments)
		}
		for _, c := range page.Session.Comments {
			if c.Author.Kind != "mcp" || c.Author.ID != agentID {
				t.Errorf("comment %s is stamped %+v, want mcp %s", c.ID, c.Author, agentID)
			}
		}
		if !strings.Contains(page.Session.Comments[1].Body, "```suggestion\n// Extra exists for the e2e test.\n```") {
			t.Errorf("the suggestion's body: %q", page.Session.Comments[1].Body)
		}
		callTool(t, cs, "review", map[string]any{"op": "resolve", "id": page.Session.Comments[0].ID}, false)
	})

	t.Run("a blocked request_attention is released by POST /api/v1/attention", func(t *testing.T) {
		answer := make(chan string, 1)
		go func() {
			out, err := tryTool(cs, "request_attention", map[string]any{"need": "May I delete services/auth/extra.go?", "file": "services/auth/extra.go", "timeout_seconds": 120}, false)
			if err != nil {
				out = err.Error()
			}
			answer <- out
		}()
		var id string
		deadline := time.Now().Add(30 * time.Second)
		for id == "" && time.Now().Before(deadline) {
			var q struct {
				Open     int
				Requests []struct{ ID, State, Need, Agent string }
			}
			r := get(t, s.URL+"/api/v1/attention", consoleTok)
			if err := json.Unmarshal(r.Body, &q); err != nil {
				t.Fatalf("%v: %s", err, r)
			}
			for _, req := range q.Requests {
				if req.State == "open" && strings.HasPrefix(req.Need, "May I delete") {
					id = req.ID
					if req.Agent != agentID {
						t.Errorf("the request's agent is %s, want %s", req.Agent, agentID)
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if id == "" {
			t.Fatal("the request never appeared in GET /api/v1/attention")
		}
		select {
		case out := <-answer:
			t.Fatalf("request_attention returned before a dispose: %s", out)
		default:
		}
		// The CLI's JSON is the route's shape.
		cli := mustCore(t, ws, nil, "session", "attention", "--json")
		if !strings.Contains(cli.Stdout, id) {
			t.Errorf("core session attention --json lacks %s: %s", id, cli.Stdout)
		}
		for _, tc := range []struct {
			name, body string
			status     int
		}{
			{"an unknown id is 404", `{"id":"att-000000000000","reason":"ok"}`, http.StatusNotFound},
			{"an empty reason is 400", `{"id":"` + id + `","reason":""}`, http.StatusBadRequest},
			{"a missing reason is 400", `{"id":"` + id + `"}`, http.StatusBadRequest},
			{"an unknown field is 400", `{"id":"` + id + `","reason":"x","by":"me"}`, http.StatusBadRequest},
		} {
			if r := post(t, s.URL+"/api/v1/attention", consoleTok, tc.body); r.Status != tc.status {
				t.Errorf("%s: %s", tc.name, r)
			}
		}
		if r := post(t, s.URL+"/api/v1/attention", consoleTok, `{"id":"`+id+`","reason":"yes, nothing uses it"}`); r.Status != http.StatusOK {
			t.Fatalf("dispose: %s", r)
		}
		select {
		case out := <-answer:
			if !strings.Contains(out, `"state":"disposed"`) || !strings.Contains(out, "yes, nothing uses it") {
				t.Errorf("the agent got: %s", out)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("request_attention did not return after the dispose")
		}
		if r := post(t, s.URL+"/api/v1/attention", consoleTok, `{"id":"`+id+`","reason":"again"}`); r.Status != http.StatusConflict {
			t.Errorf("a second dispose: %s", r)
		}
	})

	t.Run("only the person's answer closes a request, not its agent", func(t *testing.T) {
		out := callTool(t, cs, "request_attention", map[string]any{"need": "quick question", "timeout_seconds": 1}, false)
		var r struct{ ID, State string }
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.State != "open" {
			t.Fatalf("a timed-out wait: %v %s", err, out)
		}
		if _, err := tryTool(cs, "withdraw_attention", map[string]any{"id": r.ID}, false); err == nil {
			t.Error("withdraw_attention answered: an agent closed its request")
		}
		q := get(t, s.URL+"/api/v1/attention", consoleTok)
		if !strings.Contains(string(q.Body), `"id":"`+r.ID+`","need":"quick question","state":"open"`) {
			t.Errorf("the request is not open in the queue after its agent stopped waiting: %s", q)
		}
		if resp := post(t, s.URL+"/api/v1/attention", consoleTok, `{"id":"`+r.ID+`","reason":"late, but answered"}`); resp.Status != http.StatusOK {
			t.Errorf("the person's answer: %s", resp)
		}
	})

	t.Run("handed work is claimed and completed, and listed with holder session", func(t *testing.T) {
		mustCore(t, ws, nil, "session", "hand", "add a test for Extra", "--node", "project:auth")
		out := callTool(t, cs, "claim_job", nil, false)
		var j struct{ Name, State, Text string }
		if err := json.Unmarshal([]byte(out), &j); err != nil || j.State != "running" || j.Text != "add a test for Extra" {
			t.Fatalf("claim_job: %v %s", err, out)
		}
		callTool(t, cs, "complete_job", map[string]any{"name": j.Name, "result": "succeeded", "message": "added TestExtra"}, false)
		ls := mustCore(t, ws, nil, "ls", "jobs")
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(j.Name) + `\s+session\s+done\s`).MatchString(ls.Stdout) {
			t.Errorf("core ls jobs does not list %s as a done session job:\n%s", j.Name, ls.Stdout)
		}
		callTool(t, cs, "claim_job", nil, true) // nothing waits now
	})

	if strings.Contains(s.logs(), mcpTok) || strings.Contains(s.logs(), "May I delete") || strings.Contains(s.logs(), "Extra needs a test") {
		t.Errorf("a token or a payload reached the log:\n%s", s.logs())
	}
}

func TestMCPTakesOnlyAnMCPTokenButAnyOrigin(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, mcpTok := createMCPToken(t, ws)
	_, consoleTok := createToken(t, ws)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	send := func(token, origin, body string) response {
		h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
		if origin != "" {
			h = append(h, "Origin", origin)
		}
		return do(t, newRequest(t, http.MethodPost, s.URL+"/mcp", token, strings.NewReader(body), h...))
	}
	if r := send(consoleTok, "", initialize); r.Status != http.StatusForbidden {
		t.Errorf("a console token at /mcp: %s", r)
	}
	if r := send("", "", initialize); r.Status != http.StatusUnauthorized {
		t.Errorf("no token at /mcp: %s", r)
	}
	// The spec: /mcp answers any origin; the console rows still refuse it.
	if r := send(mcpTok, "https://evil.example", initialize); r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "https://evil.example" {
		t.Errorf("a foreign Origin with an mcp token: %s", r)
	}
	if r := get(t, s.URL+"/api/v1/graph", consoleTok, "Origin", "https://evil.example"); r.Status != http.StatusForbidden {
		t.Errorf("a foreign Origin on the graph: %s", r)
	}
	// The SDK's client works from a foreign origin too.
	cs := connectMCP(t, s, mcpTok, "https://evil.example")
	callTool(t, cs, "query_graph", map[string]any{"query": "kind:project"}, false)

	t.Run("bad JSON-RPC is an error, never a crash", func(t *testing.T) {
		for _, body := range []string{`{`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, strings.Repeat(" ", 10) + `null`} {
			r := send(mcpTok, "", body)
			if r.Status >= 500 {
				t.Errorf("%q: %s", body, r)
			}
		}
		if r := send(mcpTok, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+strings.Repeat(`[`, 2<<20)+`}`); r.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("an oversized body: HTTP %d", r.Status)
		}
		// An unknown tool is a JSON-RPC error, not a tool result.
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope_tool"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("an unknown tool: %v", err)
		}
	})
	if strings.Contains(s.logs(), mcpTok) {
		t.Error("the mcp token reached the log")
	}
}

// TestAnAgentFindsItsRequestAfterARestart: the queue is on disk, so an
// agent that reconnects after the server restarts waits on the same
// request and gets the person's answer.
func TestAnAgentFindsItsRequestAfterARestart(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, mcpTok := createMCPToken(t, ws)
	_, consoleTok := createToken(t, ws)
	cs := connectMCP(t, s, mcpTok, "")
	out := callTool(t, cs, "request_attention", map[string]any{"need": "which branch?", "timeout_seconds": 1}, false)
	var r struct{ ID string }
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.ID == "" {
		t.Fatalf("%v %s", err, out)
	}
	_ = cs.Close()
	s.Stop()

	s2 := startServer(t, ws)
	cs2 := connectMCP(t, s2, mcpTok, "")
	done := make(chan string, 1)
	go func() {
		out, err := tryTool(cs2, "await_attention", map[string]any{"id": r.ID, "timeout_seconds": 120}, false)
		if err != nil {
			out = err.Error()
		}
		done <- out
	}()
	time.Sleep(200 * time.Millisecond) // not a timing assertion: the wait may start before or after the dispose
	if resp := post(t, s2.URL+"/api/v1/attention", consoleTok, `{"id":"`+r.ID+`","reason":"main"}`); resp.Status != http.StatusOK {
		t.Fatalf("dispose after restart: %s", resp)
	}
	select {
	case got := <-done:
		if !strings.Contains(got, `"reason":"main"`) {
			t.Errorf("after the restart the agent got: %s", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("await_attention did not return")
	}
}

// post is POST url with a JSON body and token.
func post(t testing.TB, url, token, body string) response {
	t.Helper()
	return do(t, newRequest(t, http.MethodPost, url, token, bytes.NewReader([]byte(body)), "Content-Type", "application/json"))
}
