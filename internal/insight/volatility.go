package insight

import (
	"math"
	"sort"
	"strings"

	"github.com/corehq/core/internal/runlog"
)

// volatility ranks targets whose result flips between runs with the same
// cache key (the same inputs): per target, the consecutive pairs of
// executed runs (cache hits replay a result, so they are left out) that
// share a key, and how many of those differ in result. Ranked by the lower
// bound of the Wilson interval at 95%, so a target seen flipping once in
// two pairs does not outrank one flipping 20 times in 60; targets with
// fewer than MinFlipSample pairs are left out.
func volatility(cacheDir, project string, limit int) *Volatility {
	out := &Volatility{MinSample: MinFlipSample, Targets: []TargetFlakiness{}}
	js, err := runlog.List(cacheDir, maxJournals, "")
	if err != nil {
		return out
	}
	out.Runs = len(js)
	byTarget := map[string][]runlog.Journal{}
	for _, j := range js {
		if j.CacheHit || j.CacheKey == "" || (j.Status != runlog.StateSucceeded && j.Status != runlog.StateFailed) {
			continue
		}
		if project != "" && !strings.HasPrefix(j.Target, project+":") {
			continue
		}
		byTarget[j.Target] = append(byTarget[j.Target], j)
	}
	for target, runs := range byTarget {
		sort.Slice(runs, func(a, b int) bool { return runs[a].Start.Before(runs[b].Start) })
		tf := TargetFlakiness{Target: target, Runs: len(runs)}
		for i := 1; i < len(runs); i++ {
			if runs[i].CacheKey != runs[i-1].CacheKey {
				continue
			}
			tf.Pairs++
			if runs[i].Status != runs[i-1].Status {
				tf.Flips++
			}
		}
		if tf.Pairs < MinFlipSample || tf.Flips == 0 {
			continue
		}
		tf.Rate = round(float64(tf.Flips) / float64(tf.Pairs))
		tf.LowerBound = round(wilsonLower(tf.Flips, tf.Pairs))
		out.Targets = append(out.Targets, tf)
	}
	sort.Slice(out.Targets, func(i, j int) bool {
		a, b := out.Targets[i], out.Targets[j]
		if a.LowerBound != b.LowerBound {
			return a.LowerBound > b.LowerBound
		}
		return a.Target < b.Target
	})
	out.Targets = out.Targets[:min(limit, len(out.Targets))]
	return out
}

// wilsonLower is the lower bound of the Wilson score interval for k
// successes in n trials at 95% confidence.
func wilsonLower(k, n int) float64 {
	if n == 0 {
		return 0
	}
	const z = 1.959964
	p := float64(k) / float64(n)
	nf := float64(n)
	denom := 1 + z*z/nf
	centre := p + z*z/(2*nf)
	margin := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return math.Max(0, (centre-margin)/denom)
}
