package handlers

import (
	"context"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/quote"

	activityv1alpha1 "github.com/corehq/core/proto/gen/core/activity/v1alpha1"
	"github.com/corehq/core/proto/gen/core/activity/v1alpha1/activityv1alpha1connect"
)

// activityService implements core.activity.v1alpha1.ActivityService.
var _ activityv1alpha1connect.ActivityServiceHandler = (*activityService)(nil)

type activityService struct{ activity *activity.Store }

func (s *activityService) ListActivities(_ context.Context, req *activityv1alpha1.ListActivitiesRequest) (*activityv1alpha1.ListActivitiesResponse, error) {
	limit := int(req.GetLimit())
	switch {
	case limit == 0:
		limit = 100
	case limit < 0 || limit > 1000:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("limit %d is out of range; allowed: 1 to 1000 (0 means 100)", limit))
	}
	switch req.GetKind() {
	case "", activity.KindRun, activity.KindJob, activity.KindGraph, activity.KindError:
	default:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("kind %s is not a kind; allowed: run, job, graph, error (empty for all)", quote.Short(req.GetKind())))
	}
	out := &activityv1alpha1.ListActivitiesResponse{}
	for _, e := range s.activity.List(limit, req.GetKind()) {
		out.Activities = append(out.Activities, &activityv1alpha1.Activity{
			Id: e.ID, Time: timestamppb.New(e.Time), Kind: e.Kind, Message: e.Message, Subject: e.Subject,
		})
	}
	return out, nil
}
