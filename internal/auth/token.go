// Package auth mints, stores and checks core's bearer tokens.
//
// Every client of the server (the console, the CLI, coding agents over MCP, a
// share link) sends `Authorization: Bearer core_<kind>_<secret>`. The secret
// is 256 bits from crypto/rand, shown once and stored only as its SHA-256.
// Persistent tokens (console, mcp) live in <cache>/tokens.json so the CLI can
// create and revoke them while the server runs; ephemeral ones (the admin
// credential, pairing codes, share tokens) live only in the server's memory.
//
// Authenticate runs on every request: it allocates nothing on success, reads
// immutable snapshots through atomic pointers, and never puts a token into an
// error. The gateway maps its sentinel errors to 401 and checks grants itself.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"
)

// Kind says what a token is for; it is the readable part of its prefix.
type Kind string

// The kinds of token.
const (
	KindConsole Kind = "console" // the browser console and the CLI; persistent
	KindShare   Kind = "share"   // read-only, for a share listener; ephemeral
	KindMCP     Kind = "mcp"     // for /mcp; persistent
	KindAdmin   Kind = "admin"   // token management, written to server.json; ephemeral
	KindPair    Kind = "pair"    // one-time pairing code; ephemeral
)

// kinds lists every kind with its token prefix. The prefixes end in "_" and
// differ in length or spelling, so at most one matches a token of the right
// length.
var kinds = [...]struct {
	kind   Kind
	prefix string
}{
	{KindConsole, "core_console_"},
	{KindShare, "core_share_"},
	{KindMCP, "core_mcp_"},
	{KindAdmin, "core_admin_"},
	{KindPair, "core_pair_"},
}

const (
	secretBytes = 32                                           // 256 bits
	secretLen   = 43                                           // base64 raw-URL length of 32 bytes
	maxTokenLen = len("core_console_") + secretLen             // the longest prefix plus the secret
	idPrefix    = "tok_"                                       // Record.ID = "tok_" + 12 hex chars
	idBytes     = 6                                            // 12 hex chars
	listHint    = "`core config console token list`"           // where ids are shown
	createHint  = "`core config console token create`"         // how a user gets a token
	openHint    = "open a fresh pairing link with `core open`" // how the console gets one
)

// Sentinel errors returned by Authenticate (and ErrNotFound by Revoke).
// Authenticate returns them unwrapped, so the gateway can compare with == or
// errors.Is; none of them ever contains a token.
var (
	ErrMissing   = errors.New("no bearer token: send `Authorization: Bearer <token>`")
	ErrMalformed = errors.New("malformed bearer token: expected `Authorization: Bearer core_<kind>_<secret>` with the token exactly as it was printed")
	ErrUnknown   = errors.New("unknown or revoked token: mint a new one with " + createHint + ", or " + openHint)
	ErrExpired   = errors.New("token expired: mint a new one with " + createHint)
	ErrNotFound  = errors.New("token not found")
)

// valid reports whether k is one of the defined kinds.
func (k Kind) valid() bool { return k.prefix() != "" }

func (k Kind) prefix() string {
	for _, kp := range kinds {
		if kp.kind == k {
			return kp.prefix
		}
	}
	return ""
}

// persistent kinds are the ones Create writes to tokens.json.
func (k Kind) persistent() bool { return k == KindConsole || k == KindMCP }

// allowedGrants is what a token of kind k may carry. Persistent tokens never
// carry admin or pair (those exist only in memory); a share token is
// read-only whatever its caller asks for.
func (k Kind) allowedGrants() Grant {
	switch k {
	case KindConsole:
		return ConsoleRead | ConsoleWrite
	case KindMCP:
		return MCP | mcpScopes
	case KindShare:
		return ConsoleRead
	case KindAdmin, KindPair:
		return allGrants
	}
	return None
}

// wellFormed reports whether tok has the shape core_<kind>_<43 base64url
// chars>. It neither allocates nor looks the token up.
func wellFormed(tok string) bool {
	if len(tok) > maxTokenLen || len(tok) < secretLen {
		return false
	}
	body := ""
	for _, kp := range kinds {
		if len(tok) == len(kp.prefix)+secretLen && tok[:len(kp.prefix)] == kp.prefix {
			body = tok[len(kp.prefix):]
			break
		}
	}
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// hashToken is the SHA-256 of tok, computed through a stack buffer so the
// string-to-bytes conversion does not allocate. tok must be wellFormed.
func hashToken(tok string) [sha256.Size]byte {
	var buf [maxTokenLen]byte
	n := copy(buf[:], tok)
	return sha256.Sum256(buf[:n])
}

// newSecret returns a fresh token of kind k and its hash.
func newSecret(k Kind) (string, [sha256.Size]byte) {
	var raw [secretBytes]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails (it crashes the program instead)
	tok := k.prefix() + base64.RawURLEncoding.EncodeToString(raw[:])
	return tok, hashToken(tok)
}

// newID returns "tok_" + 12 random hex chars, not derived from any secret.
func newID() string {
	var raw [idBytes]byte
	_, _ = rand.Read(raw[:])
	return idPrefix + hex.EncodeToString(raw[:])
}

// Principal is who a request is from: the result of a successful
// Authenticate. The hash identifies the token for Redeem without keeping it.
type Principal struct {
	ID        string
	Kind      Kind
	Grants    Grant
	ExpiresAt time.Time // zero: no expiry (dies with the server process)
	hash      [sha256.Size]byte
	life      context.Context // Lifetime
}

// entry is a token as the lookup maps hold it.
type entry struct {
	id      string
	kind    Kind
	grants  Grant
	expires time.Time
	life    life
}

func (e *entry) expiredAt(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

// bearer extracts the token from an Authorization header value: the scheme
// "Bearer" in any case, exactly one space, then the token.
func bearer(h string) (string, error) {
	const scheme = "bearer"
	if len(h) < len(scheme) || !asciiEqualFold(h[:len(scheme)], scheme) {
		return "", ErrMissing
	}
	rest := h[len(scheme):]
	if rest == "" || rest == " " {
		return "", ErrMissing
	}
	if rest[0] != ' ' {
		return "", ErrMissing // another scheme that starts with "bearer", e.g. "Bearerx"
	}
	return rest[1:], nil
}

// asciiEqualFold compares ASCII case-insensitively; unlike strings.EqualFold
// it does no Unicode folding, so only the six ASCII letters spell the scheme.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
