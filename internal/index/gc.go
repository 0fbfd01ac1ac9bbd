package index

import (
	"runtime/metrics"
	"sync"
	"time"
)

// The collector's targets a pass asks for (Options.GC): a pass, and a
// big one.
const (
	gcPass    = 400
	gcBigPass = 1000
)

// heapFloor is the soft memory limit a big pass keeps at least: below it
// the collector runs as seldom as gcBigPass lets it.
const heapFloor = 200 << 20

// boundHeap holds the process's memory to twice the live heap, and at
// least heapFloor, while a big pass runs: with the collector's target at
// gcBigPass, the heap would otherwise grow to ten times a large live set
// before a collection (on Go's own source, 600 MB of RSS for 125 MB live;
// BENCHMARKS.md, issue 36). It reads the live heap every 100 ms, never
// raises a limit the process already had, and restores that limit when
// the returned func is called.
//
// Bounds nest and overlap (a big pass inside core run, which is bounded
// by Throughput; two workspaces' passes in one test process): they share
// one limiter, started by the first and stopped by the last. A second
// one would take the first's current limit for a ceiling that never
// rises, and hold a growing live heap to it.
func boundHeap(setLimit func(int64) int64) (restore func()) {
	heapBound.Lock()
	defer heapBound.Unlock()
	if heapBound.n == 0 {
		heapBound.stop = startBound(setLimit)
	}
	heapBound.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			heapBound.Lock()
			defer heapBound.Unlock()
			if heapBound.n--; heapBound.n == 0 {
				heapBound.stop()
				heapBound.stop = nil
			}
		})
	}
}

// heapBound is the process's one limiter (boundHeap) and how many hold it.
var heapBound struct {
	sync.Mutex
	n    int
	stop func()
}

func startBound(setLimit func(int64) int64) (stop func()) {
	prev := setLimit(-1)
	limit := func() int64 {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		live := int64(0)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(sample[0].Value.Uint64())
		}
		return min(prev, max(heapFloor, 7*live/4))
	}
	setLimit(limit())
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				setLimit(limit())
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		setLimit(prev)
	}
}

// Throughput tunes the collector of a command that keeps most of what it
// allocates and ends soon (core run: the workspace, the keys, the files'
// digests) as a pass does: the target at gcPass, the heap held by
// boundHeap. A cached run of 200 targets spends a tenth less wall and CPU
// (BENCHMARKS.md, issue 38). restore puts back what the process had.
func Throughput(gc GC) (restore func()) {
	if gc.Percent == nil || gc.Limit == nil {
		return func() {}
	}
	prev := gc.Percent(gcPass)
	unbound := boundHeap(gc.Limit)
	return func() {
		unbound()
		gc.Percent(prev)
	}
}
