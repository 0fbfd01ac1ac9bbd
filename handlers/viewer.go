package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"

	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"
)

var _ viewerv1alpha1connect.ViewerServiceHandler = (*viewerService)(nil)

// viewerService is core.viewer.v1alpha1.ViewerService: past runs'
// journals.
type viewerService struct{ b *backend.Backend }

// ListRuns lists the latest runs, newest first.
func (s *viewerService) ListRuns(_ context.Context, req *viewerv1alpha1.ListRunsRequest) (*viewerv1alpha1.ListRunsResponse, error) {
	js, err := s.b.Runs.List(int(req.GetLimit()), req.GetTarget())
	if err != nil {
		return nil, err
	}
	out := &viewerv1alpha1.ListRunsResponse{}
	for _, j := range js {
		out.Runs = append(out.Runs, runMessage(j))
	}
	return out, nil
}

// GetRun answers one run's journal: its command, output and result.
func (s *viewerService) GetRun(_ context.Context, req *viewerv1alpha1.GetRunRequest) (*viewerv1alpha1.GetRunResponse, error) {
	j, err := s.b.Runs.Get(req.GetId())
	if err != nil {
		return nil, err
	}
	return &viewerv1alpha1.GetRunResponse{Run: runMessage(j), Argv: j.Argv, Output: j.Output, OutputTruncated: j.Truncated, Dir: j.Dir}, nil
}

func runMessage(j backend.Journal) *viewerv1alpha1.Run {
	r := &viewerv1alpha1.Run{
		Id: j.ID, Target: j.Target, Status: j.Status, ExitCode: int32(j.ExitCode),
		StartTime: timestamppb.New(j.Start), CacheHit: j.CacheHit, CacheKey: j.CacheKey, Trigger: j.Trigger, From: j.From, Shard: j.Shard,
	}
	if !j.End.IsZero() {
		r.EndTime = timestamppb.New(j.End)
	}
	return r
}
