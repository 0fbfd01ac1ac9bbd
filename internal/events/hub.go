// Package events fans server events out to SSE subscribers through go-sse.
// Every connected client gets every event (the console refreshes its graph on
// `event: graph`), plus a keep-alive comment at a fixed interval so proxies
// and browsers keep idle streams open and dead ones are noticed.
package events

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/corehq/core/internal/apierr"
)

// Kinds of events.
const (
	KindGraph      = "graph"      // the workspace graph changed: data is a Graph
	KindDiagnostic = "diagnostic" // a source's problem began or ended: data is a Diagnostic
)

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

// Hub is the event stream's publisher.
type Hub struct {
	joe         *sse.Joe
	subscribers atomic.Int64
	closed      atomic.Bool
	stop        chan struct{}
	queue       chan *sse.Message
}

// queueSize is how many events wait for delivery before new ones are
// dropped: an event says "refetch", so a burst loses nothing by coalescing.
const queueSize = 256

// writeTimeout is how long one write to a subscriber may take: a client
// that stops reading is cut off instead of holding up the others.
const writeTimeout = 10 * time.Second

// NewHub starts a hub that sends a keep-alive comment every keepAlive.
func NewHub(keepAlive time.Duration) *Hub {
	h := &Hub{joe: &sse.Joe{}, stop: make(chan struct{}), queue: make(chan *sse.Message, queueSize)}
	go h.keepAlive(keepAlive)
	go h.deliver()
	return h
}

// deliver hands queued events to go-sse, away from the publishers (which
// may hold locks of their own).
func (h *Hub) deliver() {
	for {
		select {
		case <-h.stop:
			return
		case m := <-h.queue:
			_ = h.joe.Publish(m, []string{sse.DefaultTopic})
		}
	}
}

func (h *Hub) keepAlive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			m := &sse.Message{}
			m.AppendComment("keep-alive")
			_ = h.joe.Publish(m, []string{sse.DefaultTopic})
		}
	}
}

// Publish sends an event of kind with a JSON data payload to every
// subscriber.
func (h *Hub) Publish(kind string, data []byte) {
	if h.closed.Load() {
		return
	}
	m := &sse.Message{Type: sse.Type(kind)}
	m.AppendData(string(data))
	select {
	case h.queue <- m:
	default: // a full queue: the events already queued say the same thing
	}
}

// Subscribers is the number of open streams.
func (h *Hub) Subscribers() int64 { return h.subscribers.Load() }

// ErrClosed is returned to a subscriber that arrives after Shutdown.
var ErrClosed = errors.New("the server is shutting down")

// Serve streams events to one client until it leaves or the hub shuts down.
// The headers and a first comment go out at once, so the client knows the
// stream is open before the first event.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request) error {
	if h.closed.Load() {
		return apierr.Unavailable("%v", ErrClosed)
	}
	sess, err := sse.Upgrade(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w)}, r)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	hello := &sse.Message{}
	hello.AppendComment("connected")
	if err := sess.Send(hello); err != nil {
		return nil // the client left already
	}
	if err := sess.Flush(); err != nil {
		return nil
	}
	h.subscribers.Add(1)
	defer h.subscribers.Add(-1)
	// Subscribe returns when the client leaves, a write fails or the hub
	// shuts down; the stream is already open, so there is nothing to answer.
	_ = h.joe.Subscribe(r.Context(), sse.Subscription{Client: sess, Topics: []string{sse.DefaultTopic}})
	return nil
}

// Shutdown ends every stream; later Serve calls fail with ErrClosed.
func (h *Hub) Shutdown(ctx context.Context) error {
	if h.closed.Swap(true) {
		return nil
	}
	close(h.stop)
	return h.joe.Shutdown(ctx)
}

// deadlineWriter gives every write to a subscriber a deadline, so that a
// client that stops reading fails its write instead of blocking the hub.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) FlushError() error {
	_ = d.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return d.rc.Flush()
}
