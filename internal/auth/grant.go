package auth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// Grant is a set of permissions carried by a token. Routes in routes.yaml
// name the grant they need; the gateway checks it with Has.
type Grant uint16

// The grants. Their bit order is also the order Strings reports them in.
const (
	ConsoleRead  Grant = 1 << iota // "console=read": the console's read routes
	ConsoleWrite                   // "console=write": every other console route
	Admin                          // "admin": token management
	Pair                           // "pair": trade a pairing code for a console token
	MCP                            // "mcp": the /mcp endpoint
	// The scopes of an mcp token: which toolsets of /mcp it may use (none
	// named: every one), and whether only the tools that change nothing.
	// No route names them; the MCP server reads them (MCPScope).
	MCPRead            // "mcp=read": the read toolset
	MCPReview          // "mcp=review": the review toolset
	MCPRun             // "mcp=run": the run toolset
	MCPAttention       // "mcp=attention": the attention toolset
	MCPReadOnly        // "mcp=read-only": only the tools that change nothing
	None         Grant = 0
)

// grantNames is indexed by bit position; it is the single spelling of each
// grant, used by ParseGrant, Strings and the error that lists allowed values.
var grantNames = [...]string{"console=read", "console=write", "admin", "pair", "mcp",
	"mcp=read", "mcp=review", "mcp=run", "mcp=attention", "mcp=read-only"}

// routeGrants counts the grants a route may name: the first of grantNames.
const routeGrants = 5

// allGrants is every defined bit.
const allGrants = ConsoleRead | ConsoleWrite | Admin | Pair | MCP | mcpScopes

// mcpScopes are the bits that scope an mcp token.
const mcpScopes = MCPRead | MCPReview | MCPRun | MCPAttention | MCPReadOnly

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

// GrantNames lists the spelling of every grant a route may name, in bit
// order (not an mcp token's scopes).
func GrantNames() []string { return append([]string(nil), grantNames[:routeGrants]...) }

// Has reports whether every bit of want is present in g. Has(None) is true.
func (g Grant) Has(want Grant) bool { return g&want == want }

// Strings returns the names of the grants in g in a stable order
// (console=read, console=write, admin, pair, mcp, then an mcp token's
// scopes). Undefined bits are
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

// Toolsets are the parts of /mcp a token can be scoped to.
var Toolsets = []string{"read", "review", "run", "attention"}

// toolsetGrants are the grants of Toolsets, in its order.
var toolsetGrants = []Grant{MCPRead, MCPReview, MCPRun, MCPAttention}

// MCPScope is what of /mcp a token's grants open.
type MCPScope struct {
	// Toolsets it may use; nil: every one.
	Toolsets []string
	// ReadOnly keeps it to the tools that change nothing.
	ReadOnly bool
}

// MCPScope is the scope g gives at /mcp.
func (g Grant) MCPScope() MCPScope {
	var s MCPScope
	for i, t := range toolsetGrants {
		if g.Has(t) {
			s.Toolsets = append(s.Toolsets, Toolsets[i])
		}
	}
	s.ReadOnly = g.Has(MCPReadOnly)
	return s
}

// Allows reports whether the scope opens a tool of toolset that changes
// something (readOnly false) or not.
func (s MCPScope) Allows(toolset string, readOnly bool) bool {
	if s.ReadOnly && !readOnly {
		return false
	}
	return s.Toolsets == nil || slices.Contains(s.Toolsets, toolset)
}

// String says the scope in words: "every toolset", "read, run (read-only)".
func (s MCPScope) String() string {
	w := "every toolset"
	if s.Toolsets != nil {
		w = strings.Join(s.Toolsets, ", ")
	}
	if s.ReadOnly {
		w += " (read-only)"
	}
	return w
}

// MCPGrants are the grants of an mcp token scoped to toolsets (none: all)
// and, when readOnly, to the tools that change nothing.
func MCPGrants(toolsets []string, readOnly bool) ([]string, error) {
	grants := []string{"mcp"}
	seen := map[string]bool{}
	for _, t := range toolsets {
		t = strings.TrimSpace(t)
		i := slices.Index(Toolsets, t)
		if i < 0 {
			return nil, fmt.Errorf("unknown toolset %s: allowed values are %s", quote.Short(t), strings.Join(Toolsets, ", "))
		}
		if !seen[t] {
			seen[t] = true
			grants = append(grants, grantNames[bitOf(toolsetGrants[i])])
		}
	}
	if readOnly {
		grants = append(grants, "mcp=read-only")
	}
	return grants, nil
}

func bitOf(g Grant) int {
	for i := range grantNames {
		if g == Grant(1)<<i {
			return i
		}
	}
	return -1
}
