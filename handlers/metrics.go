package handlers

import (
	"context"

	"github.com/corehq/core/internal/metrics"

	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
)

// metricsService implements core.metrics.v1alpha1.MetricsService.
var _ metricsv1alpha1connect.MetricsServiceHandler = (*metricsService)(nil)

type metricsService struct{ metrics *metrics.Counters }

func (s *metricsService) GetMetrics(context.Context, *metricsv1alpha1.GetMetricsRequest) (*metricsv1alpha1.GetMetricsResponse, error) {
	return &metricsv1alpha1.GetMetricsResponse{Counters: s.metrics.Snapshot()}, nil
}
