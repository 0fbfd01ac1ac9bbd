package metrics

import (
	"sync"
	"testing"
)

func TestCountersAddUpUnderConcurrency(t *testing.T) {
	c := New()
	req := c.Counter("requests_total")
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				req.Add(1)
				c.Add("runs", 2)
			}
		}()
	}
	wg.Wait()
	s := c.Snapshot()
	if s["requests_total"] != 5000 || s["runs"] != 10000 {
		t.Fatalf("snapshot = %v", s)
	}
	if c.Counter("requests_total") != req {
		t.Fatal("a second lookup made a new counter")
	}
}
