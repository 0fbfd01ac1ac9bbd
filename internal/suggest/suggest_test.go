package suggest

import "testing"

func TestClosest(t *testing.T) {
	opts := []string{"grant", "name", "path", "console.enabled", "console=read"}
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"grnat", "grant", true},
		{"console.enabeld", "console.enabled", true},
		{"console=reed", "console=read", true},
		{"zzzzzz", "", false},
		{"grant", "", false}, // an exact match is not a typo
	}
	for _, c := range cases {
		got, ok := Closest(c.in, opts)
		if got != c.want || ok != c.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
