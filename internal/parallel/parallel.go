// Package parallel spreads independent calls over every core: the one
// home of how many workers work at once, outside the runner's pool.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n) on every core and returns when
// all have returned. Each call must write only its own i's results.
func For(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), n); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// Groups is For over the indexes in groups, with the workers
// spread over the groups: worker w starts on group w mod len(groups) and
// moves on to the next group when its own is done. Parsing tree-sitter's
// languages on some cores while Go is parsed on the others is 7% faster on
// two hyperthreads than mixing them: tree-sitter's parse tables and the Go
// parser then compete less for the cache they share.
func Groups(groups [][]int, f func(i int)) {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	next := make([]atomic.Int64, len(groups))
	var wg sync.WaitGroup
	for w := range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range groups {
				g := (w + k) % len(groups)
				for {
					i := int(next[g].Add(1) - 1)
					if i >= len(groups[g]) {
						break
					}
					f(groups[g][i])
				}
			}
		}()
	}
	wg.Wait()
}
