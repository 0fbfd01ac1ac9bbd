package drift

import (
	"context"
	"fmt"
	"strings"

	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/workspace"
)

// Job is the check-drift job for the workspace at root. load returns the
// current workspace (the server's loaded one; it is also called for the
// job's size, the number of drift targets, so it should be cheap). notify,
// if not nil, receives each run's notices (the server files one activity per
// stale target). Stale targets do not fail the run, they are its message:
// "1 of 2 drift targets stale: core:fmt-check is stale at abc1234 (exit 0):
// a.go"; a target that could not run does.
func Job(root string, load func() (*workspace.Workspace, error), notify func([]Notice)) jobs.Job {
	return jobs.Job{
		Name:        "check-drift",
		Description: "Notice, without blocking, a commit that left generated output or formatting stale.",
		Unit:        "targets",
		Run: func(ctx context.Context) (string, error) {
			ws, err := load()
			if err != nil {
				return "", err
			}
			notices, err := Check(ctx, root, ws)
			if notify != nil && len(notices) > 0 {
				notify(notices)
			}
			total := countDrift(ws)
			var msg string
			switch {
			case total == 0:
				msg = "no drift targets declared"
			case len(notices) == 0:
				msg = fmt.Sprintf("%d drift targets clean at HEAD", total)
			default:
				parts := make([]string, len(notices))
				for i, n := range notices {
					parts[i] = n.String()
				}
				msg = fmt.Sprintf("%d of %d drift targets stale: %s", len(notices), total, strings.Join(parts, "; "))
			}
			return msg, err
		},
		Size: func() int64 {
			ws, err := load()
			if err != nil {
				return 0
			}
			return int64(countDrift(ws))
		},
	}
}

func countDrift(ws *workspace.Workspace) int {
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
