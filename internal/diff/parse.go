package diff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The output of `git diff -z --raw --numstat -p -U0` is three parts in one
// stream: a raw record per file (":oldmode newmode oldblob newblob status"
// then its path, or old and new paths for a rename, each NUL-terminated),
// a numstat record per file in the same order ("added\tdeleted\tpath", or
// "added\tdeleted\t" then the two paths of a rename; "-\t-" for binary),
// one more NUL, and the patch, whose sections follow the same order. Path
// names come only from the raw part, where they are exact; the patch's
// quoted names are never parsed.

// maxPatchLine bounds the part of a patch line the parser looks at; the
// rest of a longer line (minified code) is skipped, not buffered.
const maxPatchLine = 64 << 10

// parseDiff reads the stream described above into files.
func parseDiff(r io.Reader) ([]File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	files, err := readRaw(br)
	if err != nil {
		return nil, err
	}
	// Numstat records, one per file.
	for i := range files {
		tok, err := readToken(br)
		if err != nil {
			return nil, fmt.Errorf("git diff: numstat record %d: %w", i+1, err)
		}
		added, rest, ok1 := strings.Cut(tok, "\t")
		deleted, path, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("git diff: numstat record %q does not parse", tok)
		}
		if path == "" {
			// A rename: the two paths follow as tokens of their own.
			for range 2 {
				if _, err := readToken(br); err != nil {
					return nil, fmt.Errorf("git diff: numstat rename: %w", err)
				}
			}
		}
		if added == "-" && deleted == "-" {
			files[i].Binary = true
			continue
		}
		a, err1 := strconv.Atoi(added)
		d, err2 := strconv.Atoi(deleted)
		if err1 != nil || err2 != nil || a < 0 || d < 0 {
			return nil, fmt.Errorf("git diff: numstat counts %q do not parse", tok)
		}
		files[i].Added, files[i].Deleted = a, d
	}
	// The separator, then the patch.
	if len(files) > 0 {
		if tok, err := readToken(br); err != nil || tok != "" {
			return nil, fmt.Errorf("git diff: expected the patch after the numstat records")
		}
	}
	if err := parseHunks(br, files); err != nil {
		return nil, err
	}
	for i := range files {
		f := &files[i]
		// The raw record does not hash working-tree content, so a change
		// of mode alone shows as a modification with no line changed.
		if f.Kind == KindModified && f.OldMode != f.NewMode && f.Added == 0 && f.Deleted == 0 && len(f.Hunks) == 0 && !f.Binary {
			f.Kind = KindMode
		}
	}
	return files, nil
}

// readRaw reads the raw records at the head of git's output (-z), and the
// NUL that follows them when a patch does (with --numstat, the numstat
// records follow instead), leaving br at what comes next. A copy (git's C
// status, from --find-copies only) is shown as an added file.
func readRaw(br *bufio.Reader) ([]File, error) {
	var files []File
	for {
		if first, err := br.Peek(1); err != nil || first[0] != ':' {
			break
		}
		tok, err := readToken(br)
		if err != nil {
			return nil, err
		}
		f, err := parseRaw(tok)
		if err != nil {
			return nil, err
		}
		if f.Path, err = readPath(br); err != nil {
			return nil, err
		}
		if f.Kind == KindRenamed || f.Kind == kindCopied {
			f.OldPath = f.Path
			if f.Path, err = readPath(br); err != nil {
				return nil, err
			}
			if f.Kind == kindCopied {
				f.Kind, f.OldPath = KindAdded, ""
			}
		}
		files = append(files, f)
	}
	if b, err := br.Peek(1); err == nil && b[0] == 0 {
		_, _ = br.ReadByte()
	}
	return files, nil
}

// kindCopied is git's C status, which only --find-copies produces; a copy
// is shown as an added file.
const kindCopied = "copied"

// parseRaw reads ":oldmode newmode oldblob newblob status".
func parseRaw(tok string) (File, error) {
	fields := strings.Fields(strings.TrimPrefix(tok, ":"))
	if len(fields) != 5 || fields[4] == "" {
		return File{}, fmt.Errorf("git diff: raw record %q does not parse", tok)
	}
	oldMode, newMode, status := fields[0], fields[1], fields[4]
	f := File{}
	switch status[0] {
	case 'A':
		f.Kind, f.NewMode = KindAdded, newMode
	case 'D':
		f.Kind, f.OldMode = KindDeleted, oldMode
	case 'R':
		f.Kind = KindRenamed
	case 'C':
		f.Kind = kindCopied
	case 'T':
		f.Kind = KindType
	case 'M', 'U', 'X':
		f.Kind = KindModified
	default:
		return File{}, fmt.Errorf("git diff: raw status %q is unknown", status)
	}
	if oldMode != newMode && f.Kind != KindAdded && f.Kind != KindDeleted {
		f.OldMode, f.NewMode = oldMode, newMode
	}
	if oldMode == gitlinkMode || newMode == gitlinkMode {
		f.Kind = KindSubmodule
	}
	return f, nil
}

// gitlinkMode is a submodule's mode.
const gitlinkMode = "160000"

// readToken reads up to the next NUL and returns what came before it.
func readToken(br *bufio.Reader) (string, error) {
	b, err := br.ReadBytes(0)
	if err != nil {
		if err == io.EOF && len(b) > 0 {
			return "", fmt.Errorf("git diff: output ends inside a record")
		}
		return "", err
	}
	return string(b[:len(b)-1]), nil
}

func readPath(br *bufio.Reader) (string, error) {
	p, err := readToken(br)
	if err != nil {
		return "", fmt.Errorf("git diff: a raw record without its path: %w", err)
	}
	if p == "" {
		return "", errors.New("git diff: a raw record with an empty path")
	}
	return p, nil
}

// parseHunks reads the patch part and gives each file its hunks: the n-th
// "diff --git" section is the n-th file.
func parseHunks(br *bufio.Reader, files []File) error {
	i := -1
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			switch {
			case bytes.HasPrefix(line, []byte("diff --git ")):
				i++
				if i >= len(files) {
					return fmt.Errorf("git diff: the patch has more sections than files (%d)", len(files))
				}
			case bytes.HasPrefix(line, []byte("@@ ")) && i >= 0:
				h, ok := parseHunkHeader(line)
				if !ok {
					return fmt.Errorf("git diff: hunk header %q does not parse", quoteBytes(line))
				}
				files[i].Hunks = append(files[i].Hunks, h)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its newline, cut at
// maxPatchLine (the rest is skipped).
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		head := append([]byte(nil), line[:min(len(line), maxPatchLine)]...)
		for err == bufio.ErrBufferFull {
			_, err = br.ReadSlice('\n')
		}
		return head, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), err
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ ...".
func parseHunkHeader(line []byte) (Hunk, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("@@ -"))
	if !ok {
		return Hunk{}, false
	}
	old, rest, ok := bytes.Cut(rest, []byte(" +"))
	if !ok {
		return Hunk{}, false
	}
	nw, _, ok := bytes.Cut(rest, []byte(" @@"))
	if !ok {
		return Hunk{}, false
	}
	var h Hunk
	var ok1, ok2 bool
	h.OldStart, h.OldLines, ok1 = parseRange(old)
	h.NewStart, h.NewLines, ok2 = parseRange(nw)
	return h, ok1 && ok2
}

// parseRange reads "start[,count]"; a missing count is 1.
func parseRange(b []byte) (start, count int, ok bool) {
	s, c, hasCount := bytes.Cut(b, []byte(","))
	start, err := strconv.Atoi(string(s))
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(string(c)); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

func quoteBytes(b []byte) string {
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}
