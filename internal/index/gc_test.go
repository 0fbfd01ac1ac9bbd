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
			restore := boundHeap(setLimit)
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
