// Package handlers holds the HTTP handlers that routes.yaml names, one file
// per area. Register puts each under its name in the gateway's registry;
// the table, not this package, decides paths, methods, grants and exposure.
// By the time a handler runs, the gateway has checked the caller: who it is
// and a logger for the route are in the request's context (package caller).
package handlers

import (
	"context"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/diff"
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

	"github.com/corehq/core/proto/gen/core/activity/v1alpha1/activityv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/insight/v1alpha1/insightv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/notes/v1alpha1/notesv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"
)

// fromLoopback reports whether the request came through the loopback
// listener, as the gateway wrote in its context (caller.Call.Listener):
// the one test a handler makes before it answers what only the machine's
// owner may see. Anything else, the share listener or a context without
// a call, gets the share's answer.
func fromLoopback(ctx context.Context) bool {
	c, ok := caller.From(ctx)
	return ok && c.Listener == gateway.ExposureLoopback
}

// Deps are everything the server hands the handlers; Register gives each
// handler only the part it uses.
type Deps struct {
	Workspace *live.Workspace
	Hub       *events.Hub
	Tokens    *auth.Store
	Metrics   *metrics.Counters
	Runner    *runner.Runner
	Jobs      *jobs.Manager
	Activity  *activity.Store
	Notes     *notes.Store
	Affected  *affected.Published
	// Sessions holds the review sessions of POST /api/v1/diff/session.
	Sessions *reviewstate.Store
	// Forge answers GET /api/v1/diff/review (shared with check-review).
	Forge *forge.Client
	// Attention is the queue of agents' requests for a person; Handoff the
	// session jobs (work handed to agents). Both nil in a build without MCP.
	Attention *attention.Queue
	Handoff   *handoff.Store
	// Insight answers the insight route and service.
	Insight *insight.Engine
	// Share runs the share listener for POST /api/v1/share.
	Share Sharer
	// CacheDir holds the run journals the viewer reads.
	CacheDir string
	// RunContext outlives requests: runs started by a request end with it
	// (server shutdown), not with the request.
	RunContext context.Context
	// Console is the built explorer.
	Console fs.FS
	// Facts for the status snapshot.
	Facts Facts
}

// Facts are what the status snapshot says of the server itself.
type Facts struct {
	Version string
	Started time.Time
	Config  map[string]string
}

// Register registers every handler under the name routes.yaml uses. With
// zero Deps it registers the names alone, which is what `core routes`
// needs to check the table.
func Register(reg *gateway.Registry, d Deps) {
	if d.RunContext == nil {
		d.RunContext = context.Background()
	}
	if d.Affected == nil {
		d.Affected = &affected.Published{}
	}
	reg.Handle("graph", graphHandler(d.Workspace))
	reg.Handle("events", d.Hub.Serve)
	reg.Handle("plan", planHandler(d.Workspace, d.Runner))
	reviews := &diff.Cache{} // shared by the review's routes
	reg.Handle("diff", diffHandler(d.Workspace, d.Sessions, reviews))
	reg.Handle("diff-patch", diffPatchHandler(d.Workspace))
	reg.Handle("diff-branches", diffBranchesHandler(d.Workspace))
	reg.Handle("diff-review", diffReviewHandler(d.Forge))
	reg.Handle("diff-context", diffContextHandler(d.Workspace, d.Sessions, reviews))
	reg.Handle("diff-session", diffSessionHandler(d.Workspace, d.Sessions))
	reg.Handle("diff-run", diffRunHandler(d.Workspace, d.Runner, d.RunContext))
	reg.Handle("console", consoleHandler(d.Console))
	reg.Handle("insight", insightHandler(d.Insight))
	reg.Handle("share", shareHandler(d.Share))
	reg.Handle("attention-list", attentionListHandler(d.Attention))
	reg.Handle("attention-dispose", attentionDisposeHandler(d.Attention))
	reg.Handle("mcp", mcpHandler(mcpDeps{
		ws: d.Workspace, sessions: d.Sessions, reviews: reviews, runner: d.Runner, runCtx: d.RunContext,
		cacheDir: d.CacheDir, attention: d.Attention, handoff: d.Handoff, version: d.Facts.Version,
	}))

	// Small answers are not worth compressing; big ones (a run's output)
	// are.
	opts := connect.WithCompressMinBytes(1024)
	service := connectService(reg, opts)
	service("TokenService", bind(tokenv1alpha1connect.NewTokenServiceHandler, &tokenService{tokens: d.Tokens, now: time.Now}))
	service("ToolService", bind(toolv1alpha1connect.NewToolServiceHandler, &toolService{ws: d.Workspace, metrics: d.Metrics}))
	service("MetricsService", bind(metricsv1alpha1connect.NewMetricsServiceHandler, &metricsService{metrics: d.Metrics}))
	service("StatusService", bind(statusv1alpha1connect.NewStatusServiceHandler, &statusService{ws: d.Workspace, runner: d.Runner, affected: d.Affected, facts: d.Facts, metrics: d.Metrics}))
	service("JobService", bind(jobv1alpha1connect.NewJobServiceHandler, &jobService{jobs: d.Jobs, handoff: d.Handoff, metrics: d.Metrics}))
	service("ActivityService", bind(activityv1alpha1connect.NewActivityServiceHandler, &activityService{activity: d.Activity}))
	service("ViewerService", bind(viewerv1alpha1connect.NewViewerServiceHandler, &viewerService{cacheDir: d.CacheDir}))
	service("InsightService", bind(insightv1alpha1connect.NewInsightServiceHandler, &insightService{engine: d.Insight}))
	service("NotesService", bind(notesv1alpha1connect.NewNotesServiceHandler, &notesService{notes: d.Notes}))
}

// bind ties a generated New...ServiceHandler to its implementation, which
// must implement the generated interface S (each service's file asserts it
// at compile time too).
func bind[S any, I any](ctor func(S, ...connect.HandlerOption) (string, http.Handler), impl I) gateway.ServiceBuilder {
	svc := any(impl).(S)
	return func(opts ...connect.HandlerOption) (string, http.Handler) { return ctor(svc, opts...) }
}

// connectService returns a registrar of generated Connect services, each
// with the options every service shares: called with a handler name and
// its builder, it registers the builder with the service's descriptor,
// found by the name in the path the generated code serves.
func connectService(reg *gateway.Registry, shared ...connect.HandlerOption) func(name string, build gateway.ServiceBuilder) {
	return func(name string, build gateway.ServiceBuilder) {
		path, _ := build()
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(strings.Trim(path, "/")))
		sd, ok := d.(protoreflect.ServiceDescriptor)
		if err != nil || !ok {
			panic("handlers: no service descriptor for " + path) // generated code always has one
		}
		reg.Service(name, sd, func(opts ...connect.HandlerOption) (string, http.Handler) {
			return build(append(append([]connect.HandlerOption(nil), shared...), opts...)...)
		})
	}
}
