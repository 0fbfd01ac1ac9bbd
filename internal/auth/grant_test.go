package auth

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseGrant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Grant
	}{
		{"console=read", ConsoleRead},
		{"console=write", ConsoleWrite},
		{"admin", Admin},
		{"pair", Pair},
		{"mcp", MCP},
	} {
		t.Run(tc.in+"_is_known", func(t *testing.T) {
			got, err := ParseGrant(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("ParseGrant(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	for _, in := range []string{"", "console", "Console=read", "console=read ", "read", "*"} {
		t.Run(in+"_is_refused_listing_the_allowed_values", func(t *testing.T) {
			_, err := ParseGrant(in)
			if err == nil {
				t.Fatalf("ParseGrant(%q) succeeded", in)
			}
			for _, name := range grantNames {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not list %q", err, name)
				}
			}
		})
	}
}

func TestGrantSet(t *testing.T) {
	t.Parallel()
	g := ConsoleRead | MCP
	t.Run("has_each_of_its_bits", func(t *testing.T) {
		if !g.Has(ConsoleRead) || !g.Has(MCP) || !g.Has(ConsoleRead|MCP) || !g.Has(None) {
			t.Fatal("missing a bit it holds")
		}
	})
	t.Run("lacks_a_set_with_any_missing_bit", func(t *testing.T) {
		if g.Has(ConsoleWrite) || g.Has(ConsoleRead|ConsoleWrite) || None.Has(ConsoleRead) {
			t.Fatal("reported a bit it does not hold")
		}
	})
	t.Run("strings_are_in_a_stable_order", func(t *testing.T) {
		all := MCP | Pair | Admin | ConsoleWrite | ConsoleRead
		want := []string{"console=read", "console=write", "admin", "pair", "mcp"}
		if got := all.Strings(); !reflect.DeepEqual(got, want) {
			t.Fatalf("Strings() = %v, want %v", got, want)
		}
	})
	t.Run("strings_round_trip_through_ParseGrants", func(t *testing.T) {
		for g := None; g <= allGrants; g++ {
			back, err := ParseGrants(g.Strings())
			if err != nil || back != g {
				t.Fatalf("ParseGrants(%v) = %v, %v; want %v", g.Strings(), back, err, g)
			}
		}
	})
	t.Run("none_is_an_empty_list", func(t *testing.T) {
		if s := None.Strings(); s == nil || len(s) != 0 {
			t.Fatalf("None.Strings() = %#v", s)
		}
		if None.String() != "none" {
			t.Fatalf("None.String() = %q", None.String())
		}
	})
}

func TestAnMCPTokenIsScopedByItsGrants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		toolsets []string
		readOnly bool
		grants   string
		scope    string
		allows   map[[2]string]bool // toolset, "w" or "r"
	}{
		{nil, false, "mcp", "every toolset", map[[2]string]bool{{"run", "w"}: true, {"read", "r"}: true}},
		{[]string{"read", "review", "read"}, false, "mcp,mcp=read,mcp=review", "read, review", map[[2]string]bool{{"read", "r"}: true, {"review", "w"}: true, {"run", "w"}: false, {"attention", "r"}: false}},
		{nil, true, "mcp,mcp=read-only", "every toolset (read-only)", map[[2]string]bool{{"read", "r"}: true, {"attention", "r"}: true, {"review", "w"}: false, {"run", "w"}: false}},
		{[]string{"attention"}, true, "mcp,mcp=attention,mcp=read-only", "attention (read-only)", map[[2]string]bool{{"attention", "r"}: true, {"attention", "w"}: false, {"read", "r"}: false}},
	} {
		names, err := MCPGrants(tc.toolsets, tc.readOnly)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseGrants(names)
		if err != nil || g.String() != tc.grants {
			t.Fatalf("%v %v: grants %s (%v), want %s", tc.toolsets, tc.readOnly, g, err, tc.grants)
		}
		s := g.MCPScope()
		if s.String() != tc.scope {
			t.Errorf("%s: scope %q, want %q", g, s, tc.scope)
		}
		for k, want := range tc.allows {
			if got := s.Allows(k[0], k[1] == "r"); got != want {
				t.Errorf("%s: Allows(%s, read-only %v) = %v", g, k[0], k[1] == "r", got)
			}
		}
		if extra := g &^ KindMCP.allowedGrants(); extra != None {
			t.Errorf("%s on an mcp token: %s is not allowed", g, extra)
		}
	}
	if _, err := MCPGrants([]string{"everything"}, false); err == nil || !strings.Contains(err.Error(), "read, review, run, attention") {
		t.Errorf("an unknown toolset: %v", err)
	}
	if KindConsole.allowedGrants().Has(MCPRead) || KindShare.allowedGrants().Has(MCPReadOnly) {
		t.Error("a console or share token may take an mcp scope")
	}
	for _, n := range GrantNames() {
		if strings.HasPrefix(n, "mcp=") {
			t.Errorf("a route may name the scope %s", n)
		}
	}
}
