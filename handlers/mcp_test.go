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

// TestTheToolReferenceIsTheServersOwn keeps docs/mcp.md in step with the
// tools /mcp serves: it lists them through an MCP client, as an agent
// does, and renders each name, description and input schema.
func TestTheToolReferenceIsTheServersOwn(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "core", Version: "test"}, &mcp.ServerOptions{Instructions: mcpInstructions})
	addTools(s, &backend.Backend{})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docs"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# The MCP tools of core\n\n")
	b.WriteString("Generated from the server's own tool list by `go test ./handlers -run TestTheToolReferenceIsTheServersOwn -update`;\na test fails when it is out of date. README \"Coding agents (MCP)\" says how to connect.\n\n")
	b.WriteString("What an agent reads first (the server's instructions):\n\n")
	for _, l := range strings.Split(mcpInstructions, "\n") {
		b.WriteString("> " + l + "\n")
	}
	for _, tool := range list.Tools {
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema, err := json.MarshalIndent(tool.InputSchema, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n## `%s`: %s\n\n%s\n\n```json\n%s\n```\n", tool.Name, tool.Title, tool.Description, schema)
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
	s := mcp.NewServer(&mcp.Implementation{Name: "core", Version: "test"}, nil)
	addTools(s, &backend.Backend{})
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
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var attention []string
	for _, tool := range list.Tools {
		if strings.Contains(tool.Name, "attention") {
			attention = append(attention, tool.Name)
		}
	}
	slices.Sort(attention)
	if strings.Join(attention, " ") != "await_attention request_attention" {
		t.Errorf("the attention tools are %q, want request_attention and await_attention only", attention)
	}
}
