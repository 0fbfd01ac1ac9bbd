package handlers

import (
	"net/http"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
)

// attentionListHandler serves GET /api/v1/attention: the queue, as the
// CLI's `core session attention --json` prints it.
func attentionListHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			return apierr.BadRequest("/api/v1/attention takes no query parameters")
		}
		if err := b.Attention.Serves(); err != nil {
			return err
		}
		list, err := b.Attention.List()
		if err != nil {
			return err
		}
		return writeJSON(w, list)
	}
}

// disposeRequest is the body of POST /api/v1/attention.
type disposeRequest struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// attentionDisposeHandler serves POST /api/v1/attention: the person
// disposes one request, the only way one closes.
func attentionDisposeHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := b.Attention.Serves(); err != nil {
			return err
		}
		req, err := decodeStrict[disposeRequest](r.Body)
		if err != nil {
			return err
		}
		p, _ := caller.Principal(r.Context())
		out, err := b.Attention.Dispose(req.ID, req.Reason, p.ID)
		if err != nil {
			return err
		}
		return writeJSON(w, out)
	}
}
