package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnAgentReadsTheDocsAndReviewsWithThePrompt: through the MCP
// Inspector's CLI an agent lists the resources, reads the docs' index and
// a doc from it, is refused a path that climbs out of the workspace, and
// gets the "review my change" prompt; through the SDK's client it
// subscribes to a doc and hears of its edit from the server's own watcher.
func TestAnAgentReadsTheDocsAndReviewsWithThePrompt(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, tok := createMCPToken(t, ws)

	t.Run("a resource and the prompt through the Inspector", func(t *testing.T) {
		out, err := inspector(t, s, tok, "--method", "resources/list")
		if err != nil || !strings.Contains(out, "core://workspace/targets.yaml") || !strings.Contains(out, "core://workspace/docs") {
			t.Fatalf("resources/list: %v\n%s", err, out)
		}
		out, err = inspector(t, s, tok, "--method", "resources/read", "--uri", "core://workspace/docs")
		var res struct {
			Contents []struct{ URI, MIMEType, Text string }
		}
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Contents) != 1 {
			t.Fatalf("resources/read docs: %v\n%s", err, out)
		}
		const doc = "core://workspace/doc/docs/architecture.md"
		if !strings.Contains(res.Contents[0].Text, doc) {
			t.Fatalf("the docs' index does not name %s:\n%s", doc, res.Contents[0].Text)
		}
		out, err = inspector(t, s, tok, "--method", "resources/read", "--uri", doc)
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Contents) != 1 || !strings.HasPrefix(res.Contents[0].Text, "#") {
			t.Fatalf("resources/read %s: %v\n%s", doc, err, out)
		}
		if out, err := inspector(t, s, tok, "--method", "resources/read", "--uri", "core://workspace/doc/docs/%2e%2e/%2e%2e/etc/passwd"); err == nil {
			t.Errorf("a path out of the workspace reads:\n%s", out)
		}
		out, err = inspector(t, s, tok, "--method", "prompts/get", "--prompt-name", "review_my_change", "--prompt-args", "base=main")
		var p struct {
			Messages []struct {
				Role    string
				Content struct{ Type, Text string }
			}
		}
		if err != nil || json.Unmarshal([]byte(out), &p) != nil || len(p.Messages) != 1 {
			t.Fatalf("prompts/get: %v\n%s", err, out)
		}
		text := p.Messages[0].Content.Text
		for _, step := range []string{`read_diff with base "main"`, "symbol_context", `run_affected with base "main"`, "review op comment"} {
			if !strings.Contains(text, step) {
				t.Errorf("the prompt lacks %q:\n%s", step, text)
			}
		}
	})

	t.Run("a subscription hears of the doc's edit", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*eventTimeout)
		defer cancel()
		updated := make(chan string, 8)
		c := mcp.NewClient(&mcp.Implementation{Name: "core-e2e", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{tok, ""}}, MaxRetries: -1,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		const doc = "core://workspace/doc/docs/architecture.md"
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: doc}); err != nil {
			t.Fatal(err)
		}
		// The listen stream is opened in the background: edit until the
		// news comes, as an agent's person would keep working.
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case uri := <-updated:
				if uri != doc {
					t.Errorf("the update names %s, want %s", uri, doc)
				}
				return
			case <-tick.C:
				writeFileAtomic(t, ws, filepath.Join(ws, "docs", "architecture.md"), []byte("# Architecture\n\nEdit "+strings.Repeat("again ", i)+"\n"))
			case <-ctx.Done():
				t.Fatal("the edit of the doc was not announced")
			}
		}
	})
}
