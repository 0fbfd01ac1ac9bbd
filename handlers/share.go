package handlers

import (
	"net/http"
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/share"
)

// Sharer runs the share listener (the server implements it).
type Sharer interface {
	Open(ttl time.Duration) (share.Info, error)
	Status() share.Info
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
			ttl := share.DefaultTTL
			if req.TTL != "" {
				if ttl, err = time.ParseDuration(req.TTL); err != nil {
					return apierr.BadRequest("ttl %q is not a duration: write it like 30m or 2h", req.TTL)
				}
			}
			if ttl < share.MinTTL || ttl > share.MaxTTL {
				return apierr.BadRequest("ttl %s is out of bounds: a share lasts from %s to %s", ttl, share.MinTTL, share.MaxTTL)
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
