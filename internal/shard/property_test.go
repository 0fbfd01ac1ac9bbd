package shard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomRun is a random DAG of targets with random weights: n targets,
// each depending on earlier ones with a density drawn per run (from a
// forest of loners to one tangled component), weights heavy-tailed
// between 100ms and about 2 minutes, a few weightless (cached-looking).
func randomRun(r *rand.Rand, n int) []Target {
	density := []float64{0, 0.01, 0.03, 0.1, 0.3}[r.IntN(5)]
	fanout := 1 + r.IntN(3)
	ts := make([]Target, n)
	for i := range ts {
		ts[i].ID = fmt.Sprintf("p%03d:t", i)
		switch x := r.Float64(); {
		case x < 0.05:
			ts[i].Weight = 0
		case x < 0.85:
			ts[i].Weight = 100 + r.Int64N(10_000)
		default:
			ts[i].Weight = 10_000 + r.Int64N(110_000)
		}
		for j := range i {
			if r.Float64() < density/float64(fanout) {
				ts[i].Deps = append(ts[i].Deps, ts[j].ID)
			}
		}
		r.Shuffle(len(ts[i].Deps), func(a, b int) { ts[i].Deps[a], ts[i].Deps[b] = ts[i].Deps[b], ts[i].Deps[a] })
	}
	r.Shuffle(len(ts), func(a, b int) { ts[a], ts[b] = ts[b], ts[a] })
	return ts
}

// TestTheLongestShardIsWithinAQuarterOfTheLowerBound is issue 35's
// property: for random DAGs and weights the heaviest shard's work is at
// most 1.25 × max(total ÷ N, longest chain). It needs targets to outnumber
// shards several times over: with 3 targets of 1s on 2 shards the bound
// is 1.5s and no split does better than 2s. So runs have 5N to 200
// targets.
func TestTheLongestShardIsWithinAQuarterOfTheLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	worst := 0.0
	runs := 3000
	if testing.Short() {
		runs = 300 // -short (RACE=all scripts/test): the full count takes 17s under the race detector
	}
	for run := range runs {
		n := 2 + r.IntN(7) // 2..8 shards
		ts := randomRun(r, 5*n+r.IntN(200-5*n+1))
		p, err := Make(ts, n)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(p.LongestMS) / float64(max(p.LowerBoundMS, 1))
		worst = max(worst, ratio)
		if p.LongestMS*4 > p.LowerBoundMS*5 {
			t.Fatalf("run %d: %d targets on %d shards: the longest shard works %dms, %.3f× the lower bound %dms (total %dms, chain %dms)",
				run, len(ts), n, p.LongestMS, ratio, p.LowerBoundMS, p.TotalMS, p.ChainMS)
		}
	}
	t.Logf("worst ratio over %d runs: %.3f", runs, worst)
}

// TestEveryTargetIsOnExactlyOneShard: the shards partition the targets.
func TestEveryTargetIsOnExactlyOneShard(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 2))
	for range 300 {
		n := 1 + r.IntN(8)
		ts := randomRun(r, 1+r.IntN(120))
		p, err := Make(ts, n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range p.Shards {
			got = append(got, s.Targets...)
		}
		slices.Sort(got)
		want := make([]string, len(ts))
		for i, tg := range ts {
			want[i] = tg.ID
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("the shards hold %v, the run %v", got, want)
		}
	}
}

// TestThePlanDoesNotDependOnTheOrderOfItsInput: every runner computes the
// plan alone, from targets it may list in another order.
func TestThePlanDoesNotDependOnTheOrderOfItsInput(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 3))
	for range 200 {
		ts := randomRun(r, 10+r.IntN(100))
		a, err := Make(ts, 4)
		if err != nil {
			t.Fatal(err)
		}
		r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
		b, err := Make(ts, 4)
		if err != nil {
			t.Fatal(err)
		}
		if a.Digest != b.Digest {
			t.Fatalf("two orders of the same targets, two plans: %s and %s", a.Digest, b.Digest)
		}
	}
}
