// Package handoff holds session jobs: work a person hands to an agent
// session (`core session hand "TEXT" [--node ID]`), which an agent claims
// and completes through tools on /mcp. `core ls jobs` and ListJobs list
// them beside the server's own jobs, with holder "session".
//
// A job is waiting until an agent claims it, running while that agent
// holds it, and done once that agent completes it (succeeded or failed,
// with a message). They live in <cache>/session-jobs.json, rewritten
// atomically on every change; the server is the only writer (the CLI hands
// work through the job service). The file keeps every unfinished job and
// the last MaxDone finished ones.
package handoff

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/fsx"
)

// States of a session job.
const (
	StateWaiting = "waiting"
	StateRunning = "running"
	StateDone    = "done"
)

// Results of a finished job.
const (
	ResultSucceeded = "succeeded"
	ResultFailed    = "failed"
)

// Limits.
const (
	MaxText       = 8 << 10 // bytes of the handed text and of a result message
	MaxNode       = 1 << 10 // bytes of a node id
	MaxUnfinished = 200     // waiting and running jobs
	MaxDone       = 200     // finished jobs kept for the record
	maxFileSize   = 16 << 20
)

// Errors, matched with errors.Is.
var (
	ErrNotFound = errors.New("no session job has this name")
	ErrInvalid  = errors.New("invalid session job")
	ErrState    = errors.New("the session job is not in a state for this")
	ErrNone     = errors.New("no session job is waiting")
	ErrFull     = errors.New("too many unfinished session jobs")
)

// Job is one session job; fields in the order of their JSON keys.
type Job struct {
	ClaimedBy string     `json:"claimed_by,omitempty"` // the agent's token id
	Created   time.Time  `json:"created"`
	Ended     *time.Time `json:"ended,omitempty"`
	HandedBy  string     `json:"handed_by"` // the person's token id
	Message   string     `json:"message,omitempty"`
	Name      string     `json:"name"` // "jobs/session-<n>"
	Node      string     `json:"node,omitempty"`
	Result    string     `json:"result,omitempty"`
	Started   *time.Time `json:"started,omitempty"`
	State     string     `json:"state"`
	Text      string     `json:"text"`
}

type file struct {
	Version int   `json:"version"`
	Next    int   `json:"next"`
	Jobs    []Job `json:"jobs"`
}

// Store holds the session jobs of one server.
type Store struct {
	path     string
	onChange func()
	now      func() time.Time

	mu sync.Mutex
	f  file
}

// Open loads the jobs from path (a missing file is none). onChange, if
// set, is called after every change, outside the lock.
func Open(path string, onChange func()) (*Store, error) {
	s := &Store{path: path, onChange: onChange, now: time.Now, f: file{Version: 1, Next: 1}}
	var f file
	if _, err := fsx.LoadJSON(path, maxFileSize, &f); err != nil {
		return nil, fmt.Errorf("session jobs: %w", err)
	}
	if f.Version == 0 { // missing or set aside: start afresh
		return s, nil
	}
	if f.Next < 1 {
		f.Next = 1
	}
	s.f = f
	return s, nil
}

// Hand adds a waiting job with text (about node, if given), handed by.
func (s *Store) Hand(text, node, by string) (Job, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return Job{}, fmt.Errorf("%w: the text is required: say what the agent should do", ErrInvalid)
	case len(text) > MaxText || !utf8.ValidString(text):
		return Job{}, fmt.Errorf("%w: the text must be UTF-8 of at most %d bytes", ErrInvalid, MaxText)
	case len(node) > MaxNode || !utf8.ValidString(node):
		return Job{}, fmt.Errorf("%w: the node id must be UTF-8 of at most %d bytes", ErrInvalid, MaxNode)
	}
	var out Job
	err := s.change(func() error {
		unfinished := 0
		for _, j := range s.f.Jobs {
			if j.State != StateDone {
				unfinished++
			}
		}
		if unfinished >= MaxUnfinished {
			return fmt.Errorf("%w: %d are waiting or running", ErrFull, unfinished)
		}
		out = Job{Name: "jobs/session-" + strconv.Itoa(s.f.Next), State: StateWaiting, Text: text, Node: node, HandedBy: by, Created: s.now().UTC()}
		s.f.Next++
		s.f.Jobs = append(s.f.Jobs, out)
		return nil
	})
	return out, err
}

