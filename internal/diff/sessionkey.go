package diff

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/corehq/core/internal/gitx"
)

// ErrNotRepository says the workspace is not inside a git repository: the
// diff routes have nothing to compare.
var ErrNotRepository = errors.New("the workspace is not inside a git repository: the diff routes compare the working tree with git; run git init and commit once")

// SessionKey names the review session of the working tree: the current
// branch, or "detached@<12 hex digits>" on a detached HEAD. A branch with
// no commit yet still has its name.
func SessionKey(ctx context.Context, root string) (string, error) {
	res, err := gitx.Run(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	if res.Exit == 0 && res.Text() != "" {
		return res.Text(), nil
	}
	res, err = gitx.Run(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	if res.Exit == 0 && len(res.Text()) >= 12 {
		return "detached@" + res.Text()[:12], nil
	}
	inside, err := gitx.Run(ctx, root, "rev-parse", "--git-dir")
	if err != nil {
		return "", err
	}
	if inside.Exit != 0 {
		return "", ErrNotRepository
	}
	return "", fmt.Errorf("cannot name the branch under review: %s", strings.TrimSpace(res.Stderr))
}
