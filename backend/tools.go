package backend

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/workspace"
)

// Bounds of a spell's run through the tool service.
const (
	ToolTimeout   = 10 * time.Minute
	ToolOutputCap = 1 << 20
)

// Tools is the tools area: the spells targets.yaml declares, run from the
// workspace root (never an argv from a caller).
type Tools struct {
	ws      *live.Workspace
	metrics *metrics.Counters
}

// List is the declared spells (none while targets.yaml never loaded).
func (t *Tools) List() []*workspace.Spell {
	ws, err := t.ws.Declared()
	if err != nil {
		return nil
	}
	return ws.Spells
}

// ToolRun is one spell's run.
type ToolRun struct {
	ExitCode  int
	Output    string
	Truncated bool
	Duration  time.Duration
}

// Run runs spell name, bounded by ToolTimeout and ToolOutputCap.
func (t *Tools) Run(ctx context.Context, name string) (ToolRun, error) {
	ws, err := t.ws.Declared()
	if err != nil {
		return ToolRun{}, apierr.Unavailable("targets.yaml does not load; fix it first")
	}
	var names []string
	for _, sp := range ws.Spells {
		names = append(names, sp.Name)
		if sp.Name != name {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, ToolTimeout)
		defer cancel()
		out := &execx.Capture{Max: ToolOutputCap}
		start := time.Now()
		// A spell gets the server's whole environment, as `core spell`
		// does: it is not cached, so strict mode's reason does not apply
		// (docs/decisions.md, "A target's environment").
		res := execx.Exec(ctx, sp.Run, ws.Root, nil, out)
		if res.ExitCode == -1 && res.Err != "" && !res.Interrupted {
			return ToolRun{}, apierr.New(http.StatusConflict, apierr.CodeFailedPrecondition, "spell %s: %s", sp.Name, res.Err)
		}
		t.metrics.Add("tools_run", 1)
		text, truncated := out.Result()
		return ToolRun{ExitCode: res.ExitCode, Output: text, Truncated: truncated, Duration: time.Since(start)}, nil
	}
	sort.Strings(names)
	return ToolRun{}, apierr.NotFound("no spell %s%s; targets.yaml declares: %v", quote.Short(name), suggest.DidYouMean(name, names), names)
}
