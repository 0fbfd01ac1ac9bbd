package handlers

import (
	"context"

	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
)

// metricsService implements core.metrics.v1alpha1.MetricsService.
type metricsService struct{ d Deps }

func (s *metricsService) GetMetrics(context.Context, *metricsv1alpha1.GetMetricsRequest) (*metricsv1alpha1.GetMetricsResponse, error) {
	out := &metricsv1alpha1.GetMetricsResponse{Counters: map[string]int64{}}
	if s.d.Metrics != nil {
		out.Counters = s.d.Metrics.Snapshot()
	}
	return out, nil
}
