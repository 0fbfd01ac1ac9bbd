//go:build !nomcp

package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
)

// WithMCP says whether this build serves /mcp (built without -tags nomcp).
const WithMCP = true

// mcpInstructions is what an agent reads first, on initialize.
const mcpInstructions = `core serves the knowledge graph of this monorepo (projects, targets, spells, docs, files, packages, symbols), runs the targets targets.yaml declares, and shows the person's working change with its blast radius.
Start with query_graph or explain_node to learn the workspace, find_symbol and symbol_context for code, read_diff (summary, then full with paths) and affected for the change, run_affected to run the tests it affects, insight for the history. Every answer fits about 20k tokens: lists come a page at a time (next_cursor), and a note says how to narrow.
review comments, suggests and resolves on the person's review of their change; your writes are stamped as you.
request_attention asks the person and waits for their answer; use it before anything risky or when you are unsure. claim_job and complete_job take work the person handed to agent sessions.`

// mcpHandler serves /mcp: the official MCP Go SDK's Streamable HTTP
// transport, stateless (every POST stands alone, so an agent survives a
// restart of the server and the gateway's POST-only row fits). The gateway
// has already authenticated an mcp token (the row's grant), put the caller
// in the context the tools read, and bounded the body; so the SDK's own
// localhost protection is off (the spec: /mcp has no Host guard) and its
// body limit is the row's.
func mcpHandler(b *backend.Backend) gateway.HandlerFunc {
	if !b.Serves() { // `core routes`: names only
		return func(http.ResponseWriter, *http.Request) error { return apierr.NotFound("no workspace") }
	}
	// One server per token scope (at most 32): a tool the token's scope
	// does not open is not listed, and refused by name if called.
	var mu sync.Mutex
	servers := map[string]*mcp.Server{}
	feed := newResourceFeed(b)
	server := func(r *http.Request) *mcp.Server {
		var scope backend.MCPScope
		if p, ok := caller.Principal(r.Context()); ok {
			scope = backend.ScopeOf(p.Grants)
		}
		mu.Lock()
		defer mu.Unlock()
		s := servers[scope.String()]
		if s == nil {
			s = newMCPServer(b, scope, b.Status.Version(), feed)
			servers[scope.String()] = s
		}
		return s
	}
	h := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          -1, // the gateway's MaxBytesReader holds the row's max_body
		PropagateRequestCancellation: true,
	})
	return func(w http.ResponseWriter, r *http.Request) error {
		// The request's context ends with its token (revoked, expired) and
		// with the client. The SDK stops delivering when its request's
		// context ends, so the tools get that end as their lifeline instead
		// (addTool): a call whose token died answers so, rather than
		// vanish without a response. The request's own context ends
		// afterLife later, so that nothing outlives its client or token
		// for long (a subscriptions/listen stream waits for that end).
		life := r.Context()
		ctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(life), lifelineKey{}, life))
		defer cancel()
		stop := context.AfterFunc(life, func() { time.AfterFunc(afterLife, cancel) })
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
		return nil
	}
}

// afterLife is how long a request's handling may outlive its lifeline: the
// time a tool call has to answer that its token died.
const afterLife = 5 * time.Second

// lifelineKey holds the context a tool call lives by: its request's.
type lifelineKey struct{}

// agent is the caller of a tool: the mcp token the gateway authenticated.
// Authorship of every write comes from here, never from a tool's input.
func agent(ctx context.Context) (backend.Author, error) {
	p, ok := caller.Principal(ctx)
	if !ok {
		return backend.Author{}, errors.New("no authenticated caller")
	}
	return backend.Author{Kind: string(p.Kind), ID: p.ID}, nil
}

// newMCPServer is the MCP server of b for tokens of scope; feed tells its
// subscribers of resources' changes.
func newMCPServer(b *backend.Backend, scope backend.MCPScope, version string, feed *resourceFeed) *mcp.Server {
	opts := &mcp.ServerOptions{Instructions: mcpInstructions}
	if scope.Allows(setRead, true) {
		feed.options(opts)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "core", Title: "core: the monorepo's knowledge graph, runner and review", Version: version}, opts)
	addTools(s, b, scope)
	addResources(s, b, scope)
	feed.serve(s)
	return s
}

// answerLen is the length of an answer's JSON.
func answerLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}
