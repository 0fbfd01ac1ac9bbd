package handlers

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/runner"

	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"
)

// viewerService implements core.viewer.v1alpha1.ViewerService over the run
// journals in the cache directory.
var _ viewerv1alpha1connect.ViewerServiceHandler = (*viewerService)(nil)

type viewerService struct{ cacheDir string }

func (s *viewerService) ListRuns(_ context.Context, req *viewerv1alpha1.ListRunsRequest) (*viewerv1alpha1.ListRunsResponse, error) {
	limit := int(req.GetLimit())
	switch {
	case limit == 0:
		limit = 50
	case limit < 0 || limit > 500:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("limit %d is out of range; allowed: 1 to 500 (0 means 50)", limit))
	}
	js, err := runner.ListJournals(s.cacheDir, limit, req.GetTarget())
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	out := &viewerv1alpha1.ListRunsResponse{}
	for _, j := range js {
		out.Runs = append(out.Runs, runMessage(j))
	}
	return out, nil
}

func (s *viewerService) GetRun(_ context.Context, req *viewerv1alpha1.GetRunRequest) (*viewerv1alpha1.GetRunResponse, error) {
	if !runner.ValidID(req.GetId()) {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("%s is not a run id; see ListRuns", quote.Short(req.GetId())))
	}
	j, err := runner.ReadJournal(s.cacheDir, req.GetId())
	if errors.Is(err, runner.ErrNotFound) {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no run %s (it may have been rotated out; see ListRuns)", req.GetId()))
	}
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	return &viewerv1alpha1.GetRunResponse{Run: runMessage(j), Argv: j.Argv, Output: j.Output, OutputTruncated: j.Truncated, Dir: j.Dir}, nil
}

func runMessage(j runner.Journal) *viewerv1alpha1.Run {
	r := &viewerv1alpha1.Run{
		Id: j.ID, Target: j.Target, Status: j.Status, ExitCode: int32(j.ExitCode),
		StartTime: timestamppb.New(j.Start), CacheHit: j.CacheHit, CacheKey: j.CacheKey, Trigger: j.Trigger, From: j.From,
	}
	if !j.End.IsZero() {
		r.EndTime = timestamppb.New(j.End)
	}
	return r
}
