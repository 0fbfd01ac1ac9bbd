// Package runlog is the run log: a journal per run of a target under
// <cache>/runs, written by the runner as a run goes (queued, running, its
// end) and read by the viewer, insight's volatility lens and `core runs`.
// Cache hits of one run are written together, as one batch file, because a
// file per hit would cost more than hashing the inputs of a no-op run. A
// journal whose core process died reads as interrupted.
package runlog

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/targetenv"
)

// DefaultCap is how many journals rotate-logs (and the end of a core run)
// keeps: as many as the build cache keeps entries, so that core hash
// --diff can name the earlier run of a target whose key parts are still
// kept.
const DefaultCap = 2000

// A run's states, as journals, events and results say them.
const (
	StateQueued      = "queued"
	StateRunning     = "running"
	StateSucceeded   = "succeeded"
	StateFailed      = "failed"
	StateCached      = "cached"
	StateInterrupted = "interrupted"
	StateSkipped     = "skipped"
)

// OutputCap bounds the output a journal (and a cache entry) keeps: the first
// and the last half of it, with a marker line between.
const OutputCap = 1 << 20

// ErrNotFound is matched (errors.Is) by ReadJournal's error for an id with
// no journal.
var ErrNotFound = errors.New("run not found")

// Journal is the record of one run of one target: <cache>/runs/<id>.json.
type Journal struct {
	ID       string    `json:"id"`
	Target   string    `json:"target"`
	Argv     []string  `json:"argv"`
	Dir      string    `json:"dir"` // the working directory, relative to the workspace root
	Status   string    `json:"status"`
	ExitCode int       `json:"exit_code"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	CacheHit bool      `json:"cache_hit"`
	CacheKey string    `json:"cache_key,omitempty"`
	Trigger  string    `json:"trigger,omitempty"`
	Err      string    `json:"error,omitempty"` // why it failed without an exit code, or was interrupted
	PID      int       `json:"pid,omitempty"`   // the core process that ran it
	PIDStart uint64    `json:"pid_start,omitempty"`
	// ChildPID is the target's process, the leader of its process group,
	// recorded as soon as it has started; ChildStart is its start time.
	ChildPID   int    `json:"child_pid,omitempty"`
	ChildStart uint64 `json:"child_start,omitempty"`
	// From is where the result came from: built, local (this machine's
	// cache) or remote (the shared cache). Empty while it runs.
	From string `json:"from,omitempty"`
	// EnvMode is what of core's environment reached the target: strict
	// or loose (targetenv).
	EnvMode string `json:"env_mode,omitempty"`
	// Withheld names, for a target that failed in strict mode, the
	// variables it did not get and may have needed, with where each was
	// named.
	Withheld []targetenv.Hint `json:"withheld,omitempty"`
	// Shard is the CI shard that ran it ("2/4", core run --shard), and
	// ShardPlan the digest of the plan it ran under: core ci report puts
	// the shards' journals back together and checks they agree.
	Shard     string `json:"shard,omitempty"`
	ShardPlan string `json:"shard_plan,omitempty"`
	Truncated bool   `json:"truncated"`
	Output    string `json:"output"` // last: listing skips over it
}

func Dir(cacheDir string) string { return cachedir.Runs(cacheDir) }

// A run id is "r" + UTC time to the nanosecond + "-" + 8 random hex
// digits (r20060102T150405.000000000Z-0123abcd), so ids sort by start
// time.
func NewID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "r" + t.UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

// idLen is the length of every run id.
const idLen = len("r20060102T150405.000000000Z-0123abcd")

// ValidID reports whether id has the shape of a run id (and so names no
// path outside the runs directory). It checks each byte in place of a
// regular expression: the run log's trim checks every id of every batch
// at the end of each run.
func ValidID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for i := 0; i < idLen; i++ {
		c := id[i]
		var ok bool
		switch {
		case i == 0:
			ok = c == 'r'
		case i == 9:
			ok = c == 'T'
		case i == 16:
			ok = c == '.'
		case i == 26:
			ok = c == 'Z'
		case i == 27:
			ok = c == '-'
		case i > 27:
			ok = '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
		default:
			ok = '0' <= c && c <= '9'
		}
		if !ok {
			return false
		}
	}
	return true
}

// writeJournal replaces the journal atomically and durably (temp file,
// fsync, rename; mode 0600: journals hold command output).
func Write(cacheDir string, j *Journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(filepath.Join(Dir(cacheDir), j.ID+".json"), data, 0o600)
}

// replaceJournal replaces the journal atomically without syncing it: for
// what matters only while the machine stays up (the pid of a running
// command).
func Replace(cacheDir string, j *Journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return fsx.ReplaceFile(filepath.Join(Dir(cacheDir), j.ID+".json"), data, 0o600)
}

// Sync makes the journals of ids, replaced by Replace, durable, with one
// flush of the file system for all of them (fsx.Sync) rather than two
// fsyncs each as Write costs.
func Sync(cacheDir string, ids ...string) error {
	paths := make([]string, len(ids))
	for i, id := range ids {
		paths[i] = filepath.Join(Dir(cacheDir), id+".json")
	}
	return fsx.Sync(paths...)
}

// WriteAll writes journals as Write does (each replaced whole, durable
// when it returns), with one flush for all of them (Sync).
func WriteAll(cacheDir string, js []*Journal) error {
	ids := make([]string, len(js))
	for i, j := range js {
		if err := Replace(cacheDir, j); err != nil {
			return err
		}
		ids[i] = j.ID
	}
	return Sync(cacheDir, ids...)
}

// A journal file is <cache>/runs/<id>.json holding one Journal, or
// <cache>/runs/<first id>--<last id>--<count>.json holding {"runs": [...]}:
// the cache hits of one Run, written together when the Run ends (or every
// hitBatchMax hits). The count lets the end of a run see how many
// journals there are without reading the batches (TrimOver); batches
// written before it had none (<first id>--<last id>.json) and are read. A cached no-op run of a thousand targets then writes
// one file, not a thousand: creating a file costs as much as hashing a
// dozen inputs (measured on the benchmark machine), so a file per hit
// would more than double a no-op run.

const batchSep = "--"

type journalBatch struct {
	Runs []Journal `json:"runs"`
}

type journalBatchHead struct {
	Runs []journalHead `json:"runs"`
}

// journalFile is one file of the runs directory.
type journalFile struct {
	name        string // base name
	first, last string // ids; equal for a single journal
	count       int    // journals in it, from its name; 0: unknown
}

func (f journalFile) batch() bool { return f.first != f.last }

func parseJournalName(name string) (journalFile, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return journalFile{}, false
	}
	if first, last, ok := strings.Cut(base, batchSep); ok {
		count := 0
		if l, n, ok := strings.Cut(last, batchSep); ok {
			c, err := strconv.Atoi(n)
			if err != nil || c < 2 || strconv.Itoa(c) != n {
				return journalFile{}, false
			}
			last, count = l, c
		}
		if ValidID(first) && ValidID(last) && first < last {
			return journalFile{name: name, first: first, last: last, count: count}, true
		}
		return journalFile{}, false
	}
	if ValidID(base) {
		return journalFile{name: name, first: base, last: base}, true
	}
	return journalFile{}, false
}

// journalFiles lists the runs directory.
func journalFiles(cacheDir string) ([]journalFile, error) {
	entries, err := os.ReadDir(Dir(cacheDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list runs: %w", err)
	}
	files := make([]journalFile, 0, len(entries))
	for _, e := range entries {
		if f, ok := parseJournalName(e.Name()); ok && e.Type().IsRegular() {
			files = append(files, f)
		}
	}
	return files, nil
}

// entry is one journal and the file that holds it.
type entry struct {
	id   string
	file journalFile
	head *Journal // parsed already (batch members), else nil
}

// journalEntries returns every journal of the cache, newest first. Batch
// files are read (without outputs); single ones are not.
func journalEntries(cacheDir string) ([]entry, error) {
	files, err := journalFiles(cacheDir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, f := range files {
		if !f.batch() {
			out = append(out, entry{id: f.first, file: f})
			continue
		}
		heads, err := readBatchHeads(cacheDir, f)
		if err != nil {
			continue // torn by a crash: skipped
		}
		for i := range heads {
			out = append(out, entry{id: heads[i].ID, file: f, head: &heads[i]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id > out[j].id })
	return out, nil
}

// journalIDs lists the journals of the cache like journalEntries, newest
// first, without decoding them: every core run ends by trimming the
// journals, and decoding each batch (outputs and all) took a fifth of a
// cached run of 200 targets once 2,000 journals were kept. A journal is an
// object that starts with its "id" (the first field of Journal); inside a
// string its quotes would be escaped, so the bytes {"id":" start journals
// and nothing else.
func journalIDs(cacheDir string) ([]entry, error) {
	files, err := journalFiles(cacheDir)
	if err != nil {
		return nil, err
	}
	var out []entry
	buf := make([]byte, 64<<10) // one buffer for every batch: a run's end allocates little
	for _, f := range files {
		if !f.batch() {
			out = append(out, entry{id: f.first, file: f})
			continue
		}
		out = scanBatchIDs(filepath.Join(Dir(cacheDir), f.name), f, buf, out)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id > out[j].id })
	return out, nil
}

// scanBatchIDs appends the ids of the journals in the batch file at p,
// read through buf, without parsing the file: a batch of cache hits
// holds their outputs, and only the ids are wanted.
func scanBatchIDs(p string, f journalFile, buf []byte, out []entry) []entry {
	fh, err := os.Open(p)
	if err != nil {
		return out // gone since the listing
	}
	defer fh.Close()
	mark := []byte(`{"id":"`)
	keep := 0 // bytes carried over from the last read: a mark and an id cut by it
	for {
		n, err := fh.Read(buf[keep:])
		data := buf[:keep+n]
		for {
			i := bytes.Index(data, mark)
			if i < 0 {
				break
			}
			id, _, ok := bytes.Cut(data[i+len(mark):], []byte(`"`))
			if !ok {
				break // cut by the read: the next one sees it whole
			}
			if ValidID(string(id)) {
				out = append(out, entry{id: string(id), file: f})
			}
			data = data[i+len(mark)+len(id)+1:]
		}
		if err != nil || n == 0 {
			return out
		}
		// Carry the tail that may hold the start of a mark and its id.
		tail := min(len(data), len(mark)+idLen)
		keep = copy(buf, data[len(data)-tail:])
	}
}

func readBatchHeads(cacheDir string, f journalFile) ([]Journal, error) {
	data, err := os.ReadFile(filepath.Join(Dir(cacheDir), f.name))
	if err != nil {
		return nil, err
	}
	var b journalBatchHead
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, err
	}
	out := make([]Journal, len(b.Runs))
	for i, h := range b.Runs {
		out[i] = h.journal()
	}
	return out, nil
}