// Claim gives the waiting job name (or, with name "", the oldest waiting
// one) to agent.
func (s *Store) Claim(name, agent string) (Job, error) {
	var out Job
	err := s.change(func() error {
		i := -1
		if name == "" {
			i = slices.IndexFunc(s.f.Jobs, func(j Job) bool { return j.State == StateWaiting })
			if i < 0 {
				return fmt.Errorf("%w: a person hands work with `core session hand TEXT`", ErrNone)
			}
		} else if i = s.index(name); i < 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, name)
		}
		j := &s.f.Jobs[i]
		if j.State != StateWaiting {
			return fmt.Errorf("%w: %s is %s", ErrState, j.Name, j.State)
		}
		now := s.now().UTC()
		j.State, j.ClaimedBy, j.Started = StateRunning, agent, &now
		out = *j
		return nil
	})
	return out, err
}

// Complete finishes the running job name held by agent with result
// (succeeded or failed) and a message for the person.
func (s *Store) Complete(name, agent, result, message string) (Job, error) {
	message = strings.TrimSpace(message)
	switch {
	case result != ResultSucceeded && result != ResultFailed:
		return Job{}, fmt.Errorf("%w: result must be %s or %s", ErrInvalid, ResultSucceeded, ResultFailed)
	case message == "":
		return Job{}, fmt.Errorf("%w: message is required: say what was done", ErrInvalid)
	case len(message) > MaxText || !utf8.ValidString(message):
		return Job{}, fmt.Errorf("%w: message must be UTF-8 of at most %d bytes", ErrInvalid, MaxText)
	}
	var out Job
	err := s.change(func() error {
		i := s.index(name)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, name)
		}
		j := &s.f.Jobs[i]
		switch {
		case j.State != StateRunning:
			return fmt.Errorf("%w: %s is %s; claim it first", ErrState, j.Name, j.State)
		case j.ClaimedBy != agent:
			return fmt.Errorf("%w: %s is held by another agent", ErrState, j.Name)
		}
		now := s.now().UTC()
		j.State, j.Result, j.Message, j.Ended = StateDone, result, message, &now
		out = *j
		s.trim()
		return nil
	})
	return out, err
}

// List returns every job: unfinished ones in the order they were handed,
// then finished ones.
func (s *Store) List() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Job, 0, len(s.f.Jobs))
	for _, j := range s.f.Jobs {
		if j.State != StateDone {
			out = append(out, j)
		}
	}
	for _, j := range s.f.Jobs {
		if j.State == StateDone {
			out = append(out, j)
		}
	}
	return out
}

func (s *Store) index(name string) int {
	return slices.IndexFunc(s.f.Jobs, func(j Job) bool { return j.Name == name })
}

func (s *Store) trim() {
	done := 0
	for i := len(s.f.Jobs) - 1; i >= 0; i-- {
		if s.f.Jobs[i].State == StateDone {
			if done++; done > MaxDone {
				s.f.Jobs = slices.Delete(s.f.Jobs, i, i+1)
			}
		}
	}
}

// change applies fn under the lock and saves; a failed save undoes fn.
func (s *Store) change(fn func() error) error {
	s.mu.Lock()
	before := file{Version: s.f.Version, Next: s.f.Next, Jobs: slices.Clone(s.f.Jobs)}
	if err := fn(); err != nil {
		s.mu.Unlock()
		return err
	}
	if err := fsx.SaveJSON(s.path, s.f); err != nil {
		s.f = before
		s.mu.Unlock()
		return fmt.Errorf("save the session jobs: %w", err)
	}
	s.mu.Unlock()
	if s.onChange != nil {
		s.onChange()
	}
	return nil
}
