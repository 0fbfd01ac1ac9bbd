package auth

import (
	"context"
	"errors"
	"time"
)

// ErrRevoked is why a request ends when its token is revoked (or retired,
// as a share's is) while it runs: an event stream, a blocked MCP call.
var ErrRevoked = errors.New("token revoked while the request ran: mint a new one with " + createHint + ", or " + openHint)

// Lifetime is a context that ends when the principal's token dies:
// revoked (by the CLI in another process too: the store notices the file
// change), redeemed or retired (Redeem), or past its expiry. Its cause
// (context.Cause) is ErrRevoked or ErrExpired. The gateway ends each
// authenticated request's context with it, so that nothing a token holds
// open outlives the token. nil for a principal no Store made (it never
// dies).
func (p Principal) Lifetime() context.Context { return p.life }

// life is one token's Lifetime and the function that ends it.
type life struct {
	ctx context.Context
	end func(cause error)
}

// newLife is the lifetime of a token that expires at expires (zero: never),
// as the store's clock now tells time: the deadline is that far from the
// wall clock's now, so a test's clock gives a consistent one.
func newLife(now time.Time, expires time.Time) life {
	base, end := context.WithCancelCause(context.Background())
	if expires.IsZero() {
		return life{ctx: base, end: end}
	}
	ctx, stop := context.WithDeadlineCause(base, time.Now().Add(expires.Sub(now)), ErrExpired)
	return life{ctx: ctx, end: func(cause error) { end(cause); stop() }}
}

// carry gives the entries of next the lives they had in prev (the same
// token read again from tokens.json keeps its lifetime) or new ones, and
// returns the lives of the tokens next no longer holds, for the caller to
// end once next is installed.
func carry(prev, next map[[32]byte]entry, now time.Time) []life {
	for h, e := range next {
		if o, ok := prev[h]; ok && o.id == e.id && o.life.ctx != nil {
			e.life = o.life
		} else {
			e.life = newLife(now, e.expires)
		}
		next[h] = e
	}
	var gone []life
	for h, o := range prev {
		if _, ok := next[h]; !ok && o.life.end != nil {
			gone = append(gone, o.life)
		}
	}
	return gone
}

// endAll ends the lives of tokens that are gone.
func endAll(gone []life, cause error) {
	for _, l := range gone {
		l.end(cause)
	}
}
