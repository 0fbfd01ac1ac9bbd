package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// answerBudget is the most bytes of JSON one tool answer takes (docs/mcp.md,
// "Budget"; backend.AnswerBudget).
const answerBudget = 64 << 10

// inspectorCall calls a tool through the MCP Inspector's CLI and decodes
// its structured content into out; it returns the answer's text block.
func inspectorCall(t *testing.T, s *Server, token, tool string, out any, args ...string) string {
	t.Helper()
	full := []string{"--method", "tools/call", "--tool-name", tool}
	for _, a := range args {
		full = append(full, "--tool-arg", a)
	}
	raw, err := inspector(t, s, token, full...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, raw)
	}
	var res struct {
		Content []struct {
			Type, Text string
		}
		StructuredContent json.RawMessage
		IsError           bool
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, raw)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s %v answered an error: %s", tool, args, raw)
	}
	if len(res.StructuredContent) > answerBudget {
		t.Errorf("%s answered %d bytes, over the budget of %d", tool, len(res.StructuredContent), answerBudget)
	}
	if out != nil {
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			t.Fatalf("%s: structured content: %v\n%s", tool, err, res.StructuredContent)
		}
	}
	return res.Content[0].Text
}

// TestAnAgentDoesEachTaskInOneCallThroughTheInspector drives the tasks an
// agent comes for through an outside client, each in one call: what the
// change touches, who calls a symbol, run the affected tests and name the
// one that fails, comment on a line, ask the person, the hotspots.
func TestAnAgentDoesEachTaskInOneCallThroughTheInspector(t *testing.T) {
	ws := changedDemo(t)
	writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/breaks_test.go"), []byte(`package util

import "testing"

func TestSlugifyKeepsUnderscores(t *testing.T) {
	if got := Slugify("a_b"); got != "a_b" {
		t.Errorf("Slugify(a_b) = %q, want a_b", got)
	}
}
`))
	s := startServer(t, ws, hostGoEnv(t)...)
	agentID, tok := createMCPToken(t, ws)

	t.Run("what does my change touch", func(t *testing.T) {
		var v struct {
			Totals  struct{ Files int }
			Summary []struct {
				Path, Role string
				Symbols    []struct{ ID, Name string }
			}
			Affected struct {
				Targets []struct{ ID string }
			}
		}
		inspectorCall(t, s, tok, "read_diff", &v, "base=HEAD")
		if v.Totals.Files != 4 || len(v.Summary) != 4 || len(v.Affected.Targets) == 0 {
			t.Fatalf("read_diff: %+v", v)
		}
		found := false
		for _, f := range v.Summary {
			for _, sym := range f.Symbols {
				found = found || sym.Name == "Slugify" && f.Path == "libs/util/slug.go"
			}
		}
		if !found {
			t.Errorf("read_diff does not name Slugify as changed: %+v", v.Summary)
		}
	})

	t.Run("who calls a symbol", func(t *testing.T) {
		var c struct {
			Symbol  struct{ ID string }
			Callers []struct {
				Path  string
				Sites []int
				Lines []string
			}
			CallersTotal int `json:"callers_total"`
		}
		inspectorCall(t, s, tok, "symbol_context", &c, "name=Slugify")
		if c.Symbol.ID != "symbol:libs/util/slug.go#Slugify" || c.CallersTotal == 0 {
			t.Fatalf("symbol_context: %+v", c)
		}
		for _, cl := range c.Callers {
			if cl.Path == "services/auth/token.go" && len(cl.Sites) > 0 && strings.Contains(strings.Join(cl.Lines, "\n"), "Slugify") {
				return
			}
		}
		t.Errorf("symbol_context lacks the call in services/auth/token.go: %+v", c.Callers)
	})

	t.Run("run the affected tests and name the failing one", func(t *testing.T) {
		var v struct {
			Done    bool
			Counts  map[string]int
			Targets []struct {
				Target, Status string
				Cached         bool
				From           string
				Tests          *struct {
					Format   string
					Failures []struct{ Name, Package, Message string }
				}
			}
		}
		inspectorCall(t, s, tok, "run_affected", &v, "base=HEAD", "wait_seconds=600")
		if !v.Done || v.Counts["failed"] == 0 || len(v.Targets) == 0 {
			t.Fatalf("run_affected: %+v", v)
		}
		first := v.Targets[0]
		if first.Target != "util:test" || first.Status != "failed" || first.Tests == nil || len(first.Tests.Failures) != 1 || first.Tests.Failures[0].Name != "TestSlugifyKeepsUnderscores" || !strings.Contains(first.Tests.Failures[0].Message, "want a_b") {
			t.Errorf("the failing test is not named first: %+v", first)
		}
		var runs struct {
			Runs []struct{ Target, Trigger string }
		}
		inspectorCall(t, s, tok, "list_runs", &runs, "target=util:test", "limit=1")
		if len(runs.Runs) != 1 || runs.Runs[0].Trigger != "mcp" {
			t.Errorf("list_runs does not say an agent started the run: %+v", runs)
		}
	})

	t.Run("comment on a line", func(t *testing.T) {
		var w struct {
			Comment struct {
				ID, Path string
				Line     int
				Author   struct{ Kind, ID string }
			}
			Session struct{ Unresolved int }
		}
		inspectorCall(t, s, tok, "review", &w, "op=comment", "path=services/auth/extra.go", "line=4", "body=Extra needs a test")
		if w.Comment.ID == "" || w.Comment.Line != 4 || w.Comment.Author.ID != agentID || w.Session.Unresolved != 1 {
			t.Errorf("review: %+v", w)
		}
	})

	t.Run("ask for attention", func(t *testing.T) {
		var r struct{ ID, State, Need string }
		inspectorCall(t, s, tok, "request_attention", &r, "need=May I rename Slugify?", "timeout_seconds=1")
		if r.ID == "" || r.State != "open" {
			t.Errorf("request_attention: %+v", r)
		}
	})

	t.Run("the hotspots of the repository", func(t *testing.T) {
		var v struct {
			Commits  int
			Hotspots struct {
				Files []struct {
					Path  string
					Score int
				}
			}
		}
		inspectorCall(t, s, tok, "insight", &v, "lens=hotspots", "window=all")
		if v.Commits == 0 || len(v.Hotspots.Files) == 0 || v.Hotspots.Files[0].Path == "" {
			t.Errorf("insight hotspots: %+v", v)
		}
	})
}

// TestEveryAnswerFitsTheBudgetOnALargeChange: a change of hundreds of
// files and megabytes is answered a page at a time, each answer within
// the budget, with a cursor that reads on and a note that says how to
// narrow.
func TestEveryAnswerFitsTheBudgetOnALargeChange(t *testing.T) {
	ws := changedDemo(t)
	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "line %d of a large generated file <&> \"quoted\"\n", i)
	}
	writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/big.txt"), []byte(big.String()))
	for i := range 400 {
		dir := filepath.Join(ws, "libs/util", fmt.Sprintf("gen%02d", i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var src strings.Builder
		fmt.Fprintf(&src, "package gen%02d\n\n", i%20)
		for j := range 30 {
			fmt.Fprintf(&src, "// Func%d_%d is generated.\nfunc Func%d_%d() int { return %d }\n\n", i, j, i, j, j)
		}
		writeFileAtomic(t, ws, filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(src.String()))
	}
	s := startServer(t, ws)
	_, tok := createMCPToken(t, ws)
	cs := connectMCP(t, s, tok, "")
	cursorRE := regexp.MustCompile(`"next_cursor":"([^"]+)"`)
	for _, tc := range []struct {
		tool string
		args map[string]any
		more bool // the answer is a first page, with a cursor to read on
	}{
		{"read_diff", map[string]any{"base": "HEAD"}, true},
		{"read_diff", map[string]any{"base": "HEAD", "mode": "full"}, true},
		{"read_diff", map[string]any{"base": "HEAD", "mode": "full", "paths": []string{"libs/util/gen03"}}, true},
		{"read_patch", map[string]any{"base": "HEAD"}, true},
		{"read_patch", map[string]any{"base": "HEAD", "paths": []string{"libs/util/slug.go"}}, false},
		{"affected", map[string]any{"base": "HEAD"}, false},
		{"query_graph", map[string]any{"query": "kind:file"}, true},
		{"explain_node", map[string]any{"id": "project:util"}, true},
		{"find_symbol", map[string]any{"name": "Func"}, true},
		{"find_symbol", map[string]any{"name": "*"}, true},
	} {
		name := fmt.Sprintf("%s %v", tc.tool, tc.args)
		out := callTool(t, cs, tc.tool, tc.args, false)
		if len(out) > answerBudget+4<<10 {
			t.Errorf("%s: %d bytes", name, len(out))
		}
		m := cursorRE.FindStringSubmatch(out)
		if tc.tool == "read_patch" {
			m = regexp.MustCompile(`next_cursor (\S+)\]`).FindStringSubmatch(out)
		}
		if (m != nil) != tc.more {
			t.Errorf("%s: a cursor %v, want %v: %.300s", name, m != nil, tc.more, out)
			continue
		}
		if m == nil {
			continue
		}
		args := map[string]any{"cursor": m[1]}
		for k, v := range tc.args {
			args[k] = v
		}
		if next := callTool(t, cs, tc.tool, args, false); len(next) > answerBudget+4<<10 || next == out {
			t.Errorf("%s: the next page is %d bytes, the same as the first: %v", name, len(next), next == out)
		}
	}
	if out := callTool(t, cs, "find_symbol", map[string]any{"name": "Start"}, false); !strings.Contains(out, `"hint"`) {
		t.Errorf("an empty find_symbol has no hint: %s", out)
	}
}

