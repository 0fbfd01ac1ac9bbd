// Package jobs is the maintenance-job engine behind the job-control service
// (core.job.v1alpha1.JobService) and `core server job NAME`: a registry of
// named jobs, each run fire-and-forget in its own goroutine, coalesced (an
// identical in-flight job is never started twice), optionally scheduled when
// the server is idle, with its last run remembered across restarts.
//
// Decisions the spec leaves open, taken here:
//   - Job names match [a-z0-9][a-z0-9-]*; the API speaks resource names,
//     "jobs/<job>", and a bare "<job>" is refused with an error that says
//     how to write it (ErrInvalidName), so clients do not grow two spellings.
//   - States are "idle" and "running"; a run ends "succeeded" or "failed"
//     (an error or a panic inside Run fails it; the panic does not escape).
//   - A failed run's message is the job's message followed by the error.
//   - Scheduling measures "since its last run" from the end of the last run.
//     A job that has never run is due Every after Schedule started, so a
//     server start does not fire every job at once.
//   - The idle callback is asked just before each scheduled submission, so
//     a server whose idle() counts running jobs runs them one at a time.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/internal/quote"
)

// Holders, states, results and triggers: the vocabulary of the Job resource.
const (
	HolderServer  = "server"  // the server's own maintenance
	HolderSession = "session" // work handed to an agent session

	StateIdle    = "idle"
	StateRunning = "running"

	ResultSucceeded = "succeeded"
	ResultFailed    = "failed"

	TriggerRequest  = "request"  // RunJob, `core server job NAME`
	TriggerSchedule = "schedule" // Schedule
)

// Prefix starts every job resource name: "jobs/sync-graph".
const Prefix = "jobs/"

// ErrNotFound is matched (errors.Is) by the error Submit and Get return for a
// job that is not registered; its message lists the registered jobs.
var ErrNotFound = errors.New("job not found")

// ErrInvalidName is matched (errors.Is) by the error Submit and Get return
// for a name that is not a job resource name ("jobs/<job>"), and by an
// unknown trigger.
var ErrInvalidName = errors.New("invalid job name")

