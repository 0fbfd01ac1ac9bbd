// Package metrics counts what the server does (requests, runs, cache hits,
// jobs) for the metrics service. Counters are registered once and then
// bumped through their pointer, so the request path pays an atomic add and
// nothing else.
package metrics

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// The build cache's counters: the runner's observer in the server bumps
// them, and the status snapshot reads them back.
const (
	CacheHits       = "cache_hits"   // local and remote
	CacheMisses     = "cache_misses" // targets whose command ran
	RemoteHits      = "cache_remote_hits"
	RemoteUploads   = "cache_remote_uploads"
	RemoteBytesDown = "cache_remote_bytes_down"
	RemoteBytesUp   = "cache_remote_bytes_up"
)

// Counters is a set of named counters.
type Counters struct {
	mu sync.Mutex
	m  map[string]*atomic.Int64
}

// New returns an empty set.
func New() *Counters { return &Counters{m: map[string]*atomic.Int64{}} }

// Counter returns the counter called name, creating it at zero.
func (c *Counters) Counter(name string) *atomic.Int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[name]; ok {
		return v
	}
	v := new(atomic.Int64)
	c.m[name] = v
	return v
}

// Add adds n to the counter called name. Adding to a nil *Counters does
// nothing, so that code serving without metrics need not check.
func (c *Counters) Add(name string, n int64) {
	if c != nil {
		c.Counter(name).Add(n)
	}
}

// Snapshot returns every counter's value (none from a nil *Counters).
func (c *Counters) Snapshot() map[string]int64 {
	if c == nil {
		return map[string]int64{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.m))
	for k, v := range c.m {
		out[k] = v.Load()
	}
	return out
}

// Names lists the counters, sorted.
func (c *Counters) Names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.m))
}