func readBatch(cacheDir string, f journalFile) ([]Journal, error) {
	data, err := os.ReadFile(filepath.Join(Dir(cacheDir), f.name))
	if err != nil {
		return nil, err
	}
	var b journalBatch
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, err
	}
	return b.Runs, nil
}

// writeBatch writes journals (sorted by id) as one file, or as a single
// journal when there is one. Atomic and durable: one fsync for them all.
func WriteBatch(cacheDir string, js []Journal) error {
	switch len(js) {
	case 0:
		return nil
	case 1:
		return Write(cacheDir, &js[0])
	}
	sort.Slice(js, func(i, j int) bool { return js[i].ID < js[j].ID })
	data, err := json.Marshal(journalBatch{Runs: js})
	if err != nil {
		return err
	}
	name := js[0].ID + batchSep + js[len(js)-1].ID + batchSep + strconv.Itoa(len(js)) + ".json"
	return fsx.WriteFileAtomic(filepath.Join(Dir(cacheDir), name), data, 0o600)
}

// ListJournals returns up to limit journals (limit <= 0: all), newest first,
// only those of target when it is not "", without their output. Journals
// that cannot be read (torn by a crash) are skipped. A run whose core
// process is gone is reported "interrupted" (see asRead).
func List(cacheDir string, limit int, target string) ([]Journal, error) {
	entries, err := journalEntries(cacheDir)
	if err != nil {
		return nil, err
	}
	var out []Journal
	for _, e := range entries {
		if limit > 0 && len(out) >= limit {
			break
		}
		var j Journal
		if e.head != nil {
			j = *e.head
		} else if j, err = ReadFile(cacheDir, e.id, false); err != nil {
			continue
		}
		if target != "" && j.Target != target {
			continue
		}
		out = append(out, asRead(j))
	}
	return out, nil
}

