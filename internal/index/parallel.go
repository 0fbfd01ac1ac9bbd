package index

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallel calls f(i) for every i in [0, n) on every core and returns when
// all have returned. Each call must write only its own i's results.
func Parallel(n int, f func(i int)) {
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
