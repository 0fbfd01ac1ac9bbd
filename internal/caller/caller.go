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
	"sync"
	"sync/atomic"

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
//
// It also ends when the call's token dies (auth.Principal.Lifetime: revoked,
// retired or expired), with the token's death as its cause, so that an
// event stream, a blocked MCP call or a git command run for a request ends
// with its token, wherever it waits, with no check of its own. A request
// that never waits (never asks Done or Err) pays nothing for it: the
// context that ends with the token is made when first asked for.
type Context struct {
	context.Context
	call Call

	dying atomic.Pointer[dying] // set once asked, if the token can die
	mu    sync.Mutex            // serialises making dying and End
	ended bool
}

// dying is a child of the parent that the token's death cancels.
type dying struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool // unregisters from the token's lifetime
}

// Init makes c a child of parent that carries call.
func (c *Context) Init(parent context.Context, call Call) {
	c.Context, c.call = parent, call
}

// Value answers the Call for this package's key and asks the parent for
// anything else (through the context that ends with the token, once made,
// so that contexts derived from c find it and attach to it directly).
func (c *Context) Value(k any) any {
	if k == (key{}) {
		return &c.call
	}
	if d := c.dying.Load(); d != nil {
		return d.ctx.Value(k)
	}
	return c.Context.Value(k)
}

// Done is closed when the parent is done or the call's token dies.
func (c *Context) Done() <-chan struct{} { return c.waited().Done() }

// Err says why Done is closed: the parent's error, or context.Canceled
// when the token died (context.Cause gives auth.ErrRevoked or
// auth.ErrExpired). While the token lives it asks only the parent (connect
// asks Err of every request: it costs nothing).
func (c *Context) Err() error {
	if d := c.dying.Load(); d != nil {
		return d.ctx.Err()
	}
	if life := c.call.Principal.Lifetime(); life != nil && life.Err() != nil {
		return c.waited().Err()
	}
	return c.Context.Err()
}

// waited is the context to wait on: the parent when the token cannot die
// (or the request has ended), else the child the token's death cancels,
// made on first use.
func (c *Context) waited() context.Context {
	if d := c.dying.Load(); d != nil {
		return d.ctx
	}
	life := c.call.Principal.Lifetime()
	if life == nil {
		return c.Context
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.dying.Load(); d != nil {
		return d.ctx
	}
	if c.ended {
		return c.Context
	}
	ctx, cancel := context.WithCancelCause(c.Context)
	d := &dying{ctx: ctx, cancel: cancel, stop: func() bool { return false }}
	if life.Err() != nil {
		cancel(context.Cause(life)) // dead already: at once, not on AfterFunc's goroutine
	} else {
		d.stop = context.AfterFunc(life, func() { cancel(context.Cause(life)) })
	}
	c.dying.Store(d)
	return ctx
}

// End is called by the gateway when the handler has returned: the token's
// lifetime no longer holds anything of the request (a long-lived token
// would otherwise keep a registration per request that waited).
func (c *Context) End() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if d := c.dying.Load(); d != nil {
		d.stop()
		d.cancel(context.Canceled)
	}
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