// ErrClosed is returned by Submit after Shutdown began.
var ErrClosed = errors.New("job manager is shutting down")

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`) })

// Job is a registered maintenance job.
type Job struct {
	Name        string // "sync-graph"; the resource name is "jobs/sync-graph"
	Description string // one line for `core ls jobs` and the console
	Unit        string // unit of Size: "entries", "bytes", "nodes", ...
	Holder      string // HolderServer (default) or HolderSession

	// Run does the work. Its context ends on Shutdown. The message says
	// what the run did ("removed 12 journals"); a non-nil error fails it.
	Run func(ctx context.Context) (message string, err error)
	// Size reports the current size of what the job maintains, in Unit.
	// Nil reports 0. It is called outside the manager's lock and may be
	// called while the job runs.
	Size func() int64
	// Every is the schedule: 0 never schedules the job; otherwise Schedule
	// submits it when the server is idle and at least Every has passed
	// since the end of its last run.
	Every time.Duration
}

// Run records one run of a job.
type Run struct {
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Result  string    `json:"result"`  // ResultSucceeded or ResultFailed
	Message string    `json:"message"` // what the run did, or why it failed
	Trigger string    `json:"trigger"` // TriggerRequest or TriggerSchedule
}

// Snapshot is a job as the API shows it.
type Snapshot struct {
	Name        string // "jobs/<name>"
	Holder      string // HolderServer or HolderSession
	State       string // StateIdle or StateRunning
	Description string
	Unit        string
	LastRun     *Run  // nil before the first run; a copy
	Size        int64 // current size of what the job maintains, in Unit
}

type entry struct {
	job     Job
	running bool
	done    chan struct{} // of the latest run; closed when it and its bookkeeping end
	last    *Run
}

// Manager runs registered jobs. Its methods are safe for concurrent use.
type Manager struct {
	onEvent func(Snapshot, *Run)
	now     func() time.Time // tests replace it
	// tickHook, when set (tests), is called after every scheduler tick.
	tickHook func()

	ctx    context.Context // parent of every run; cancelled by Shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup // runs in flight

	mu      sync.Mutex
	jobs    map[string]*entry
	closed  bool
	loaded  map[string]*Run // last runs read by Persist, by job name
	path    string          // Persist's file; "" keeps last runs in memory
	saveErr error           // the last failed save, for Err

	saveMu sync.Mutex // serialises saves so the newest state lands last
}

// NewManager returns an empty manager. onEvent (may be nil) is called when a
// job starts, with its snapshot and a nil run, and when it finishes, with its
// snapshot and the run that just ended; the two calls of one run come in that
// order, from the run's goroutine, never under the manager's lock.
func NewManager(onEvent func(Snapshot, *Run)) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{
		onEvent: onEvent,
		now:     time.Now,
		ctx:     ctx,
		cancel:  cancel,
		jobs:    map[string]*entry{},
		loaded:  map[string]*Run{},
	}
}

// Register adds a job. It panics on a programming error: a duplicate or
// malformed name, a nil Run, an unknown holder.
func (m *Manager) Register(j Job) {
	if !namePattern().MatchString(j.Name) {
		panic(fmt.Sprintf("jobs: job name %q must match %s", j.Name, namePattern()))
	}
	if j.Run == nil {
		panic(fmt.Sprintf("jobs: job %q has no Run", j.Name))
	}
	if j.Every < 0 {
		panic(fmt.Sprintf("jobs: job %q has a negative schedule %v", j.Name, j.Every))
	}
	switch j.Holder {
	case "":
		j.Holder = HolderServer
	case HolderServer, HolderSession:
	default:
		panic(fmt.Sprintf("jobs: job %q has holder %q; want %q or %q", j.Name, j.Holder, HolderServer, HolderSession))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.jobs[j.Name]; dup {
		panic(fmt.Sprintf("jobs: job %q registered twice", j.Name))
	}
	m.jobs[j.Name] = &entry{job: j, last: m.loaded[j.Name]}
}

// Submit starts the job named "jobs/<job>" unless an identical run is in
// flight, and returns at once with the job's snapshot; started is false when
// the request joined the run in flight (coalesced). trigger is
// TriggerRequest (also for "") or TriggerSchedule.
func (m *Manager) Submit(name string, trigger string) (snap Snapshot, started bool, err error) {
	switch trigger {
	case "":
		trigger = TriggerRequest
	case TriggerRequest, TriggerSchedule:
	default:
		return Snapshot{}, false, fmt.Errorf("%w: trigger %s is neither %q nor %q", ErrInvalidName, quote.Short(trigger), TriggerRequest, TriggerSchedule)
	}
	m.mu.Lock()
	e, err := m.lookupLocked(name)
	if err != nil {
		m.mu.Unlock()
		return Snapshot{}, false, err
	}
	if m.closed {
		m.mu.Unlock()
		return Snapshot{}, false, fmt.Errorf("run %s: %w", name, ErrClosed)
	}
	if !e.running {
		started = true
		e.running = true
		e.done = make(chan struct{})
		m.wg.Add(1)
		go m.run(e, trigger, e.done)
	}
	snap, size := m.snapshotLocked(e)
	m.mu.Unlock()
	snap.Size = size()
	return snap, started, nil
}

// run executes one run of e, already marked running, in its own goroutine.
// The job turns idle as soon as Run returns, so a request arriving during the
// bookkeeping that follows starts a new run; done is closed after that
// bookkeeping (history saved, finish event delivered), which is what Wait
// waits for.
func (m *Manager) run(e *entry, trigger string, done chan struct{}) {
	defer close(done)
	defer m.wg.Done()
	if m.onEvent != nil {
		m.mu.Lock()
		snap, size := m.snapshotLocked(e)
		m.mu.Unlock()
		snap.Size = size()
		m.onEvent(snap, nil)
	}

	r := &Run{Start: m.now(), Trigger: trigger}
	msg, err := m.call(e.job)
	r.End = m.now()
	r.Result, r.Message = ResultSucceeded, msg
	if err != nil {
		r.Result = ResultFailed
		if msg == "" {
			r.Message = err.Error()
		} else {
			r.Message = msg + ": " + err.Error()
		}
	}

	m.mu.Lock()
	e.last = r
	e.running = false
	snap, size := m.snapshotLocked(e)
	m.mu.Unlock()

	m.save()
	if m.onEvent != nil {
		snap.Size = size()
		ended := *r
		m.onEvent(snap, &ended)
	}
}

// call runs the job, turning a panic into an error so one broken job cannot
// take the server down.
func (m *Manager) call(j Job) (msg string, err error) {
	defer func() {
		if p := recover(); p != nil {
			msg, err = "", fmt.Errorf("job %s panicked: %v", j.Name, p)
		}
	}()
	return j.Run(m.ctx)
}

// List returns every job's snapshot, sorted by name.
func (m *Manager) List() []Snapshot {
	m.mu.Lock()
	names := make([]string, 0, len(m.jobs))
	for n := range m.jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	snaps := make([]Snapshot, len(names))
	sizes := make([]func() int64, len(names))
	for i, n := range names {
		snaps[i], sizes[i] = m.snapshotLocked(m.jobs[n])
	}
	m.mu.Unlock()
	for i := range snaps {
		snaps[i].Size = sizes[i]()
	}
	return snaps
}

// Get returns the snapshot of the job named "jobs/<job>".
func (m *Manager) Get(name string) (Snapshot, error) {
	m.mu.Lock()
	e, err := m.lookupLocked(name)
	if err != nil {
		m.mu.Unlock()
		return Snapshot{}, err
	}
	snap, size := m.snapshotLocked(e)
	m.mu.Unlock()
	snap.Size = size()
	return snap, nil
}

// Wait blocks until the job named "jobs/<job>" is idle, its last run's
// bookkeeping done (history saved, finish event delivered), and returns its
// snapshot; a zero Snapshot for a name Get would refuse. If the job keeps
// being resubmitted, Wait waits for a moment between runs.
func (m *Manager) Wait(name string) Snapshot {
	for {
		m.mu.Lock()
		e, err := m.lookupLocked(name)
		if err != nil {
			m.mu.Unlock()
			return Snapshot{}
		}
		done := e.done
		if !e.running && (done == nil || isClosed(done)) {
			snap, size := m.snapshotLocked(e)
			m.mu.Unlock()
			snap.Size = size()
			return snap
		}
		m.mu.Unlock()
		<-done
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Schedule submits, every tick, each job whose Every is set, that is due and
// not running, provided idle() reports the server idle just before the
// submission (trigger TriggerSchedule). It returns when ctx ends.
func (m *Manager) Schedule(ctx context.Context, idle func() bool, tick time.Duration) {
	if tick <= 0 {
		tick = time.Minute
	}
	since := m.now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, name := range m.due(since) {
			if ctx.Err() != nil {
				return
			}
			if idle != nil && !idle() {
				break
			}
			_, _, _ = m.Submit(Prefix+name, TriggerSchedule) // only ErrClosed can happen
		}
		if m.tickHook != nil {
			m.tickHook()
		}
	}
}

// due lists the scheduled jobs that are not running and whose last run ended
// at least Every ago (or, never run, Every after since), sorted by name.
func (m *Manager) due(since time.Time) []string {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for name, e := range m.jobs {
		if e.job.Every <= 0 || e.running {
			continue
		}
		ref := since
		if e.last != nil {
			ref = e.last.End
		}
		if !now.Before(ref.Add(e.job.Every)) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Shutdown refuses new submissions, cancels the context of every run in
// flight and waits for them to return, or for ctx to end (its error).
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("jobs still running at shutdown: %w", ctx.Err())
	}
}

// lookupLocked resolves a resource name to its entry.
func (m *Manager) lookupLocked(name string) (*entry, error) {
	bare, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		if _, known := m.jobs[name]; known {
			return nil, fmt.Errorf("%w: %s is not a job resource name: write %s", ErrInvalidName, quote.Short(name), quote.Short(Prefix+name))
		}
		return nil, fmt.Errorf("%w: %s is not a job resource name %q (registered: %s)", ErrInvalidName, quote.Short(name), Prefix+"<job>", m.registeredLocked())
	}
	e, ok := m.jobs[bare]
	if !ok {
		return nil, &notFoundError{name: name, registered: m.registeredLocked()}
	}
	return e, nil
}

func (m *Manager) registeredLocked() string {
	if len(m.jobs) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m.jobs))
	for n := range m.jobs {
		names = append(names, Prefix+n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

type notFoundError struct{ name, registered string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("no job %s: registered jobs are %s", quote.Short(e.name), e.registered)
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// snapshotLocked copies e's state; the caller fills Size by calling the
// returned function after releasing the lock.
func (m *Manager) snapshotLocked(e *entry) (Snapshot, func() int64) {
	s := Snapshot{
		Name:        Prefix + e.job.Name,
		Holder:      e.job.Holder,
		State:       StateIdle,
		Description: e.job.Description,
		Unit:        e.job.Unit,
	}
	if e.running {
		s.State = StateRunning
	}
	if e.last != nil {
		r := *e.last
		s.LastRun = &r
	}
	size := e.job.Size
	if size == nil {
		size = func() int64 { return 0 }
	}
	return s, size
}
