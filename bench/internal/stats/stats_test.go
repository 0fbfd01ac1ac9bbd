package stats

import (
	"math"
	"testing"
	"time"
)

func TestSummaries(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"an even count's median is the mean of the middle two", Median(xs), 3.5},
		{"an odd count's median is the middle one", Median(xs[:5]), 3},
		{"p50 is the nearest rank", Percentile(xs, 50), 3},
		{"p99 of six is the largest", Percentile(xs, 99), 6},
		{"p0 is the smallest", Percentile(xs, 0), 1},
		{"a millisecond and a half", Ms(1500 * time.Microsecond), 1.5},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(Percentile(nil, 50)) {
		t.Error("an empty list must summarise to NaN")
	}
	if xs[0] != 5 {
		t.Error("the input was sorted in place")
	}
}
