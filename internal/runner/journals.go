package runner

import (
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/runlog"
)

// A run's journals live in package runlog; these are its names as the
// runner and its callers have always used them.

// Journal is the record of one run of one target.
type Journal = runlog.Journal

// Target states, as events, results and journals report them.
const (
	StateQueued      = runlog.StateQueued
	StateRunning     = runlog.StateRunning
	StateSucceeded   = runlog.StateSucceeded
	StateFailed      = runlog.StateFailed
	StateCached      = runlog.StateCached
	StateInterrupted = runlog.StateInterrupted
	StateSkipped     = runlog.StateSkipped
)

// DefaultJournalCap and OutputCap: see runlog.
const (
	DefaultJournalCap = runlog.DefaultCap
	OutputCap         = runlog.OutputCap
)

// ErrNotFound is matched by ReadJournal's error for an id with no journal.
var ErrNotFound = runlog.ErrNotFound

// ErrAmbiguous is matched by ResolveID's error for a prefix of several runs.
var ErrAmbiguous = runlog.ErrAmbiguous

var (
	ListJournals       = runlog.List
	CountJournals      = runlog.Count
	ReadJournal        = runlog.Read
	TrimJournals       = runlog.Trim
	TrimJournalsOver   = runlog.TrimOver
	RecoverInterrupted = runlog.RecoverInterrupted
	ValidID            = runlog.ValidID
	ResolveID          = runlog.Resolve

	newRunID         = runlog.NewID
	writeJournal     = runlog.Write
	writeJournals    = runlog.WriteAll
	syncJournals     = runlog.Sync
	replaceJournal   = runlog.Replace
	writeBatch       = runlog.WriteBatch
	readJournalFile  = runlog.ReadFile
	runsDir          = runlog.Dir
	unfinished       = runlog.Unfinished
	markInterrupted  = runlog.MarkInterrupted
	removeStaleTemps = runlog.RemoveStaleTemps
	selfStart        = execx.SelfStart
	processAlive     = execx.ProcessAlive
)
