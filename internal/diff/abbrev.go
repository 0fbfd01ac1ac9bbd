package diff

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// abbreviator shortens object ids as git does in a patch's "index" lines
// (git 2.39, object-name.c: repo_find_unique_abbrev_r): to the configured
// length, or with core.abbrev=auto (the default) to half the bits of the
// packed objects' count in hex digits, at least 7; then longer until no
// other object of the repository, packed or loose, shares the prefix. It
// reads the object directory of a SHA-1 repository without alternates or a
// multi-pack index (errNotPlain otherwise: the caller lets git do it).
type abbreviator struct {
	objects string // the object directory
	min     int    // the length before disambiguation
	packs   []*packIndex
	loose   map[string][]string // a loose fan-out directory's names, read once
}

// errNotPlain says the object store is one abbreviator does not read.
var errNotPlain = errors.New("object store with alternates, a multi-pack index or an unknown index format")

// packIndex is a version 2 pack index: its fan-out table and the file, for
// reading a fan-out bucket's sorted ids on demand.
type packIndex struct {
	f      *os.File
	fanout [256]uint32
}

// newAbbreviator opens the pack indexes of objects. configured is
// core.abbrev's length, or -1 for auto.
func newAbbreviator(objects string, configured int) (*abbreviator, error) {
	a := &abbreviator{objects: objects, loose: map[string][]string{}}
	for _, p := range []string{"info/alternates", "pack/multi-pack-index"} {
		if _, err := os.Lstat(filepath.Join(objects, p)); err == nil {
			return nil, errNotPlain
		}
	}
	entries, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var count uint64
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		// git loads an index only beside its pack.
		if st, err := os.Stat(filepath.Join(objects, "pack", name+".pack")); err != nil || !st.Mode().IsRegular() {
			continue
		}
		p, err := openPackIndex(filepath.Join(objects, "pack", e.Name()))
		if err != nil {
			a.close()
			return nil, err
		}
		a.packs = append(a.packs, p)
		count += uint64(p.fanout[255])
	}
	a.min = configured
	if configured < 0 {
		// git: msb(count)+1 bits, halved and rounded up, in hex digits.
		bits := 1
		for c := count; c > 1; c >>= 1 {
			bits++
		}
		a.min = max(7, (bits+1)/2)
	}
	return a, nil
}

func openPackIndex(path string) (*packIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var head [8 + 256*4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || !bytes.Equal(head[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		f.Close()
		return nil, errNotPlain
	}
	p := &packIndex{f: f}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
	}
	return p, nil
}

func (a *abbreviator) close() {
	for _, p := range a.packs {
		p.f.Close()
	}
}

// abbrev is id (20 bytes) in hex, shortened.
func (a *abbreviator) abbrev(id []byte) (string, error) {
	full := hex.EncodeToString(id)
	n := a.min
	if n >= len(full) || n == 0 {
		return full, nil
	}
	// Each other object's id extends the length past the digits it
	// shares with id (git stops at 32 shared digits, which no two SHA-1
	// ids reach by chance).
	extend := func(other string) {
		i := 0
		for i < len(full) && i < len(other) && full[i] == other[i] {
			i++
		}
		if i < 32 && i >= n {
			n = i + 1
		}
	}
	for _, p := range a.packs {
		ids, err := p.bucket(id[0])
		if err != nil {
			return "", err
		}
		for i := 0; i+20 <= len(ids); i += 20 {
			if other := ids[i : i+20]; !bytes.Equal(other, id) && other[1] == id[1] {
				extend(hex.EncodeToString(other))
			}
		}
	}
	names, err := a.looseNames(full[:2])
	if err != nil {
		return "", err
	}
	for _, name := range names {
		if strings.HasPrefix(name, full[2:n]) {
			extend(full[:2] + name)
		}
	}
	return full[:n], nil
}

// bucket is the ids of the pack's objects whose first byte is b, sorted.
func (p *packIndex) bucket(b byte) ([]byte, error) {
	lo := uint32(0)
	if b > 0 {
		lo = p.fanout[b-1]
	}
	hi := p.fanout[b]
	if hi <= lo {
		return nil, nil
	}
	buf := make([]byte, 20*(hi-lo))
	_, err := p.f.ReadAt(buf, int64(8+256*4)+20*int64(lo))
	return buf, err
}

// looseNames is the names (38 hex digits) in the loose fan-out directory
// dir ("ab"), read once.
func (a *abbreviator) looseNames(dir string) ([]string, error) {
	if names, ok := a.loose[dir]; ok {
		return names, nil
	}
	entries, err := os.ReadDir(filepath.Join(a.objects, dir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if n := e.Name(); len(n) == 38 && isHex(n) {
			names = append(names, n)
		}
	}
	a.loose[dir] = names
	return names, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
