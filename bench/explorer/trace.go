package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// tracer records a DevTools trace of the page (the renderer's main thread,
// the compositor and the GPU process): where an opening's time goes that
// the page's own clock cannot see, such as the read-back of a WebGL canvas
// for the software compositor.
type tracer struct {
	mu     sync.Mutex
	events []json.RawMessage
	done   chan struct{}
}

func startTrace(ctx context.Context) (*tracer, error) {
	t := &tracer{done: make(chan struct{})}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			t.mu.Lock()
			for _, v := range e.Value {
				b, _ := json.Marshal(v)
				t.events = append(t.events, b)
			}
			t.mu.Unlock()
		case *tracing.EventTracingComplete:
			select {
			case <-t.done:
			default:
				close(t.done)
			}
		}
	}); err != nil {
		return nil, err
	}
	_, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{
		IncludedCategories: []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "v8.execute", "gpu", "cc", "viz", "toplevel"},
	}})
	return t, err
}

// stop ends the trace, writes it to file and prints, per thread, the
// events that took longest (a parent's time includes its children's).
func (t *tracer) stop(ctx context.Context, file string) error {
	if _, err := chromedp.Call(ctx, tracing.End, cdp.Empty{}); err != nil {
		return err
	}
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	body := []byte(`{"traceEvents":[`)
	for i, e := range t.events {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, e...)
	}
	body = append(body, "]}\n"...)
	if err := os.WriteFile(file, body, 0o644); err != nil {
		return err
	}
	type event struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Ts   float64        `json:"ts"`
		Dur  float64        `json:"dur"`
		Args map[string]any `json:"args"`
	}
	threads := map[[2]int]string{}
	type key struct {
		thread [2]int
		name   string
	}
	total := map[key]float64{}
	count := map[key]int{}
	for _, raw := range t.events {
		var e event
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		th := [2]int{e.Pid, e.Tid}
		if e.Ph == "M" && e.Name == "thread_name" {
			if n, ok := e.Args["name"].(string); ok {
				threads[th] = n
			}
			continue
		}
		if e.Ph != "X" || e.Dur < 1000 {
			continue
		}
		k := key{th, e.Name}
		total[k] += e.Dur / 1000
		count[k]++
	}
	var keys []key
	for k := range total {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return total[keys[i]] > total[keys[j]] })
	fmt.Printf("trace of the opening in %s; events of 1 ms or more, by thread, longest first (a parent's time includes its children's):\n", file)
	shown := 0
	for _, k := range keys {
		name := threads[k.thread]
		if name == "" {
			name = fmt.Sprintf("%d/%d", k.thread[0], k.thread[1])
		}
		if strings.Contains(name, "Chrome_ChildIOThread") || strings.Contains(name, "ThreadPool") {
			continue
		}
		fmt.Printf("  %-28s %-40s %6.0f ms in %d\n", name, k.name, total[k], count[k])
		if shown++; shown == 40 {
			break
		}
	}
	return nil
}
