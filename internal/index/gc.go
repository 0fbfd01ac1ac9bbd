package index

import (
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
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

// The bounds on the heap a holder of boundHeap asks for, in quarters of
// the live heap: a big pass holds it to 7/4 while it parses (issue 36's
// memory), and to 3/2 from the assembly of its graph to its end,
// encoding included for `core graph --json` (the heap is then at its
// largest, the records all parsed and the graph being built: on a
// 500,000-file corpus 1.6 GB of RSS at 7/4 for the few seconds of a
// three-minute pass it lasts, 1.4 GB at 3/2; at 5/4 it took ten seconds
// longer); a run
// (Throughput) to 5/2, about where the default collector holds a large
// heap (the limit counts all of Go's memory, the default target only the
// heap: at 2, a warm run of 111k files collected more than by default),
// so that only a heap under heapFloor is collected less often.
const (
	passBound = 7
	tailBound = 6
	runBound  = 10
)

// boundHeap holds the process's memory to quarters/4 of the live heap,
// and at least heapFloor, while its holder runs: with the collector's
// target at gcBigPass, the heap would otherwise grow to ten times a large
// live set before a collection (on Go's own source, 600 MB of RSS for 125
// MB live; BENCHMARKS.md, issue 36). It reads the live heap every 100 ms,
// never raises a limit the process already had, and restores that limit
// when the returned func is called.
//
// Bounds nest and overlap (a big pass inside core run, which Throughput
// bounds; two workspaces' passes in one test process): they share one
// limiter, started by the first and stopped by the last, which holds the
// heap to the tightest bound asked. A second limiter would take the
// first's limit of the moment for a ceiling that never rises, and hold a
// growing live heap to it.
func boundHeap(setLimit func(int64) int64, quarters int64) (restore func()) {
	heapBound.Lock()
	defer heapBound.Unlock()
	heapBound.quarters = append(heapBound.quarters, quarters)
	heapBound.tightest.Store(slices.Min(heapBound.quarters))
	if len(heapBound.quarters) == 1 {
		heapBound.stop = startBound(setLimit)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			heapBound.Lock()
			defer heapBound.Unlock()
			q := heapBound.quarters
			i := slices.Index(q, quarters)
			heapBound.quarters = slices.Delete(q, i, i+1)
			if len(heapBound.quarters) > 0 {
				heapBound.tightest.Store(slices.Min(heapBound.quarters))
			}
			if len(heapBound.quarters) == 0 {
				heapBound.stop()
				heapBound.stop = nil
			}
		})
	}
}

// heapBound is the process's one limiter (boundHeap), the bound each of
// its holders asked for, and the tightest of them, which the limiter
// reads without the lock.
var heapBound struct {
	sync.Mutex
	quarters []int64
	tightest atomic.Int64
	stop     func()
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
		return min(prev, max(heapFloor, heapBound.tightest.Load()*live/4))
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
// digests): the target at gcPass, the heap held to 5/2 of the live one
// (runBound), about as the default target would, and at least heapFloor. A
// heap under heapFloor is collected less often: a cached run of 200
// targets spends a sixth less wall and CPU; a large one is collected as
// before (BENCHMARKS.md, issue 38). restore puts back what the process
// had.
func Throughput(gc GC) (restore func()) {
	if gc.Percent == nil || gc.Limit == nil {
		return func() {}
	}
	prev := gc.Percent(gcPass)
	unbound := boundHeap(gc.Limit, runBound)
	return func() {
		unbound()
		gc.Percent(prev)
	}
}
