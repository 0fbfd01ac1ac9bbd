//go:build nomcp

package handlers

import (
	"context"
	"net/http"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/handoff"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
)

// WithMCP says whether this build serves /mcp: this one, built with
// -tags nomcp, does not (nor the console and the /api/v1/ routes; the
// server's Keep drops their rows).
const WithMCP = false

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

// mcpHandler is registered under its name so that routes.yaml loads; the
// row is never mounted in this build.
func mcpHandler(mcpDeps) gateway.HandlerFunc {
	return func(http.ResponseWriter, *http.Request) error {
		return apierr.NotFound("this build of core has no /mcp (built with -tags nomcp)")
	}
}
