package mergewatch

import (
	"context"
	"fmt"
	"strings"
)

// Report observes the current branch, then checks for merges, and says
// what it found in one line, the check-review job's message: the tracked
// branches that merged since the last check ("feature/x merged into main
// (abc1234)", several joined by "; "), or how many branches are watched;
// then, when the forge f could not answer, why ("forge: ...").
func Report(ctx context.Context, root, statePath string, f Forge) (string, error) {
	if err := Observe(ctx, root, statePath); err != nil {
		return "", err
	}
	merged, problem, err := check(ctx, root, statePath, f)
	if err != nil {
		return "", err
	}
	var msg string
	if len(merged) == 0 {
		n, _ := Size(statePath)
		msg = fmt.Sprintf("no review merged (%d branches watched)", n)
	} else {
		msgs := make([]string, len(merged))
		for i, m := range merged {
			msgs[i] = m.String()
		}
		msg = strings.Join(msgs, "; ")
	}
	if problem != "" {
		msg += "; forge: " + problem
	}
	return msg, nil
}
