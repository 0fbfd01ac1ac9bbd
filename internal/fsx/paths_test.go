package fsx

import "testing"

func TestWhichPathsStayInside(t *testing.T) {
	for _, c := range []struct {
		p            string
		local, clean bool
	}{
		{"a", true, true},
		{"a/b.txt", true, true},
		{"a/../b", true, false},
		{"./a", true, false},
		{"", false, false},
		{"..", false, false},
		{"../a", false, false},
		{"a/../../b", false, false},
		{"/etc/passwd", false, false},
		{`a\..\..\b`, false, false},
	} {
		if got := Local(c.p); got != c.local {
			t.Errorf("Local(%q) = %v, want %v", c.p, got, c.local)
		}
		if got := CleanLocal(c.p); got != c.clean {
			t.Errorf("CleanLocal(%q) = %v, want %v", c.p, got, c.clean)
		}
	}
	for _, c := range []struct {
		dir, f, rel string
		ok          bool
	}{
		{".", "a/b", "a/b", true},
		{"a", "a/b", "b", true},
		{"a", "a", "", false},
		{"a", "ab/c", "", false},
	} {
		if rel, ok := Under(c.dir, c.f); rel != c.rel || ok != c.ok {
			t.Errorf("Under(%q, %q) = %q, %v", c.dir, c.f, rel, ok)
		}
	}
}
