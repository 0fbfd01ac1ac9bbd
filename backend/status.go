package backend

import (
	"path/filepath"
	"time"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/runner"
)

// Status is the status area: the live snapshot of the server, and the
// affected set the CLI published to it.
type Status struct {
	ws       *live.Workspace
	runner   *runner.Runner
	affected *affected.Published
	facts    Facts
	metrics  *metrics.Counters
}

// MaxIndexProblems bounds the index problems a snapshot lists.
const MaxIndexProblems = 100

// Snapshot is the server's live state, as GetStatus answers it.
type Snapshot struct {
	Workspace      string
	Version        string
	ObservingSince time.Time
	Config         map[string]string
	Pool           runner.PoolStats
	Affected       []string
	AffectedBase   string
	Graph          GraphSummary
	Cache          CacheSummary
}

// GraphSummary is the graph's part of a snapshot.
type GraphSummary struct {
	Version          uint64
	Nodes, Edges     int
	Diagnostic       string
	IndexDiagnostics int
	IndexProblems    []index.Diagnostic
}

// CacheSummary is the build cache's part of a snapshot.
type CacheSummary struct {
	LocalHits, RemoteHits, Built   int64
	RemoteBytesDown, RemoteBytesUp int64
	Remote, RemoteMode             string
}

// Snapshot is the server's state now, whole: what the machine's owner sees.
func (s *Status) Snapshot() Snapshot {
	out := Snapshot{Workspace: s.ws.Root(), Version: s.facts.Version, ObservingSince: s.facts.Started, Config: s.facts.Config}
	if s.runner != nil {
		out.Pool = s.runner.Stats()
	}
	c := s.metrics.Snapshot()
	out.Cache = CacheSummary{
		LocalHits: c[metrics.CacheHits] - c[metrics.RemoteHits], RemoteHits: c[metrics.RemoteHits], Built: c[metrics.CacheMisses],
		RemoteBytesDown: c[metrics.RemoteBytesDown], RemoteBytesUp: c[metrics.RemoteBytesUp],
	}
	if out.Cache.Remote = s.facts.Config["cache.remote.url"]; out.Cache.Remote != "" {
		out.Cache.RemoteMode = s.facts.Config["cache.remote.mode"]
	}
	if ids, base, ok := s.affected.Get(); ok {
		out.Affected, out.AffectedBase = ids, base
	}
	if snap, err := s.ws.Current(); err == nil {
		out.Graph.Version, out.Graph.Nodes, out.Graph.Edges = snap.Version, snap.Nodes, snap.Edges
	}
	if err := s.ws.Diagnostic(); err != nil {
		out.Graph.Diagnostic = err.Error()
	}
	out.Graph.IndexDiagnostics = s.ws.Indexer().DiagnosticCount()
	if out.Graph.IndexDiagnostics > 0 {
		list := s.ws.Indexer().Diagnostics()
		out.Graph.IndexProblems = list[:min(len(list), MaxIndexProblems)]
	}
	return out
}

// Shared is what a share link's colleague sees of a snapshot: the numbers,
// and the workspace directory's name, but not the absolute path, the
// configuration (forge and cache addresses) or the text of problems
// (source snippets): a colleague on the LAN needs none of it. It copies
// what it allows, so a field added later stays off the share.
func (s Snapshot) Shared() Snapshot {
	out := Snapshot{
		Workspace: filepath.Base(s.Workspace), Version: s.Version, ObservingSince: s.ObservingSince,
		Pool: s.Pool, Affected: s.Affected, AffectedBase: s.AffectedBase,
		Graph: GraphSummary{Version: s.Graph.Version, Nodes: s.Graph.Nodes, Edges: s.Graph.Edges, IndexDiagnostics: s.Graph.IndexDiagnostics},
		Cache: CacheSummary{LocalHits: s.Cache.LocalHits, RemoteHits: s.Cache.RemoteHits, Built: s.Cache.Built,
			RemoteBytesDown: s.Cache.RemoteBytesDown, RemoteBytesUp: s.Cache.RemoteBytesUp},
	}
	if s.Graph.Diagnostic != "" {
		out.Graph.Diagnostic = "the workspace's targets.yaml does not load; its owner sees why"
	}
	return out
}

// Version is the server's version.
func (s *Status) Version() string { return s.facts.Version }

// Publish keeps the affected set the CLI computed against base: the
// snapshot reports it, and the explorer paints it.
func (s *Status) Publish(ids []string, base string) { s.affected.Set(ids, base) }
