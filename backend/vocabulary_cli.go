package backend

import (
	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/share"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// The rest of the vocabulary, what the CLI's commands print and take.

type (
	Workspace    = workspace.Workspace
	Spell        = workspace.Spell
	RunEvent     = runner.Event
	RunResult    = runner.Result
	TargetResult = runner.TargetResult
	Planned      = runner.Planned
	KeyParts     = runner.KeyParts
	FileHash     = runner.FileHash
	ProjectPart  = runner.ProjectPart
	EnvPart      = runner.EnvPart
	CacheMode    = runner.CacheMode
	RemoteClient = remotecache.Client
	AffectedSet  = affected.Set
	Queue        = attention.List
	ShareInfo    = share.Info
	Lenses       = insight.Params
	ReviewPage   = diff.Page
	// BearerTransport sends a bearer token with every request.
	BearerTransport = auth.Transport
)

// Target states, and where a result came from.
const (
	StateRunning     = runner.StateRunning
	StateSucceeded   = runner.StateSucceeded
	StateFailed      = runner.StateFailed
	StateCached      = runner.StateCached
	StateInterrupted = runner.StateInterrupted
	StateSkipped     = runner.StateSkipped
	FromBuilt        = runner.FromBuilt
	FromLocal        = runner.FromLocal
	FromRemote       = runner.FromRemote
)

// Token kinds and lifetimes.
const (
	TokenConsole    = auth.KindConsole
	TokenMCP        = auth.KindMCP
	ConsoleTokenTTL = auth.ConsoleTokenTTL
	MCPTokenTTL     = auth.MCPTokenTTL
	MaxTokenTTL     = auth.MaxTokenTTL
)

// Share bounds.
const (
	ShareDefaultTTL = share.DefaultTTL
	ShareMinTTL     = share.MinTTL
	ShareMaxTTL     = share.MaxTTL
)

// Insight's lenses, the kinds of file its hotspots leave out unless asked
// (include=), and its row bounds.
var (
	InsightLenses       = insight.Lenses
	InsightLeftOutKinds = insight.LeftOutKinds
)

const InsightDefaultRows = insight.DefaultLimit

// The environment's loose mode, and the advice a failed target's summary
// gives on the variables it was not given.
const EnvLoose = targetenv.Loose

var EnvAdvice = targetenv.Advice

// ConsoleCopy is where core open writes the console for a file://
// snapshot, in the cache directory.
var ConsoleCopy = cachedir.Console

// TargetsFile is the name of the workspace's target file.
const TargetsFile = workspace.FileName

// FindWorkspace walks up from start to the directory holding targets.yaml;
// ErrNoWorkspace matches its error when there is none.
var (
	FindWorkspace  = workspace.Find
	ErrNoWorkspace = workspace.ErrNotFound
)

// Capacity is the pool size a run gets (the concurrency setting when above
// 0, else the spec's rule) and why.
var Capacity = runner.Capacity

// ValidRunID reports whether id is a run id.
var ValidRunID = runner.ValidID

// OpenTokens is the token area over the workspace's token store (the one a
// server reads too): what the CLI mints, lists and revokes when it writes
// the store itself.
func OpenTokens(cacheDir string) (*Tokens, error) {
	st, err := auth.OpenStore(cacheDir)
	if err != nil {
		return nil, err
	}
	return newTokens(st), nil
}