// TestAScopedTokenOpensOnlyItsToolsets: core config mcp token create
// --toolsets and --read-only scope what an agent sees and may call.
func TestAScopedTokenOpensOnlyItsToolsets(t *testing.T) {
	ws := changedDemo(t)
	s := startServer(t, ws)
	for _, tc := range []struct {
		flags     []string
		want, not []string
	}{
		{[]string{"--toolsets", "read"}, []string{"read_diff", "query_graph", "insight"}, []string{"review", "run_target", "request_attention"}},
		{[]string{"--toolsets", "read,review"}, []string{"read_diff", "review"}, []string{"run_affected", "claim_job"}},
		{[]string{"--read-only"}, []string{"read_diff", "await_attention"}, []string{"review", "run_target", "claim_job"}},
	} {
		res := mustCore(t, ws, nil, append([]string{"config", "mcp", "token", "create"}, tc.flags...)...)
		cs := connectMCP(t, s, res.lastLine(), "")
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, tool := range list.Tools {
			listed[tool.Name] = true
		}
		for _, n := range tc.want {
			if !listed[n] {
				t.Errorf("%v: %s is not listed", tc.flags, n)
			}
		}
		for _, n := range tc.not {
			if listed[n] {
				t.Errorf("%v: %s is listed", tc.flags, n)
			}
			if out := callTool(t, cs, n, map[string]any{}, true); !strings.Contains(out, "outside this token's scope") {
				t.Errorf("%v: calling %s: %s", tc.flags, n, out)
			}
		}
	}
	if res := runCore(t, ws, nil, "config", "mcp", "token", "create", "--toolsets", "everything"); res.Code == 0 || !strings.Contains(res.Stderr, "read, review, run, attention") {
		t.Errorf("an unknown toolset: %s", res)
	}
	if ls := mustCore(t, ws, nil, "config", "mcp", "token", "list"); !strings.Contains(ls.Stdout, "mcp,mcp=read,mcp=review") || !strings.Contains(ls.Stdout, "mcp=read-only") {
		t.Errorf("the token list does not show the scopes:\n%s", ls.Stdout)
	}
}
