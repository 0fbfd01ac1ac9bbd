package diff

import (
	"context"
	"runtime"
	"sync"
)

// EachFile calls do for the index of every file that wants it, on as many
// goroutines as there are CPUs: reading, hashing and parsing changed files
// are independent and the change may hold hundreds. It stops handing out
// work once ctx ends; do must write only to its own index's slot.
func EachFile(ctx context.Context, files []File, wants func(File) bool, do func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				do(i)
			}
		}()
	}
	for i, f := range files {
		if ctx.Err() != nil {
			break
		}
		if wants(f) {
			work <- i
		}
	}
	close(work)
	wg.Wait()
}
