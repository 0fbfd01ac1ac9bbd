package backend

import (
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
)

// The vocabulary of the backend's answers and inputs: the domain's own
// types, named here so that a front door speaks to the backend alone and
// not to the domain packages behind it.

type (
	// Journal is one run's record.
	Journal = runner.Journal
	// Job is a maintenance job's snapshot.
	Job = jobs.Snapshot
	// SessionJob is work handed to agent sessions.
	SessionJob = handoff.Job
	// Note is a person's note on a graph node.
	Note = notes.Note
	// TokenKind is a token's kind, TokenRecord its record (never its
	// secret).
	TokenKind   = auth.Kind
	TokenRecord = auth.Record
	// Ask is an agent's request for the person; AttentionRequest the
	// request in the queue.
	Ask              = attention.Ask
	AttentionRequest = attention.Request
	// Author stamps a review write; Op is one; Session is the review
	// session it writes.
	Author  = reviewstate.Author
	Op      = reviewstate.Op
	Session = reviewstate.Session
	// InsightParams ask for lenses; InsightReport answers them.
	InsightParams = insight.Params
	InsightReport = insight.Report
	InsightPair   = insight.Pair
	InsightOwner  = insight.Owner
)

// Values of that vocabulary.
const (
	StateQueued    = runner.StateQueued
	HolderSession  = jobs.HolderSession
	OpComment      = reviewstate.OpComment
	OpView         = reviewstate.OpView
	OpResolve      = reviewstate.OpResolve
	OpReopen       = reviewstate.OpReopen
	MaxInsightRows = insight.MaxLimit
)

// Errors a front door tells apart: a token that died while its request
// ran (revoked, or past its expiry).
var (
	ErrTokenRevoked = auth.ErrRevoked
	ErrTokenExpired = auth.ErrExpired
)
