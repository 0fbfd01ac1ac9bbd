package parallel

import (
	"sync/atomic"
	"testing"
)

func TestForCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		calls := make([]atomic.Int32, n)
		For(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n %d: index %d called %d times", n, i, c)
			}
		}
	}
}

func TestGroupsCallsEveryIndexOnce(t *testing.T) {
	for _, groups := range [][][]int{
		{{0, 2, 4}, {1, 3}},
		{{}, {0, 1, 2}},
		{{0}, {}, {1, 2, 3, 4, 5, 6}},
		{},
	} {
		n := 0
		for _, g := range groups {
			n += len(g)
		}
		calls := make([]atomic.Int32, n)
		Groups(groups, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("groups %v: index %d called %d times", groups, i, c)
			}
		}
	}
}
