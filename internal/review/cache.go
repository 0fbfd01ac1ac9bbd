package review

import (
	"slices"
	"strings"
	"sync"
)

// Cache keeps, between the requests of one server, what a review derives
// from content that has not changed since: a file's declarations, by the
// file's blob hash, and who references the touched names, at one version
// of the index's symbols. A console re-reads the whole review after every
// comment it writes; with the cache that costs the git part only. The
// zero value is ready; a nil *Cache keeps nothing.
type Cache struct {
	mu      sync.Mutex
	spans   map[string][]span // by path + "\x00" + blob hash
	version uint64
	refs    map[string]map[string][]string // by the sorted names asked
}

// Bounds of a Cache: past them it starts again empty, which costs one
// slow answer and never holds memory that grows with time.
const (
	maxCachedFiles   = 20000
	maxCachedQueries = 16
)

func (c *Cache) spansOf(path, hash string) ([]span, bool) {
	if c == nil || hash == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.spans[path+"\x00"+hash]
	return s, ok
}

func (c *Cache) keepSpans(path, hash string, s []span) {
	if c == nil || hash == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spans == nil || len(c.spans) >= maxCachedFiles {
		c.spans = map[string][]span{}
	}
	c.spans[path+"\x00"+hash] = s
}

// refsKey names a query by its names, in order and without repeats.
func refsKey(names []string) string {
	n := slices.Clone(names)
	slices.Sort(n)
	return strings.Join(slices.Compact(n), "\x00")
}

func (c *Cache) refsOf(version uint64, names []string) (map[string][]string, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return nil, false
	}
	r, ok := c.refs[refsKey(names)]
	return r, ok
}

func (c *Cache) keepRefs(version uint64, names []string, r map[string][]string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version || c.refs == nil || len(c.refs) >= maxCachedQueries {
		c.version, c.refs = version, map[string]map[string][]string{}
	}
	c.refs[refsKey(names)] = r
}
