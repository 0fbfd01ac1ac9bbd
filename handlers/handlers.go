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

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/caller"

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

// Register registers every handler under the name routes.yaml uses, each
// a thin door over b: parse, call one method, encode. With a nil backend
// it registers the names alone, which is what `core routes` needs to
// check the table. console is the built explorer.
func Register(reg *gateway.Registry, b *backend.Backend, console fs.FS) {
	if b == nil {
		b = &backend.Backend{}
	}
	reg.Handle("graph", graphHandler(b))
	reg.Handle("events", b.Hub.Serve)
	reg.Handle("plan", planHandler(b))
	reg.Handle("diff", diffHandler(b))
	reg.Handle("diff-patch", diffPatchHandler(b))
	reg.Handle("diff-branches", diffBranchesHandler(b))
	reg.Handle("diff-review", diffReviewHandler(b))
	reg.Handle("diff-context", diffContextHandler(b))
	reg.Handle("diff-session", diffSessionHandler(b))
	reg.Handle("diff-run", diffRunHandler(b))
	reg.Handle("console", consoleHandler(console))
	reg.Handle("insight", insightHandler(b))
	reg.Handle("share", shareHandler(b))
	reg.Handle("attention-list", attentionListHandler(b))
	reg.Handle("attention-dispose", attentionDisposeHandler(b))
	reg.Handle("mcp", mcpHandler(b))

	// Small answers are not worth compressing; big ones (a run's output)
	// are. Every service answers the backend's errors through one
	// interceptor (connectErrors).
	opts := []connect.HandlerOption{connect.WithCompressMinBytes(1024), connect.WithInterceptors(connectErrors{})}
	service := connectService(reg, opts...)
	service("TokenService", bind(tokenv1alpha1connect.NewTokenServiceHandler, &tokenService{b: b}))
	service("ToolService", bind(toolv1alpha1connect.NewToolServiceHandler, &toolService{b: b}))
	service("MetricsService", bind(metricsv1alpha1connect.NewMetricsServiceHandler, &metricsService{b: b}))
	service("StatusService", bind(statusv1alpha1connect.NewStatusServiceHandler, &statusService{b: b}))
	service("JobService", bind(jobv1alpha1connect.NewJobServiceHandler, &jobService{b: b}))
	service("ActivityService", bind(activityv1alpha1connect.NewActivityServiceHandler, &activityService{b: b}))
	service("ViewerService", bind(viewerv1alpha1connect.NewViewerServiceHandler, &viewerService{b: b}))
	service("InsightService", bind(insightv1alpha1connect.NewInsightServiceHandler, &insightService{b: b}))
	service("NotesService", bind(notesv1alpha1connect.NewNotesServiceHandler, &notesService{b: b}))
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
