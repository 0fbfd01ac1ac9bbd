package diff

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corehq/core/internal/gitx"
)

// WritePatch streams the change Read describes to w as one unified patch,
// as git prints it: untracked files as new files, binary files as "Binary
// files ... differ". A file over TruncateAt is left out, and a line before
// the patch says so (git apply reads such lines as commentary). Nothing is
// held whole in memory; an error before the first byte is written leaves w
// untouched.
func WritePatch(ctx context.Context, w io.Writer, root, base string) error {
	return WritePatchStamped(ctx, w, root, base, nil)
}

// WritePatchStamped is WritePatch that calls head, before the first byte,
// with the stamp of the change it writes (Stamp's value, from the same
// read; "" when a file moved while it was read): an HTTP handler sets its
// ETag there.
func WritePatchStamped(ctx context.Context, w io.Writer, root, base string, head func(stamp string)) error {
	started := time.Now()
	// The untracked files are found, indexed and diffed (into a file
	// beside their private index) while the base is resolved and git diffs
	// the tracked ones; their part of the patch follows.
	var u *untracked
	var uerr, perr error // finding them; diffing them
	var upatch string
	found := make(chan struct{})
	diffed := make(chan struct{})
	resolvedBase := make(chan resolved, 1)
	go func() {
		defer close(diffed)
		u, uerr = findUntracked(ctx, root)
		close(found)
		b, ok := <-resolvedBase
		if uerr == nil && ok {
			upatch, perr = u.patchToFile(ctx, b.empty)
		}
	}()
	b, err := resolveFor(ctx, root, base, false)
	if err != nil {
		close(resolvedBase)
		<-diffed
		if u != nil {
			u.close()
		}
		return err
	}
	resolvedBase <- b
	close(resolvedBase)
	defer func() {
		<-diffed
		if u != nil {
			u.close()
		}
	}()

	// git's raw records come first and name the files exactly (-z); the
	// patch follows. A large file found among them means a second run
	// that leaves it out: git would otherwise print it whole whenever
	// rename detection had read it.
	var large []File
	for attempt := 0; ; attempt++ {
		cmd := trackedDiff(ctx, root, b.tree, "-z", "--raw", "--patch")
		for _, f := range large {
			cmd.Args = append(cmd.Args, ":(exclude,literal)"+f.Path)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return gitStartError(err)
		}
		br := bufio.NewReaderSize(out, 64<<10)
		files, rerr := readRaw(br)
		if more := largeFiles(root, files); rerr == nil && attempt == 0 && len(more) > 0 {
			large = more
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			continue
		}
		<-found
		werr := errors.Join(rerr, uerr)
		if werr == nil && head != nil {
			paths := make([]string, 0, len(files)+len(large)+len(u.paths))
			for _, f := range append(files, large...) {
				paths = append(paths, f.Path)
			}
			for p := range u.paths {
				paths = append(paths, p)
			}
			head(b.stampRead(root, paths, started))
		}
		if werr == nil {
			werr = writeNotes(w, append(large, u.large...), b.Commit)
		}
		if werr == nil {
			_, werr = br.WriteTo(w)
		}
		if werr != nil {
			_ = cmd.Process.Kill()
		}
		if err := cmd.Wait(); err != nil && werr == nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return gitx.Result{Stderr: strings.TrimSpace(stderr.String()), Exit: cmd.ProcessState.ExitCode()}.Describe("diff", b.tree)
		}
		if werr != nil {
			return werr
		}
		<-diffed
		if perr != nil || upatch == "" {
			return perr
		}
		f, err := os.Open(upatch)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
}

// patchToFile writes the untracked files' patch to a file in the private
// index's directory and returns its path ("" when there are none).
func (u *untracked) patchToFile(ctx context.Context, empty string) (string, error) {
	cmd := u.diff(ctx, empty, "--patch")
	if cmd == nil {
		return "", nil
	}
	name := filepath.Join(u.dir, "untracked.patch")
	f, err := os.Create(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cmd.Stdout = f
	res, err := gitx.Exec(ctx, cmd)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return "", res.Describe("diff", "(untracked files)")
	}
	return name, f.Close()
}

func largeFiles(root string, files []File) []File {
	var large []File
	for _, f := range files {
		if tooLarge(root, f) {
			large = append(large, f)
		}
	}
	return large
}

// writeNotes writes the commentary line of each file left out.
func writeNotes(w io.Writer, large []File, commit string) error {
	against := "HEAD"
	if commit != "" {
		against = commit[:min(len(commit), 12)]
	}
	for _, f := range large {
		if _, err := fmt.Fprintf(w, "core: %s is over the %d MB limit: its change is left out of this patch (git diff %s -- <path> shows it)\n",
			strings.ReplaceAll(f.Path, "\n", `\n`), TruncateAt>>20, against); err != nil {
			return err
		}
	}
	return nil
}
