package insight

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/gitx"
)

// historyVersion changes when History's encoding does; an older file is
// read again from git.
const historyVersion = 1

// History is the whole history of HEAD, read once and extended commit by
// commit: what every lens is computed from. Files are numbered; a rename
// moves a file's number to its new path, so a file's past follows it.
type History struct {
	Version int
	Tip     string   // the newest commit read
	Shallow bool     // the clone is shallow: the oldest commits are missing
	Paths   []string // file number -> its path now (or when it was last seen)
	Authors []string // author number -> name, as .mailmap maps it
	Commits []Commit // oldest first; merge commits are not read

	index   map[string]int32 // path -> file number, rebuilt on load
	authors map[string]int32
}

// Commit is one non-merge commit.
type Commit struct {
	Time   int64   // author time, Unix seconds
	Author int32   // into History.Authors
	Files  []int32 // into History.Paths
}

func newHistory() *History {
	return &History{Version: historyVersion, index: map[string]int32{}, authors: map[string]int32{}}
}

func (h *History) rebuild() {
	h.index = make(map[string]int32, len(h.Paths))
	for i, p := range h.Paths {
		h.index[p] = int32(i)
	}
	h.authors = make(map[string]int32, len(h.Authors))
	for i, a := range h.Authors {
		h.authors[a] = int32(i)
	}
}

func (h *History) file(path string) int32 {
	if id, ok := h.index[path]; ok {
		return id
	}
	id := int32(len(h.Paths))
	h.Paths = append(h.Paths, path)
	h.index[path] = id
	return id
}

// rename moves old's number to new: the file's past now belongs to new.
func (h *History) rename(old, new string) int32 {
	id, ok := h.index[old]
	if !ok {
		return h.file(new)
	}
	delete(h.index, old)
	h.index[new] = id
	h.Paths[id] = new
	return id
}

func (h *History) author(name string) int32 {
	if id, ok := h.authors[name]; ok {
		return id
	}
	id := int32(len(h.Authors))
	h.Authors = append(h.Authors, name)
	h.authors[name] = id
	return id
}

// logFormat starts each commit with a record separator and its fields
// separated by unit separators; -z ends the header and each numstat entry
// with a NUL (a rename's entry is "A\tD\t\0old\0new\0").
const logFormat = "--format=%x1e%H%x1f%at%x1f%aN"

// read adds the commits of rng (oldest first) to h, parsing git log as it
// prints. It returns the newest commit read ("" when none).
func (h *History) read(ctx context.Context, root, rng string) (string, error) {
	// --relative and the pathspec: a workspace in a subdirectory of its
	// repository sees its own commits, with paths relative to it.
	cmd := gitx.Command(ctx, root, "log", "--reverse", "--no-merges", "-z", "--numstat", "-M", "--relative", "--no-color", "--use-mailmap", logFormat, rng, "--", ".")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", gitx.ErrNotInstalled
		}
		return "", err
	}
	tip, perr := h.parse(out)
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return "", perr
	case ctx.Err() != nil:
		return "", ctx.Err()
	case werr != nil:
		return "", fmt.Errorf("git log: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return tip, nil
}

// parse reads git log's records from r.
func (h *History) parse(r io.Reader) (string, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	tip := ""
	// Skip to the first record.
	if _, err := br.ReadBytes(0x1e); err != nil {
		if err == io.EOF {
			return "", nil
		}
		return "", err
	}
	for {
		rec, err := br.ReadBytes(0x1e)
		if len(rec) > 0 && rec[len(rec)-1] == 0x1e {
			rec = rec[:len(rec)-1]
		}
		if len(rec) > 0 {
			hash, perr := h.record(rec)
			if perr != nil {
				return "", perr
			}
			tip = hash
		}
		if err == io.EOF {
			return tip, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// record adds one commit: "HASH\x1fTIME\x1fNAME\0" then numstat entries.
func (h *History) record(rec []byte) (string, error) {
	head, body, _ := bytes.Cut(rec, []byte{0})
	fields := bytes.Split(head, []byte{0x1f})
	if len(fields) != 3 {
		return "", fmt.Errorf("git log: a commit header does not parse: %q", truncate(head))
	}
	hash := string(fields[0])
	t, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return "", fmt.Errorf("git log: commit %s has no time", hash)
	}
	c := Commit{Time: t, Author: h.author(strings.ToValidUTF8(string(fields[2]), "\uFFFD"))}
	tokens := bytes.Split(body, []byte{0})
	for i := 0; i < len(tokens); i++ {
		tok := bytes.TrimLeft(tokens[i], "\n")
		if len(tok) == 0 {
			continue
		}
		// "ADDED\tDELETED\tPATH"; "-" for binary files; PATH empty for a
		// rename, whose old and new paths follow.
		parts := bytes.SplitN(tok, []byte{'\t'}, 3)
		if len(parts) != 3 {
			return "", fmt.Errorf("git log: commit %s: a numstat entry does not parse: %q", hash, truncate(tok))
		}
		var id int32
		if len(parts[2]) == 0 {
			if i+2 >= len(tokens) {
				return "", fmt.Errorf("git log: commit %s: a rename lacks its paths", hash)
			}
			id = h.rename(string(tokens[i+1]), string(tokens[i+2]))
			i += 2
		} else {
			id = h.file(string(parts[2]))
		}
		c.Files = append(c.Files, id)
	}
	h.Commits = append(h.Commits, c)
	return hash, nil
}

func truncate(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// loadHistory reads the kept history; a missing, damaged or older one is
// nil (it is read again from git).
func loadHistory(path string) *History {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := &History{}
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(h); err != nil || h.Version != historyVersion {
		return nil
	}
	h.rebuild()
	return h
}

// save keeps the history, atomically.
func (h *History) save(path string) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(h); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, buf.Bytes(), 0o600)
}
