// Package handlers holds the HTTP handlers that routes.yaml names, one file
// per area. Register puts each under its name in the gateway's registry;
// the table, not this package, decides paths, methods, grants and exposure.
package handlers

import (
	"context"
	"io/fs"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/proto/gen/core/activity/v1alpha1/activityv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/notes/v1alpha1/notesv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"

	activityv1alpha1 "github.com/corehq/core/proto/gen/core/activity/v1alpha1"
	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
	notesv1alpha1 "github.com/corehq/core/proto/gen/core/notes/v1alpha1"
	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
)

// Deps are what the handlers work with.
type Deps struct {
	Workspace *live.Workspace
	Hub       *events.Hub
	Tokens    *auth.Store
	Metrics   *metrics.Counters
	Runner    *runner.Runner
	Jobs      *jobs.Manager
	Activity  *activity.Store
	Notes     *notes.Store
	Affected  *Affected
	// CacheDir holds the run journals the viewer reads.
	CacheDir string
	// RunContext outlives requests: runs started by a request end with it
	// (server shutdown), not with the request.
	RunContext context.Context
	// Console is the built explorer served at /console/graph/.
	Console fs.FS
	// Status facts.
	Version string
	Started time.Time
	Config  map[string]string
	// PairTTL is how long a pairing code lives.
	PairTTL time.Duration
	// Now replaces time.Now in tests.
	Now func() time.Time
}

func (d Deps) count(name string) {
	if d.Metrics != nil {
		d.Metrics.Add(name, 1)
	}
}

// Register registers every handler under the name routes.yaml uses.
func Register(reg *gateway.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.PairTTL == 0 {
		d.PairTTL = DefaultPairTTL
	}
	// Small answers are not worth compressing; big ones (a run's output)
	// are.
	opts := connect.WithCompressMinBytes(1024)
	if d.RunContext == nil {
		d.RunContext = context.Background()
	}
	if d.Affected == nil {
		d.Affected = &Affected{}
	}
	reg.Handle("graph", graphHandler(d.Workspace))
	reg.Handle("events", d.Hub.Serve)
	reg.Handle("plan", planHandler(d))
	reg.Handle("diff-run", diffRunHandler(d))
	reg.Handle("console", consoleHandler(d.Console))

	_, tokens := tokenv1alpha1connect.NewTokenServiceHandler(&tokenService{d: d}, opts)
	reg.Service("TokenService", tokenv1alpha1.File_core_token_v1alpha1_token_proto.Services().ByName("TokenService"), tokens)

	_, tools := toolv1alpha1connect.NewToolServiceHandler(&toolService{d: d}, opts)
	reg.Service("ToolService", toolv1alpha1.File_core_tool_v1alpha1_tool_proto.Services().ByName("ToolService"), tools)

	_, metricsSvc := metricsv1alpha1connect.NewMetricsServiceHandler(&metricsService{d: d}, opts)
	reg.Service("MetricsService", metricsv1alpha1.File_core_metrics_v1alpha1_metrics_proto.Services().ByName("MetricsService"), metricsSvc)

	_, status := statusv1alpha1connect.NewStatusServiceHandler(&statusService{d: d}, opts)
	reg.Service("StatusService", statusv1alpha1.File_core_status_v1alpha1_status_proto.Services().ByName("StatusService"), status)

	_, jobsSvc := jobv1alpha1connect.NewJobServiceHandler(&jobService{d: d}, opts)
	reg.Service("JobService", jobv1alpha1.File_core_job_v1alpha1_job_proto.Services().ByName("JobService"), jobsSvc)

	_, act := activityv1alpha1connect.NewActivityServiceHandler(&activityService{d: d}, opts)
	reg.Service("ActivityService", activityv1alpha1.File_core_activity_v1alpha1_activity_proto.Services().ByName("ActivityService"), act)

	_, viewer := viewerv1alpha1connect.NewViewerServiceHandler(&viewerService{d: d}, opts)
	reg.Service("ViewerService", viewerv1alpha1.File_core_viewer_v1alpha1_viewer_proto.Services().ByName("ViewerService"), viewer)

	_, notesSvc := notesv1alpha1connect.NewNotesServiceHandler(&notesService{d: d}, opts)
	reg.Service("NotesService", notesv1alpha1.File_core_notes_v1alpha1_notes_proto.Services().ByName("NotesService"), notesSvc)
}
