package index

import (
	"io/fs"
	"reflect"
	"testing"

	"github.com/corehq/core/internal/index/parse"
)

func codecFixture() (map[string]*parse.FileRecord, map[string]shardEntry) {
	files := map[string]*parse.FileRecord{
		"a/main.go": {Path: "a/main.go", Size: 120, ModTime: 1_700_000_000_000_000_000, Lang: parse.LangGo, Package: "main",
			Imports: []parse.Import{{Path: "fmt", Line: 3}, {Path: "example.com/x/b", Alias: "bb", Line: 4}}},
		"web/app.ts": {Path: "web/app.ts", Size: 9, Lang: parse.LangTypeScript, Default: "App",
			Imports: []parse.Import{{Path: "./util", Names: []string{"a", "b"}, Line: 1}}, Diag: "syntax error at line 2"},
		"docs/x.md":        {Path: "docs/x.md", Lang: parse.LangMarkdown, Title: "X", Links: []string{"../a/main.go"}, Mentions: []string{"a:build"}},
		"web/package.json": {Path: "web/package.json", Lang: "packagejson", Module: "@x/web", Entry: "src/index.ts"},
		"empty.py":         {Path: "empty.py", Lang: parse.LangPython},
	}
	shard := map[string]shardEntry{
		"a/main.go": {
			Symbols: []parse.Symbol{{Name: "main", Kind: "func", Line: 6, Col: 6}, {Name: "T.M", Kind: "method", Line: 9, Col: 12}},
			Refs:    []parse.Ref{{From: "main", Qual: "fmt", Name: "Println", Line: 7}, {From: "main", Name: "T", Line: 8}, {From: "T.M", Qual: parse.MemberQual, Name: "Close", Line: 10}},
		},
		"empty.py": {},
	}
	return files, shard
}

func TestCacheFilesRoundTripEveryField(t *testing.T) {
	files, _ := codecFixture()
	got, err := decodeFiles(encodeFiles("/ws", files), "/ws")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Fatalf("got %d records, want %d", len(got), len(files))
	}
	for i := range got {
		if want := files[got[i].Path]; !reflect.DeepEqual(&got[i], want) {
			t.Errorf("record %s:\n got %+v\nwant %+v", got[i].Path, got[i], *want)
		}
	}
}

func TestCacheFilesOfAnotherRootAreNotRead(t *testing.T) {
	files, _ := codecFixture()
	if _, err := decodeFiles(encodeFiles("/ws", files), "/elsewhere"); err == nil {
		t.Fatal("a cache of /ws was read for /elsewhere")
	}
}

func TestCacheShardRoundTripsAndAppendsStayInTheirEntry(t *testing.T) {
	_, shard := codecFixture()
	shard["b/b.go"] = shardEntry{Symbols: []parse.Symbol{{Name: "B", Kind: "func", Line: 1, Col: 6}}, Refs: []parse.Ref{{Name: "A", Line: 2}}}
	got, err := decodeShard(encodeShard(shard))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, shard) {
		t.Fatalf("got %+v\nwant %+v", got, shard)
	}
	// Entries share backing arrays, in path order: an append to one entry
	// (live edits patch entries) must not write into the next one's.
	first := got["a/main.go"]
	_ = append(first.Symbols, parse.Symbol{Name: "clobber"})
	_ = append(first.Refs, parse.Ref{Name: "clobber"})
	if next := got["b/b.go"]; !reflect.DeepEqual(next, shard["b/b.go"]) {
		t.Fatalf("an append to a/main.go's entry changed b/b.go's: %+v", next)
	}
}

func TestCacheDamageReadsAsUnreadable(t *testing.T) {
	files, shard := codecFixture()
	for name, data := range map[string][]byte{"files": encodeFiles("/ws", files), "shard": encodeShard(shard)} {
		decode := func(b []byte) error {
			if name == "files" {
				_, err := decodeFiles(b, "/ws")
				return err
			}
			_, err := decodeShard(b)
			return err
		}
		for cut := 0; cut < len(data); cut++ {
			if decode(data[:cut]) == nil {
				t.Errorf("%s torn at byte %d of %d decoded", name, cut, len(data))
			}
		}
		for i := range data {
			b := append([]byte(nil), data...)
			b[i] ^= 0x40
			if decode(b) == nil {
				t.Errorf("%s with byte %d flipped decoded", name, i)
			}
		}
	}
}

func TestCacheOfAnotherVersionIsNotRead(t *testing.T) {
	_, shard := codecFixture()
	e := newEncoder(0)
	e.uint(0)
	e.uint(0)
	e.uint(0)
	if _, err := decodeShard(e.bytes(shardMagic, cacheVersion-1)); err == nil {
		t.Fatal("a shard of the previous version was read")
	}
	if _, err := decodeShard(encodeShard(shard)); err != nil {
		t.Fatal(err)
	}
}

// FuzzCacheDecode feeds damaged cache files to both decoders: they must
// fail or succeed, never panic or allocate without bound. The checksum
// would reject almost every mutation, so the fuzzer checks the bytes
// behind it by re-sealing them.
func FuzzCacheDecode(f *testing.F) {
	files, shard := codecFixture()
	f.Add(encodeFiles("/ws", files), false)
	f.Add(encodeShard(shard), true)
	// The stored graph (snapshot.go) under the zero key, which the fuzzer
	// keeps by not touching the bytes after the header.
	seen := []seenPath{{path: "lib", id: statID{mode: uint32(fs.ModeDir | 0o755), size: 4096, mtime: 1, ctime: 2, ino: 3}}, {path: "lib/a.go", follow: true, id: statID{missing: true}}}
	f.Add(encodeSnapshot([32]byte{}, seen, []byte(`{"nodes":[],"edges":[]}`)), false)
	f.Fuzz(func(t *testing.T, data []byte, isShard bool) {
		for _, b := range [][]byte{data, reseal(data)} {
			if isShard {
				_, _ = decodeShard(b)
			} else {
				_, _ = decodeFiles(b, "/ws")
				_, _, _, _ = decodeSnapshot(b)
			}
		}
	})
}

// reseal replaces the last four bytes with the checksum of the rest.
func reseal(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	return appendChecksum(append([]byte(nil), b[:len(b)-4]...))
}
