package handlers

import (
	"context"
	"sort"
	"sync"

	"google.golang.org/protobuf/types/known/timestamppb"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
)

// Affected holds the last affected set published to the server.
type Affected struct {
	mu    sync.Mutex
	ids   []string
	base  string
	valid bool
}

// Set replaces the affected set.
func (a *Affected) Set(ids []string, base string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ids = append([]string(nil), ids...)
	sort.Strings(a.ids)
	a.base, a.valid = base, true
}

// Get returns the affected set and whether one was ever published.
func (a *Affected) Get() ([]string, string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.ids...), a.base, a.valid
}

// statusService implements core.status.v1alpha1.StatusService.
type statusService struct{ d Deps }

func (s *statusService) GetStatus(context.Context, *statusv1alpha1.GetStatusRequest) (*statusv1alpha1.GetStatusResponse, error) {
	d := s.d
	out := &statusv1alpha1.GetStatusResponse{
		Workspace:      d.Workspace.Root(),
		Version:        d.Version,
		ObservingSince: timestamppb.New(d.Started),
		Config:         d.Config,
		Pool:           &statusv1alpha1.Pool{},
		Graph:          &statusv1alpha1.GraphSummary{},
	}
	if d.Runner != nil {
		st := d.Runner.Stats()
		out.Pool.Capacity, out.Pool.Running, out.Pool.Queued = int32(st.Capacity), int32(st.Running), int32(st.Queued)
	}
	if d.Affected != nil {
		if ids, base, ok := d.Affected.Get(); ok {
			out.Pool.Affected, out.Pool.AffectedBase = ids, base
		}
	}
	if snap, err := d.Workspace.Current(); err == nil {
		out.Graph.Version, out.Graph.Nodes, out.Graph.Edges = snap.Version, int32(snap.Nodes), int32(snap.Edges)
	}
	if err := d.Workspace.Diagnostic(); err != nil {
		out.Graph.Diagnostic = err.Error()
	}
	out.Graph.IndexDiagnostics = int32(d.Workspace.Indexer().DiagnosticCount())
	return out, nil
}

func (s *statusService) PublishAffected(_ context.Context, req *statusv1alpha1.PublishAffectedRequest) (*statusv1alpha1.PublishAffectedResponse, error) {
	s.d.Affected.Set(req.GetAffected(), req.GetBase())
	return &statusv1alpha1.PublishAffectedResponse{}, nil
}
