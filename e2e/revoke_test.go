package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestARevokedTokenLetsGoOfWhatItHeldOpen: revoking a token with the CLI
// (another process) ends what the server holds open for it, not only its
// next request: an open event stream ends, and an MCP call blocked in
// request_attention ends without the person's answer, which comes after;
// and a stream ends when its token expires.
// Nothing here times the server: each end is awaited with the suite's
// generous deadlines (before, the stream stayed open and the call got the
// answer).
func TestARevokedTokenLetsGoOfWhatItHeldOpen(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	streamID, streamTok := createToken(t, ws, "--grant", "console=read")
	_, personTok := createToken(t, ws)
	agentID, agentTok := createMCPToken(t, ws)
	s := startServer(t, ws)

	t.Run("an open event stream ends when its token expires", func(t *testing.T) {
		t.Parallel()
		_, shortTok := createToken(t, ws, "--grant", "console=read", "--expires", "10s")
		st := openSSE(t, s, shortTok, "expiring")
		st.waitEnd(t)
		want401(t, get(t, s.URL+"/api/v1/events", shortTok))
	})

	t.Run("an open event stream ends when its token is revoked", func(t *testing.T) {
		t.Parallel()
		st := openSSE(t, s, streamTok, "revoked")
		mustCore(t, ws, nil, "config", "console", "token", "revoke", streamID)
		st.waitEnd(t)
		want401(t, get(t, s.URL+"/api/v1/events", streamTok))
	})

	t.Run("a blocked MCP call ends when its token is revoked, without the answer", func(t *testing.T) {
		t.Parallel()
		cs := connectMCP(t, s, agentTok, "")
		answer := make(chan string, 1)
		go func() {
			out, err := tryTool(cs, "request_attention", map[string]any{"need": "May I rewrite the history?", "timeout_seconds": 600}, false)
			if err != nil {
				out = err.Error()
			}
			answer <- out
		}()
		var id string
		eventually(t, "the request in the attention queue", func() bool {
			var q struct {
				Requests []struct{ ID, State, Need string }
			}
			if err := json.Unmarshal(get(t, s.URL+"/api/v1/attention", personTok).Body, &q); err != nil {
				t.Fatal(err)
			}
			for _, r := range q.Requests {
				if r.State == "open" && strings.HasPrefix(r.Need, "May I rewrite") {
					id = r.ID
				}
			}
			return id != ""
		})
		mustCore(t, ws, nil, "config", "mcp", "token", "revoke", agentID)
		var out string
		select {
		case out = <-answer:
		case <-time.After(eventTimeout):
			t.Fatalf("request_attention still blocked %s after its token was revoked", eventTimeout)
		}
		if r := post(t, s.URL+"/api/v1/attention", personTok, `{"id":"`+id+`","reason":"yes, go ahead"}`); r.Status != http.StatusOK {
			t.Fatalf("the person's answer: %s", r)
		}
		if strings.Contains(out, "go ahead") || strings.Contains(out, `"disposed"`) {
			t.Errorf("the revoked agent got the answer: %s", out)
		}
		if !strings.Contains(out, "token revoked") {
			t.Errorf("the call's end does not say the token was revoked: %s", out)
		}
		if _, err := tryTool(cs, "query_graph", map[string]any{"query": "project:util"}, false); err == nil {
			t.Error("the revoked agent's next call was answered")
		}
	})
	t.Cleanup(func() { s.assertNoPanic(t) })
}
