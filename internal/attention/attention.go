// Package attention is the attention queue: requests from coding agents
// that block until a person disposes them. An agent's request_attention
// tool call (on /mcp) creates one and waits; GET /api/v1/attention lists
// the queue; POST /api/v1/attention {id, reason} disposes one, and nothing
// else closes one (the spec). The agent's wait then returns the reason.
//
// Decisions the spec leaves open, taken here (docs/decisions.md):
//   - The queue lives in <cache>/attention.json, rewritten atomically on
//     every change, so it survives a restart: an agent that reconnects finds
//     its request still open and waits on it again by id.
//   - An agent whose wait times out leaves its request open (the person may
//     still answer; the agent may wait again). An agent cannot close its
//     request, not even to withdraw it: a request that no longer matters to
//     its agent stays in the queue, for the person to see and dispose.
//   - The queue keeps every open request and the last MaxClosed closed ones.
//   - Only this server process writes the file; the CLI goes through the
//     routes. A corrupt file is moved aside and the queue starts empty.
package attention

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/fsx"
)

// States of a request. StateWithdrawn is only read: a queue written by a
// core whose agents could withdraw may hold such closed requests.
const (
	StateOpen      = "open"
	StateDisposed  = "disposed"
	StateWithdrawn = "withdrawn"
)

// Limits: each bounds what is stored, and so what a list answers.
const (
	MaxNeed     = 4 << 10 // bytes of what the agent needs
	MaxReason   = 4 << 10 // bytes of a disposition's reason
	MaxRef      = 1 << 10 // bytes of a node id or a file path
	MaxOpen     = 100     // open requests in the queue
	MaxClosed   = 200     // closed requests kept for the record
	maxFileSize = 8 << 20 // the file, comfortably above the limits above
)

// Errors, matched with errors.Is.
var (
	ErrNotFound = errors.New("no attention request has this id")
	ErrInvalid  = errors.New("invalid attention request")
	ErrClosed   = errors.New("the attention request is already closed")
	ErrFull     = errors.New("the attention queue is full")
)

