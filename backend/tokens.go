package backend

import (
	"errors"
	"time"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/quote"
)

// Tokens is the token area: the bearer tokens of the console and of
// agents, and the pairing codes a console trades for one.
type Tokens struct {
	store *auth.Store
	now   func() time.Time
}

func newTokens(st *auth.Store) *Tokens { return &Tokens{store: st, now: time.Now} }

// Now is the time the area judges expiry by.
func (t *Tokens) Now() time.Time { return t.now() }

// List is every token's record (never a secret).
func (t *Tokens) List() ([]auth.Record, error) { return t.store.List() }

// Create mints a token of kind (console by default, or mcp) with grants
// (the kind's defaults when none) for ttl (the console default when nil):
// the secret, shown once, and its record.
func (t *Tokens) Create(kind auth.Kind, grants []string, lifetime *time.Duration) (string, auth.Record, error) {
	switch kind {
	case "":
		kind = auth.KindConsole
	case auth.KindConsole, auth.KindMCP:
	default:
		return "", auth.Record{}, apierr.BadRequest("kind %s cannot be created here; allowed: console, mcp", quote.Short(string(kind)))
	}
	if len(grants) == 0 {
		if kind == auth.KindConsole {
			grants = []string{"console=read", "console=write"}
		} else {
			grants = []string{"mcp"}
		}
	}
	g, err := auth.ParseGrants(grants)
	if err != nil {
		return "", auth.Record{}, apierr.BadRequest("%v", err)
	}
	ttl := auth.ConsoleTokenTTL
	if lifetime != nil {
		ttl = *lifetime
	}
	if ttl <= 0 || ttl > auth.MaxTokenTTL {
		return "", auth.Record{}, apierr.BadRequest("ttl %s is out of range; allowed: more than 0 and at most %s", ttl, auth.MaxTokenTTL)
	}
	secret, rec, err := t.store.Create(kind, g, ttl)
	if err != nil {
		return "", auth.Record{}, apierr.BadRequest("%v", err)
	}
	return secret, rec, nil
}

// Revoke revokes token id: what it holds open ends with it.
func (t *Tokens) Revoke(id string) error {
	if id == "" {
		return apierr.BadRequest("id is required; see ListTokens")
	}
	err := t.store.Revoke(id)
	if errors.Is(err, auth.ErrNotFound) {
		return apierr.NotFound("%v", err)
	}
	return err
}

// PairingCode mints a one-time code a console trades for a token, and
// when it expires.
func (t *Tokens) PairingCode() (string, time.Time) {
	return t.store.Mint(auth.KindPair, auth.Pair, auth.PairTTL), t.now().Add(auth.PairTTL)
}

// ExchangePairingCode trades the pairing code p (the caller) for a console
// token, once.
func (t *Tokens) ExchangePairingCode(p auth.Principal) (string, auth.Record, error) {
	if p.Kind != auth.KindPair || !t.store.Redeem(p) {
		return "", auth.Record{}, apierr.New(401, apierr.CodeUnauthenticated, "this pairing code was already used or has expired: open a fresh link with `core open`")
	}
	return t.store.Create(auth.KindConsole, auth.ConsoleRead|auth.ConsoleWrite, auth.ConsoleTokenTTL)
}

// Toolsets are the parts of /mcp an mcp token can be scoped to.
var Toolsets = auth.Toolsets

// MCPGrants are the grants of an mcp token scoped to toolsets (none: every
// one) and, when readOnly, to the tools that change nothing.
func MCPGrants(toolsets []string, readOnly bool) ([]string, error) {
	g, err := auth.MCPGrants(toolsets, readOnly)
	if err != nil {
		return nil, apierr.BadRequest("%v", err)
	}
	return g, nil
}

// MCPScope is what of /mcp a token's grants open.
type MCPScope = auth.MCPScope

// ScopeOf is the scope of /mcp grants give.
func ScopeOf(g auth.Grant) MCPScope { return g.MCPScope() }
