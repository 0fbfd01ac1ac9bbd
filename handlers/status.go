package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
)

var _ statusv1alpha1connect.StatusServiceHandler = (*statusService)(nil)

// statusService is core.status.v1alpha1.StatusService.
type statusService struct{ b *backend.Backend }

// GetStatus answers the live snapshot: whole on the loopback listener,
// and what a colleague may see on the share's (backend.Snapshot.Shared).
func (s *statusService) GetStatus(ctx context.Context, _ *statusv1alpha1.GetStatusRequest) (*statusv1alpha1.GetStatusResponse, error) {
	snap := s.b.Status.Snapshot()
	if !fromLoopback(ctx) {
		snap = snap.Shared()
	}
	return statusMessage(snap), nil
}

func statusMessage(s backend.Snapshot) *statusv1alpha1.GetStatusResponse {
	out := &statusv1alpha1.GetStatusResponse{
		Workspace:      s.Workspace,
		Version:        s.Version,
		ObservingSince: timestamppb.New(s.ObservingSince),
		Config:         s.Config,
		Pool: &statusv1alpha1.Pool{
			Capacity: int32(s.Pool.Capacity), Running: int32(s.Pool.Running), Queued: int32(s.Pool.Queued),
			Affected: s.Affected, AffectedBase: s.AffectedBase,
		},
		Graph: &statusv1alpha1.GraphSummary{
			Version: s.Graph.Version, Nodes: int32(s.Graph.Nodes), Edges: int32(s.Graph.Edges),
			Diagnostic: s.Graph.Diagnostic, IndexDiagnostics: int32(s.Graph.IndexDiagnostics),
		},
		Cache: &statusv1alpha1.CacheSummary{
			LocalHits: s.Cache.LocalHits, RemoteHits: s.Cache.RemoteHits, Built: s.Cache.Built,
			RemoteBytesDown: s.Cache.RemoteBytesDown, RemoteBytesUp: s.Cache.RemoteBytesUp,
			Remote: s.Cache.Remote, RemoteMode: s.Cache.RemoteMode,
		},
	}
	for _, d := range s.Graph.IndexProblems {
		out.Graph.IndexProblems = append(out.Graph.IndexProblems, &statusv1alpha1.IndexProblem{Path: d.Path, Message: d.Message})
	}
	return out
}

// PublishAffected keeps the affected set the CLI computed.
func (s *statusService) PublishAffected(_ context.Context, req *statusv1alpha1.PublishAffectedRequest) (*statusv1alpha1.PublishAffectedResponse, error) {
	s.b.Status.Publish(req.GetAffected(), req.GetBase())
	return &statusv1alpha1.PublishAffectedResponse{}, nil
}
