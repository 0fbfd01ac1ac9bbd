package auth

import (
	"fmt"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// Grant is a set of permissions carried by a token. Routes in routes.yaml
// name the grant they need; the gateway checks it with Has.
type Grant uint8

// The grants. Their bit order is also the order Strings reports them in.
const (
	ConsoleRead  Grant = 1 << iota // "console=read": the console's read routes
	ConsoleWrite                   // "console=write": every other console route
	Admin                          // "admin": token management
	Pair                           // "pair": trade a pairing code for a console token
	MCP                            // "mcp": the /mcp endpoint
	None         Grant = 0
)

// grantNames is indexed by bit position; it is the single spelling of each
// grant, used by ParseGrant, Strings and the error that lists allowed values.
var grantNames = [...]string{"console=read", "console=write", "admin", "pair", "mcp"}

// allGrants is every defined bit.
const allGrants = ConsoleRead | ConsoleWrite | Admin | Pair | MCP

// ParseGrant parses one grant as written on the command line, in routes.yaml
// and in tokens.json.
func ParseGrant(s string) (Grant, error) {
	for i, name := range grantNames {
		if s == name {
			return Grant(1) << i, nil
		}
	}
	return None, fmt.Errorf("unknown grant %s: allowed values are %s", quote.Short(s), strings.Join(grantNames[:], ", "))
}

// ParseGrants parses a list of grants (for example repeated --grant flags)
// into one set. An empty list is None.
func ParseGrants(ss []string) (Grant, error) {
	var g Grant
	for _, s := range ss {
		one, err := ParseGrant(s)
		if err != nil {
			return None, err
		}
		g |= one
	}
	return g, nil
}

// GrantNames lists the spelling of every grant, in bit order.
func GrantNames() []string { return append([]string(nil), grantNames[:]...) }

// Has reports whether every bit of want is present in g. Has(None) is true.
func (g Grant) Has(want Grant) bool { return g&want == want }

// Strings returns the names of the grants in g in a stable order
// (console=read, console=write, admin, pair, mcp). Undefined bits are
// dropped. None gives an empty, non-nil slice so JSON shows [].
func (g Grant) Strings() []string {
	out := make([]string, 0, len(grantNames))
	for i, name := range grantNames {
		if g&(Grant(1)<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// String joins Strings with commas; "none" for the empty set.
func (g Grant) String() string {
	if g&allGrants == None {
		return "none"
	}
	return strings.Join(g.Strings(), ",")
}
