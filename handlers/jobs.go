package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/caller"

	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
)

// jobService implements core.job.v1alpha1.JobService over the job manager:
// RunJob submits fire-and-forget (coalesced) and answers with the job's
// snapshot at once.
var _ jobv1alpha1connect.JobServiceHandler = (*jobService)(nil)

// jobService is core.job.v1alpha1.JobService: the maintenance jobs, and
// the session jobs a person hands to agents.
type jobService struct{ b *backend.Backend }

// RunJob submits a job by resource name (jobs/<job>): fire and forget,
// coalesced with an identical one in flight.
func (s *jobService) RunJob(_ context.Context, req *jobv1alpha1.RunJobRequest) (*jobv1alpha1.RunJobResponse, error) {
	snap, started, err := s.b.Jobs.Run(req.GetName())
	if err != nil {
		return nil, err
	}
	return &jobv1alpha1.RunJobResponse{Job: jobMessage(snap), Started: started}, nil
}

// ListJobs lists the server's jobs, then the session jobs.
func (s *jobService) ListJobs(context.Context, *jobv1alpha1.ListJobsRequest) (*jobv1alpha1.ListJobsResponse, error) {
	out := &jobv1alpha1.ListJobsResponse{}
	for _, snap := range s.b.Jobs.List() {
		out.Jobs = append(out.Jobs, jobMessage(snap))
	}
	for _, j := range s.b.Jobs.Sessions() {
		out.Jobs = append(out.Jobs, sessionJobMessage(j))
	}
	return out, nil
}

// HandJob hands work to agent sessions, from the caller.
func (s *jobService) HandJob(ctx context.Context, req *jobv1alpha1.HandJobRequest) (*jobv1alpha1.HandJobResponse, error) {
	p, _ := caller.Principal(ctx)
	j, err := s.b.Jobs.Hand(req.GetText(), req.GetNode(), p.ID)
	if err != nil {
		return nil, err
	}
	return &jobv1alpha1.HandJobResponse{Job: sessionJobMessage(j)}, nil
}

func sessionJobMessage(j backend.SessionJob) *jobv1alpha1.Job {
	m := &jobv1alpha1.Job{Name: j.Name, Holder: backend.HolderSession, State: j.State, Description: j.Text, Node: j.Node, ClaimedBy: j.ClaimedBy}
	if j.Ended != nil && j.Started != nil {
		m.LastRun = &jobv1alpha1.JobRun{
			StartTime: timestamppb.New(*j.Started), EndTime: timestamppb.New(*j.Ended),
			Result: j.Result, Message: j.Message, Trigger: "hand",
		}
	}
	return m
}

func jobMessage(s backend.Job) *jobv1alpha1.Job {
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