// CountJournals is how many runs the journals hold.
func Count(cacheDir string) int {
	es, _ := journalEntries(cacheDir)
	return len(es)
}

// ReadJournal returns one journal with its output. An id that is not a run
// id, or names no journal, is ErrNotFound. A run whose core process is gone
// is reported "interrupted" (see asRead).
func Read(cacheDir, id string) (Journal, error) {
	if !ValidID(id) {
		return Journal{}, fmt.Errorf("run %s: %w (run ids look like r20060102T150405.000000000Z-0a1b2c3d)", quote.Short(id), ErrNotFound)
	}
	j, err := ReadFile(cacheDir, id, true)
	if err == nil {
		return asRead(j), nil
	}
	if !errors.Is(err, ErrNotFound) {
		return j, err
	}
	files, lerr := journalFiles(cacheDir)
	if lerr != nil {
		return Journal{}, lerr
	}
	for _, f := range files {
		if !f.batch() || id < f.first || id > f.last {
			continue
		}
		js, err := readBatch(cacheDir, f)
		if err != nil {
			continue
		}
		for _, j := range js {
			if j.ID == id {
				return j, nil
			}
		}
	}
	return Journal{}, err
}

// journalHead is a Journal without its output, for listing.
type journalHead struct {
	ID         string    `json:"id"`
	Target     string    `json:"target"`
	Argv       []string  `json:"argv"`
	Dir        string    `json:"dir"`
	Status     string    `json:"status"`
	ExitCode   int       `json:"exit_code"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	CacheHit   bool      `json:"cache_hit"`
	CacheKey   string    `json:"cache_key"`
	From       string    `json:"from"`
	Trigger    string    `json:"trigger"`
	Err        string    `json:"error"`
	PID        int       `json:"pid"`
	PIDStart   uint64    `json:"pid_start"`
	ChildPID   int       `json:"child_pid"`
	ChildStart uint64    `json:"child_start"`
	Shard      string    `json:"shard"`
	ShardPlan  string    `json:"shard_plan"`
	Truncated  bool      `json:"truncated"`
}

func (h journalHead) journal() Journal {
	return Journal{ID: h.ID, Target: h.Target, Argv: h.Argv, Dir: h.Dir, Status: h.Status,
		ExitCode: h.ExitCode, Start: h.Start, End: h.End, CacheHit: h.CacheHit, CacheKey: h.CacheKey, From: h.From,
		Trigger: h.Trigger, Err: h.Err, PID: h.PID, PIDStart: h.PIDStart,
		ChildPID: h.ChildPID, ChildStart: h.ChildStart, Shard: h.Shard, ShardPlan: h.ShardPlan, Truncated: h.Truncated}
}

// readJournalFile reads the single journal <id>.json.
func ReadFile(cacheDir, id string, withOutput bool) (Journal, error) {
	data, err := os.ReadFile(filepath.Join(Dir(cacheDir), id+".json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Journal{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
		}
		return Journal{}, fmt.Errorf("read run %s: %w", id, err)
	}
	if withOutput {
		var j Journal
		if err := json.Unmarshal(data, &j); err != nil {
			return Journal{}, fmt.Errorf("read run %s: %w", id, err)
		}
		return j, nil
	}
	var h journalHead
	if err := json.Unmarshal(data, &h); err != nil {
		return Journal{}, fmt.Errorf("read run %s: %w", id, err)
	}
	return h.journal(), nil
}

// RecoverInterrupted marks "running" (and "queued") journals whose process is gone as
// "interrupted", and returns how many it changed. A journal records the pid
// of the core process that wrote it and that process's start time, so a
// live CLI run (or a new process that reused the pid) is told apart from a
// dead one.
func RecoverInterrupted(cacheDir string) (int, error) {
	files, err := journalFiles(cacheDir)
	if err != nil {
		return 0, err
	}
	n := 0
	var firstErr error
	for _, f := range files {
		if f.batch() {
			continue // cache hits only: never "running"
		}
		p := filepath.Join(Dir(cacheDir), f.name)
		data, err := os.ReadFile(p)
		if err != nil || !(bytes.Contains(data, []byte(`"status":"running"`)) || bytes.Contains(data, []byte(`"status":"queued"`))) {
			continue
		}
		var j Journal
		if err := json.Unmarshal(data, &j); err != nil || (j.Status != StateRunning && j.Status != StateQueued) {
			continue
		}
		if processAlive(j.PID, j.PIDStart) {
			continue
		}
		MarkInterrupted(&j)
		if j.End.IsZero() {
			j.End = time.Now().UTC()
		}
		if err := Write(cacheDir, &j); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		n++
	}
	return n, firstErr
}

// TrimJournals keeps the newest keep journals and removes the rest (and
// temporary files left by a crash mid-write), returning how many journals
// it removed. A batch file that keeps some of its journals is rewritten
// with those.
func Trim(cacheDir string, keep int) (removed int, err error) {
	if keep < 0 {
		return 0, fmt.Errorf("trim journals: keep must be 0 or more, got %d", keep)
	}
	entries, err := journalIDs(cacheDir)
	if err != nil {
		return 0, err
	}
	if len(entries) <= keep {
		RemoveStaleTemps(Dir(cacheDir), time.Hour)
		return 0, nil
	}
	doomed := map[string]int{}    // file name -> journals to remove
	kept := map[string][]string{} // batch file name -> ids it keeps
	files := map[string]journalFile{}
	for i, e := range entries {
		files[e.file.name] = e.file
		if i < keep {
			if e.file.batch() {
				kept[e.file.name] = append(kept[e.file.name], e.id)
			}
			continue
		}
		doomed[e.file.name]++
	}
	names := make([]string, 0, len(doomed))
	for name := range doomed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(Dir(cacheDir), name)
		if ids := kept[name]; len(ids) > 0 {
			js, err := readBatch(cacheDir, files[name])
			if err != nil {
				// Torn by a crash: nothing in it can be read, so it goes.
				js = nil
			}
			keepSet := map[string]bool{}
			for _, id := range ids {
				keepSet[id] = true
			}
			var survivors []Journal
			for _, j := range js {
				if keepSet[j.ID] {
					survivors = append(survivors, j)
				}
			}
			if err := WriteBatch(cacheDir, survivors); err != nil {
				return removed, fmt.Errorf("trim journals: %w", err)
			}
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("trim journals: %w", err)
		}
		removed += doomed[name]
	}
	RemoveStaleTemps(Dir(cacheDir), time.Hour)
	return removed, nil
}

// TrimOver is Trim when the run log holds more than keep+slack journals,
// and nothing otherwise: the end of each run calls it, and a trim reads
// every batch and rewrites the one it cuts, where the count of the
// journals is most often in the batches' names (an older batch is read
// for it).
func TrimOver(cacheDir string, keep, slack int) (removed int, err error) {
	files, err := journalFiles(cacheDir)
	if err != nil {
		return 0, err
	}
	n := 0
	var buf []byte
	for _, f := range files {
		switch {
		case !f.batch():
			n++
		case f.count > 0:
			n += f.count
		default:
			if buf == nil {
				buf = make([]byte, 64<<10)
			}
			n += len(scanBatchIDs(filepath.Join(Dir(cacheDir), f.name), f, buf, nil))
		}
	}
	if n <= keep+slack {
		return 0, nil
	}
	return Trim(cacheDir, keep)
}

// removeStaleTemps removes ".*.tmp-*" files and directories older than age.
func RemoveStaleTemps(dir string, age time.Duration) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") || !strings.Contains(e.Name(), ".tmp-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > age {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// processAlive reports whether the process pid, started at start (0:
// unknown), still runs.
func processAlive(pid int, start uint64) bool { return execx.ProcessAlive(pid, start) }

// unfinished reports whether a journal's status says its run has not ended.
func Unfinished(status string) bool { return status == StateRunning || status == StateQueued }

// asRead is a journal as ListJournals and ReadJournal report it: a run that
// is "running" or "queued" while the core process that ran it is gone
// (killed, crashed) is "interrupted", whether or not a server has started
// since to write that down (RecoverInterrupted). Its end time stays unknown.
func asRead(j Journal) Journal {
	if Unfinished(j.Status) && !processAlive(j.PID, j.PIDStart) {
		MarkInterrupted(&j)
	}
	return j
}

// markInterrupted records that the core process that ran j ended before j
// did.
func MarkInterrupted(j *Journal) {
	j.Status = StateInterrupted
	j.ExitCode = -1
	j.Err = fmt.Sprintf("interrupted: the core process that ran it (pid %d) ended before it finished", j.PID)
}

// ErrAmbiguous is matched by Resolve's error for a prefix that several
// runs share.
var ErrAmbiguous = errors.New("names more than one run")

// maxCandidates is how many of the runs an ambiguous prefix names the
// error lists.
const maxCandidates = 5

// Resolve turns what a person types for a run into its id: the id, "last"
// (the newest run), or a prefix of one id alone, of the whole id
// (r20261128T1035) or of its random part after the '-' (1a2b). A prefix
// several runs share is ErrAmbiguous, naming them, newest first; one no
// run has, ErrNotFound.
func Resolve(cacheDir, ref string) (string, error) {
	if ValidID(ref) {
		return ref, nil
	}
	if ref != "last" && (ref == "" || len(ref) > len("r20060102T150405.000000000Z-0a1b2c3d") || strings.Trim(ref, "rTZ.-0123456789abcdef") != "") {
		return "", fmt.Errorf("%s is not a run id, a prefix of one, or last (`core runs` lists them): %w", quote.Short(ref), ErrNotFound)
	}
	entries, err := journalIDs(cacheDir)
	if err != nil {
		return "", err
	}
	if ref == "last" {
		if len(entries) == 0 {
			return "", fmt.Errorf("no run yet: %w", ErrNotFound)
		}
		return entries[0].id, nil
	}
	var found []string
	for _, e := range entries {
		_, random, _ := strings.Cut(e.id, "-")
		if (strings.HasPrefix(e.id, ref) || strings.HasPrefix(random, strings.TrimPrefix(ref, "-"))) && !slices.Contains(found, e.id) {
			found = append(found, e.id)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no run starts with %s: %w (it may have been rotated out; `core runs` lists what is kept)", quote.Short(ref), ErrNotFound)
	case 1:
		return found[0], nil
	}
	list := found
	if len(list) > maxCandidates {
		list = append(list[:maxCandidates:maxCandidates], fmt.Sprintf("%d more", len(found)-maxCandidates))
	}
	return "", fmt.Errorf("%s %w: %s; give more of the id", quote.Short(ref), ErrAmbiguous, strings.Join(list, ", "))
}

// maxCopiedFile is the largest journal file ReadDir reads: a batch of a
// few hundred journals, each output cut at OutputCap, is far less; a
// larger file is skipped as not a journal core wrote.
const maxCopiedFile = 64 << 20

// ReadDir is every journal in dir, a runs directory copied from another
// machine (a CI shard's artifact): single and batch files, with their
// output, oldest first. It reads them as written: whether a "running"
// journal's process lives is a question for the machine that ran it.
// Files that are not journals, or are torn, are skipped.
func ReadDir(dir string) ([]Journal, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Journal
	for _, e := range entries {
		f, ok := parseJournalName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		// A copied runs directory is another machine's (an artifact a
		// workflow downloaded, an agent's read_ci_report): what a file
		// may hold is bounded before it is decoded.
		data, err := fsx.ReadAtMost(filepath.Join(dir, f.name), maxCopiedFile)
		if err != nil {
			continue
		}
		if f.batch() {
			var b journalBatch
			if json.Unmarshal(data, &b) == nil {
				out = append(out, b.Runs...)
			}
			continue
		}
		var j Journal
		if json.Unmarshal(data, &j) == nil && j.ID == f.first {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
