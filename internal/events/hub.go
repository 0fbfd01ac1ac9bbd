// Package events fans server events out to SSE subscribers. Every connected
// client gets every event (the console refreshes its graph on `event: graph`),
// plus a keep-alive comment at a fixed interval so proxies and browsers keep
// idle streams open and dead ones are noticed.
//
// The fan-out rule: a slow client is dropped, never the others. Each
// subscriber has its own bounded queue, written by its own request goroutine
// with a deadline on every write. Publish only offers an event to each
// queue; when a subscriber's queue is full, that subscriber is dropped (its
// stream ends at once; an EventSource reconnects and refetches), and the
// others are not held up. go-sse does the SSE framing (sse.Upgrade, Session,
// Message); the fan-out is ours, because go-sse's Joe writes to every
// subscriber from one goroutine, so one client that stops reading stalls all.
package events

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/corehq/core/internal/apierr"
)

// Kinds of events.
const (
	KindGraph      = "graph"      // the workspace graph changed: data is a Graph
	KindDiagnostic = "diagnostic" // a source's problem began or ended: data is a Diagnostic
	KindAttention  = "attention"  // the attention queue changed: data is an Attention
)

// Attention is the data of `event: attention`: how many requests are open
// now. The console refetches the queue on it.
type Attention struct {
	Open int `json:"open"`
}

// Graph is the data of `event: graph`. The explorer refetches on any graph
// event; the fields let a client tell what changed: a new version of the
// default graph, or (SymbolsVersion alone moving) only the symbols. Fields
// are in the order of their JSON keys.
type Graph struct {
	Edges          int    `json:"edges"`
	ETag           string `json:"etag"`
	Nodes          int    `json:"nodes"`
	SymbolsVersion uint64 `json:"symbols_version,omitempty"`
	Version        uint64 `json:"version"`
}

// Diagnostic is the data of `event: diagnostic`: a problem of a source
// (targets.yaml), or its end, with an empty message. The explorer asks for
// the status again on it.
type Diagnostic struct {
	Message string `json:"message"`
	Source  string `json:"source"`
}

// queueSize is how many events may wait for one subscriber. Events are
// few (one or two per rebuild of the graph, after the debounce) and small,
// and a queue only grows while its Serve loop is stuck in a write, that is
// once the client's socket buffers are full: a client that reads never gets
// near 64. So 64 lets a client that is merely slow for a moment ride out a
// long burst of rebuilds, and a queue that still overflows belongs to a
// client that has stopped reading. The cost is 64 pointers per subscriber:
// queued messages are shared, not copied.
const queueSize = 64

// writeTimeout is how long one write to a subscriber may take: a client
// that stops reading is cut off instead of holding its goroutine forever.
const writeTimeout = 10 * time.Second

// Hub is the event stream's publisher.
type Hub struct {
	keepAlive time.Duration

	mu        sync.Mutex
	subs      map[*subscriber]struct{}
	listeners map[*listener]struct{}
	closed    bool
	serves    sync.WaitGroup // the Serve loops of subs, for Shutdown

	subscribers atomic.Int64
	dropped     atomic.Int64
}

// subscriber is one stream: its queue and the way to end it. cancel ends
// the stream (the Serve loop selects on its context) and cuts a write in
// progress short; it is safe to call from Publish, any number of times.
type subscriber struct {
	queue  chan *sse.Message
	cancel context.CancelFunc
}

// listener is one of the server's own listeners (Listen).
type listener struct {
	fn func(kind string, data []byte)
}

// NewHub returns a hub whose streams get a keep-alive comment every
// keepAlive.
func NewHub(keepAlive time.Duration) *Hub {
	return &Hub{keepAlive: keepAlive, subs: map[*subscriber]struct{}{}, listeners: map[*listener]struct{}{}}
}

// Listen calls fn with the kind and data of every event published until
// stop is called or the hub shuts down: a listener inside the server (the
// MCP resources' subscriptions) gets what the SSE streams get. fn runs
// inside Publish, under the hub's lock, so it must return at once and
// publish nothing: it hands the event on (a send that does not wait).
func (h *Hub) Listen(fn func(kind string, data []byte)) (stop func()) {
	l := &listener{fn: fn}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return func() {}
	}
	h.listeners[l] = struct{}{}
	return func() {
		h.mu.Lock()
		delete(h.listeners, l)
		h.mu.Unlock()
	}
}

// Messages every stream gets; they are only read once built, so streams
// share them.
var (
	helloMessage     = comment("connected")
	keepAliveMessage = comment("keep-alive")
)

func comment(text string) *sse.Message {
	m := &sse.Message{}
	m.AppendComment(text)
	return m
}

