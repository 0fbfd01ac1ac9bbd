package index

import (
	"sync"
	"testing"
)

func TestABigPassBoundsTheHeapAndRestoresTheLimitItFound(t *testing.T) {
	for _, c := range []struct {
		name       string
		prev       int64
		wantAtMost int64
	}{
		{"no limit before: at least the floor, at most 7/4 of a live heap under it", 1 << 62, 1 << 62},
		{"a lower limit before is never raised", 64 << 20, 64 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var set []int64
			current := c.prev
			setLimit := func(l int64) int64 {
				mu.Lock()
				defer mu.Unlock()
				old := current
				if l >= 0 {
					set = append(set, l)
					current = l
				}
				return old
			}
			restore := boundHeap(setLimit, passBound)
			restore()
			if len(set) < 2 {
				t.Fatalf("limits set: %v", set)
			}
			for _, l := range set[:len(set)-1] {
				if l > c.wantAtMost || l < min(c.prev, heapFloor) {
					t.Errorf("a limit of %d during the pass (before: %d)", l, c.prev)
				}
			}
			if last := set[len(set)-1]; last != c.prev {
				t.Errorf("restored %d, want %d", last, c.prev)
			}
		})
	}
}

func TestNestedBoundsShareOneLimiterAndTheLastRestoresTheLimit(t *testing.T) {
	var mu sync.Mutex
	current, calls := int64(1<<62), 0
	setLimit := func(l int64) int64 {
		mu.Lock()
		defer mu.Unlock()
		old := current
		if l >= 0 {
			current = l
			calls++
		}
		return old
	}
	get := func() (int64, int) {
		mu.Lock()
		defer mu.Unlock()
		return current, calls
	}
	outer := boundHeap(setLimit, runBound)
	bounded, _ := get()
	if bounded >= 1<<62 {
		t.Fatal("the outer bound set no limit")
	}
	inner := boundHeap(setLimit, passBound)
	// The inner bound starts no limiter of its own: it would take the
	// outer's limit of now for a ceiling that never rises.
	if _, n := get(); len(heapBound.quarters) != 2 || n > 2 {
		t.Fatalf("the inner bound started a limiter of its own (%d holders, %d limits set)", len(heapBound.quarters), n)
	}
	if q := heapBound.tightest.Load(); q != passBound {
		t.Errorf("with a pass inside a run the heap is held to %d/4 of live, not the pass's %d/4", q, passBound)
	}
	inner()
	inner() // a second call changes nothing
	if q := heapBound.tightest.Load(); q != runBound {
		t.Errorf("after the pass the heap is held to %d/4 of live, not the run's %d/4", q, runBound)
	}
	if l, _ := get(); l >= 1<<62 {
		t.Fatal("the inner bound's end restored the limit while the outer one still holds")
	}
	outer()
	if l, _ := get(); l != 1<<62 {
		t.Fatalf("after the last bound the limit is %d, not the one found", l)
	}
	if len(heapBound.quarters) != 0 || heapBound.stop != nil {
		t.Fatal("the limiter still runs after the last bound")
	}
}
