package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"

	activityv1alpha1 "github.com/corehq/core/proto/gen/core/activity/v1alpha1"
	"github.com/corehq/core/proto/gen/core/activity/v1alpha1/activityv1alpha1connect"
)

var _ activityv1alpha1connect.ActivityServiceHandler = (*activityService)(nil)

// activityService is core.activity.v1alpha1.ActivityService: the trail of
// what the server did.
type activityService struct{ b *backend.Backend }

// ListActivities lists the latest activities, newest first.
func (s *activityService) ListActivities(_ context.Context, req *activityv1alpha1.ListActivitiesRequest) (*activityv1alpha1.ListActivitiesResponse, error) {
	list, err := s.b.Activity.List(int(req.GetLimit()), req.GetKind())
	if err != nil {
		return nil, err
	}
	out := &activityv1alpha1.ListActivitiesResponse{}
	for _, e := range list {
		out.Activities = append(out.Activities, &activityv1alpha1.Activity{
			Id: e.ID, Time: timestamppb.New(e.Time), Kind: e.Kind, Message: e.Message, Subject: e.Subject,
		})
	}
	return out, nil
}
