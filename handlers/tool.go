package handlers

import (
	"context"

	"github.com/corehq/core/backend"

	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
)

var _ toolv1alpha1connect.ToolServiceHandler = (*toolService)(nil)

// toolService is core.tool.v1alpha1.ToolService: the spells targets.yaml
// declares (loopback only: it runs them).
type toolService struct{ b *backend.Backend }

// ListTools lists the declared spells.
func (s *toolService) ListTools(context.Context, *toolv1alpha1.ListToolsRequest) (*toolv1alpha1.ListToolsResponse, error) {
	out := &toolv1alpha1.ListToolsResponse{}
	for _, sp := range s.b.Tools.List() {
		out.Tools = append(out.Tools, &toolv1alpha1.Tool{Name: sp.Name, Argv: sp.Run, Description: sp.Description})
	}
	return out, nil
}

// RunTool runs one declared spell by name and answers its output.
func (s *toolService) RunTool(ctx context.Context, req *toolv1alpha1.RunToolRequest) (*toolv1alpha1.RunToolResponse, error) {
	r, err := s.b.Tools.Run(ctx, req.GetName())
	if err != nil {
		return nil, err
	}
	return &toolv1alpha1.RunToolResponse{ExitCode: int32(r.ExitCode), Output: r.Output, OutputTruncated: r.Truncated, DurationMs: r.Duration.Milliseconds()}, nil
}
