package diff

import (
	"context"
	"errors"
)

// ErrNotRepository says the workspace is not inside a git repository: the
// diff routes have nothing to compare.
var ErrNotRepository = errors.New("the workspace is not inside a git repository: the diff routes compare the working tree with git; run git init and commit once")

// SessionKey names the review session of the working tree: the current
// branch, or "detached@<12 hex digits>" on a detached HEAD. A branch with
// no commit yet still has its name.
func SessionKey(ctx context.Context, root string) (string, error) {
	r, err := resolve(ctx, root, "")
	if err != nil {
		return "", err
	}
	return r.sessionKey(), nil
}
