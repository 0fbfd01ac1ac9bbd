package diff

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/corehq/core/internal/gitx"
)

// WritePatch streams the change Read describes to w as one unified patch,
// as git prints it: untracked files as new files (after the tracked ones,
// in path order, written by core itself as git would write them when
// nothing makes git's rendering differ), binary files as "Binary
// files ... differ". A file over TruncateAt is left out, and a line before
// the patch says so (git apply reads such lines as commentary). Nothing is
// held whole in memory; an error before the first byte is written leaves w
// untouched.
func WritePatch(ctx context.Context, w io.Writer, root, base string) error {
	return writePatch(ctx, w, root, base, nil, nil)
}

// WritePatchOf is WritePatch of the files only keeps (all when nil): git
// lists the change, and diffs again the files the filter keeps, named
// literally, so that the filter alone decides (its rule, not git's
// pathspec magic).
func WritePatchOf(ctx context.Context, w io.Writer, root, base string, only *PathFilter) error {
	return writePatch(ctx, w, root, base, nil, only)
}

// WritePatchStamped is WritePatch that calls head, before the first byte,
// with the stamp of the change it writes (Stamp's value, from the same
// read; "" when a file moved while it was read): an HTTP handler sets its
// ETag there.
func WritePatchStamped(ctx context.Context, w io.Writer, root, base string, head func(stamp string)) error {
	return writePatch(ctx, w, root, base, head, nil)
}

