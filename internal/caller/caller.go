// Package caller carries, in a request's context, what the gateway learned
// about a request before any handler ran: who is calling (the principal of
// the bearer token) and a logger that already names the listener and the
// route. The gateway is the only writer. Handlers, and the domain code they
// call, read it from the context, so that none of them looks at the
// Authorization header again, and so that who wrote something (a review
// comment, an agent's session) follows from the route the request took,
// never from its payload.
package caller

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/auth"
)

// Call is what the gateway knows of one request.
type Call struct {
	// Principal is the token's owner. It is the zero Principal on rows
	// that need no token (the console's static files).
	Principal auth.Principal
	// Listener is the exposure of the listener that took the request
	// ("loopback" or "share").
	Listener string
	// Route is the name of the row that answers.
	Route string
	// Path is the row's path: a prefix row's handler serves what follows
	// it.
	Path string
	// Log carries the listener and route fields. Never log a header, a
	// token, a query value or a body with it.
	Log *zerolog.Logger
}

// Authenticated reports whether a token was checked for this call.
func (c *Call) Authenticated() bool { return c.Principal.Kind != "" }

type key struct{}

// Context is a context carrying a Call. The gateway allocates it together
// with the request it belongs to (see Init), which keeps the pipeline
// within its allocation budget; everyone else uses With.
type Context struct {
	context.Context
	call Call
}

// Init makes c a child of parent that carries call.
func (c *Context) Init(parent context.Context, call Call) {
	c.Context, c.call = parent, call
}

// Value answers the Call for this package's key and asks the parent for
// anything else.
func (c *Context) Value(k any) any {
	if k == (key{}) {
		return &c.call
	}
	return c.Context.Value(k)
}

// With returns a child of parent that carries call.
func With(parent context.Context, call Call) context.Context {
	c := &Context{}
	c.Init(parent, call)
	return c
}

// From returns the Call a context carries, if any.
func From(ctx context.Context) (*Call, bool) {
	c, ok := ctx.Value(key{}).(*Call)
	return c, ok
}

// Principal returns the authenticated caller of ctx's request; ok is false
// when no token was checked (or ctx is not a request's).
func Principal(ctx context.Context) (p auth.Principal, ok bool) {
	if c, found := From(ctx); found && c.Authenticated() {
		return c.Principal, true
	}
	return auth.Principal{}, false
}

// disabled is the logger of a context without a Call.
var disabled = zerolog.Nop()

// Log returns the request's logger, or one that writes nothing.
func Log(ctx context.Context) *zerolog.Logger {
	if c, ok := From(ctx); ok && c.Log != nil {
		return c.Log
	}
	return &disabled
}
