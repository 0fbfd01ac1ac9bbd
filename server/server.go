// Package server is core's composition root: it opens the stores, builds the
// live workspace and the event hub, registers the handlers, loads routes.yaml
// into listeners and runs them until the context ends, keeping the state file
// that the CLI reads. It sits above gateway and handlers and below cmd.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	core "github.com/corehq/core"
	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/handlers"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/state"
)

// Version is the server's version, set by the CLI.
var Version = "dev"

// Options configure Run.
type Options struct {
	Root   string
	Config *config.Config
	Log    zerolog.Logger
	// Ready is called once the listener accepts connections.
	Ready func(Ready)
}

// Ready describes a server that has started.
type Ready struct {
	BaseURL      string
	Address      string
	AdminToken   string
	ConsoleMount bool
	// ConsoleOff says why the console is not mounted ("" when it is).
	ConsoleOff string
	Tokens     *auth.Store
	Workspace  *live.Workspace
}

// PairingCode mints a one-time code that the console trades for a token
// (the pairing link's fragment carries it).
func (r Ready) PairingCode() string { return r.Tokens.Mint(auth.KindPair, auth.Pair, auth.PairTTL) }

// CacheDir is the cache directory of a workspace under cfg.
func CacheDir(root string, cfg *config.Config) string {
	if cfg.CacheDir != "" {
		if filepath.IsAbs(cfg.CacheDir) {
			return cfg.CacheDir
		}
		return filepath.Join(root, cfg.CacheDir)
	}
	return filepath.Join(root, ignore.DefaultCacheDir)
}

// RouteTable is the routes.yaml compiled into this binary, checked against
// the handlers exactly as the server checks it: `core routes` prints it.
func RouteTable() (*gateway.Table, error) {
	reg := gateway.NewRegistry()
	handlers.Register(reg, nil, nil)
	return gateway.Load(core.RoutesFile, core.Routes, reg)
}