func writePatch(ctx context.Context, w io.Writer, root, base string, head func(stamp string), only *PathFilter) error {
	started := time.Now()
	// Once the base is resolved, the untracked files are found (the last
	// listing reused while nothing changed: untrackedOthers) while git
	// diffs the tracked ones; their part of the patch follows. Core writes
	// it itself (newFileWriter) when nothing would make git's rendering
	// differ, else git diffs them (into a file beside their private index).
	b, err := resolveFor(ctx, root, base, false)
	if err != nil {
		return err
	}
	var u *untracked
	var uerr, perr error // finding them; preparing their patch
	var render *newFileWriter
	var upatch string
	found := make(chan struct{})
	diffed := make(chan struct{})
	go func() {
		defer close(diffed)
		var cfg diffConfig
		var others string
		if cfg, uerr = readDiffConfig(ctx, root); uerr == nil {
			if others, uerr = untrackedOthers(ctx, root, b, cfg); uerr == nil {
				u = untrackedFrom(root, others)
				u.keep(only)
			}
		}
		close(found)
		if uerr != nil || len(u.list) == 0 {
			return
		}
		render, perr = planNewFiles(ctx, u, b, cfg)
		if perr == nil && render == nil {
			upatch, perr = u.patchToFile(ctx, b.empty)
		}
	}()
	defer func() {
		<-diffed
		if u != nil {
			u.close()
		}
		if render != nil {
			render.names.close()
		}
	}()

	// writeNew writes the untracked files' part, after the tracked
	// files (which decide whether git renders it).
	writeNew := func(files []File) error {
		<-diffed
		if perr != nil {
			return perr
		}
		if render != nil && touchesAttributes(files) {
			// A .gitattributes the working tree lacks may still apply
			// from the index: git renders them. (One in the index alone,
			// in neither the working tree nor the base, shows in no
			// change and is not seen: git add, then rm, of a
			// .gitattributes that converts.)
			render.names.close()
			render = nil
			var err error
			if upatch, err = u.patchToFile(ctx, b.empty); err != nil {
				return err
			}
		}
		if render != nil {
			return render.writeAll(w, u.list)
		}
		if upatch == "" {
			return nil
		}
		f, err := os.Open(upatch)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}

	// git's raw records come first and name the files exactly (-z); the
	// patch follows. A large file found among them means a second run
	// that leaves it out: git would otherwise print it whole whenever
	// rename detection had read it.
	var large []File
	var literal []string // with a filter: the tracked files it keeps, as pathspecs
	for attempt := 0; ; attempt++ {
		if only != nil && attempt > 0 && len(literal) == 0 {
			// The filter keeps no tracked file: no second git diff (no
			// pathspec would mean every file).
			<-found
			if uerr != nil {
				return uerr
			}
			if err := writeNotes(w, u.large, b.Commit); err != nil {
				return err
			}
			return writeNew(nil)
		}
		cmd := trackedDiff(ctx, root, b.tree, "-z", "--raw", "--patch")
		for _, f := range large {
			cmd.Args = append(cmd.Args, ":(exclude,literal)"+f.Path)
		}
		cmd.Args = append(cmd.Args, literal...)
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
		stats := lstatFiles(root, files)
		if rerr == nil && attempt == 0 {
			more := largeFiles(root, files, stats)
			narrowed := false
			if only != nil {
				kept := slices.DeleteFunc(slices.Clone(files), func(f File) bool { return !only.MatchFile(f) })
				more = slices.DeleteFunc(more, func(f File) bool { return !only.MatchFile(f) })
				narrowed = len(kept) < len(files)
				for _, f := range kept {
					literal = append(literal, ":(literal)"+f.Path)
					if f.OldPath != "" {
						literal = append(literal, ":(literal)"+f.OldPath)
					}
				}
			}
			if len(more) > 0 || narrowed {
				large = more
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				continue
			}
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
			head(b.stampReadWith(root, paths, started, stats.lstat))
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
		return writeNew(files)
	}
}

// touchesAttributes reports whether the change names a .gitattributes.
func touchesAttributes(files []File) bool {
	for _, f := range files {
		if path.Base(f.Path) == ".gitattributes" || (f.OldPath != "" && path.Base(f.OldPath) == ".gitattributes") {
			return true
		}
	}
	return false
}

// planNewFiles returns the writer of the untracked files' patch when core
// can write it exactly as git would, else nil: git then renders it.
func planNewFiles(ctx context.Context, u *untracked, b resolved, cfg diffConfig) (*newFileWriter, error) {
	if b.format != "sha1" || cfg.autocrlf || cfg.orderFile || cfg.unknown {
		return nil, nil
	}
	// Above root, a .gitattributes only in the index is out of the
	// change's sight: git says which attributes apply.
	if b.prefix != "" || attributeFiles(b, cfg, u.root, u.list) {
		set, err := anyAttribute(ctx, u.root, u.list)
		if err != nil || set {
			return nil, err
		}
	}
	names, err := newAbbreviator(b.objects, cfg.abbrev)
	if errors.Is(err, errNotPlain) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	zero, err := names.abbrev(make([]byte, sha1.Size))
	if err != nil {
		names.close()
		return nil, err
	}
	return &newFileWriter{root: u.root, fileMode: cfg.fileMode, names: names, zero: zero}, nil
}

// patchToFile indexes the untracked files privately and writes git's
// patch of them to a file in the private index's directory; it returns
// its path ("" when there are none).
func (u *untracked) patchToFile(ctx context.Context, empty string) (string, error) {
	if err := u.indexPrivately(ctx); err != nil {
		return "", err
	}
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

// fileStats holds one lstat of each changed file, taken once after git's
// raw records: for the large-file check and the stamp alike.
type fileStats map[string]fileStat

type fileStat struct {
	info os.FileInfo
	err  error
}

// lstatFiles lstats the files a change names (not the deleted), keyed by
// their full path.
func lstatFiles(root string, files []File) fileStats {
	stats := make(fileStats, len(files))
	for _, f := range files {
		if f.Kind != KindDeleted && f.Kind != KindSubmodule {
			p := filepath.Join(root, filepath.FromSlash(f.Path))
			info, err := os.Lstat(p)
			stats[p] = fileStat{info, err}
		}
	}
	return stats
}

// lstat is os.Lstat answered from the stats taken, when they hold p.
func (s fileStats) lstat(p string) (os.FileInfo, error) {
	if st, ok := s[p]; ok {
		return st.info, st.err
	}
	return os.Lstat(p)
}

// largeFiles are the files of the change over TruncateAt.
func largeFiles(root string, files []File, stats fileStats) []File {
	var large []File
	for _, f := range files {
		if f.Kind == KindDeleted || f.Kind == KindSubmodule {
			continue
		}
		st, err := stats.lstat(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err == nil && st.Mode().IsRegular() && st.Size() > TruncateAt {
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
