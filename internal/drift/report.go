package drift

import (
	"context"
	"fmt"
	"strings"

	"github.com/corehq/core/internal/workspace"
)

// Report runs Check and says what it found in one line, the check-drift
// job's message: "1 of 2 drift targets stale: core:fmt-check is stale at
// abc1234 (exit 0): a.go". Stale targets are its message, not an error; a
// target that could not run is an error, returned beside the notices found
// before it. envMode is Check's.
func Report(ctx context.Context, root string, ws *workspace.Workspace, envMode string) (string, []Notice, error) {
	notices, err := Check(ctx, root, ws, envMode)
	total := Count(ws)
	switch {
	case total == 0:
		return "no drift targets declared", notices, err
	case len(notices) == 0:
		return fmt.Sprintf("%d drift targets clean at HEAD", total), notices, err
	}
	parts := make([]string, len(notices))
	for i, n := range notices {
		parts[i] = n.String()
	}
	return fmt.Sprintf("%d of %d drift targets stale: %s", len(notices), total, strings.Join(parts, "; ")), notices, err
}

// Count is the number of drift targets ws declares.
func Count(ws *workspace.Workspace) int {
	n := 0
	if ws == nil {
		return 0
	}
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			if t.Drift {
				n++
			}
		}
	}
	return n
}
