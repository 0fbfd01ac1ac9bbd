package review

import (
	"context"
	"fmt"
	"strings"
)

// Report observes the current branch, then checks for merges, and says
// what it found in one line, the check-review job's message: the tracked
// branches that merged since the last check ("feature/x merged into main
// (abc1234)", several joined by "; "), or how many branches are watched.
func Report(ctx context.Context, root, statePath string) (string, error) {
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
}
