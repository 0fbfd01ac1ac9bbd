package diff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strings"

	"github.com/corehq/core/internal/gitx"
)

// Stamp is a fingerprint of the change Read would return, for an ETag: the
// base's commit, HEAD, the index file's identity, and for each path git
// status lists (staged, unstaged or untracked) its size, mode and
// modification time. It changes whenever Read's answer can, and costs one
// git status instead of a diff. (A file rewritten within the same
// nanosecond with the same size would not change it; git's own index has
// the same blind spot.)
func Stamp(ctx context.Context, root, base string) (string, error) {
	b, err := resolve(ctx, root, base)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "base %s %s %s\n", b.Ref, b.Commit, b.Branch)
	if head, err := revParse(ctx, root, "HEAD"); err == nil {
		fmt.Fprintf(h, "head %s\n", head)
	}
	if idx, err := gitx.Run(ctx, root, "rev-parse", "--path-format=absolute", "--git-path", "index"); err == nil && idx.Exit == 0 {
		statInto(h, "index", idx.Text())
	}
	top, err := gitx.Run(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	st, err := gitx.Run(ctx, root, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--", ".")
	if err != nil {
		return "", err
	}
	if st.Exit != 0 {
		return "", st.Describe("status", "--porcelain=v2")
	}
	h.Write([]byte(st.Stdout))
	for _, p := range statusPaths(st.Stdout) {
		statInto(h, p, filepath.Join(top.Text(), filepath.FromSlash(p)))
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func statInto(h hash.Hash, name, path string) {
	if st, err := os.Lstat(path); err == nil {
		fmt.Fprintf(h, "%s\x00%d %o %d\n", name, st.Size(), st.Mode(), st.ModTime().UnixNano())
	} else {
		fmt.Fprintf(h, "%s\x00absent\n", name)
	}
}

// statusPaths returns the paths of `git status --porcelain=v2 -z` (each
// entry's path; a rename's original path follows as a token of its own
// and is skipped).
func statusPaths(out string) []string {
	var paths []string
	toks := strings.Split(out, "\x00")
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t == "" {
			continue
		}
		var fields int
		switch t[0] {
		case '1':
			fields = 9
		case '2':
			fields = 10
			i++ // the original path
		case 'u':
			fields = 11
		case '?', '!':
			fields = 2
		default:
			continue
		}
		parts := strings.SplitN(t, " ", fields)
		if len(parts) == fields {
			paths = append(paths, parts[fields-1])
		}
	}
	return paths
}
