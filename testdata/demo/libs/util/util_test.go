package util

import "testing"

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"Blue Mug (large)": "blue-mug-large",
		"  spaces  ":       "spaces",
		"":                 "",
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCents(t *testing.T) {
	if got := Cents(1234).String(); got != "12.34" {
		t.Errorf("got %q", got)
	}
	if got := Cents(-5).String(); got != "-0.05" {
		t.Errorf("got %q", got)
	}
	if got := Cents(1000).Percent(19); got != 190 {
		t.Errorf("got %d", got)
	}
}
