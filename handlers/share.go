package handlers

import (
	"net/http"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
)

// shareRequest is the body of POST /api/v1/share.
type shareRequest struct {
	Action string `json:"action"` // open (the default), status, stop
	TTL    string `json:"ttl"`    // open: how long the share lasts (default 30m)
}

// shareHandler serves POST /api/v1/share: it opens (or extends) the share
// listener behind a fresh read-only token, reports it, or stops it. The
// row requires a loopback peer beside the token.
func shareHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := b.Share.Serves(); err != nil {
			return err
		}
		req, err := decodeStrict[shareRequest](r.Body)
		if err != nil {
			return err
		}
		switch req.Action {
		case "", "open":
			info, err := b.Share.Open(req.TTL)
			if err != nil {
				return err
			}
			return writeJSON(w, info)
		case "status":
			info, err := b.Share.Status()
			if err != nil {
				return err
			}
			return writeJSON(w, info)
		case "stop":
			info, err := b.Share.Stop()
			if err != nil {
				return err
			}
			return writeJSON(w, info)
		}
		return apierr.BadRequest(`action %q is unknown: "open" (the default, with an optional "ttl"), "status" or "stop"`, req.Action)
	}
}