// Run serves the workspace until ctx ends, then shuts down gracefully.
func Run(ctx context.Context, o Options) error {
	cfg, log := o.Config, o.Log
	cacheDir := CacheDir(o.Root, cfg)
	if err := fsx.EnsureCacheDir(cacheDir); err != nil {
		return err
	}
	// One server per workspace: the lock is held for the server's life and
	// dies with its process, so a crash never leaves it behind.
	lock, err := fsx.TryLockFile(cachedir.ServerLock(cacheDir))
	if errors.Is(err, fsx.ErrLocked) {
		if st, err := state.Read(cacheDir); err == nil {
			return fmt.Errorf("a core server already runs for this workspace at %s (pid %d); stop it with `core server stop`", st.BaseURL, st.PID)
		}
		return fmt.Errorf("a core server already runs for this workspace (it is still starting); see `core server status`")
	}
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()

	tokens, err := auth.OpenStore(cacheDir)
	if err != nil {
		return err
	}
	hub := events.NewHub(cfg.Events.KeepAlive)
	ws := live.New(o.Root, cacheDir, hub, log)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	counters := metrics.New()
	eng, err := newEngine(runCtx, o.Root, cacheDir, cfg, ws, counters, log)
	if err != nil {
		return err
	}
	// On an early return the engine stops at once; the orderly shutdown
	// below stops it in its place in the sequence.
	engineClosed := false
	defer func() {
		if !engineClosed {
			cancel()
			eng.close(context.Background())
		}
	}()
	// Setting up the watches walks every directory of the workspace: that
	// runs while the rest of the server is put together, and is done
	// before it serves, so that no edit a client makes goes unseen.
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		if err := ws.Watch(runCtx, cfg.Events.Debounce); err != nil {
			log.Warn().Str(logx.Reason, err.Error()).Msg("cannot watch the workspace; the graph will not refresh on its own")
		}
	}()
	started := time.Now().UTC()
	consoleFS, consoleFrom, err := consoleFiles(o.Root, cfg)
	if err != nil {
		return err
	}
	log.Debug().Str("console", consoleFrom).Msg("built console")
	queue, handed, err := openAgentStores(cacheDir, hub)
	if err != nil {
		return err
	}
	lenses := insight.New(insight.Options{
		Root: o.Root, CacheDir: cacheDir, BulkFiles: cfg.Insight.BulkFiles, Declared: ws.Declared,
		Graph: func() *graph.Graph {
			if snap, err := ws.Current(); err == nil {
				return snap.Graph()
			}
			return nil
		},
	})
	// The first question should not pay for reading the whole history.
	go func() {
		if _, err := lenses.Update(runCtx); err != nil && !errors.Is(err, insight.ErrNotRepository) && runCtx.Err() == nil {
			log.Warn().Str(logx.Reason, err.Error()).Msg("insight: reading the git history")
		}
	}()
	sharing := &shares{
		tokens: tokens, address: cfg.Share.Address, maxBody: cfg.Server.MaxBody, log: log, counters: counters,
		timeouts: gateway.Timeouts{ReadHeader: cfg.Server.ReadHeaderTimeout, Idle: cfg.Server.IdleTimeout},
	}
	defer sharing.Stop()
	reg := gateway.NewRegistry()
	b := backend.New(backend.Options{
		Attention: queue, Handoff: handed, Insight: lenses, Share: sharing,
		Workspace: ws, Hub: hub, Tokens: tokens, Metrics: counters,
		Runner: eng.runner, Jobs: eng.jobs, Activity: eng.activity, Notes: eng.notes,
		CacheDir: cacheDir, RunContext: runCtx, Sessions: reviewstate.NewStore(cacheDir), Forge: eng.forge,
		Facts: backend.Facts{Version: Version, Started: started, Config: config.Effective(cfg)},
	})
	handlers.Register(reg, b, consoleFS)
	table, err := gateway.Load(core.RoutesFile, core.Routes, reg)
	if err != nil {
		return fmt.Errorf("the route table compiled into this binary is invalid (a bug):\n%w", err)
	}
	sharing.table, sharing.reg = table, reg

	ln, err := listen(cfg.Server.Address)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	baseURL := "http://" + net.JoinHostPort(dialHost(addr.IP), strconv.Itoa(addr.Port))

	consoleOff := ConsoleOff(cfg, addr)
	consoleMount := consoleOff == ""
	if !addr.IP.IsLoopback() {
		log.Warn().Str(logx.Address, cfg.Server.Address).Msg("server.address is not a loopback address: the console refuses to mount there, so no console route is registered; bind 127.0.0.1 to use the console")
	}
	if !cfg.Console.Enabled {
		log.Info().Msg("console.enabled is false: no console route is registered")
	}
	// Without the console there is no hosted console either: its origin
	// would otherwise still reach the Connect rows flagged hosted.
	hostedOrigin := cfg.Console.HostedOrigin
	if !consoleMount {
		hostedOrigin = ""
	}
	sharing.hosted = hostedOrigin
	listener, err := gateway.NewListener(table, reg, gateway.ListenerConfig{
		Exposure:     gateway.ExposureLoopback,
		Port:         strconv.Itoa(addr.Port),
		HostedOrigin: hostedOrigin,
		// On a non-loopback bind the Host header proves nothing; only a
		// loopback peer may call what is loopback-only.
		LoopbackPeersOnly: !addr.IP.IsLoopback(),
		Tokens:            tokens,
		Kinds:             []auth.Kind{auth.KindConsole, auth.KindAdmin, auth.KindPair, auth.KindMCP},
		MaxBody:           cfg.Server.MaxBody,
		Keep:              Keep(consoleMount),
		Dropped:           dropped(consoleOff),
		Log:               log,
		Metrics:           counters,
		AccessLog:         cfg.Log.Access,
	})
	if err != nil {
		_ = ln.Close()
		return err
	}
	srv := gateway.NewHTTPServer(listener, gateway.Timeouts{ReadHeader: cfg.Server.ReadHeaderTimeout, Idle: cfg.Server.IdleTimeout}, log)

	go func() {
		err := tokens.Watch(runCtx, func(err error) {
			log.Warn().Str(logx.Reason, err.Error()).Msg("token file")
		})
		if err != nil {
			log.Warn().Str(logx.Reason, err.Error()).Msg("cannot watch the token file; revocations are still seen within a second")
		}
	}()

	admin := tokens.Mint(auth.KindAdmin, auth.Admin|auth.ConsoleRead|auth.ConsoleWrite, 0)
	st := state.State{
		Address: addr.String(), BaseURL: baseURL, PID: os.Getpid(), StartedAt: started,
		Workspace: o.Root, Version: Version, AdminToken: admin,
	}
	if err := state.Write(cacheDir, st); err != nil {
		_ = ln.Close()
		return err
	}
	defer func() { _ = state.Remove(cacheDir, st.PID) }()

	<-watching
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info().Str(logx.Address, baseURL).Str(logx.Workspace, o.Root).Msg("serving")
	if o.Ready != nil {
		o.Ready(Ready{BaseURL: baseURL, Address: addr.String(), AdminToken: admin, ConsoleMount: consoleMount, ConsoleOff: consoleOff, Tokens: tokens, Workspace: ws})
	}

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve %s: %w", baseURL, err)
	case <-ctx.Done():
	}
	log.Info().Msg("shutting down")
	// One deadline for the whole sequence. First no new work: the event
	// streams end (http.Server.Shutdown waits for handlers) and the server
	// stops taking requests. Then runs and jobs are cancelled and waited
	// for, so their journals say "interrupted" and their processes are
	// gone. Then the index cache is saved; the state file goes last (defer).
	shutdownCtx, done := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout)
	defer done()
	_ = hub.Shutdown(shutdownCtx)
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	cancel()
	waitOrTimeout(shutdownCtx, eng.runner.Wait)
	engineClosed = true
	eng.close(shutdownCtx)
	if err := ws.Close(); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("save the index cache")
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Keep says which rows a loopback listener mounts: the console's rows only
// when the console mounts, and in a build without MCP (-tags nomcp) neither
// /mcp nor any console row (no /api/v1/, no pages): only what the CLI uses.
func Keep(consoleMount bool) func(*gateway.Row) bool {
	return func(r *gateway.Row) bool {
		if !handlers.WithMCP && (r.IsConsole() || r.AnyOrigin) {
			return false
		}
		return consoleMount || !r.IsConsole()
	}
}

