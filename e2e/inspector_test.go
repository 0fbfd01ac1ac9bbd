package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inspectorBin is the MCP Inspector's CLI that scripts/test installs in
// e2e/inspector; without it the test skips, unless scripts/test said the
// Inspector's tests are required.
func inspectorBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(moduleRoot, "e2e", "inspector", "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CORE_INSPECTOR_TESTS") == "required" {
			t.Fatalf("the MCP Inspector is not installed (%v): run scripts/test, or npm install in e2e/inspector", err)
		}
		t.Skip("the MCP Inspector is not installed: npm install in e2e/inspector (scripts/test does)")
	}
	return bin
}

// inspector runs the MCP Inspector's CLI (npm @modelcontextprotocol/inspector,
// pinned in e2e/inspector, installed by scripts/test) against a server's
// /mcp with token; it returns stdout and the exit error.
func inspector(t *testing.T, s *Server, token string, args ...string) (string, error) {
	t.Helper()
	bin := inspectorBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{"--cli", s.URL + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + token}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"), "HOME="+t.TempDir(), "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Logf("inspector stderr: %s", stderr.String())
	}
	return string(out), err
}

func TestTheMCPInspectorListsAndCallsTools(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, mcpTok := createMCPToken(t, ws)
	_, consoleTok := createToken(t, ws)

	out, err := inspector(t, s, mcpTok, "--method", "tools/list")
	if err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) < 10 {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	for _, tool := range list.Tools {
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
		}
	}

	out, err = inspector(t, s, mcpTok, "--method", "tools/call", "--tool-name", "query_graph", "--tool-arg", "query=project:util")
	if err != nil || !strings.Contains(out, `target:util:build`) {
		t.Fatalf("tools/call query_graph: %v\n%s", err, out)
	}
	out, err = inspector(t, s, mcpTok, "--method", "tools/call", "--tool-name", "run_target", "--tool-arg", "target=nope:build")
	if !strings.Contains(out, "not a target targets.yaml declares") {
		t.Errorf("an undeclared target through the Inspector: %v\n%s", err, out)
	}
	if out, err := inspector(t, s, consoleTok, "--method", "tools/list"); err == nil {
		t.Errorf("the Inspector listed tools with a console token:\n%s", out)
	}
}