// Request is one attention request. Fields are in the order of their JSON
// keys, the shape of GET /api/v1/attention and `core session attention
// --json`.
type Request struct {
	Agent      string     `json:"agent"` // the mcp token id that asked
	Closed     *time.Time `json:"closed,omitempty"`
	Created    time.Time  `json:"created"`
	DisposedBy string     `json:"disposed_by,omitempty"` // the token id that disposed it
	File       string     `json:"file,omitempty"`
	ID         string     `json:"id"`
	Need       string     `json:"need"`
	Node       string     `json:"node,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	State      string     `json:"state"`
}

// List is the queue as the routes and the CLI show it: open requests
// first, oldest first, then closed ones, newest first.
type List struct {
	Open     int       `json:"open"`
	Requests []Request `json:"requests"`
}

// Ask is what an agent asks for.
type Ask struct {
	Need string // what it needs from the person; required
	Node string // the graph node it is about, if any
	File string // the workspace file it is about, if any
}

// Queue is the attention queue of one server.
type Queue struct {
	path     string
	onChange func()
	now      func() time.Time

	mu      sync.Mutex
	reqs    []Request // in creation order
	changed chan struct{}
}

type file struct {
	Version  int       `json:"version"`
	Requests []Request `json:"requests"`
}

// Open loads the queue from path (a missing file is an empty queue).
// onChange, if set, is called after every change, outside the lock.
func Open(path string, onChange func()) (*Queue, error) {
	q := &Queue{path: path, onChange: onChange, now: time.Now, changed: make(chan struct{})}
	var f file
	if _, err := fsx.LoadJSON(path, maxFileSize, &f); err != nil {
		return nil, fmt.Errorf("attention queue: %w", err)
	}
	q.reqs = f.Requests
	return q, nil
}

// Create adds an open request from agent and returns it.
func (q *Queue) Create(agent string, a Ask) (Request, error) {
	a.Need = strings.TrimSpace(a.Need)
	switch {
	case a.Need == "":
		return Request{}, fmt.Errorf("%w: need is required: say what you need from the person", ErrInvalid)
	case len(a.Need) > MaxNeed || !utf8.ValidString(a.Need):
		return Request{}, fmt.Errorf("%w: need must be UTF-8 text of at most %d bytes", ErrInvalid, MaxNeed)
	case len(a.Node) > MaxRef || !utf8.ValidString(a.Node), len(a.File) > MaxRef || !utf8.ValidString(a.File):
		return Request{}, fmt.Errorf("%w: node and file must be UTF-8 of at most %d bytes", ErrInvalid, MaxRef)
	}
	id, err := newID()
	if err != nil {
		return Request{}, err
	}
	r := Request{ID: id, State: StateOpen, Agent: agent, Need: a.Need, Node: a.Node, File: a.File, Created: q.now().UTC()}
	err = q.change(func() error {
		open := 0
		for i := range q.reqs {
			if q.reqs[i].State == StateOpen {
				open++
			}
		}
		if open >= MaxOpen {
			return fmt.Errorf("%w: %d requests are open; a person must dispose some first", ErrFull, open)
		}
		q.reqs = append(q.reqs, r)
		return nil
	})
	return r, err
}

// Dispose closes an open request with the person's reason.
func (q *Queue) Dispose(id, reason, by string) (Request, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return Request{}, fmt.Errorf("%w: reason is required: tell the agent what you decided", ErrInvalid)
	case len(reason) > MaxReason || !utf8.ValidString(reason):
		return Request{}, fmt.Errorf("%w: reason must be UTF-8 text of at most %d bytes", ErrInvalid, MaxReason)
	}
	return q.close(id, func(r *Request) error {
		r.State, r.Reason, r.DisposedBy = StateDisposed, reason, by
		return nil
	})
}

func (q *Queue) close(id string, apply func(*Request) error) (Request, error) {
	var out Request
	err := q.change(func() error {
		i := q.index(id)
		if i < 0 {
			return fmt.Errorf("%w: %q (GET /api/v1/attention lists the queue)", ErrNotFound, id)
		}
		r := q.reqs[i]
		if r.State != StateOpen {
			return fmt.Errorf("%w: %s is %s", ErrClosed, id, r.State)
		}
		if err := apply(&r); err != nil {
			return err
		}
		now := q.now().UTC()
		r.Closed = &now
		q.reqs[i] = r
		out = r
		q.trim()
		return nil
	})
	return out, err
}

// trim drops the oldest closed requests beyond MaxClosed.
func (q *Queue) trim() {
	closed := 0
	for i := len(q.reqs) - 1; i >= 0; i-- {
		if q.reqs[i].State != StateOpen {
			closed++
			if closed > MaxClosed {
				q.reqs = slices.Delete(q.reqs, i, i+1)
			}
		}
	}
}

// Get returns the request with id.
func (q *Queue) Get(id string) (Request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := q.index(id); i >= 0 {
		return q.reqs[i], true
	}
	return Request{}, false
}

// Wait blocks until the request with id is closed, or ctx ends; it returns
// the request as it stands then (open when ctx ended first).
func (q *Queue) Wait(ctx context.Context, id string) (Request, error) {
	for {
		q.mu.Lock()
		i := q.index(id)
		if i < 0 {
			q.mu.Unlock()
			return Request{}, fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		r, changed := q.reqs[i], q.changed
		q.mu.Unlock()
		if r.State != StateOpen {
			return r, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return r, nil
		}
	}
}

// List returns the queue: open requests oldest first, then closed ones
// newest first.
func (q *Queue) List() List {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := List{Requests: make([]Request, 0, len(q.reqs))}
	for _, r := range q.reqs {
		if r.State == StateOpen {
			out.Requests = append(out.Requests, r)
		}
	}
	out.Open = len(out.Requests)
	for i := len(q.reqs) - 1; i >= 0; i-- {
		if q.reqs[i].State != StateOpen {
			out.Requests = append(out.Requests, q.reqs[i])
		}
	}
	return out
}

func (q *Queue) index(id string) int {
	for i := range q.reqs {
		if q.reqs[i].ID == id {
			return i
		}
	}
	return -1
}

// change applies fn under the lock, saves the queue and wakes the waiters;
// a failed save undoes fn.
func (q *Queue) change(fn func() error) error {
	q.mu.Lock()
	before := slices.Clone(q.reqs)
	if err := fn(); err != nil {
		q.mu.Unlock()
		return err
	}
	if err := fsx.SaveJSON(q.path, file{Version: 1, Requests: q.reqs}); err != nil {
		q.reqs = before
		q.mu.Unlock()
		return fmt.Errorf("save the attention queue: %w", err)
	}
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
	if q.onChange != nil {
		q.onChange()
	}
	return nil
}

func newID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "att-" + hex.EncodeToString(b[:]), nil
}
