package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/bench/internal/stats"
)

// fanoutMetrics is what the fanout scenario measured.
type fanoutMetrics struct {
	Healthy           int          `json:"healthy_clients"`
	Stalled           int          `json:"stalled_clients"`
	Events            int          `json:"events_published"`
	BytesPerEvent     float64      `json:"bytes_per_event"`      // on the wire of a healthy stream, framing included
	StalledBytes      int64        `json:"stalled_bytes_sent"`   // per stalled client: what the server sent it (bytes per event × events)
	StalledBuffered   int64        `json:"stalled_buffered_max"` // max over stalled clients of bytes queued in both sockets at the end of the events
	Deliveries        int          `json:"deliveries"`           // (client, event) pairs received
	Missing           int          `json:"missing"`              // (client, event) pairs never received
	ClientsIncomplete int          `json:"clients_incomplete"`
	ClientErrors      []string     `json:"client_errors,omitempty"`
	P50               float64      `json:"latency_p50_ms"`
	P90               float64      `json:"latency_p90_ms"`
	P99               float64      `json:"latency_p99_ms"`
	Max               float64      `json:"latency_max_ms"`
	EventMaxP50       float64      `json:"event_max_p50_ms"` // per event, the slowest client; the median of those
	SlowEvents        int          `json:"slow_events"`      // events some client got later than -max-latency
	PerEvent          [][2]float64 `json:"per_event_p50_max_ms"`
	RSSBefore         int64        `json:"rss_before"`
	RSSConnected      int64        `json:"rss_connected"`
	RSSMax            int64        `json:"rss_max"`
	RSSAfter          int64        `json:"rss_after"`  // at the end of the events, clients still connected
	RSSClosed         int64        `json:"rss_closed"` // after every client hung up
	StalledDropped    int          `json:"stalled_dropped"`
	StalledDroppedAt  []float64    `json:"stalled_dropped_at_s,omitempty"` // seconds after the first edit the server's socket left ESTABLISHED
	PublishSeconds    float64      `json:"publish_seconds"`
	ServerExit        string       `json:"server_exit,omitempty"`
}

func fanoutFlags(fs *flag.FlagSet) func(*env) (*Result, error) {
	clients := fs.Int("clients", 1000, "healthy SSE clients")
	stalled := fs.Int("stalled", 10, "stalled SSE clients (a raw TCP request, never read)")
	events := fs.Int("events", 1500, "graph events to publish (each an edit of README.md's title); about 530 fill a stalled client's sockets (46 KiB at 87 bytes each)")
	gap := fs.Duration("gap", 0, "extra pause between edits (each edit waits anyway for the previous event to reach a healthy client)")
	eventTimeout := fs.Duration("event-timeout", 5*time.Minute, "give up when an edit's event has not reached the probe client within this")
	maxLatency := fs.Duration("max-latency", 5*time.Second, "FAIL when a healthy client got an event later than this after the edit (0: no bound)")
	rcvbuf := fs.Int("rcvbuf", 1024, "SO_RCVBUF of the stalled clients")
	mss := fs.Int("mss", 536, "TCP_MAXSEG the stalled clients announce (0: the loopback's, which gives the server megabytes of send buffer)")
	drain := fs.Duration("drain", 15*time.Second, "at the end, how long to read a stalled client to see whether the server closed it")
	return func(e *env) (*Result, error) {
		return runFanout(e, *clients, *stalled, *events, *gap, *eventTimeout, *maxLatency, *rcvbuf, *mss, *drain)
	}
}

