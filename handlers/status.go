package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/runner"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
)

// statusService implements core.status.v1alpha1.StatusService.
var _ statusv1alpha1connect.StatusServiceHandler = (*statusService)(nil)

type statusService struct {
	ws       *live.Workspace
	runner   *runner.Runner
	affected *affected.Published
	facts    Facts
}

func (s *statusService) GetStatus(context.Context, *statusv1alpha1.GetStatusRequest) (*statusv1alpha1.GetStatusResponse, error) {
	out := &statusv1alpha1.GetStatusResponse{
		Workspace:      s.ws.Root(),
		Version:        s.facts.Version,
		ObservingSince: timestamppb.New(s.facts.Started),
		Config:         s.facts.Config,
		Pool:           &statusv1alpha1.Pool{},
		Graph:          &statusv1alpha1.GraphSummary{},
	}
	if s.runner != nil {
		st := s.runner.Stats()
		out.Pool.Capacity, out.Pool.Running, out.Pool.Queued = int32(st.Capacity), int32(st.Running), int32(st.Queued)
	}
	if ids, base, ok := s.affected.Get(); ok {
		out.Pool.Affected, out.Pool.AffectedBase = ids, base
	}
	if snap, err := s.ws.Current(); err == nil {
		out.Graph.Version, out.Graph.Nodes, out.Graph.Edges = snap.Version, int32(snap.Nodes), int32(snap.Edges)
	}
	if err := s.ws.Diagnostic(); err != nil {
		out.Graph.Diagnostic = err.Error()
	}
	out.Graph.IndexDiagnostics = int32(s.ws.Indexer().DiagnosticCount())
	return out, nil
}

func (s *statusService) PublishAffected(_ context.Context, req *statusv1alpha1.PublishAffectedRequest) (*statusv1alpha1.PublishAffectedResponse, error) {
	s.affected.Set(req.GetAffected(), req.GetBase())
	return &statusv1alpha1.PublishAffectedResponse{}, nil
}
