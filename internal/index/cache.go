package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/index/parse"
)

// cacheVersion changes whenever FileRecord, a parser or the file format
// changes, so that an old cache is re-parsed rather than misread.
const cacheVersion = 9 // 9: a JS import's As, namespace members and export *; a tsconfig's BaseURL

// The cache lives in <cache>/index: files.bin holds every record without
// its symbols; <project>@symbols.bin holds the symbols and references of
// that project's files (the @symbols shards). codec.go has the format.
const (
	filesName     = "files.bin"
	shardSuffix   = "@symbols.bin"
	noProjectName = "_workspace" // files outside every project; not a valid project name
)

// shardEntry is one file's part of a shard.
type shardEntry struct {
	Symbols []parse.Symbol
	Refs    []parse.Ref
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
func (s store) loadFiles(root string) map[string]*parse.FileRecord {
	data, err := os.ReadFile(s.filesPath())
	if err != nil {
		return nil
	}
	recs, err := decodeFiles(data, root)
	if err != nil {
		return nil
	}
	out := make(map[string]*parse.FileRecord, len(recs))
	for i := range recs {
		out[recs[i].Path] = &recs[i]
	}
	return out
}

func (s store) saveFiles(root string, files map[string]*parse.FileRecord) error {
	return fsx.WriteFileAtomic(s.filesPath(), encodeFiles(root, files), 0o600)
}

func (s store) loadShard(project string) (map[string]shardEntry, error) {
	data, err := os.ReadFile(s.shardPath(project))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]shardEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := decodeShard(data)
	if err != nil {
		return nil, fmt.Errorf("symbol shard %s is unreadable; the next sync-graph rebuilds it", s.shardPath(project))
	}
	return entries, nil
}

func (s store) saveShard(project string, entries map[string]shardEntry) error {
	return fsx.WriteFileAtomic(s.shardPath(project), encodeShard(entries), 0o600)
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

// removeLegacy deletes the gob files of core versions before the binary
// cache format, which nothing reads any more.
func (s store) removeLegacy() {
	old, _ := filepath.Glob(filepath.Join(s.dir, "*.gob"))
	for _, p := range old {
		_ = os.Remove(p)
	}
}

func (s store) removeShard(project string) {
	_ = os.Remove(s.shardPath(project))
}

const (
	filesMagic = "CIF1"
	shardMagic = "CIS1"
)

// encodeFiles writes the records without their symbols, in path order.
func encodeFiles(root string, files map[string]*parse.FileRecord) []byte {
	e := newEncoder(64 * len(files))
	e.str(root)
	e.uint(uint64(len(files)))
	imports := 0
	for _, r := range files {
		imports += len(r.Imports)
	}
	e.uint(uint64(imports))
	for _, p := range sortedPaths(files) {
		r := files[p]
		e.str(r.Path)
		e.int(r.Size)
		e.int(r.ModTime)
		e.str(r.Lang)
		e.str(r.Package)
		e.str(r.Default)
		e.uint(uint64(len(r.Imports)))
		for _, im := range r.Imports {
			e.str(im.Path)
			e.str(im.Alias)
			e.strList(im.Names)
			e.strList(im.As)
			e.int(int64(im.Line))
		}
		e.str(r.Title)
		e.strList(r.Links)
		e.strList(r.Mentions)
		e.str(r.Module)
		e.str(r.Entry)
		e.strList(r.Maps)
		e.str(r.Extends)
		e.str(r.BaseURL)
		e.str(r.Diag)
	}
	return e.bytes(filesMagic, cacheVersion)
}

// decodeFiles reads what encodeFiles wrote for the same root.
func decodeFiles(data []byte, root string) ([]parse.FileRecord, error) {
	d, err := newDecoder(data, filesMagic, cacheVersion)
	if err != nil {
		return nil, err
	}
	if d.str() != root {
		return nil, errors.New("index cache of another workspace")
	}
	// The least each takes: a record 15 bytes (a varint per field), an
	// import 4.
	recs := make([]parse.FileRecord, d.countOf(15))
	imports := make([]parse.Import, d.countOf(4))
	for i := range recs {
		r := &recs[i]
		r.Path = d.str()
		r.Size = d.int()
		r.ModTime = d.int()
		r.Lang = d.str()
		r.Package = d.str()
		r.Default = d.str()
		r.Imports = carve(d, &imports)
		for j := range r.Imports {
			im := &r.Imports[j]
			im.Path = d.str()
			im.Alias = d.str()
			im.Names = d.strList()
			im.As = d.strList()
			im.Line = int(d.int())
		}
		r.Title = d.str()
		r.Links = d.strList()
		r.Mentions = d.strList()
		r.Module = d.str()
		r.Entry = d.str()
		r.Maps = d.strList()
		r.Extends = d.str()
		r.BaseURL = d.str()
		r.Diag = d.str()
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return recs, nil
}

// encodeShard writes one project's symbols and references, in path order.
func encodeShard(entries map[string]shardEntry) []byte {
	paths := make([]string, 0, len(entries))
	syms, refs := 0, 0
	for p, en := range entries {
		paths = append(paths, p)
		syms += len(en.Symbols)
		refs += len(en.Refs)
	}
	slices.Sort(paths)
	e := newEncoder(8*syms + 8*refs + 8*len(paths))
	e.uint(uint64(len(paths)))
	e.uint(uint64(syms))
	e.uint(uint64(refs))
	var kind, from, qual lastStr
	for _, p := range paths {
		en := entries[p]
		e.str(p)
		e.uint(uint64(len(en.Symbols)))
		for _, s := range en.Symbols {
			e.str(s.Name)
			e.strAs(&kind, s.Kind)
			e.int(int64(s.Line))
			e.int(int64(s.Col))
		}
		e.uint(uint64(len(en.Refs)))
		for _, r := range en.Refs {
			e.strAs(&from, r.From)
			e.strAs(&qual, r.Qual)
			e.str(r.Name)
			e.int(int64(r.Line))
		}
	}
	return e.bytes(shardMagic, cacheVersion)
}

// decodeShard reads what encodeShard wrote. The entries' slices share two
// backing arrays, capped so that an append never reaches a neighbour.
func decodeShard(data []byte) (map[string]shardEntry, error) {
	d, err := newDecoder(data, shardMagic, cacheVersion)
	if err != nil {
		return nil, err
	}
	// The least each takes: a file entry 3 bytes, a symbol or a ref 4.
	n := d.countOf(3)
	syms := make([]parse.Symbol, d.countOf(4))
	refs := make([]parse.Ref, d.countOf(4))
	out := make(map[string]shardEntry, n)
	for range n {
		p := d.str()
		var en shardEntry
		en.Symbols = carve(d, &syms)
		for i := range en.Symbols {
			s := &en.Symbols[i]
			s.Name, s.Kind = d.str(), d.str()
			s.Line, s.Col = int(d.int()), int(d.int())
		}
		en.Refs = carve(d, &refs)
		for i := range en.Refs {
			r := &en.Refs[i]
			r.From, r.Qual, r.Name = d.str(), d.str(), d.str()
			r.Line = int(d.int())
		}
		out[p] = en
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return out, nil
}

// carve reads a count and takes that many items off the front of pool:
// a file's slices share one backing array per kind, each capped so that
// an append never reaches a neighbour. A count beyond what is left is
// corrupt.
func carve[T any](d *decoder, pool *[]T) []T {
	n := d.count()
	if n == 0 {
		return nil
	}
	if n > len(*pool) {
		d.fail()
		return nil
	}
	out := (*pool)[:n:n]
	*pool = (*pool)[n:]
	return out
}
