package handlers

import (
	"context"

	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
)

// mcpDeps is what the MCP tools use (in both builds, so that Register
// reads the same; a build without MCP ignores it).
type mcpDeps struct {
	ws        *live.Workspace
	sessions  *reviewstate.Store
	reviews   *diff.Cache
	runner    *runner.Runner
	runCtx    context.Context
	cacheDir  string
	attention *attention.Queue
	handoff   *handoff.Store
	version   string
}
