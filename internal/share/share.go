// Package share holds what the share listener's callers agree on: the time
// box's bounds and the answer of POST /api/v1/share. The listener itself is
// the server's (server/share.go); the route is handlers/share.go.
package share

import "time"

// Time boxes (docs/decisions.md).
const (
	DefaultTTL = time.Hour
	MinTTL     = 10 * time.Second
	MaxTTL     = 12 * time.Hour
)

// Info is the answer of POST /api/v1/share: the open share, if any. URL
// carries the share token in its fragment; it is answered only to a
// loopback caller with console=write (the row's grant and flag).
type Info struct {
	Active     bool      `json:"active"`
	URL        string    `json:"url,omitempty"`
	Address    string    `json:"address,omitempty"`
	Expires    time.Time `json:"expires,omitzero"`
	TokenID    string    `json:"token_id,omitempty"`
	Superseded string    `json:"superseded,omitempty"` // the address of the share this one replaced
	// Interface is the network interface holding Address, Chosen why
	// that address (share.address, the default route's interface, ...),
	// Others the other private addresses it could have been, "IP (iface)".
	Interface string   `json:"interface,omitempty"`
	Chosen    string   `json:"chosen,omitempty"`
	Others    []string `json:"others,omitempty"`
}
