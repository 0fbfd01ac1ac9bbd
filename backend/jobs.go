package backend

import (
	"errors"
	"net/http"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/metrics"
)

// Jobs is the jobs area: the server's maintenance jobs, and the session
// jobs the person hands to agents.
type Jobs struct {
	jobs    *jobs.Manager
	handoff *handoff.Store // nil in a build without MCP
	metrics *metrics.Counters
}

// Run submits job name (jobs/<job>): fire and forget, coalesced with an
// identical one in flight. It answers the job's snapshot and whether this
// call started it.
func (j *Jobs) Run(name string) (jobs.Snapshot, bool, error) {
	snap, started, err := j.jobs.Submit(name, jobs.TriggerRequest)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		return snap, false, apierr.NotFound("%v", err)
	case errors.Is(err, jobs.ErrInvalidName):
		return snap, false, apierr.BadRequest("%v", err)
	case errors.Is(err, jobs.ErrClosed):
		return snap, false, apierr.Unavailable("%v", err)
	case err != nil:
		return snap, false, err
	}
	if started {
		j.metrics.Add("jobs_started", 1)
	} else {
		j.metrics.Add("jobs_coalesced", 1)
	}
	return snap, started, nil
}

// List is every server job's snapshot.
func (j *Jobs) List() []jobs.Snapshot { return j.jobs.List() }

// Sessions is the session jobs (none in a build without MCP).
func (j *Jobs) Sessions() []handoff.Job {
	if j.handoff == nil {
		return nil
	}
	return j.handoff.List()
}

// Hand hands work to agent sessions, from the person by.
func (j *Jobs) Hand(text, node, by string) (handoff.Job, error) {
	if j.handoff == nil {
		return handoff.Job{}, apierr.New(http.StatusNotImplemented, "unimplemented", "this build of core has no agent sessions (built with -tags nomcp)")
	}
	job, err := j.handoff.Hand(text, node, by)
	switch {
	case errors.Is(err, handoff.ErrInvalid):
		return job, apierr.BadRequest("%v", err)
	case errors.Is(err, handoff.ErrFull):
		return job, apierr.New(http.StatusTooManyRequests, "resource_exhausted", "%v", err)
	}
	return job, err
}
