package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// The cache files are written in a small binary format of our own rather
// than gob: at 100k files gob's reflection cost a second of the cold index
// to encode the shards and most of the shard load on the first symbol
// query. A file is
//
//	magic (4 bytes) | uvarint version | string table | body | CRC-32 (IEEE, 4 bytes, little-endian)
//
// The string table is a uvarint count, that many uvarint lengths, then the
// strings' bytes back to back; the body refers to a string by its index
// in the table, so a name used by a thousand references is stored once,
// and decoding converts the bytes to one string and slices it. Integers
// are varints. The checksum covers everything before it, so that a damaged
// file reads as unreadable (and is rebuilt), never as other records. The
// checksum is IEEE's, not Castagnoli's: on amd64, Castagnoli's SSE4.2 path
// builds its tables (0.2 ms) in every process that uses it, a fortieth of
// a warm `core graph --json`, while IEEE's carry-less multiply needs none.

// errCorrupt is what every malformed cache file decodes to.
var errCorrupt = errors.New("corrupt cache file")

// encoder builds one cache file.
type encoder struct {
	body []byte
	ids  map[string]uint32
	strs []string
	size int // bytes of the strings in strs
}

func newEncoder(sizeHint int) *encoder {
	return &encoder{body: make([]byte, 0, sizeHint), ids: map[string]uint32{}}
}

func (e *encoder) uint(v uint64) { e.body = binary.AppendUvarint(e.body, v) }
func (e *encoder) int(v int64)   { e.body = binary.AppendVarint(e.body, v) }

func (e *encoder) str(s string) { e.uint(uint64(e.id(s))) }

// id is s's index in the string table, added if new.
func (e *encoder) id(s string) uint32 {
	id, ok := e.ids[s]
	if !ok {
		id = uint32(len(e.strs))
		e.ids[s] = id
		e.strs = append(e.strs, s)
		e.size += len(s)
	}
	return id
}

// lastStr remembers the string one field of a run of records wrote last,
// which the next record mostly repeats (a reference's From and Qual, a
// symbol's Kind): comparing it costs less than hashing it again.
type lastStr struct {
	s  string
	id uint32
	ok bool
}

// strAs writes s, through the field's last string.
func (e *encoder) strAs(last *lastStr, s string) {
	if !last.ok || last.s != s {
		last.s, last.id, last.ok = s, e.id(s), true
	}
	e.uint(uint64(last.id))
}

func (e *encoder) strList(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// bytes lays the file out: header, table, body, checksum.
func (e *encoder) bytes(magic string, version int) []byte {
	return appendChecksum(e.head(magic, version, 4))
}

// head is the file without its checksum, with room for extra more bytes.
func (e *encoder) head(magic string, version, extra int) []byte {
	out := make([]byte, 0, len(magic)+binary.MaxVarintLen64*(2+len(e.strs))+e.size+len(e.body)+extra)
	out = append(out, magic...)
	out = binary.AppendUvarint(out, uint64(version))
	out = binary.AppendUvarint(out, uint64(len(e.strs)))
	for _, s := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range e.strs {
		out = append(out, s...)
	}
	return append(out, e.body...)
}

func appendChecksum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, checksum(b))
}

// checksum is the checksum of the parts one after another, as a file
// written in parts (the stored graph) ends with.
func checksum(parts ...[]byte) uint32 {
	var sum uint32
	for _, p := range parts {
		sum = crc32.Update(sum, crc32.IEEETable, p)
	}
	return sum
}

// decoder reads one cache file. Reads past a malformed spot return zero
// values and set err, so a caller checks err once at the end.
type decoder struct {
	data []byte
	off  int
	strs []string
	err  error
}

// newDecoder checks the magic, version and checksum and reads the string
// table; a file of another format or version is an error like any other.
func newDecoder(data []byte, magic string, version int) (*decoder, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, errCorrupt
	}
	n := len(data) - 4
	if checksum(data[:n]) != binary.LittleEndian.Uint32(data[n:]) {
		return nil, errCorrupt
	}
	d := &decoder{data: data[:n], off: len(magic)}
	if d.uint() != uint64(version) {
		return nil, errCorrupt
	}
	count := d.count()
	lens := make([]int, count)
	total := 0
	for i := range lens {
		// Every string's bytes come after all the lengths, so the bytes
		// left after them bound each length (and a negative rest is
		// corrupt, not a huge unsigned bound).
		l := d.uint()
		if rem := len(d.data) - d.off - total; rem < 0 || l > uint64(rem) {
			d.fail()
			break
		}
		lens[i] = int(l)
		total += int(l)
	}
	if d.err == nil && total > len(d.data)-d.off {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	blob := string(d.data[d.off : d.off+total])
	d.off += total
	d.strs = make([]string, count)
	at := 0
	for i, l := range lens {
		d.strs[i] = blob[at : at+l]
		at += l
	}
	return d, nil
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.off = len(d.data)
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.data[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

// count reads a length. Every item takes at least one byte, so a length
// beyond the bytes left is corrupt (and never a huge allocation).
func (d *decoder) count() int { return d.countOf(1) }

// countOf reads a length of items that take at least size bytes each:
// a count the bytes left cannot hold is corrupt, which keeps a crafted
// file from allocating many times its size.
func (d *decoder) countOf(size int) int {
	v := d.uint()
	if v > uint64((len(d.data)-d.off)/size) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	id := d.uint()
	if id >= uint64(len(d.strs)) {
		d.fail()
		return ""
	}
	return d.strs[id]
}

func (d *decoder) strList() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// end reports the first error, or trailing bytes as one.
func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.data) {
		d.err = errCorrupt
	}
	return d.err
}
