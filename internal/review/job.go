package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/corehq/core/internal/jobs"
)

// Job is the check-review job for the repository at root: each run observes
// the current branch, then reports the tracked branches that merged since
// the last run, in its message ("feature/x merged into main (abc1234)",
// several joined by "; "). Its size is the number of branches waiting for
// their merge.
func Job(root, statePath string) jobs.Job {
	return jobs.Job{
		Name:        "check-review",
		Description: "Note when a review this tree took part in has merged.",
		Unit:        "branches",
		Run: func(ctx context.Context) (string, error) {
			if err := Observe(ctx, root, statePath); err != nil {
				return "", err
			}
			merged, err := Check(ctx, root, statePath)
			if err != nil {
				return "", err
			}
			if len(merged) == 0 {
				n, _ := Size(statePath)
				return fmt.Sprintf("no review merged (%d branches watched)", n), nil
			}
			msgs := make([]string, len(merged))
			for i, m := range merged {
				msgs[i] = m.String()
			}
			return strings.Join(msgs, "; "), nil
		},
		Size: func() int64 {
			n, _ := Size(statePath)
			return n
		},
	}
}
