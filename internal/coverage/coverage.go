// Package coverage reads the coverage files a target declares in
// targets.yaml (`coverage:`): a Go cover profile (`go test
// -coverprofile`) or an lcov tracefile. It answers, per file of the
// workspace and per line, whether the line ran.
//
// Rules, so the review's "uncovered" means the same for every language:
//   - Go profiles count blocks (a range of line.column positions). A line
//     is uncovered when any block touching it never ran, covered when
//     every block touching it ran; a line no block touches is unknown
//     (comments, declarations, blank lines). A line a block ran only part
//     of is therefore uncovered: the reviewer sees the branch not taken.
//   - Go profiles name files by import path; they are mapped to the
//     workspace through the module path of the go.mod that the caller
//     locates (Module).
//   - lcov's DA records are per line: a count of 0 is uncovered, more is
//     covered. SF paths may be absolute (they must be inside the
//     workspace) or relative to the project or the workspace root.
//
// Both readers are bounded: a file over MaxFileSize or a line over
// MaxLineSize is refused with an error that says so.
package coverage

import (
	"github.com/corehq/core/internal/fsx"

	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Bounds on what is decoded.
const (
	MaxFileSize = 64 << 20
	MaxLineSize = 64 << 10
	// maxBlockLines bounds one Go block, so a crafted record cannot make
	// millions of entries.
	maxBlockLines = 100_000
)

// Lines maps a workspace path (slash-separated, relative to the root) to
// its lines' states: true ran, false did not; an absent line is unknown.
type Lines map[string]map[int]bool

// mark records a line's state under the rule that a line is covered only
// when everything on it ran.
func (l Lines) mark(file string, line int, ran bool) {
	m := l[file]
	if m == nil {
		m = map[int]bool{}
		l[file] = m
	}
	if prev, seen := m[line]; seen && !prev {
		return
	}
	m[line] = ran
}

// Merge adds other's lines to l, under the same rule.
func (l Lines) Merge(other Lines) {
	for f, lines := range other {
		for n, ran := range lines {
			l.mark(f, n, ran)
		}
	}
}

// Module is a Go module inside the workspace: its path (from go.mod) and
// its directory relative to the workspace root ("." for the root).
type Module struct {
	Path string
	Dir  string
}

// Source says where a coverage file sits: the workspace root, the
// directory of the project that declares it (relative to the root), and
// the Go module of that project, if any.
type Source struct {
	Root       string
	ProjectDir string
	Module     Module
}

// ErrUnknownFormat says a file is neither a Go cover profile nor lcov.
var ErrUnknownFormat = errors.New("not a Go cover profile (first line \"mode: ...\") nor an lcov tracefile (SF:/DA: records)")

// ReadFile reads the coverage file at path (absolute), choosing the
// format from its first line.
func ReadFile(file string, src Source) (Lines, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s is %d MB, over the %d MB a coverage file may be", filepath.Base(file), st.Size()>>20, MaxFileSize>>20)
	}
	return Read(io.LimitReader(f, MaxFileSize+1), src)
}

// Read reads a Go cover profile or an lcov tracefile.
func Read(r io.Reader, src Source) (Lines, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineSize)
	var first string
	for sc.Scan() {
		if first = strings.TrimSpace(sc.Text()); first != "" {
			break
		}
	}
	if err := scanErr(sc.Err()); err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(first, "mode:"):
		return readGo(sc, src)
	case strings.HasPrefix(first, "TN:"), strings.HasPrefix(first, "SF:"):
		return readLcov(sc, first, src)
	case first == "":
		return Lines{}, nil
	}
	return nil, ErrUnknownFormat
}

func scanErr(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("a line is longer than %d KB: this is not a coverage file core reads", MaxLineSize>>10)
	}
	return err
}

