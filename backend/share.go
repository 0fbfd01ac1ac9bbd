package backend

import (
	"time"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/share"
)

// Share is the share area: the time-boxed LAN listener.
type Share struct {
	s Sharer
}

// Serves is nil when the server shares, and the not-found error to
// answer otherwise, before anything else of a request is read.
func (s *Share) Serves() error {
	if s.s == nil {
		return apierr.NotFound("this server does not share")
	}
	return nil
}

// Open opens the share for ttl ("" for the default), or extends it.
func (s *Share) Open(ttl string) (share.Info, error) {
	if s.s == nil {
		return share.Info{}, apierr.NotFound("this server does not share")
	}
	d := share.DefaultTTL
	if ttl != "" {
		var err error
		if d, err = time.ParseDuration(ttl); err != nil {
			return share.Info{}, apierr.BadRequest("ttl %q is not a duration: write it like 30m or 2h", ttl)
		}
	}
	if d < share.MinTTL || d > share.MaxTTL {
		return share.Info{}, apierr.BadRequest("ttl %s is out of bounds: a share lasts from %s to %s", d, share.MinTTL, share.MaxTTL)
	}
	return s.s.Open(d)
}

// Status is the share as it is.
func (s *Share) Status() (share.Info, error) {
	if s.s == nil {
		return share.Info{}, apierr.NotFound("this server does not share")
	}
	return s.s.Status(), nil
}

// Stop closes the share, if open, and answers its status after.
func (s *Share) Stop() (share.Info, error) {
	if s.s == nil {
		return share.Info{}, apierr.NotFound("this server does not share")
	}
	s.s.Stop()
	return s.s.Status(), nil
}
