//go:build nomcp

package handlers

import (
	"net/http"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
)

// WithMCP says whether this build serves /mcp: this one, built with
// -tags nomcp, does not (nor the console and the /api/v1/ routes; the
// server's Keep drops their rows).
const WithMCP = false

// mcpHandler is registered under its name so that routes.yaml loads; the
// row is never mounted in this build.
func mcpHandler(*backend.Backend) gateway.HandlerFunc {
	return func(http.ResponseWriter, *http.Request) error {
		return apierr.NotFound("this build of core has no /mcp (built with -tags nomcp)")
	}
}
