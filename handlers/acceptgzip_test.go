package handlers

import (
	"strings"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header string
		want   bool
		why    string
	}{
		{"gzip", true, "gzip named"},
		{"x-gzip", true, "x-gzip is gzip"},
		{"GZIP", true, "codings are case-insensitive"},
		{"X-GZip", true, "x-gzip in any case"},
		{"  gzip  ", true, "spaces around the coding"},
		{"deflate, gzip, br", true, "gzip among others"},
		{"deflate,gzip", true, "no space after the comma"},
		{"gzip;q=1", true, "q=1"},
		{"gzip;q=1.0", true, "q=1.0"},
		{"gzip;q=0.5", true, "q between 0 and 1"},
		{"gzip;q=0.001", true, "the smallest weight above 0"},
		{"gzip ; q = 0.5", true, "spaces around the parameter"},
		{"gzip;Q=0.5", true, "the q parameter's name is case-insensitive"},
		{"gzip;level=9", true, "a parameter that is not q leaves the weight at 1"},
		{"gzip;level=9;q=0", false, "q after another parameter"},
		{"gzip;q=0", false, "q=0 refuses"},
		{"gzip;q=0.0", false, "q=0.0 refuses"},
		{"gzip;q=0.000", false, "q=0.000 refuses"},
		{"gzip;q=1.5", false, "a weight above 1 is invalid"},
		{"gzip;q=-0.5", false, "a negative weight is invalid"},
		{"gzip;q=high", false, "a weight that does not parse"},
		{"gzip;q=", false, "an empty weight"},
		{"gzip;q=NaN", false, "NaN is not a weight"},
		{"gzip;q=Inf", false, "Inf is not a weight"},
		{"*", true, "* covers gzip"},
		{"*;q=0.5", true, "* with a weight above 0"},
		{"*;q=0", false, "* with q=0 refuses what is not named"},
		{"*;q=0, gzip", true, "gzip named beside *;q=0"},
		{"gzip, *;q=0", true, "gzip named before *;q=0"},
		{"gzip;q=0, *", false, "an explicit gzip;q=0 wins over *"},
		{"*, gzip;q=0", false, "an explicit gzip;q=0 wins over an earlier *"},
		{"*;q=high", false, "* with a weight that does not parse"},
		{"br, *", true, "* beside another coding"},
		{"", false, "no header"},
		{" , ", false, "an empty list"},
		{"identity", false, "identity only"},
		{"deflate, br", false, "other codings only"},
		{"gzipx", false, "a longer name"},
		{"gz", false, "a shorter name"},
		{"x-gzipped", false, "a longer x- name"},
		{"gzip-2", false, "a name that starts with gzip"},
		{"**", false, "a wildcard that is not *"},
	}
	for _, c := range cases {
		t.Run(c.why, func(t *testing.T) {
			t.Parallel()
			if got := acceptsGzip(c.header); got != c.want {
				t.Errorf("acceptsGzip(%q) = %v, want %v", c.header, got, c.want)
			}
		})
	}
}

func TestQValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		params string
		want   float64
	}{
		{"", 1},
		{"level=9", 1},
		{"q", 1}, // no '=': not a q parameter
		{"q=1", 1},
		{"q=0.5", 0.5},
		{" q = 0.25 ", 0.25},
		{"Q=0.75", 0.75},
		{"level=9;q=0.3", 0.3},
		{"q=0.3;q=0.9", 0.3}, // the first q counts
		{"q=0", 0},
		{"q=0.001", 0.001},
		{"q=1.5", 0},
		{"q=-1", 0},
		{"q=", 0},
		{"q=x", 0},
		{"q=NaN", 0},
		{"q=nan", 0},
		{"q=Inf", 0},
		{"q=-Inf", 0},
	}
	for _, c := range cases {
		t.Run(c.params, func(t *testing.T) {
			t.Parallel()
			if got := qValue(c.params); got != c.want {
				t.Errorf("qValue(%q) = %v, want %v", c.params, got, c.want)
			}
		})
	}
}

// FuzzAcceptsGzip feeds arbitrary Accept-Encoding headers to acceptsGzip:
// it never panics, every weight it reads is a number from 0 to 1, and gzip
// named first without a weight is always accepted.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "x-gzip;q=0.5", "*;q=0, gzip", "gzip;q=0, *", "br;q=1.5", ";;,,=;q=", "gzip;q=NaN", "\x00", "*;q=1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		_ = acceptsGzip(header)
		for part := range strings.SplitSeq(header, ",") {
			_, params, _ := strings.Cut(part, ";")
			if q := qValue(params); !(q >= 0 && q <= 1) {
				t.Fatalf("qValue(%q) = %v, not a weight from 0 to 1", params, q)
			}
		}
		if !acceptsGzip("gzip, " + header) {
			t.Fatalf("%q after a plain gzip refuses gzip", header)
		}
	})
}
