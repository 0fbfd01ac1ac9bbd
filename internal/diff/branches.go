package diff

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/corehq/core/internal/gitx"
)

// MaxBranches bounds the branches OtherBranches compares, the most
// recently committed first; Branches.Checked and Cap say how many.
const MaxBranches = 50

// Branch is another branch that changes some of the same files.
type Branch struct {
	Name      string   `json:"name"` // "feature/x", or "origin/feature/x" for a remote-tracking one
	Remote    bool     `json:"remote"`
	Commit    string   `json:"commit"`
	Subject   string   `json:"subject"`
	Author    string   `json:"author"`
	Date      string   `json:"date"` // of its last commit, RFC 3339
	MergeBase string   `json:"merge_base"`
	Overlap   []string `json:"overlap"` // files both change, relative to the workspace root
	// Conflicts says merging the branch into this change (committed and
	// uncommitted, untracked files aside) would conflict, by git's
	// merge-tree; ConflictFiles are the files that would.
	Conflicts     bool     `json:"conflicts"`
	ConflictFiles []string `json:"conflict_files"`
}

// Branches is the body of GET /api/v1/diff/branches.
type Branches struct {
	Current  string   `json:"current"` // "" on a detached HEAD
	Branches []Branch `json:"branches"`
	Checked  int      `json:"checked"`
	Cap      int      `json:"cap"`
	// Note says what could not be checked (no commit yet, an old git).
	Note string `json:"note,omitempty"`
}

