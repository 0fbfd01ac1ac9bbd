package handlers

import (
	"context"
	"path/filepath"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/runner"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
)

// maxIndexProblems bounds the index problems a status lists; the count is
// whole.
const maxIndexProblems = 100

// statusService implements core.status.v1alpha1.StatusService.
var _ statusv1alpha1connect.StatusServiceHandler = (*statusService)(nil)

type statusService struct {
	ws       *live.Workspace
	runner   *runner.Runner
	affected *affected.Published
	facts    Facts
	metrics  *metrics.Counters
}

func (s *statusService) GetStatus(ctx context.Context, _ *statusv1alpha1.GetStatusRequest) (*statusv1alpha1.GetStatusResponse, error) {
	out := s.status()
	if !fromLoopback(ctx) {
		return shareStatus(out), nil
	}
	return out, nil
}

// shareStatus is what a share link's holder, a colleague on the network,
// sees of the status: how busy the pool is and how big the graph, not how
// this machine is laid out. It lists the fields it keeps, so a field added
// to the status stays off the share until someone decides it belongs
// there. Left out: the workspace's absolute path (its directory's name
// stays, as the page's title), the effective configuration (the forge's
// and the remote cache's addresses among it), the remote cache's address
// and mode, and the text of problems (paths, messages that quote the
// source): the share says there is a problem and how many, its owner sees
// them on the loopback listener.
func shareStatus(full *statusv1alpha1.GetStatusResponse) *statusv1alpha1.GetStatusResponse {
	g, c := full.GetGraph(), full.GetCache()
	out := &statusv1alpha1.GetStatusResponse{
		Workspace:      filepath.Base(full.GetWorkspace()),
		Version:        full.GetVersion(),
		ObservingSince: full.GetObservingSince(),
		Pool:           full.GetPool(),
		Graph: &statusv1alpha1.GraphSummary{
			Version: g.GetVersion(), Nodes: g.GetNodes(), Edges: g.GetEdges(),
			IndexDiagnostics: g.GetIndexDiagnostics(),
		},
		Cache: &statusv1alpha1.CacheSummary{
			LocalHits: c.GetLocalHits(), RemoteHits: c.GetRemoteHits(), Built: c.GetBuilt(),
			RemoteBytesDown: c.GetRemoteBytesDown(), RemoteBytesUp: c.GetRemoteBytesUp(),
		},
	}
	if g.GetDiagnostic() != "" {
		out.Graph.Diagnostic = "the workspace's targets.yaml does not load; its owner sees why"
	}
	return out
}

// status is the whole snapshot, as the loopback listener answers it.
func (s *statusService) status() *statusv1alpha1.GetStatusResponse {
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
	c := s.metrics.Snapshot()
	out.Cache = &statusv1alpha1.CacheSummary{
		LocalHits: c[metrics.CacheHits] - c[metrics.RemoteHits], RemoteHits: c[metrics.RemoteHits], Built: c[metrics.CacheMisses],
		RemoteBytesDown: c[metrics.RemoteBytesDown], RemoteBytesUp: c[metrics.RemoteBytesUp],
	}
	if out.Cache.Remote = s.facts.Config["cache.remote.url"]; out.Cache.Remote != "" {
		out.Cache.RemoteMode = s.facts.Config["cache.remote.mode"]
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
	if out.Graph.IndexDiagnostics > 0 {
		list := s.ws.Indexer().Diagnostics()
		for _, d := range list[:min(len(list), maxIndexProblems)] {
			out.Graph.IndexProblems = append(out.Graph.IndexProblems, &statusv1alpha1.IndexProblem{Path: d.Path, Message: d.Message})
		}
	}
	return out
}

func (s *statusService) PublishAffected(_ context.Context, req *statusv1alpha1.PublishAffectedRequest) (*statusv1alpha1.PublishAffectedResponse, error) {
	s.affected.Set(req.GetAffected(), req.GetBase())
	return &statusv1alpha1.PublishAffectedResponse{}, nil
}
