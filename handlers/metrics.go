package handlers

import (
	"context"

	"github.com/corehq/core/backend"

	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
)

var _ metricsv1alpha1connect.MetricsServiceHandler = (*metricsService)(nil)

// metricsService is core.metrics.v1alpha1.MetricsService: the server's
// counters.
type metricsService struct{ b *backend.Backend }

// GetMetrics answers every counter.
func (s *metricsService) GetMetrics(context.Context, *metricsv1alpha1.GetMetricsRequest) (*metricsv1alpha1.GetMetricsResponse, error) {
	return &metricsv1alpha1.GetMetricsResponse{Counters: s.b.Metrics.Snapshot()}, nil
}