func runFanout(e *env, nClients, nStalled, nEvents int, gap, eventTimeout, maxLatency time.Duration, rcvbuf, mss int, drainFor time.Duration) (*Result, error) {
	if nClients < 1 || nEvents < 1 {
		return nil, errors.New("-clients and -events must be at least 1")
	}
	if need := uint64(nClients+nStalled) + 256; noFileLimit() < need {
		return nil, fmt.Errorf("RLIMIT_NOFILE is %d; %d clients need about %d (raise the hard limit: ulimit -Hn)", noFileLimit(), nClients+nStalled, need)
	}
	ws, err := e.workspace("fanout")
	if err != nil {
		return nil, err
	}
	srv, err := e.startServer(ws, e.home("fanout"))
	if err != nil {
		return nil, err
	}
	token, err := srv.Mint("console=read")
	if err != nil {
		return nil, err
	}
	m := &fanoutMetrics{Healthy: nClients, Stalled: nStalled}
	res := &Result{Metrics: m}
	time.Sleep(time.Second) // let the start-up settle before the baseline
	m.RSSBefore = srv.RSS()
	serverPort := portOf(srv.Addr)

	// The stalled clients first, so they are subscribed before any event.
	var stalledCs []*stalledClient
	for i := 0; i < nStalled; i++ {
		s, err := openStalled(srv.Addr, token, rcvbuf, mss)
		if err != nil {
			return nil, fmt.Errorf("stalled client %d: %w", i, err)
		}
		stalledCs = append(stalledCs, s)
		e.atClose(func() { s.conn.Close() })
	}
	// Each has been answered once the response's first bytes sit unread
	// in its socket.
	if err := waitFor(30*time.Second, func() bool {
		q := map[int]int64{}
		for _, so := range tcpSockets() {
			if so.RemotePort == serverPort {
				q[so.LocalPort] = so.RxQueue
			}
		}
		for _, s := range stalledCs {
			if q[s.port] == 0 {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, errors.New("the stalled clients' requests got no answer within 30s")
	}

	fmt.Fprintf(os.Stderr, "fanout: connecting %d healthy clients\n", nClients)
	cs := make([]*sseClient, nClients)
	var openErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range cs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := openSSE(i, srv.URL, token)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if openErr == nil {
					openErr = fmt.Errorf("healthy client %d: %w", i, err)
				}
				return
			}
			cs[i] = c
		}()
	}
	wg.Wait()
	for _, c := range cs {
		if c != nil {
			e.atClose(c.close)
		}
	}
	if openErr != nil {
		return nil, openErr
	}
	m.RSSConnected = srv.RSS()

	readme := filepath.Join(ws, "README.md")
	doc, err := os.ReadFile(readme)
	if err != nil {
		return nil, err
	}
	// A warm-up event that every client must get: afterwards every
	// subscription is registered with the hub.
	if err := writeFileAtomic(ws, readme, retitle(doc, "Demo shop (warm-up)")); err != nil {
		return nil, err
	}
	if err := waitFor(2*time.Minute, func() bool {
		for _, c := range cs {
			if c.received() < 1 {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, errors.New("the warm-up event did not reach every healthy client within 2m")
	}
	base := make([]int, nClients)
	for i, c := range cs {
		base[i] = c.received()
	}
	probe := cs[0]

	// Sample the RSS and the server's sockets toward the stalled clients.
	stop := make(chan struct{})
	sampled := make(chan struct{})
	t0 := time.Now()
	droppedAt := map[int]float64{}
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if r := srv.RSS(); r > m.RSSMax {
				m.RSSMax = r
			}
			open := map[int]bool{}
			for _, so := range tcpSockets() {
				if so.LocalPort == serverPort && so.State == "ESTABLISHED" {
					open[so.RemotePort] = true
				}
			}
			for _, s := range stalledCs {
				if _, seen := droppedAt[s.port]; !seen && !open[s.port] {
					droppedAt[s.port] = time.Since(t0).Seconds()
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()

	fmt.Fprintf(os.Stderr, "fanout: publishing %d events to %d healthy and %d stalled clients\n", nEvents, nClients, nStalled)
	editAt := map[uint64]int64{} // event key -> when the edit that caused it was made
	var order []uint64           // event keys in publishing order
	probeSeen := base[0]
	bytes0 := probe.bytes.Load()
	var abort error
	for i := 1; i <= nEvents; i++ {
		at := time.Now().UnixNano()
		if err := writeFileAtomic(ws, readme, retitle(doc, fmt.Sprintf("Demo shop %d", i))); err != nil {
			abort = err
			break
		}
		deadline := time.Now().Add(eventTimeout)
		for probe.received() <= probeSeen && time.Now().Before(deadline) && probe.failure() == nil {
			time.Sleep(2 * time.Millisecond)
		}
		got := probe.receipts(probeSeen)
		if len(got) == 0 {
			abort = fmt.Errorf("edit %d: no event reached the probe client within %s (%v)", i, eventTimeout, probe.failure())
			break
		}
		for _, r := range got {
			if _, dup := editAt[r.key]; !dup {
				editAt[r.key] = at
				order = append(order, r.key)
			}
		}
		probeSeen += len(got)
		if i%100 == 0 {
			fmt.Fprintf(os.Stderr, "fanout: %d events, %.0fs\n", i, time.Since(t0).Seconds())
		}
		if gap > 0 {
			time.Sleep(gap)
		}
	}
	m.PublishSeconds = time.Since(t0).Seconds()
	m.Events = len(order)
	if m.Events > 0 {
		m.BytesPerEvent = float64(probe.bytes.Load()-bytes0) / float64(m.Events)
		m.StalledBytes = int64(m.BytesPerEvent * float64(m.Events))
	}

	// Every healthy client must catch up with every event.
	_ = waitFor(2*time.Minute, func() bool {
		for i, c := range cs {
			if c.received()-base[i] < len(order) && c.failure() == nil {
				return false
			}
		}
		return true
	})
	m.RSSAfter = srv.RSS()
	// What sits unsent toward the stalled clients, in the server's socket
	// and unread in theirs.
	queued := map[int]int64{}
	for _, so := range tcpSockets() {
		if so.LocalPort == serverPort {
			queued[so.RemotePort] += so.TxQueue
		} else if so.RemotePort == serverPort {
			queued[so.LocalPort] += so.RxQueue
		}
	}
	for _, s := range stalledCs {
		m.StalledBuffered = max(m.StalledBuffered, queued[s.port])
	}
	close(stop)
	<-sampled

	// Latency of every (client, event) pair.
	var all []float64
	perEvent := make(map[uint64][]float64, len(order))
	errs := map[string]int{}
	for i, c := range cs {
		got := map[uint64]bool{}
		for _, r := range c.receipts(base[i]) {
			t, ok := editAt[r.key]
			if !ok || got[r.key] {
				continue
			}
			got[r.key] = true
			ms := float64(r.at-t) / 1e6
			all = append(all, ms)
			perEvent[r.key] = append(perEvent[r.key], ms)
		}
		if miss := len(order) - len(got); miss > 0 {
			m.Missing += miss
			m.ClientsIncomplete++
		}
		if err := c.failure(); err != nil {
			errs[err.Error()]++
		}
	}
	for msg, n := range errs {
		m.ClientErrors = append(m.ClientErrors, fmt.Sprintf("%d× %s", n, msg))
	}
	sort.Strings(m.ClientErrors)
	m.Deliveries = len(all)
	m.P50, m.P90, m.P99, m.Max = stats.Percentile(all, 50), stats.Percentile(all, 90), stats.Percentile(all, 99), stats.Percentile(all, 100)
	var eventMax []float64
	type slow struct {
		n        int
		p50, max float64
	}
	var worst []slow
	for n, k := range order {
		xs := perEvent[k]
		p50, mx := stats.Percentile(xs, 50), stats.Percentile(xs, 100)
		m.PerEvent = append(m.PerEvent, [2]float64{round2(p50), round2(mx)})
		eventMax = append(eventMax, mx)
		worst = append(worst, slow{n + 1, p50, mx})
		if maxLatency > 0 && mx > stats.Ms(maxLatency) {
			m.SlowEvents++
		}
	}
	m.EventMaxP50 = stats.Percentile(eventMax, 50)
	sort.Slice(worst, func(a, b int) bool { return worst[a].max > worst[b].max })

	// Did the server drop the stalled clients? Read what it sent them.
	closed := make([]bool, len(stalledCs))
	var dwg sync.WaitGroup
	for i, s := range stalledCs {
		dwg.Add(1)
		go func() { defer dwg.Done(); _, closed[i] = s.drain(drainFor) }()
	}
	dwg.Wait()
	for i, s := range stalledCs {
		if closed[i] {
			m.StalledDropped++
		}
		if t, ok := droppedAt[s.port]; ok {
			m.StalledDroppedAt = append(m.StalledDroppedAt, round2(t))
		}
	}
	sort.Float64s(m.StalledDroppedAt)
	for _, c := range cs {
		c.close()
	}
	for _, s := range stalledCs {
		s.conn.Close()
	}
	time.Sleep(2 * time.Second)
	m.RSSClosed = srv.RSS()
	stopFail := srv.stopCheck()
	m.ServerExit = stopFail

	// Report.
	fmt.Printf("%d healthy SSE clients and %d stalled ones (SO_RCVBUF %d, MSS %d, never read) on one server; %d graph events, each an edit of README.md's title, the next made once the previous reached a probe client\n\n",
		nClients, nStalled, rcvbuf, mss, m.Events)
	fmt.Println("| measure | value |")
	fmt.Println("| --- | ---: |")
	fmt.Printf("| events published | %d in %.0f s |\n", m.Events, m.PublishSeconds)
	fmt.Printf("| bytes per event on the wire | %.0f |\n", m.BytesPerEvent)
	fmt.Printf("| bytes sent toward each stalled client | %s |\n", mib(m.StalledBytes))
	fmt.Printf("| most queued toward one stalled client at the end (both sockets) | %s (≈ %d events) |\n", mib(m.StalledBuffered), int(float64(m.StalledBuffered)/max(1, m.BytesPerEvent)))
	fmt.Printf("| deliveries (client × event) | %d of %d |\n", m.Deliveries, nClients*m.Events)
	fmt.Printf("| healthy clients missing events | %d |\n", m.ClientsIncomplete)
	fmt.Printf("| latency edit → receipt p50 / p90 / p99 / max | %.0f / %.0f / %.0f / %.0f ms |\n", m.P50, m.P90, m.P99, m.Max)
	fmt.Printf("| per event, slowest client: median | %.0f ms |\n", m.EventMaxP50)
	if maxLatency > 0 {
		fmt.Printf("| events some client got later than %s | %d |\n", maxLatency, m.SlowEvents)
	}
	fmt.Printf("| server RSS before / connected / max / after / clients gone | %s / %s / %s / %s / %s |\n",
		mib(m.RSSBefore), mib(m.RSSConnected), mib(m.RSSMax), mib(m.RSSAfter), mib(m.RSSClosed))
	fmt.Printf("| stalled clients dropped by the server | %d of %d |\n", m.StalledDropped, nStalled)
	if len(m.StalledDroppedAt) > 0 {
		fmt.Printf("| seconds into the events when their server socket closed | %s |\n", joinFloats(m.StalledDroppedAt))
	}
	fmt.Println()
	if len(worst) > 0 {
		fmt.Print("slowest events (event #: p50 / max ms):")
		for _, w := range worst[:min(5, len(worst))] {
			fmt.Printf(" #%d: %.0f / %.0f;", w.n, w.p50, w.max)
		}
		fmt.Println()
	}
	for _, ce := range m.ClientErrors {
		fmt.Println("- client error:", ce)
	}

	var fails []string
	if abort != nil {
		fails = append(fails, abort.Error())
	}
	if m.ClientsIncomplete > 0 {
		fails = append(fails, fmt.Sprintf("%d healthy clients missed %d deliveries", m.ClientsIncomplete, m.Missing))
	}
	if maxLatency > 0 && m.SlowEvents > 0 {
		fails = append(fails, fmt.Sprintf("%d events reached some healthy client later than %s (max %.1f s)", m.SlowEvents, maxLatency, m.Max/1000))
	}
	if stopFail != "" {
		fails = append(fails, stopFail)
	}
	if nStalled > 0 && m.StalledDropped < nStalled {
		res.Notes = append(res.Notes, fmt.Sprintf("%d stalled clients were still connected at the end, with up to %s queued toward one", nStalled-m.StalledDropped, mib(m.StalledBuffered)))
		if float64(m.StalledBuffered) >= 0.9*float64(m.StalledBytes) {
			res.Notes = append(res.Notes, "the stalled clients' sockets hold about all that was sent to them: their buffers may never have filled; raise -events")
		}
	}
	dropped := fmt.Sprintf("%d of %d stalled clients dropped", m.StalledDropped, nStalled)
	if len(fails) > 0 {
		res.Reason = strings.Join(fails, "; ") + "; " + dropped
		return res, nil
	}
	res.Pass = true
	res.Reason = fmt.Sprintf("%d healthy clients got all %d events, p99 %.0f ms, max %.0f ms; %s", nClients, m.Events, m.P99, m.Max, dropped)
	return res, nil
}

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}
