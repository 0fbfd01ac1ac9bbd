// Package handlers holds the HTTP handlers that routes.yaml names, one file
// per area. Register puts each under its name in the gateway's registry;
// the table, not this package, decides paths, methods, grants and exposure.
package handlers

import (
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"

	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
)

// Deps are what the handlers work with.
type Deps struct {
	Workspace *live.Workspace
	Hub       *events.Hub
	Tokens    *auth.Store
	Metrics   *metrics.Counters
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
	reg.Handle("graph", graphHandler(d.Workspace))
	reg.Handle("events", d.Hub.Serve)

	_, tokens := tokenv1alpha1connect.NewTokenServiceHandler(&tokenService{d: d})
	reg.Service("TokenService", tokenv1alpha1.File_core_token_v1alpha1_token_proto.Services().ByName("TokenService"), tokens)

	_, tools := toolv1alpha1connect.NewToolServiceHandler(&toolService{d: d})
	reg.Service("ToolService", toolv1alpha1.File_core_tool_v1alpha1_tool_proto.Services().ByName("ToolService"), tools)

	_, metricsSvc := metricsv1alpha1connect.NewMetricsServiceHandler(&metricsService{d: d})
	reg.Service("MetricsService", metricsv1alpha1.File_core_metrics_v1alpha1_metrics_proto.Services().ByName("MetricsService"), metricsSvc)
}