// Why the console is not mounted, as the server says it: on its ready
// line, and in the 404 of every console path, where core doctor and core
// open read it (a client's own configuration may differ from the
// server's).
const (
	ConsoleNotBuilt = "this build of core has no console: it was built with -tags nomcp"
	ConsoleDisabled = "console.enabled is false on this server"
	noMCPBuilt      = "this build of core has no /mcp: it was built with -tags nomcp"
)

// ConsoleOff says why a server under cfg, bound to addr, does not mount
// the console, "" when it does: the build first (the spec: builds without
// MCP have no console), then console.enabled, then a bind that is not
// loopback (not asked when addr is nil: no server is bound).
func ConsoleOff(cfg *config.Config, addr *net.TCPAddr) string {
	switch {
	case !handlers.WithMCP:
		return ConsoleNotBuilt
	case !cfg.Console.Enabled:
		return ConsoleDisabled
	case addr != nil && !addr.IP.IsLoopback():
		return fmt.Sprintf("server.address %s is not a loopback address, and the console mounts on loopback only", cfg.Server.Address)
	}
	return ""
}

// dropped is the reason a loopback listener gives for a row Keep left out.
func dropped(consoleOff string) func(*gateway.Row) string {
	return func(r *gateway.Row) string {
		if r.AnyOrigin && !handlers.WithMCP {
			return noMCPBuilt
		}
		if r.IsConsole() {
			return consoleOff
		}
		return ""
	}
}

// openAgentStores opens the attention queue and the session jobs, which
// only a build with MCP has (agents are their other half); a change to the
// queue is announced on the event stream as `event: attention`.
func openAgentStores(cacheDir string, hub *events.Hub) (*attention.Queue, *handoff.Store, error) {
	if !handlers.WithMCP {
		return nil, nil, nil
	}
	var q *attention.Queue
	announce := func() {
		data, _ := json.Marshal(events.Attention{Open: q.List().Open})
		hub.Publish(events.KindAttention, data)
	}
	q, err := attention.Open(cachedir.Attention(cacheDir), announce)
	if err != nil {
		return nil, nil, err
	}
	h, err := handoff.Open(cachedir.SessionJobs(cacheDir), nil)
	if err != nil {
		return nil, nil, err
	}
	return q, h, nil
}

// waitOrTimeout runs wait, giving up when ctx ends.
func waitOrTimeout(ctx context.Context, wait func()) {
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// dialHost is the host a local client uses to reach a listener bound to ip:
// the unspecified address is reached over IPv4 loopback.
func dialHost(ip net.IP) string {
	if ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return ip.String()
}

func listen(address string) (net.Listener, error) {
	ln, err := net.Listen("tcp", address)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("cannot listen on %s: the address is already in use (another core server? try `core server status`); pick another with --address or CORE_SERVER_ADDRESS", address)
	}
	return nil, fmt.Errorf("cannot listen on %s: %w", address, err)
}
