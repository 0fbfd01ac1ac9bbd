package handlers

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/metrics"

	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
)

// jobService implements core.job.v1alpha1.JobService over the job manager:
// RunJob submits fire-and-forget (coalesced) and answers with the job's
// snapshot at once.
var _ jobv1alpha1connect.JobServiceHandler = (*jobService)(nil)

type jobService struct {
	jobs    *jobs.Manager
	handoff *handoff.Store // session jobs; nil in a build without MCP
	metrics *metrics.Counters
}

func (s *jobService) RunJob(_ context.Context, req *jobv1alpha1.RunJobRequest) (*jobv1alpha1.RunJobResponse, error) {
	snap, started, err := s.jobs.Submit(req.GetName(), jobs.TriggerRequest)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		return nil, connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, jobs.ErrInvalidName):
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, jobs.ErrClosed):
		return nil, connect.NewError(connect.CodeUnavailable, err)
	case err != nil:
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	if started {
		s.metrics.Add("jobs_started", 1)
	} else {
		s.metrics.Add("jobs_coalesced", 1)
	}
	return &jobv1alpha1.RunJobResponse{Job: jobMessage(snap), Started: started}, nil
}

func (s *jobService) ListJobs(context.Context, *jobv1alpha1.ListJobsRequest) (*jobv1alpha1.ListJobsResponse, error) {
	out := &jobv1alpha1.ListJobsResponse{}
	for _, snap := range s.jobs.List() {
		out.Jobs = append(out.Jobs, jobMessage(snap))
	}
	if s.handoff != nil {
		for _, j := range s.handoff.List() {
			out.Jobs = append(out.Jobs, sessionJobMessage(j))
		}
	}
	return out, nil
}

// HandJob hands work to an agent session, stamped with the caller.
func (s *jobService) HandJob(ctx context.Context, req *jobv1alpha1.HandJobRequest) (*jobv1alpha1.HandJobResponse, error) {
	if s.handoff == nil {
		return nil, connect.NewError(connect.CodeUnimplemented, errors.New("this build of core has no agent sessions (built with -tags nomcp)"))
	}
	p, _ := caller.Principal(ctx)
	j, err := s.handoff.Hand(req.GetText(), req.GetNode(), p.ID)
	switch {
	case errors.Is(err, handoff.ErrInvalid):
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, handoff.ErrFull):
		return nil, connect.NewError(connect.CodeResourceExhausted, err)
	case err != nil:
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	return &jobv1alpha1.HandJobResponse{Job: sessionJobMessage(j)}, nil
}

// sessionJobMessage is a session job as the job service shows it.
func sessionJobMessage(j handoff.Job) *jobv1alpha1.Job {
	m := &jobv1alpha1.Job{Name: j.Name, Holder: jobs.HolderSession, State: j.State, Description: j.Text, Node: j.Node, ClaimedBy: j.ClaimedBy}
	if j.Ended != nil && j.Started != nil {
		m.LastRun = &jobv1alpha1.JobRun{
			StartTime: timestamppb.New(*j.Started), EndTime: timestamppb.New(*j.Ended),
			Result: j.Result, Message: j.Message, Trigger: "hand",
		}
	}
	return m
}

func jobMessage(s jobs.Snapshot) *jobv1alpha1.Job {
	j := &jobv1alpha1.Job{
		Name: s.Name, Holder: s.Holder, State: s.State,
		TargetSize: s.Size, TargetUnit: s.Unit, Description: s.Description,
	}
	if r := s.LastRun; r != nil {
		j.LastRun = &jobv1alpha1.JobRun{
			StartTime: timestamppb.New(r.Start), EndTime: timestamppb.New(r.End),
			Result: r.Result, Message: r.Message, Trigger: r.Trigger,
		}
	}
	return j
}
