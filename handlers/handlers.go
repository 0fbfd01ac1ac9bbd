// Package handlers holds the HTTP handlers that routes.yaml names, one file
// per area. Register puts each under its name in the gateway's registry;
// the table, not this package, decides paths, methods, grants and exposure.
package handlers

import (
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// Deps are what the handlers work with.
type Deps struct {
	Workspace *live.Workspace
	Hub       *events.Hub
	Tokens    *auth.Store
	// PairTTL is how long a pairing code lives.
	PairTTL time.Duration
	// Now replaces time.Now in tests.
	Now func() time.Time
}

// Register registers every handler under the name routes.yaml uses.
func Register(reg *gateway.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.PairTTL == 0 {
		d.PairTTL = DefaultPairTTL
	}
	reg.Handle("graph", graphHandler(d.Workspace))
	reg.Handle("events", d.Hub.Serve)

	_, tokens := tokenv1alpha1connect.NewTokenServiceHandler(&tokenService{d: d})
	reg.Service("TokenService", tokenv1alpha1.File_core_token_v1alpha1_token_proto.Services().ByName("TokenService"), tokens)
}
