package backend

import (
	"context"
	"errors"
	"time"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/handoff"
)

// Attention is the area of the work between agents and the person: the
// attention queue (requests waiting on the person) and the session jobs
// (work the person handed to agents). Both are absent in a build without
// MCP: every method then answers not found.
type Attention struct {
	queue   *attention.Queue
	handoff *handoff.Store
}

var errNoQueue = apierr.NotFound("this build of core has no attention queue")

// Serves is nil when the build has an attention queue, and the not-found
// error to answer otherwise, before anything else of a request is read.
func (a *Attention) Serves() error {
	if a.queue == nil {
		return errNoQueue
	}
	return nil
}

// List is the queue, as the CLI's `core session attention --json` prints
// it.
func (a *Attention) List() (attention.List, error) {
	if a.queue == nil {
		return attention.List{}, errNoQueue
	}
	return a.queue.List(), nil
}

// Dispose closes request id with the person's reason: the only way one
// closes.
func (a *Attention) Dispose(id, reason, by string) (attention.Request, error) {
	if a.queue == nil {
		return attention.Request{}, errNoQueue
	}
	if id == "" {
		return attention.Request{}, apierr.BadRequest(`id is required: {"id":"att-...","reason":"..."} (GET /api/v1/attention lists the queue)`)
	}
	out, err := a.queue.Dispose(id, reason, by)
	switch {
	case errors.Is(err, attention.ErrNotFound):
		return out, apierr.NotFound("%v", err)
	case errors.Is(err, attention.ErrInvalid):
		return out, apierr.BadRequest("%v", err)
	case errors.Is(err, attention.ErrClosed):
		return out, apierr.Conflict("%v", err)
	}
	return out, err
}

// Ask puts an agent's request in the queue and waits up to wait for the
// person's answer (the request stays open after: Await waits again).
func (a *Attention) Ask(ctx context.Context, agent string, ask attention.Ask, wait time.Duration) (attention.Request, error) {
	if a.queue == nil {
		return attention.Request{}, errNoQueue
	}
	r, err := a.queue.Create(agent, ask)
	if err != nil {
		return r, err
	}
	return a.Await(ctx, r.ID, wait)
}

// Await waits up to wait for the answer to request id and answers its
// state.
func (a *Attention) Await(ctx context.Context, id string, wait time.Duration) (attention.Request, error) {
	if a.queue == nil {
		return attention.Request{}, errNoQueue
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return a.queue.Wait(ctx, id)
}

// Jobs are the session jobs: waiting, running (claimed) and done.
func (a *Attention) Jobs() []handoff.Job {
	if a.handoff == nil {
		return []handoff.Job{}
	}
	return a.handoff.List()
}

// Claim gives a waiting session job (name, or the oldest when "") to agent.
func (a *Attention) Claim(name, agent string) (handoff.Job, error) {
	if a.handoff == nil {
		return handoff.Job{}, errNoSessions
	}
	return a.handoff.Claim(name, agent)
}

// Complete ends a session job agent claimed.
func (a *Attention) Complete(name, agent, result, message string) (handoff.Job, error) {
	if a.handoff == nil {
		return handoff.Job{}, errNoSessions
	}
	return a.handoff.Complete(name, agent, result, message)
}

var errNoSessions = apierr.NotFound("this build of core has no agent sessions (built with -tags nomcp)")

// JobList is a page of the session jobs.
type JobList struct {
	Jobs []handoff.Job `json:"jobs"`
	Paging
}

var jobLimits = listLimits{def: 50, max: 200}

// JobsPage is a page of the session jobs in state ("" for any: waiting,
// running, done).
func (a *Attention) JobsPage(state string, r PageRequest) (JobList, error) {
	var jobs []handoff.Job
	for _, j := range a.Jobs() {
		if state == "" || j.State == state {
			jobs = append(jobs, j)
		}
	}
	out := JobList{}
	var err error
	out.Jobs, out.Paging, err = page(jobs, question("list_session_jobs", state), r, jobLimits, listBudget, "state narrows the list")
	if out.Jobs == nil {
		out.Jobs = []handoff.Job{}
	}
	return out, err
}
