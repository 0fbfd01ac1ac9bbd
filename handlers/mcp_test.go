//go:build !nomcp

package handlers

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/backend"
)

var update = flag.Bool("update", false, "rewrite docs/mcp.md from the tools the server registers")

// listTools lists, through an MCP client as an agent does, the tools a
// server for tokens of scope offers; it returns the tools and every tool's
// info.
func listTools(t *testing.T, scope backend.MCPScope) ([]*mcp.Tool, []toolInfo, *mcp.ClientSession) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "core", Version: "test"}, &mcp.ServerOptions{Instructions: mcpInstructions})
	infos := addTools(s, &backend.Backend{}, scope)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docs"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return list.Tools, infos, cs
}

// TestTheToolReferenceIsTheServersOwn keeps docs/mcp.md in step with the
// tools /mcp serves: it lists them through an MCP client, as an agent
// does, and renders each name, description, toolset, annotations, budget
// and schemas.
func TestTheToolReferenceIsTheServersOwn(t *testing.T) {
	tools, infos, _ := listTools(t, backend.MCPScope{})
	info := map[string]toolInfo{}
	for _, ti := range infos {
		info[ti.name] = ti
	}
	var b strings.Builder
	b.WriteString("# The MCP tools of core\n\n")
	b.WriteString("Generated from the server's own tool list by `go test ./handlers -run TestTheToolReferenceIsTheServersOwn -update`;\na test fails when it is out of date. docs/agents.md says how to connect.\n\n")
	b.WriteString("What an agent reads first (the server's instructions):\n\n")
	for _, l := range strings.Split(mcpInstructions, "\n") {
		b.WriteString("> " + l + "\n")
	}
	fmt.Fprintf(&b, `
## Budget

Every answer is at most %d KB of JSON (%d bytes), about 20k tokens (JSON
runs 3 to 4 bytes a token), under the 25k tokens a client such as Claude
Code refuses. A list comes a page at a time: `+"`limit`"+` asks for fewer or
more items (up to the tool's most), `+"`total`"+` counts them all,
`+"`next_cursor`"+`, passed back as `+"`cursor`"+` with the same other arguments,
reads on, and `+"`note`"+` says what was left out and how to narrow the question.
A text (a patch, a run's output) is cut at a line's end and says so. A cursor
holds only for the arguments it came with.

Every tool answers `+"`structuredContent`"+` that its `+"`outputSchema`"+` describes, and
the same JSON as a text block for clients that read text (`+"`read_patch`"+`: the
patch itself).

## Toolsets

An mcp token opens every tool unless it is scoped:
`+"`core config mcp token create --toolsets read,review,run,attention`"+` opens
those toolsets, and `+"`--read-only`"+` only the tools that change nothing
(`+"`readOnlyHint`"+`). A tool outside the
token's scope is not listed, and a call of it is refused with a message that
says which toolset it needs.

| Toolset | Tools |
|---|---|
`, backend.AnswerBudget>>10, backend.AnswerBudget)
	for _, set := range backend.Toolsets {
		var names []string
		for _, ti := range infos {
			if ti.set == set {
				ro := ""
				if ti.readOnly() {
					ro = " (read-only)"
				}
				names = append(names, "`"+ti.name+"`"+ro)
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", set, strings.Join(names, ", "))
	}
	if len(tools) != len(infos) {
		t.Errorf("the server lists %d tools of %d", len(tools), len(infos))
	}
	for _, tool := range tools {
		ti, ok := info[tool.Name]
		if !ok || tool.Description == "" || tool.OutputSchema == nil || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil || tool.Annotations.DestructiveHint == nil {
			t.Errorf("%s lacks its info, a description, an output schema or its annotations", tool.Name)
			continue
		}
		in, err := json.MarshalIndent(tool.InputSchema, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.MarshalIndent(tool.OutputSchema, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		a := tool.Annotations
		fmt.Fprintf(&b, "\n## `%s`: %s\n\n%s\n\n", tool.Name, tool.Title, tool.Description)
		fmt.Fprintf(&b, "| toolset | readOnlyHint | idempotentHint | destructiveHint | openWorldHint | budget |\n|---|---|---|---|---|---|\n")
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v | %s |\n\n", ti.set, a.ReadOnlyHint, a.IdempotentHint, *a.DestructiveHint, *a.OpenWorldHint, ti.budget)
		fmt.Fprintf(&b, "Input:\n\n```json\n%s\n```\n\n<details><summary>Output schema</summary>\n\n```json\n%s\n```\n\n</details>\n", in, out)
	}
	const path = "../docs/mcp.md"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("docs/mcp.md is out of date: run go test ./handlers -run TestTheToolReferenceIsTheServersOwn -update")
	}
}

// TestAScopedTokenSeesOnlyItsToolsAndIsRefusedTheRest: a server for a
// scope lists the tools it opens, and answers a call of another with a
// tool error that names the toolset it needs.
func TestAScopedTokenSeesOnlyItsToolsAndIsRefusedTheRest(t *testing.T) {
	for _, tc := range []struct {
		scope      backend.MCPScope
		want, not  []string
		refusedSay string
	}{
		{backend.MCPScope{Toolsets: []string{"read"}}, []string{"query_graph", "read_diff", "insight", "read_run"}, []string{"review", "run_target", "request_attention"}, "--toolsets "},
		{backend.MCPScope{ReadOnly: true}, []string{"query_graph", "await_attention", "list_session_jobs"}, []string{"review", "run_affected", "claim_job", "request_attention"}, "without --read-only"},
		{backend.MCPScope{Toolsets: []string{"run", "review"}, ReadOnly: false}, []string{"run_affected", "run_target", "review"}, []string{"read_diff", "claim_job"}, "--toolsets"},
	} {
		tools, _, cs := listTools(t, tc.scope)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		for _, n := range tc.want {
			if !slices.Contains(names, n) {
				t.Errorf("%s: %s is not listed (%v)", tc.scope, n, names)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(names, n) {
				t.Errorf("%s: %s is listed", tc.scope, n)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: n, Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Errorf("%s: calling %s: %v %+v", tc.scope, n, err, res)
				continue
			}
			if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "outside this token's scope") || !strings.Contains(text, tc.refusedSay) {
				t.Errorf("%s: calling %s says %q", tc.scope, n, text)
			}
		}
	}
}

// TestEveryToolIsAnnotatedAndClosedSetsAreEnums: clients act on the
// hints, and an agent picks from an enum rather than guessing a word.
func TestEveryToolIsAnnotatedAndClosedSetsAreEnums(t *testing.T) {
	tools, _, _ := listTools(t, backend.MCPScope{})
	enums := map[string]string{"review": "op", "complete_job": "result", "read_diff": "mode", "insight": "lens", "list_runs": "status", "list_session_jobs": "state"}
	for _, tool := range tools {
		a := tool.Annotations
		if *a.DestructiveHint || *a.OpenWorldHint != (tool.Name == "review_status") {
			t.Errorf("%s: destructive %v, open world %v", tool.Name, *a.DestructiveHint, *a.OpenWorldHint)
		}
		if a.ReadOnlyHint && !a.IdempotentHint {
			t.Errorf("%s reads but is not idempotent", tool.Name)
		}
		if prop, ok := enums[tool.Name]; ok {
			schema, _ := json.Marshal(tool.InputSchema)
			var s struct {
				Properties map[string]struct{ Enum []string }
			}
			if err := json.Unmarshal(schema, &s); err != nil || len(s.Properties[prop].Enum) < 2 {
				t.Errorf("%s.%s is not an enum: %s", tool.Name, prop, schema)
			}
		}
	}
}

// TestAToolThatPanicsIsAToolErrorNotACrash: the SDK runs tools outside the
// gateway's recover, so addTool must catch it.
func TestAToolThatPanicsIsAToolErrorNotACrash(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "core", Version: "test"}, nil)
	addTool(s, &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("boom")
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
	if err != nil || !res.IsError {
		t.Fatalf("a panicking tool: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "a bug") {
		t.Errorf("the error says %+v", res.Content)
	}
}

// TestNoToolLetsAnAgentCloseAnAttentionRequest: the spec says only a
// dispose (the person's POST /api/v1/attention) closes a request, so the
// agent's attention tools ask and wait, and nothing else.
func TestNoToolLetsAnAgentCloseAnAttentionRequest(t *testing.T) {
	tools, _, _ := listTools(t, backend.MCPScope{})
	var attention []string
	for _, tool := range tools {
		if strings.Contains(tool.Name, "attention") {
			attention = append(attention, tool.Name)
		}
	}
	slices.Sort(attention)
	if strings.Join(attention, " ") != "await_attention request_attention" {
		t.Errorf("the attention tools are %q, want request_attention and await_attention only", attention)
	}
}
