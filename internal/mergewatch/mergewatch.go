// Package mergewatch is the check-review job: "note when a review this tree took
// part in has merged". It remembers the branches the working tree has been
// on (Observe) and later reports, once each, those whose work has landed on
// the default branch (Check).
//
// Everything goes through the git CLI (`git -C root ...`), read-only: no
// fetch (a merge on the forge shows once something else fetched), no index
// refresh (GIT_OPTIONAL_LOCKS=0).
//
// Decisions the spec leaves open, taken here:
//   - The default branch is origin/HEAD's target (origin/main, say), else the
//     local main, else master; reports name it without "origin/".
//   - Observe skips a detached HEAD, an unborn branch, the default branch
//     itself and a branch with no commits of its own (its head already on
//     the default branch; tracking it would report a "merge" at once). When
//     a tracked branch moves on, its recorded head follows, and a branch
//     reported before is watched again.
//   - "Merged" means the recorded head is an ancestor of the default branch
//     (git merge-base --is-ancestor): merge commits and fast-forwards are
//     seen; squash and rebase merges, which rewrite the commits, are not by
//     git alone. When a Forge is configured (internal/forge: a token and an
//     origin on GitHub), a branch git does not see merged is also merged
//     when one of its pull requests was merged on the forge (merged_at set)
//     with the recorded head as its head, or an ancestor of it: that sees
//     squash and rebase merges. The forge is asked outside the state
//     file's lock, about at most MaxForgeAsks branches per check (the most
//     recently seen first; the rest wait for the next check), and not at
//     all without a forge: then only git decides, as before. A forge that
//     cannot answer (rate limit, network) stops the asking for this check
//     and is said in the report, never failing the job.
//   - A tracked head that no longer exists (garbage-collected) is dropped;
//     a reported branch is dropped once its local branch is deleted; at most
//     MaxTracked branches are kept (the least recently seen go first).
//   - The state file is JSON, mode 0600, written atomically under an
//     advisory lock (<state>.lock).
package mergewatch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/gitx"
)

// MaxTracked bounds the branches the state file remembers.
const MaxTracked = 500

// MaxForgeAsks bounds the branches one check asks the forge about.
const MaxForgeAsks = 20

// Forge is a code forge check-review may ask whether a branch's pull
// request merged (internal/forge's Client is one).
type Forge interface {
	// MergedHeads returns the head commits of branch's merged pull
	// requests. asked is false when no forge is configured; err is a
	// configured forge that could not answer.
	MergedHeads(ctx context.Context, branch string) (heads []string, asked bool, err error)
}

// Merged is a tracked branch whose work landed on the default branch.
type Merged struct {
	Branch string // "feature/x"
	Head   string // the recorded head commit (full hash)
	Into   string // the default branch, "main"
	// OnForge: the forge said its pull request merged (a squash or rebase
	// merge git's ancestry does not show).
	OnForge bool
}

