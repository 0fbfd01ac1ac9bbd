package index

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corehq/core/internal/fsx"
)

// cacheVersion changes whenever FileRecord or a parser changes what it
// records, so that an old cache is re-parsed rather than misread.
const cacheVersion = 4

// The cache lives in <cache>/index: files.gob holds every record without
// its symbols; <project>@symbols.gob holds the symbols and references of
// that project's files (the @symbols shards).
const (
	cacheSubdir   = "index"
	filesName     = "files.gob"
	shardSuffix   = "@symbols.gob"
	noProjectName = "_workspace" // files outside every project; not a valid project name
)

type filesDoc struct {
	Version int
	Root    string
	Files   []FileRecord
}

// shardEntry is one file's part of a shard.
type shardEntry struct {
	Symbols []Symbol
	Refs    []Ref
}

type shardDoc struct {
	Version int
	Files   map[string]shardEntry
}

type store struct {
	dir string
}

func (s store) filesPath() string { return filepath.Join(s.dir, filesName) }

func (s store) shardPath(project string) string {
	if project == "" {
		project = noProjectName
	}
	return filepath.Join(s.dir, project+shardSuffix)
}

func (s store) ensure() error { return os.MkdirAll(s.dir, 0o700) }

// loadFiles reads the records of a previous index of root; a missing,
// stale or unreadable cache is simply empty.
func (s store) loadFiles(root string) map[string]*FileRecord {
	data, err := os.ReadFile(s.filesPath())
	if err != nil {
		return nil
	}
	var doc filesDoc
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || doc.Version != cacheVersion || doc.Root != root {
		return nil
	}
	out := make(map[string]*FileRecord, len(doc.Files))
	for i := range doc.Files {
		out[doc.Files[i].Path] = &doc.Files[i]
	}
	return out
}

func (s store) saveFiles(root string, files map[string]*FileRecord) error {
	doc := filesDoc{Version: cacheVersion, Root: root, Files: make([]FileRecord, 0, len(files))}
	for _, p := range sortedPaths(files) {
		rec := *files[p]
		rec.Symbols, rec.Refs = nil, nil
		doc.Files = append(doc.Files, rec)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&doc); err != nil {
		return fmt.Errorf("encode index cache: %w", err)
	}
	return fsx.WriteFileAtomic(s.filesPath(), buf.Bytes(), 0o600)
}

func (s store) loadShard(project string) (map[string]shardEntry, error) {
	data, err := os.ReadFile(s.shardPath(project))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]shardEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc shardDoc
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || doc.Version != cacheVersion {
		return nil, fmt.Errorf("symbol shard %s is unreadable; the next sync-graph rebuilds it", s.shardPath(project))
	}
	if doc.Files == nil {
		doc.Files = map[string]shardEntry{}
	}
	return doc.Files, nil
}

func (s store) saveShard(project string, entries map[string]shardEntry) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&shardDoc{Version: cacheVersion, Files: entries}); err != nil {
		return fmt.Errorf("encode symbol shard: %w", err)
	}
	return fsx.WriteFileAtomic(s.shardPath(project), buf.Bytes(), 0o600)
}

// shardProjects lists the projects that have a shard on disk.
func (s store) shardProjects() []string {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), shardSuffix); ok {
			if name == noProjectName {
				name = ""
			}
			out = append(out, name)
		}
	}
	return out
}

func (s store) removeShard(project string) {
	_ = os.Remove(s.shardPath(project))
}
