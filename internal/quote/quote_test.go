package quote

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"a short input is quoted whole", "api:build", `"api:build"`},
		{"an input of exactly the limit is whole", strings.Repeat("a", MaxRunes), `"` + strings.Repeat("a", MaxRunes) + `"`},
		{"a longer input is cut after the limit", strings.Repeat("a", 10*MaxRunes), `"` + strings.Repeat("a", MaxRunes) + `"...`},
		{"runes are not split", strings.Repeat("é", MaxRunes+1), `"` + strings.Repeat("é", MaxRunes) + `"...`},
		{"control characters are escaped", "a\nb\x00", `"a\nb\x00"`},
		{"the empty input is two quotes", "", `""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Short(c.in); got != c.want {
				t.Errorf("Short = %s, want %s", got, c.want)
			}
		})
	}
	t.Run("64 MiB become a line", func(t *testing.T) {
		if got := Short(strings.Repeat("x", 64<<20)); len(got) > 2*MaxRunes {
			t.Errorf("%d bytes", len(got))
		}
	})
}

func TestPrefix(t *testing.T) {
	if got := Prefix("api"); got != "api" {
		t.Errorf("Prefix(api) = %q", got)
	}
	if got := Prefix(strings.Repeat("k", 3*MaxRunes)); got != strings.Repeat("k", MaxRunes)+"..." {
		t.Errorf("Prefix of a long key = %q", got)
	}
}

func FuzzShort(f *testing.F) {
	f.Add("api:build")
	f.Add(strings.Repeat("é", 100))
	f.Fuzz(func(t *testing.T, s string) {
		got := Short(s)
		if len(got) > 10*MaxRunes+8 { // a rune escapes to at most 10 bytes (\U0010ffff)
			t.Fatalf("%d bytes for %d", len(got), len(s))
		}
	})
}
