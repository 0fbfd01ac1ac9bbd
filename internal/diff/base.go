package diff

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/quote"
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

// BaseError says the base asked for cannot be compared against; the
// handler answers 400 with its message, which names the ref and the fix.
type BaseError struct {
	Ref    string
	Reason string
}

func (e *BaseError) Error() string {
	return fmt.Sprintf("base %s %s", quote.Short(e.Ref), e.Reason)
}

// resolved is the base of a change: what the working tree is compared
// against (tree: a commit, or the empty tree before the first commit).
type resolved struct {
	Base
	tree           string
	empty          string // the empty tree
	format         string // the object format: sha1 or sha256
	index          string // the repository's index file, absolute
	objects        string // the object directory, absolute
	infoAttributes string // $GIT_DIR/info/attributes, absolute
	infoExclude    string // $GIT_DIR/info/exclude, absolute
	top            string // the working tree's top directory
	prefix         string // root relative to the repository's top, "" or "dir/"
	head           string // HEAD's commit, "" before the first
}

// sessionKey names the review session of the working tree: the current
// branch (even before its first commit), or "detached@<12 hex digits>".
func (r resolved) sessionKey() string {
	if r.Branch != "" {
		return r.Branch
	}
	return "detached@" + r.head[:min(12, len(r.head))]
}

// emptyTrees are the ids of the empty tree by the repository's hash.
var emptyTrees = map[string]string{
	"sha1":   "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}

// resolve finds the commit a change is measured against: HEAD for base ""
// or "HEAD", else the merge base of base and HEAD; and the current branch.
func resolve(ctx context.Context, root, base string) (resolved, error) {
	return resolveFor(ctx, root, base, true)
}

// resolveFor is resolve, naming the branch only when withBranch: the
// patch does not need it, and every question is a process. The facts and
// HEAD's commit come from one rev-parse; the branch, when asked, from a
// symbolic-ref run at the same time.
func resolveFor(ctx context.Context, root, base string, withBranch bool) (resolved, error) {
	var inside, branch gitx.Result
	var errInside, errBranch error
	var wg sync.WaitGroup
	if withBranch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			branch, errBranch = gitx.Run(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD")
		}()
	}
	// Exit 1 with the facts printed: HEAD has no commit yet.
	inside, errInside = gitx.Run(ctx, root, "rev-parse", "--is-inside-work-tree", "--show-object-format", "--path-format=absolute",
		"--git-path", "index", "--git-path", "objects", "--git-path", "info/attributes", "--git-path", "info/exclude", "--show-toplevel", "--show-prefix",
		"--verify", "--quiet", "HEAD^{commit}")
	wg.Wait()
	if err := errors.Join(errInside, errBranch); err != nil {
		return resolved{}, err
	}
	// One line each: "true", the format, the index, the object directory,
	// info/attributes, info/exclude, the top, the prefix (maybe empty),
	// then HEAD's commit when there is one.
	facts := strings.Split(strings.TrimSuffix(inside.Stdout, "\n"), "\n")
	if inside.Exit > 1 || len(facts) < 7 || facts[0] != "true" {
		return resolved{}, ErrNotRepository
	}
	var r resolved
	r.empty, r.format, r.index = emptyTrees[facts[1]], facts[1], facts[2]
	r.objects, r.infoAttributes, r.infoExclude, r.top = facts[3], facts[4], facts[5], facts[6]
	if len(facts) > 7 {
		r.prefix = facts[7]
	}
	if withBranch && branch.Exit == 0 {
		r.Branch = branch.Text()
	}
	headCommit := ""
	if inside.Exit == 0 && len(facts) > 8 {
		headCommit = facts[8]
	}
	r.head = headCommit
	switch base {
	case "", "HEAD":
		r.Ref, r.Commit, r.tree = "HEAD", headCommit, headCommit
	default:
		if strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\x00\n") {
			return resolved{}, &BaseError{Ref: base, Reason: "is not a ref name: pass a branch, tag or commit"}
		}
		commit, err := revParse(ctx, root, base+"^{commit}")
		if err != nil {
			return resolved{}, err
		}
		if commit == "" {
			return resolved{}, &BaseError{Ref: base, Reason: "is not a commit in this repository: pass a branch, tag or commit that exists (git fetch it first if it is remote)"}
		}
		if headCommit == "" {
			return resolved{}, &BaseError{Ref: base, Reason: "has no merge base with HEAD, which has no commit yet: commit once, or leave base out"}
		}
		mb, err := gitx.Run(ctx, root, "merge-base", "--end-of-options", commit, headCommit)
		if err != nil {
			return resolved{}, err
		}
		if mb.Exit != 0 {
			return resolved{}, &BaseError{Ref: base, Reason: "shares no history with HEAD: pass a ref HEAD descends from"}
		}
		r.Ref, r.Commit, r.tree, r.MergeBase = base, mb.Text(), mb.Text(), mb.Text() != commit
	}
	if r.empty == "" {
		return resolved{}, fmt.Errorf("the repository's object format %q is not one core knows (sha1, sha256)", facts[1])
	}
	if r.tree == "" {
		r.tree = r.empty // no commit yet: everything is added
	}
	return r, nil
}

// revParse returns the object name rev resolves to, or "" when it names
// nothing.
func revParse(ctx context.Context, root, rev string) (string, error) {
	res, err := gitx.Run(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return "", nil
	}
	return res.Text(), nil
}
