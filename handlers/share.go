package handlers

import (
	"net/http"
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
)

// Share time boxes (README "Decisions").
const (
	ShareDefaultTTL = time.Hour
	ShareMinTTL     = time.Minute
	ShareMaxTTL     = 12 * time.Hour
)

// ShareInfo is the answer of POST /api/v1/share: the open share, if any.
// URL carries the share token in its fragment; it is answered only to a
// loopback caller with console=write (the row's grant and flag).
type ShareInfo struct {
	Active     bool      `json:"active"`
	URL        string    `json:"url,omitempty"`
	Address    string    `json:"address,omitempty"`
	Expires    time.Time `json:"expires,omitzero"`
	TokenID    string    `json:"token_id,omitempty"`
	Superseded string    `json:"superseded,omitempty"` // the address of the share this one replaced
}

// Sharer runs the share listener (the server implements it).
type Sharer interface {
	Open(ttl time.Duration) (ShareInfo, error)
	Status() ShareInfo
	Stop() bool
}

// shareRequest is the body of POST /api/v1/share. action is "open" (the
// default), "status" or "stop"; ttl, for open, is a Go duration such as
// "30m".
type shareRequest struct {
	Action string `json:"action"`
	TTL    string `json:"ttl"`
}

// shareHandler serves POST /api/v1/share: open a share (superseding the
// open one), say what is open, or stop it.
func shareHandler(s Sharer) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s == nil {
			return apierr.NotFound("this server does not share")
		}
		req, err := decodeStrict[shareRequest](r.Body)
		if err != nil {
			return err
		}
		switch req.Action {
		case "", "open":
			ttl := ShareDefaultTTL
			if req.TTL != "" {
				if ttl, err = time.ParseDuration(req.TTL); err != nil {
					return apierr.BadRequest("ttl %q is not a duration: write it like 30m or 2h", req.TTL)
				}
			}
			if ttl < ShareMinTTL || ttl > ShareMaxTTL {
				return apierr.BadRequest("ttl %s is out of bounds: a share lasts from %s to %s", ttl, ShareMinTTL, ShareMaxTTL)
			}
			info, err := s.Open(ttl)
			if err != nil {
				return err
			}
			return writeJSON(w, info)
		case "status":
			return writeJSON(w, s.Status())
		case "stop":
			s.Stop()
			return writeJSON(w, s.Status())
		}
		return apierr.BadRequest(`action %q is unknown: "open" (the default, with an optional "ttl"), "status" or "stop"`, req.Action)
	}
}
