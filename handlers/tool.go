package handlers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"

	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
)

// Limits of RunTool.
const (
	ToolTimeout   = 10 * time.Minute
	ToolOutputCap = 1 << 20
)

// toolService implements core.tool.v1alpha1.ToolService over the spells of
// targets.yaml. It runs only argv the workspace declares, in the workspace
// root; a request can name a spell, never a command.
var _ toolv1alpha1connect.ToolServiceHandler = (*toolService)(nil)

type toolService struct {
	ws      *live.Workspace
	metrics *metrics.Counters
}

func (s *toolService) ListTools(context.Context, *toolv1alpha1.ListToolsRequest) (*toolv1alpha1.ListToolsResponse, error) {
	out := &toolv1alpha1.ListToolsResponse{}
	ws, err := s.ws.Declared()
	if err != nil {
		return out, nil
	}
	for _, sp := range ws.Spells {
		out.Tools = append(out.Tools, &toolv1alpha1.Tool{Name: sp.Name, Argv: sp.Run, Description: sp.Description})
	}
	return out, nil
}

func (s *toolService) RunTool(ctx context.Context, req *toolv1alpha1.RunToolRequest) (*toolv1alpha1.RunToolResponse, error) {
	ws, err := s.ws.Declared()
	if err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("targets.yaml does not load; fix it first"))
	}
	var names []string
	for _, sp := range ws.Spells {
		names = append(names, sp.Name)
		if sp.Name != req.GetName() {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, ToolTimeout)
		defer cancel()
		out := &execx.Capture{Max: ToolOutputCap}
		start := time.Now()
		// A spell gets the server's whole environment, as `core spell`
		// does: it is not cached, so strict mode's reason does not apply
		// (README, Decisions, "A target's environment").
		res := execx.Exec(ctx, sp.Run, ws.Root, nil, out)
		if res.ExitCode == -1 && res.Err != "" && !res.Interrupted {
			return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("spell %s: %s", sp.Name, res.Err))
		}
		s.metrics.Add("tools_run", 1)
		text, truncated := out.Result()
		return &toolv1alpha1.RunToolResponse{ExitCode: int32(res.ExitCode), Output: text, OutputTruncated: truncated, DurationMs: time.Since(start).Milliseconds()}, nil
	}
	sort.Strings(names)
	return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no spell %s%s; targets.yaml declares: %v", quote.Short(req.GetName()), suggest.DidYouMean(req.GetName(), names), names))
}