// String reads "feature/x merged into main (abc1234)", or "feature/x
// merged into main on the forge (abc1234)".
func (m Merged) String() string {
	if m.OnForge {
		return fmt.Sprintf("%s merged into %s on the forge (%s)", m.Branch, m.Into, short(m.Head))
	}
	return fmt.Sprintf("%s merged into %s (%s)", m.Branch, m.Into, short(m.Head))
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

type branch struct {
	Head      string    `json:"head"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Reported  bool      `json:"reported,omitempty"`
	Into      string    `json:"merged_into,omitempty"`
}

type stateFile struct {
	Version  int                `json:"version"`
	Branches map[string]*branch `json:"branches"`
}

const stateVersion = 1

// Observe records the branch root's working tree is on and its head commit.
func Observe(ctx context.Context, root, statePath string) error {
	name, code, err := git(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return err
	}
	if code != 0 {
		return nil // detached HEAD
	}
	head, code, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return err
	}
	if code != 0 {
		return nil // unborn branch: no commit yet
	}
	def, err := defaultBranch(ctx, root)
	if err != nil {
		return err
	}
	if name == def.name || "refs/heads/"+name == def.ref {
		return nil
	}
	onDefault, err := isAncestor(ctx, root, head, def.ref)
	if err != nil {
		return err
	}
	if onDefault {
		return nil // nothing of its own (yet, or any more)
	}
	return update(statePath, func(s *stateFile) (bool, error) {
		now := time.Now().UTC().Round(0)
		b := s.Branches[name]
		if b == nil {
			b = &branch{FirstSeen: now}
			s.Branches[name] = b
		}
		if b.Head != head {
			b.Head, b.Reported, b.Into = head, false, ""
		}
		b.LastSeen = now
		prune(s)
		return true, nil
	})
}

// Check reports, once each, the tracked branches whose recorded head is now
// on the default branch, or whose pull request f says merged (f nil: git
// only), sorted by branch name.
func Check(ctx context.Context, root, statePath string, f Forge) ([]Merged, error) {
	merged, _, err := check(ctx, root, statePath, f)
	return merged, err
}

// pending is a branch git does not see merged, to ask the forge about.
type pending struct {
	name, head string
	lastSeen   time.Time
}

// check is Check, and what kept the forge from answering ("" when nothing).
func check(ctx context.Context, root, statePath string, f Forge) (merged []Merged, forgeProblem string, err error) {
	def, err := defaultBranch(ctx, root)
	if err != nil {
		return nil, "", err
	}
	var ask []pending
	err = update(statePath, func(s *stateFile) (bool, error) {
		changed := false
		names := make([]string, 0, len(s.Branches))
		for n := range s.Branches {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			b := s.Branches[name]
			if b.Reported {
				if _, code, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "refs/heads/"+name); err == nil && code != 0 {
					delete(s.Branches, name) // reported, and the branch is gone
					changed = true
				}
				continue
			}
			_, code, err := git(ctx, root, "rev-parse", "--verify", "--quiet", b.Head+"^{commit}")
			if err != nil {
				return changed, err
			}
			if code != 0 {
				delete(s.Branches, name) // its head was garbage-collected
				changed = true
				continue
			}
			ok, err := isAncestor(ctx, root, b.Head, def.ref)
			if err != nil {
				return changed, err
			}
			if ok {
				b.Reported, b.Into = true, def.name
				merged = append(merged, Merged{Branch: name, Head: b.Head, Into: def.name})
				changed = true
			} else {
				ask = append(ask, pending{name: name, head: b.Head, lastSeen: b.LastSeen})
			}
		}
		return changed, nil
	})
	if err != nil {
		return nil, "", err
	}
	if f == nil || len(ask) == 0 {
		return merged, "", nil
	}
	found, forgeProblem, err := askForge(ctx, root, f, ask)
	if err != nil || len(found) == 0 {
		return merged, forgeProblem, err
	}
	err = update(statePath, func(s *stateFile) (bool, error) {
		changed := false
		for _, p := range found {
			b := s.Branches[p.name]
			if b == nil || b.Reported || b.Head != p.head {
				continue // moved on, or reported, while the forge was asked
			}
			b.Reported, b.Into = true, def.name
			merged = append(merged, Merged{Branch: p.name, Head: b.Head, Into: def.name, OnForge: true})
			changed = true
		}
		return changed, nil
	})
	sort.Slice(merged, func(i, j int) bool { return merged[i].Branch < merged[j].Branch })
	return merged, forgeProblem, err
}

// askForge asks f about the most recently seen of ask and returns those
// whose recorded head is, or is an ancestor of, a merged pull request's
// head.
func askForge(ctx context.Context, root string, f Forge, ask []pending) (found []pending, problem string, err error) {
	sort.Slice(ask, func(i, j int) bool { return ask[i].lastSeen.After(ask[j].lastSeen) })
	if len(ask) > MaxForgeAsks {
		ask = ask[:MaxForgeAsks]
	}
	for _, p := range ask {
		heads, asked, ferr := f.MergedHeads(ctx, p.name)
		if !asked {
			return found, "", nil // no forge configured
		}
		if ferr != nil {
			return found, ferr.Error(), nil
		}
		for _, h := range heads {
			ok, err := landedIn(ctx, root, p.head, h)
			if err != nil {
				return found, "", err
			}
			if ok {
				found = append(found, p)
				break
			}
		}
	}
	return found, "", nil
}

// landedIn says whether head is the merged pull request's head prHead, or
// an ancestor of it (commits pushed after the recorded head, then merged).
func landedIn(ctx context.Context, root, head, prHead string) (bool, error) {
	if strings.EqualFold(head, prHead) {
		return true, nil
	}
	if _, code, err := git(ctx, root, "rev-parse", "--verify", "--quiet", prHead+"^{commit}"); err != nil || code != 0 {
		return false, err // the pull request's head is not here: cannot tell
	}
	return isAncestor(ctx, root, head, prHead)
}

// Size reports how many tracked branches are waiting for their merge: the
// size check-review maintains.
func Size(statePath string) (int64, error) {
	s, err := read(statePath)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range s.Branches {
		if !b.Reported {
			n++
		}
	}
	return n, nil
}

// prune keeps at most MaxTracked branches, dropping the least recently seen.
func prune(s *stateFile) {
	if len(s.Branches) <= MaxTracked {
		return
	}
	names := make([]string, 0, len(s.Branches))
	for n := range s.Branches {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return s.Branches[names[i]].LastSeen.Before(s.Branches[names[j]].LastSeen)
	})
	for _, n := range names[:len(names)-MaxTracked] {
		delete(s.Branches, n)
	}
}

// maxState bounds what is read of the state file: MaxTracked branches of
// a few hundred bytes each, many times over.
const maxState = 16 << 20

// document is the state file at path.
func document(path string) fsx.Document[stateFile] {
	return fsx.Document[stateFile]{
		Path: path, Name: "review state", Limit: maxState, Fix: "delete it; tracking starts over",
		Zero: func() stateFile { return stateFile{Version: stateVersion, Branches: map[string]*branch{}} },
		Check: func(s *stateFile) error {
			if s.Version != stateVersion {
				return fmt.Errorf("has version %d, this core reads %d", s.Version, stateVersion)
			}
			if s.Branches == nil {
				s.Branches = map[string]*branch{}
			}
			for n, b := range s.Branches {
				if b == nil || b.Head == "" {
					delete(s.Branches, n)
				}
			}
			return nil
		},
	}
}

func read(path string) (*stateFile, error) {
	s, err := document(path).Read()
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// update runs fn on the state under the lock and writes it if fn says it
// changed, even when fn also fails part-way.
func update(path string, fn func(*stateFile) (bool, error)) error {
	return document(path).Update(fn)
}

type defBranch struct {
	ref  string // "refs/remotes/origin/main"
	name string // "main"
}

// defaultBranch is origin/HEAD's target, else main, else master.
func defaultBranch(ctx context.Context, root string) (defBranch, error) {
	out, code, err := git(ctx, root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
	if err != nil {
		return defBranch{}, err
	}
	if code == 0 && strings.HasPrefix(out, "refs/remotes/origin/") {
		if _, c, err := git(ctx, root, "rev-parse", "--verify", "--quiet", out+"^{commit}"); err == nil && c == 0 {
			return defBranch{ref: out, name: strings.TrimPrefix(out, "refs/remotes/origin/")}, nil
		}
	}
	for _, n := range []string{"main", "master"} {
		_, c, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "refs/heads/"+n+"^{commit}")
		if err != nil {
			return defBranch{}, err
		}
		if c == 0 {
			return defBranch{ref: "refs/heads/" + n, name: n}, nil
		}
	}
	return defBranch{}, fmt.Errorf("check-review: %s has no default branch to compare with: neither origin/HEAD, main nor master exists (run `git remote set-head origin --auto` to set origin/HEAD)", root)
}

func isAncestor(ctx context.Context, root, commit, ref string) (bool, error) {
	_, code, err := git(ctx, root, "merge-base", "--is-ancestor", commit, ref)
	if err != nil {
		return false, err
	}
	switch code {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, fmt.Errorf("check-review: git merge-base --is-ancestor %s %s exited %d", short(commit), ref, code)
}

// git runs `git -C root args...` and returns its trimmed stdout and exit
// code; err is for git that could not run or died of something other than a
// plain exit (a missing repository is exit 128 with stderr in err).
func git(ctx context.Context, root string, args ...string) (string, int, error) {
	res, err := gitx.Run(ctx, root, args...)
	if err != nil {
		return "", -1, fmt.Errorf("check-review: %w", err)
	}
	if res.Exit == 128 || res.Exit < 0 {
		if strings.Contains(res.Stderr, "not a git repository") {
			return "", res.Exit, fmt.Errorf("check-review: %s is not a git repository", root)
		}
		return "", res.Exit, fmt.Errorf("check-review: %w", res.Describe(args...))
	}
	return res.Text(), res.Exit, nil
}
