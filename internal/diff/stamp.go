package diff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
	stamp, _, err := stampOf(ctx, root, base)
	return stamp, err
}

// stampOf is Stamp with the base it resolved. The index's path and the
// repository's top, and git status, are asked for at once.
func stampOf(ctx context.Context, root, base string) (string, resolved, error) {
	b, err := resolve(ctx, root, base)
	if err != nil {
		return "", resolved{}, err
	}
	var paths, st gitx.Result
	var errPaths, errSt error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		paths, errPaths = gitx.Run(ctx, root, "rev-parse", "--path-format=absolute", "--git-path", "index", "--show-toplevel")
	}()
	go func() {
		defer wg.Done()
		st, errSt = gitx.Run(ctx, root, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--", ".")
	}()
	wg.Wait()
	if err := errors.Join(errPaths, errSt); err != nil {
		return "", resolved{}, err
	}
	if st.Exit != 0 {
		return "", resolved{}, st.Describe("status", "--porcelain=v2")
	}
	lines := strings.Split(paths.Text(), "\n")
	if paths.Exit != 0 || len(lines) != 2 {
		return "", resolved{}, paths.Describe("rev-parse", "--git-path", "index", "--show-toplevel")
	}
	h := sha256.New()
	fmt.Fprintf(h, "base %s %s %s head %s\n", b.Ref, b.Commit, b.Branch, b.head)
	statInto(h, "index", lines[0])
	h.Write([]byte(st.Stdout))
	for _, p := range statusPaths(st.Stdout) {
		statInto(h, p, filepath.Join(lines[1], filepath.FromSlash(p)))
	}
	return hex.EncodeToString(h.Sum(nil))[:32], b, nil
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