// Publish sends an event of kind with a JSON data payload to every
// subscriber. It never blocks (callers hold locks of their own): a
// subscriber whose queue is full is dropped instead.
func (h *Hub) Publish(kind string, data []byte) {
	m := &sse.Message{Type: sse.Type(kind)}
	m.AppendData(string(data))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	for l := range h.listeners {
		l.fn(kind, data)
	}
	for s := range h.subs {
		select {
		case s.queue <- m:
		default:
			// The client has stopped reading. Dropping it loses it nothing
			// a reconnect does not give back: the console refetches on
			// (re)connect.
			delete(h.subs, s)
			s.cancel()
			h.dropped.Add(1)
		}
	}
}

// Subscribers is the number of open streams.
func (h *Hub) Subscribers() int64 { return h.subscribers.Load() }

// Dropped is the number of streams ended because their client did not keep
// up with the events.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

// ErrClosed is returned to a subscriber that arrives after Shutdown.
var ErrClosed = errors.New("the server is shutting down")

// Serve streams events to one client until it leaves, falls behind, a write
// fails or the hub shuts down. The headers and a first comment go out at
// once, so the client knows the stream is open before the first event; a
// client that has read that comment gets every event published after it.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
	s := &subscriber{queue: make(chan *sse.Message, queueSize), cancel: cancel}
	if !h.subscribe(s) {
		return apierr.Unavailable("%v", ErrClosed)
	}
	defer h.unsubscribe(s)
	sess, err := sse.Upgrade(dw, r)
	if err != nil {
		return err
	}
	// A stream ended from outside (dropped, shut down, client gone) is cut
	// off at once, a write in progress included, rather than after
	// writeTimeout; its connection closes. The cut on the way out covers an
	// end that the AfterFunc has not got to yet.
	// The writer belongs to the request: no cut may touch it after Serve
	// returns (the gateway recycles it), so a cut already under way is
	// waited for.
	cutDone := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cutDone)
		dw.cut()
	})
	defer func() {
		if !stop() {
			<-cutDone
		} else if ctx.Err() != nil {
			dw.cut()
		}
	}()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	if err := sess.Send(helloMessage); err != nil {
		return nil // the client left already
	}
	if err := sess.Flush(); err != nil {
		return nil
	}
	// The keep-alive is a per-stream ticker rather than an event through
	// the queues: it never takes a queue slot from an event (so it cannot
	// get a slow client dropped), and needs no goroutine of the hub's.
	var tick <-chan time.Time
	if h.keepAlive > 0 {
		t := time.NewTicker(h.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	// From here on the stream is open, so errors end it without an answer.
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			if sess.Send(keepAliveMessage) != nil || sess.Flush() != nil {
				return nil
			}
		case m := <-s.queue:
			if send(sess, m, s.queue) != nil {
				return nil
			}
		}
	}
}

// send writes m and whatever else is queued already, then flushes once.
func send(sess *sse.Session, m *sse.Message, queue <-chan *sse.Message) error {
	if err := sess.Send(m); err != nil {
		return err
	}
	for range len(queue) {
		if err := sess.Send(<-queue); err != nil {
			return err
		}
	}
	return sess.Flush()
}

// subscribe adds s, unless the hub is shut down.
func (h *Hub) subscribe(s *subscriber) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.subs[s] = struct{}{}
	h.serves.Add(1)
	h.subscribers.Add(1)
	return true
}

func (h *Hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
	h.subscribers.Add(-1)
	h.serves.Done()
}

// Shutdown ends every stream and waits, until ctx is done, for their Serve
// calls to return; later Serve calls fail with ErrClosed, later Publish
// calls do nothing.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	for s := range h.subs {
		s.cancel()
	}
	clear(h.subs)
	clear(h.listeners)
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		h.serves.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// deadlineWriter gives every write to a subscriber a deadline, so that a
// client that stops reading fails its write instead of blocking its stream
// forever, and lets another goroutine cut the stream off.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController

	// mu orders the deadlines set by writes and by cut, so a cut is never
	// undone by a write that began before it.
	mu  sync.Mutex
	off bool // writes fail at once
}

// errCut is the error of a write to a stream that was cut off.
var errCut = errors.New("the event stream was cut off")

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if err := d.arm(); err != nil {
		return 0, err
	}
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) FlushError() error {
	if err := d.arm(); err != nil {
		return err
	}
	return d.rc.Flush()
}

// arm sets the deadline of the next write, unless the stream was cut.
func (d *deadlineWriter) arm() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.off {
		return errCut
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return nil
}

// cut fails a write in progress now (a deadline in the past) and every
// later one, net/http's end of the response included, so the connection
// closes.
func (d *deadlineWriter) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.off = true
	_ = d.rc.SetWriteDeadline(time.Now())
}
