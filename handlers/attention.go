package handlers

import (
	"errors"
	"net/http"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/caller"
)

// attentionListHandler serves GET /api/v1/attention: the queue, in the
// shape of `core session attention --json`.
func attentionListHandler(q *attention.Queue) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			return apierr.BadRequest("/api/v1/attention takes no query parameters")
		}
		if q == nil {
			return apierr.NotFound("this build of core has no attention queue")
		}
		return writeJSON(w, q.List())
	}
}

// disposeRequest is the body of POST /api/v1/attention (the spec's two
// fields).
type disposeRequest struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// attentionDisposeHandler serves POST /api/v1/attention: a person closes
// one request with a reason, which the waiting agent receives. It is the
// only way a request is disposed.
func attentionDisposeHandler(q *attention.Queue) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if q == nil {
			return apierr.NotFound("this build of core has no attention queue")
		}
		req, err := decodeStrict[disposeRequest](r.Body)
		if err != nil {
			return err
		}
		if req.ID == "" {
			return apierr.BadRequest(`id is required: {"id":"att-...","reason":"..."} (GET /api/v1/attention lists the queue)`)
		}
		p, _ := caller.Principal(r.Context())
		out, err := q.Dispose(req.ID, req.Reason, p.ID)
		switch {
		case errors.Is(err, attention.ErrNotFound):
			return apierr.NotFound("%v", err)
		case errors.Is(err, attention.ErrInvalid):
			return apierr.BadRequest("%v", err)
		case errors.Is(err, attention.ErrClosed):
			return apierr.Conflict("%v", err)
		case err != nil:
			return err
		}
		return writeJSON(w, out)
	}
}
