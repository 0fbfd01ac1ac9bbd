// Package backend is one workspace's core, the one thing every front door
// talks to. The HTTP handlers, the Connect services, the MCP tools and the
// CLI's commands each parse their input, call one method here, and encode
// the answer; a rule (a stale review session, a page size, what a run
// keys on, a suggestion's format) lives here once, whichever door asks.
// This is Tailscale's LocalAPI shape: one backend, thin adapters. What
// the gateway decides (who may call, through which listener) stays in
// routes.yaml, not here.
//
// A server builds one Backend for its workspace (New, from the domain
// objects it owns). The CLI opens one in-process for the commands that
// need no server (Open): the same methods over a one-shot view of the
// workspace.
//
// The backend answers with domain values and with errors of package
// apierr's vocabulary (not found, invalid argument, conflict, failed
// precondition, unavailable): each front door has one place that turns
// such an error into its wire form (the gateway's error writer, one
// Connect interceptor, the MCP tool error, the CLI's message).
//
// Areas, each its own type and file: Graph, Review, Runs, Insight,
// Attention (the queue and the session jobs), Jobs, Share, Status, Tools
// (spells), Tokens, Notes and Activity.
package backend

import (
	"context"
	"time"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/forge"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/share"
)

// Options are the domain objects a server owns for one workspace.
type Options struct {
	Workspace *live.Workspace
	Hub       *events.Hub
	Tokens    *auth.Store
	Metrics   *metrics.Counters
	Runner    *runner.Runner
	Jobs      *jobs.Manager
	Activity  *activity.Store
	Notes     *notes.Store
	// Sessions holds the person's review sessions.
	Sessions *reviewstate.Store
	// Forge answers what the branch's pull request says (shared with
	// check-review).
	Forge *forge.Client
	// Attention is the queue of agents' requests for a person; Handoff the
	// session jobs (work handed to agents). Both nil in a build without
	// MCP.
	Attention *attention.Queue
	Handoff   *handoff.Store
	Insight   *insight.Engine
	// Share runs the share listener.
	Share Sharer
	// CacheDir holds the run journals.
	CacheDir string
	// RunContext outlives requests: runs started by a request end with it
	// (server shutdown), not with the request.
	RunContext context.Context
	// Facts for the status snapshot.
	Facts Facts
}

// Facts are what the status snapshot says of the server itself.
type Facts struct {
	Version string
	Started time.Time
	Config  map[string]string
}

// Sharer opens, reports and stops the share listener (the server's).
type Sharer interface {
	Open(ttl time.Duration) (share.Info, error)
	Status() share.Info
	Stop() bool
}

// Backend is one workspace's core. Its areas are nil-safe where a build
// or a server may lack their part (no MCP: no attention queue).
type Backend struct {
	Graph     *Graph
	Review    *Review
	Runs      *Runs
	Insight   *Insight
	Attention *Attention
	Jobs      *Jobs
	Share     *Share
	Status    *Status
	Tools     *Tools
	Tokens    *Tokens
	Notes     *Notes
	Activity  *Activity
	Metrics   *metrics.Counters
	Hub       *events.Hub
}

// New builds the backend of a server from the objects it owns.
func New(o Options) *Backend {
	if o.RunContext == nil {
		o.RunContext = context.Background()
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	published := &affected.Published{}
	b := &Backend{
		Graph:     &Graph{ws: o.Workspace},
		Review:    liveReview(o.Workspace, o.Sessions, o.Forge),
		Runs:      &Runs{ws: o.Workspace, runner: o.Runner, runCtx: o.RunContext, cacheDir: o.CacheDir},
		Insight:   &Insight{engine: o.Insight},
		Attention: &Attention{queue: o.Attention, handoff: o.Handoff},
		Jobs:      &Jobs{jobs: o.Jobs, handoff: o.Handoff, metrics: o.Metrics},
		Share:     &Share{s: o.Share},
		Status:    &Status{ws: o.Workspace, runner: o.Runner, affected: published, facts: o.Facts, metrics: o.Metrics},
		Tools:     &Tools{ws: o.Workspace, metrics: o.Metrics},
		Tokens:    newTokens(o.Tokens),
		Notes:     &Notes{store: o.Notes},
		Activity:  &Activity{store: o.Activity},
		Metrics:   o.Metrics,
		Hub:       o.Hub,
	}
	return b
}

// Serves reports whether the backend is a server's (false for the zero
// Backend that `core routes` registers names with).
func (b *Backend) Serves() bool { return b != nil && b.Graph != nil && b.Graph.ws != nil }