// OtherBranches lists the local and remote-tracking branches that, since
// their merge base with HEAD, change files this change changes: the files
// given (the working tree's change, relative to root) and the commits of
// the current branch since that merge base. Skipped: the current branch,
// symbolic refs (origin/HEAD), and a remote-tracking branch whose local
// twin is at the same commit.
func OtherBranches(ctx context.Context, root string, changed []string) (Branches, error) {
	b, err := resolve(ctx, root, "")
	if err != nil {
		return Branches{}, err
	}
	out := Branches{Current: b.Branch, Branches: []Branch{}, Cap: MaxBranches}
	if b.Commit == "" {
		out.Note = "HEAD has no commit yet: no branch shares history with it"
		return out, nil
	}
	prefix, err := gitx.Output(ctx, root, "rev-parse", "--show-prefix")
	if err != nil {
		return Branches{}, err
	}
	prefix = strings.TrimSpace(prefix)
	refs, err := gitx.Output(ctx, root, "for-each-ref", "--sort=-committerdate",
		"--format=%(refname)%00%(symref)%00%(objectname)%00%(committerdate:iso-strict)%00%(authorname)%00%(subject)",
		"refs/heads", "refs/remotes")
	if err != nil {
		return Branches{}, err
	}
	type ref struct{ full, name, commit, date, author, subject string }
	var list []ref
	local := map[string]string{} // short name -> commit
	for _, line := range strings.Split(strings.TrimSpace(refs), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 6 || f[1] != "" {
			continue
		}
		r := ref{full: f[0], commit: f[2], date: f[3], author: f[4], subject: f[5]}
		if n, ok := strings.CutPrefix(r.full, "refs/heads/"); ok {
			r.name = n
			local[n] = r.commit
			if n == b.Branch {
				continue
			}
		} else {
			r.name = strings.TrimPrefix(r.full, "refs/remotes/")
		}
		list = append(list, r)
	}
	// The working tree as a commit, so that merge-tree sees uncommitted
	// edits too; HEAD when nothing is uncommitted. git stash create
	// writes objects and no ref, but refreshes the index it reads, so it
	// reads a private copy: the repository's index (its lock, its stat
	// data, the diff routes' ETags) is never touched.
	ours := b.Commit
	if stash, err := stashCreate(ctx, root, b.index); err == nil && stash != "" {
		ours = stash
	}
	mergeTree, why := mergeTreeWorks(ctx, root)
	if !mergeTree {
		out.Note = why
	}
	for _, r := range list {
		if !strings.HasPrefix(r.full, "refs/heads/") {
			_, short, _ := strings.Cut(r.name, "/")
			if local[short] == r.commit {
				continue
			}
		}
		if out.Checked == MaxBranches {
			break
		}
		out.Checked++
		mb, err := gitx.Output(ctx, root, "merge-base", r.commit, b.Commit)
		if err != nil {
			continue // no shared history
		}
		mb = strings.TrimSpace(mb)
		// diff-tree: commits only, so gitx looks up no drivers for it.
		theirs, err := names(ctx, root, "diff-tree", "-r", "--name-only", "-z", "--no-renames", "--relative", mb, r.commit, "--")
		if err != nil {
			return Branches{}, err
		}
		mine, err := names(ctx, root, "diff-tree", "-r", "--name-only", "-z", "--no-renames", "--relative", mb, b.Commit, "--")
		if err != nil {
			return Branches{}, err
		}
		mineSet := make(map[string]bool, len(mine)+len(changed))
		for _, f := range mine {
			mineSet[f] = true
		}
		for _, f := range changed {
			mineSet[f] = true
		}
		var overlap []string
		for _, f := range theirs {
			if mineSet[f] {
				overlap = append(overlap, f)
			}
		}
		if len(overlap) == 0 {
			continue
		}
		slices.Sort(overlap)
		br := Branch{Name: r.name, Remote: !strings.HasPrefix(r.full, "refs/heads/"), Commit: r.commit, Subject: r.subject,
			Author: r.author, Date: r.date, MergeBase: mb, Overlap: slices.Compact(overlap), ConflictFiles: []string{}}
		if mergeTree {
			// -z: the tree, then each conflicted path, NUL-terminated, as
			// it is (no C quoting of non-ASCII names), then an empty record.
			res, err := gitx.Run(ctx, root, "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, r.commit)
			switch {
			case err != nil:
				return Branches{}, err
			case res.Exit == 1:
				br.Conflicts = true
				recs := strings.Split(res.Stdout, "\x00")
				for _, p := range recs[min(1, len(recs)):] {
					if p == "" {
						break
					}
					if rel, ok := strings.CutPrefix(p, prefix); ok {
						br.ConflictFiles = append(br.ConflictFiles, rel)
					}
				}
				br.ConflictFiles = slices.Compact(br.ConflictFiles)
			case res.Exit != 0:
				mergeTree = false
				out.Note = "git merge-tree failed, so conflicts are not checked: " + res.Stderr
			}
		}
		out.Branches = append(out.Branches, br)
	}
	return out, nil
}

// mergeTreeGit is the first git whose merge-tree has --write-tree.
var mergeTreeGit = [2]int{2, 38}

// gitVersion is `git version`'s answer, asked once per process.
var gitVersion = sync.OnceValue(func() string {
	res, err := gitx.Run(context.Background(), ".", "version")
	if err != nil || res.Exit != 0 {
		return ""
	}
	return res.Text()
})

// mergeTreeWorks says whether this git's merge-tree can check conflicts
// without touching the work tree, and why not.
func mergeTreeWorks(_ context.Context, _ string) (bool, string) {
	v := gitVersion()
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimPrefix(v, "git version "), "%d.%d", &major, &minor); err != nil {
		return true, "" // an unusual version string: try, and say so if it fails
	}
	if major > mergeTreeGit[0] || major == mergeTreeGit[0] && minor >= mergeTreeGit[1] {
		return true, ""
	}
	return false, fmt.Sprintf("this git (%s) cannot check conflicts: git merge-tree --write-tree needs git %d.%d or later", v, mergeTreeGit[0], mergeTreeGit[1])
}

// names runs a git command printing NUL-separated paths.
func names(ctx context.Context, root string, args ...string) ([]string, error) {
	out, err := gitx.Output(ctx, root, args...)
	if err != nil {
		return nil, err
	}
	var list []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			list = append(list, p)
		}
	}
	return list, nil
}

// stashCreate is `git stash create` over a private copy of the index.
func stashCreate(ctx context.Context, root, index string) (string, error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "core-stash-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "index")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		return "", err
	}
	cmd := gitx.Command(ctx, root, "-c", "user.name=core", "-c", "user.email=core@localhost", "stash", "create")
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+copyPath)
	res, err := gitx.Exec(ctx, cmd)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return "", res.Describe("stash", "create")
	}
	return res.Text(), nil
}