// readGo reads the records after "mode:": "importpath/file.go:l1.c1,l2.c2 stmts count".
func readGo(sc *bufio.Scanner, src Source) (Lines, error) {
	out := Lines{}
	n := 1
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		file, start, end, count, ok := goRecord(string(line))
		if !ok {
			return nil, fmt.Errorf("line %d is not a Go cover profile record (file.go:l1.c1,l2.c2 statements count)", n)
		}
		if end-start > maxBlockLines {
			return nil, fmt.Errorf("line %d: a block of %d lines; no Go source has one", n, end-start+1)
		}
		ws, ok := src.goFile(file)
		if !ok {
			continue // a file of another module: not ours to show
		}
		for l := start; l <= end; l++ {
			out.mark(ws, l, count > 0)
		}
	}
	return out, scanErr(sc.Err())
}

func goRecord(s string) (file string, start, end int, count int64, ok bool) {
	colon := strings.LastIndexByte(s, ':')
	if colon <= 0 {
		return
	}
	file, rest := s[:colon], s[colon+1:]
	fields := strings.Fields(rest)
	if len(fields) != 3 {
		return
	}
	from, to, ok1 := strings.Cut(fields[0], ",")
	if !ok1 {
		return
	}
	var err error
	if start, err = lineOf(from); err != nil {
		return
	}
	if end, err = lineOf(to); err != nil || end < start {
		return
	}
	if _, err = strconv.Atoi(fields[1]); err != nil {
		return
	}
	if count, err = strconv.ParseInt(fields[2], 10, 64); err != nil || count < 0 {
		return
	}
	return file, start, end, count, true
}

func lineOf(pos string) (int, error) {
	l, _, _ := strings.Cut(pos, ".")
	n, err := strconv.Atoi(l)
	if err == nil && n < 1 {
		err = errors.New("line before 1")
	}
	return n, err
}

// goFile maps an import-path file name to the workspace path.
func (s Source) goFile(file string) (string, bool) {
	if s.Module.Path == "" {
		return "", false
	}
	rel, ok := strings.CutPrefix(file, s.Module.Path+"/")
	if !ok {
		return "", false
	}
	return clean(path.Join(s.Module.Dir, rel))
}

// readLcov reads SF/DA/end_of_record records; other records are skipped.
func readLcov(sc *bufio.Scanner, first string, src Source) (Lines, error) {
	out := Lines{}
	file, fileOK := "", false
	handle := func(line string, n int) error {
		switch {
		case strings.HasPrefix(line, "SF:"):
			file, fileOK = src.lcovFile(strings.TrimPrefix(line, "SF:"))
		case strings.HasPrefix(line, "DA:"):
			fields := strings.Split(strings.TrimPrefix(line, "DA:"), ",")
			if len(fields) < 2 {
				return fmt.Errorf("line %d: a DA record is DA:line,count", n)
			}
			l, err1 := strconv.Atoi(fields[0])
			c, err2 := strconv.ParseFloat(fields[1], 64) // some tools write counts as floats
			if err1 != nil || err2 != nil || l < 1 || c < 0 {
				return fmt.Errorf("line %d: a DA record is DA:line,count with a line from 1 and a count from 0", n)
			}
			if fileOK {
				out.mark(file, l, c > 0)
			}
		case line == "end_of_record":
			file, fileOK = "", false
		}
		return nil
	}
	if err := handle(first, 1); err != nil {
		return nil, err
	}
	n := 1
	for sc.Scan() {
		n++
		if err := handle(strings.TrimSpace(sc.Text()), n); err != nil {
			return nil, err
		}
	}
	return out, scanErr(sc.Err())
}

// lcovFile maps an SF path to the workspace path: absolute paths must be
// inside the root; relative ones are tried against the project, then the
// root.
func (s Source) lcovFile(sf string) (string, bool) {
	sf = filepath.ToSlash(strings.TrimSpace(sf))
	if path.IsAbs(sf) {
		rel, err := filepath.Rel(s.Root, filepath.FromSlash(sf))
		if err != nil {
			return "", false
		}
		return clean(filepath.ToSlash(rel))
	}
	if s.ProjectDir != "" && s.ProjectDir != "." {
		if p, ok := clean(path.Join(s.ProjectDir, sf)); ok {
			if _, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(p))); err == nil {
				return p, true
			}
		}
	}
	return clean(sf)
}

// clean keeps a path only when it stays inside the workspace.
func clean(p string) (string, bool) {
	p = path.Clean(p)
	if p == "." || !fsx.Local(p) {
		return "", false
	}
	return p, true
}
