package runner

import (
	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"

	"archive/tar"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/ignore"
)

// The build cache: <cache>/build/<key>/ holds meta.json (the run's exit
// code, captured output, duration, argv and a manifest of its outputs, each
// file with its SHA-256) and, when the target declares outputs,
// outputs.tar. An entry is written in a temporary directory beside it and
// renamed into place, so a crash or two concurrent writers never leave half
// an entry: the first rename wins and the other is dropped.
//
// Entries are not fsynced. A power loss can leave a renamed entry whose
// bytes never reached the disk; a restore finds it (meta.json does not
// decode, the tar ends early, or a file does not match its digest), drops
// the entry and runs the target: a cache entry is a copy, and losing one
// costs a build, where syncing every one cost a disk flush per target.

const (
	metaFile    = "meta.json"
	outputsFile = "outputs.tar"
)

func buildDir(cacheDir string) string { return cachedir.Build(cacheDir) }

// cacheMeta is meta.json.
type cacheMeta struct {
	Key        string        `json:"key"`
	Target     string        `json:"target"`
	Argv       []string      `json:"argv"`
	ExitCode   int           `json:"exit_code"`
	DurationNS time.Duration `json:"duration_ns"`
	Created    time.Time     `json:"created"`
	Outputs    []outputEntry `json:"outputs"`
	Truncated  bool          `json:"truncated"`
	Output     string        `json:"output"`
}

// outputEntry is one path of a target's outputs, as it was when the run
// ended (and as a restore leaves it).
type outputEntry struct {
	Path    string `json:"path"` // slash-separated, relative to the project dir
	Type    byte   `json:"type"` // 'f', 'd' or 'l'
	Mode    uint32 `json:"mode"` // permission bits
	Size    int64  `json:"size,omitempty"`
	MtimeNS int64  `json:"mtime_ns,omitempty"`
	Link    string `json:"link,omitempty"`
	Digest  string `json:"sha256,omitempty"` // a file's content hash (since remote caching)
}

// lookup returns the entry for key, or ok=false for a miss (including an
// entry that cannot be read: it is treated as absent and overwritten).
func lookup(cacheDir, key string) (cacheMeta, bool) {
	data, err := fsx.ReadFile(filepath.Join(buildDir(cacheDir), key, metaFile))
	if err != nil {
		return cacheMeta{}, false
	}
	var m cacheMeta
	if err := json.Unmarshal(data, &m); err != nil || m.Key != key || m.ExitCode != 0 {
		return cacheMeta{}, false
	}
	return m, true
}

// store writes a cache entry for a successful run from the outputs on disk.
// With replace (core run --force) it takes the place of an entry already
// there under the key; otherwise the first entry stays.
func store(cacheDir string, m cacheMeta, projDir string, outputs []string, replace bool) error {
	return writeEntry(cacheDir, m, replace, func(tmp string, m *cacheMeta) error {
		if len(outputs) == 0 {
			return nil
		}
		entries, err := collectOutputs(projDir, outputs)
		if err != nil {
			return fmt.Errorf("cache outputs: %w", err)
		}
		if err := writeTar(filepath.Join(tmp, outputsFile), projDir, entries); err != nil {
			return fmt.Errorf("cache outputs: %w", err)
		}
		m.Outputs = entries
		return nil
	})
}

// writeEntry publishes the entry m.Key: fill writes what goes beside
// meta.json into the temporary directory tmp (and may complete m), then
// meta.json, then the rename that publishes both. Nothing is published
// when fill fails. An entry already published under the key stays, unless
// replace: then the new one takes its place in one exchange, so a reader
// sees the old entry or the new, never neither.
func writeEntry(cacheDir string, m cacheMeta, replace bool, fill func(tmp string, m *cacheMeta) error) (err error) {
	dir := buildDir(cacheDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	final := filepath.Join(dir, m.Key)
	if _, err := os.Stat(filepath.Join(final, metaFile)); err == nil && !replace {
		return nil // another run stored it first
	}
	tmp, err := os.MkdirTemp(dir, "."+m.Key[:16]+".tmp-")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer func() {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := fill(tmp, &m); err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, metaFile), data, 0o600); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if replace {
		if exchange(tmp, final) == nil {
			return nil // tmp now holds the old entry, removed by the defer
		}
		// No entry there, or no exchange on this file system: move the
		// old one aside (a reader misses for a moment), then publish.
		if _, err := os.Lstat(final); err == nil {
			doomed := filepath.Join(dir, ".rm-"+m.Key+".tmp-"+newRunID(time.Now())[1:])
			if err := os.Rename(final, doomed); err != nil {
				return fmt.Errorf("cache: replace %s: %w", m.Key[:12], err)
			}
			defer os.RemoveAll(doomed)
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, metaFile)); serr == nil {
			return nil // lost the race to an identical entry
		}
		// A leftover entry without meta.json (an older crash): replace it.
		_ = os.RemoveAll(final)
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	tmp = ""
	return nil
}

// collectOutputs lists what the output globs name on disk: matches, and
// everything under matched directories, sorted, each with its metadata.
func collectOutputs(projDir string, outputs []string) ([]outputEntry, error) {
	seen := map[string]bool{}
	var entries []outputEntry
	add := func(rel string, fi fs.FileInfo) error {
		if seen[rel] {
			return nil
		}
		seen[rel] = true
		e := outputEntry{Path: rel, Mode: uint32(fi.Mode().Perm())}
		switch {
		case fi.Mode().IsRegular():
			e.Type, e.Size, e.MtimeNS = 'f', fi.Size(), fi.ModTime().UnixNano()
		case fi.IsDir():
			e.Type = 'd'
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(filepath.Join(projDir, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			e.Type, e.Link = 'l', link
		default:
			return nil // sockets, pipes, devices are not outputs
		}
		entries = append(entries, e)
		return nil
	}
	for _, m := range globOutputs(projDir, outputs) {
		abs := filepath.Join(projDir, filepath.FromSlash(m))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if err := add(m, fi); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(p[len(projDir)+1:])
			if d.IsDir() && ignore.NeverName(d.Name()) {
				return filepath.SkipDir
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			return add(rel, fi)
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, nil
}

// globOutputs returns the paths (relative, slash) the output globs match on
// disk now, outermost first.
func globOutputs(projDir string, outputs []string) []string {
	fsys := os.DirFS(projDir)
	var out []string
	seen := map[string]bool{}
	for _, o := range outputs {
		o = strings.TrimSuffix(o, "/")
		matches, err := doublestar.Glob(fsys, o, doublestar.WithNoFollow())
		if err != nil {
			continue
		}
		for _, m := range matches {
			if m == "." || seen[m] {
				continue
			}
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	// Drop paths under another match: the walk of the parent covers them.
	kept := out[:0]
	for _, m := range out {
		if len(kept) > 0 && strings.HasPrefix(m, kept[len(kept)-1]+"/") {
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

// writeTar writes the files entries name under projDir to the tar p, and
// records each regular file's SHA-256 in its entry (the remote cache's
// digest of it).
func writeTar(p, projDir string, entries []outputEntry) error {
	return writeTarFrom(p, entries, func(e *outputEntry, w io.Writer) error {
		src, err := os.Open(filepath.Join(projDir, filepath.FromSlash(e.Path)))
		if err != nil {
			return err
		}
		defer src.Close()
		h := sha256.New()
		if _, err := io.CopyN(io.MultiWriter(w, h), src, e.Size); err != nil {
			return fmt.Errorf("%s changed while it was cached: %w", e.Path, err)
		}
		e.Digest = hex.EncodeToString(h.Sum(nil))
		return nil
	})
}

// writeTarFrom writes entries to the tar p; content writes each regular
// file's e.Size bytes.
func writeTarFrom(p string, entries []outputEntry, content func(e *outputEntry, w io.Writer) error) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 256<<10)
	tw := tar.NewWriter(bw)
	for i := range entries {
		e := &entries[i]
		h := &tar.Header{Name: e.Path, Mode: int64(e.Mode), Format: tar.FormatPAX, ModTime: time.Unix(0, e.MtimeNS)}
		switch e.Type {
		case 'd':
			h.Typeflag, h.Name = tar.TypeDir, e.Path+"/"
		case 'l':
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Link
		case 'f':
			h.Typeflag, h.Size = tar.TypeReg, e.Size
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if e.Type == 'f' {
			if err := content(e, tw); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// outputsIntact reports whether the outputs on disk are exactly those the
// entry recorded (same paths, types, modes, sizes, mtimes, link targets):
// then a restore would rewrite the same bytes, and is skipped.
func outputsIntact(projDir string, outputs []string, want []outputEntry) bool {
	have, err := collectOutputs(projDir, outputs)
	if err != nil || len(have) != len(want) {
		return false
	}
	for i := range have {
		w := want[i]
		w.Digest = "" // collectOutputs reads no content
		if have[i] != w {
			return false
		}
	}
	return true
}

// restore puts the entry's outputs in place of what the output globs
// match now. It extracts outputs.tar into a staging directory in the cache,
// then moves each top-level output into place with one rename (an atomic
// exchange when something is there), so that a kill leaves each output as
// it was or as the entry has it, never half extracted; what the globs
// matched that the entry does not have goes last. When the cache is on
// another file system than the project, where no rename reaches, the
// outputs are removed and extracted in place. wrote says whether it
// touched the project directory (not when the outputs were intact).
func restore(cacheDir, key, projDir string, outputs []string, m cacheMeta) (wrote bool, err error) {
	if err := confined(m, outputs); err != nil {
		return false, err
	}
	if len(outputs) == 0 {
		return false, nil
	}
	if outputsIntact(projDir, outputs, m.Outputs) {
		return false, nil
	}
	return true, restoreOutputs(cacheDir, key, projDir, outputs, m)
}

func restoreOutputs(cacheDir, key, projDir string, outputs []string, m cacheMeta) error {
	roots := outputRoots(m.Outputs)
	for _, rel := range roots {
		if err := insideProject(projDir, filepath.Dir(filepath.Join(projDir, filepath.FromSlash(rel)))); err != nil {
			return err
		}
	}
	stale := globOutputs(projDir, outputs)
	stage := stagingDir(cacheDir, projDir)
	if stage == "" {
		for _, rel := range stale {
			if err := os.RemoveAll(filepath.Join(projDir, filepath.FromSlash(rel))); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
		}
		return extract(cacheDir, key, projDir, m)
	}
	defer os.RemoveAll(stage)
	fresh := filepath.Join(stage, "new")
	if err := extract(cacheDir, key, fresh, m); err != nil {
		return err
	}
	for i, rel := range roots {
		src := filepath.Join(fresh, filepath.FromSlash(rel))
		dst := filepath.Join(projDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("restore outputs: %w", err)
		}
		if exchange(src, dst) == nil {
			continue // what was there is now in the stage, removed with it
		}
		if _, err := os.Lstat(dst); err == nil {
			if err := os.Rename(dst, filepath.Join(stage, fmt.Sprintf("old-%d", i))); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
		}
		if err := os.Rename(src, dst); err != nil {
			return fmt.Errorf("restore outputs: %w", err)
		}
	}
	for _, rel := range stale {
		if !underAny(rel, roots) {
			if err := os.RemoveAll(filepath.Join(projDir, filepath.FromSlash(rel))); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
		}
	}
	return nil
}

// outputRoots are the paths of entries no other entry contains: what a
// restore moves into place.
func outputRoots(entries []outputEntry) []string {
	var roots []string
	for _, e := range entries { // sorted: a directory before its contents
		if !underAny(e.Path, roots) {
			roots = append(roots, e.Path)
		}
	}
	return roots
}

// underAny reports whether rel is one of roots or inside one.
func underAny(rel string, roots []string) bool {
	for _, r := range roots {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

// stagingDir makes a directory to extract into under <cache>/restore, or
// returns "" when that is not on projDir's file system.
func stagingDir(cacheDir, projDir string) string {
	base := cachedir.Restore(cacheDir)
	if err := os.MkdirAll(base, 0o700); err != nil || !sameDevice(base, projDir) {
		return ""
	}
	dir, err := os.MkdirTemp(base, "r-")
	if err != nil {
		return ""
	}
	return dir
}

// removeStaleStaging removes staging directories a killed restore left
// behind (an hour is far longer than any restore takes).
func removeStaleStaging(cacheDir string) {
	base := cachedir.Restore(cacheDir)
	list, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, d := range list {
		if fi, err := d.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			_ = os.RemoveAll(filepath.Join(base, d.Name()))
		}
	}
}

// extract writes the entry's outputs.tar under dest and puts back the
// recorded modification times and directory modes.
func extract(cacheDir, key, dest string, m cacheMeta) error {
	if len(m.Outputs) == 0 {
		return nil
	}
	f, err := os.Open(filepath.Join(buildDir(cacheDir), key, outputsFile))
	if err != nil {
		return fmt.Errorf("restore outputs: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(bufio.NewReaderSize(f, 256<<10))
	var dirs []outputEntry
	entries := make(map[string]outputEntry, len(m.Outputs))
	for _, e := range m.Outputs {
		entries[e.Path] = e
	}
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			// A tar cut at a header's boundary ends like a whole one.
			if n != len(m.Outputs) {
				return fmt.Errorf("restore outputs: cache entry %s holds %d of its %d outputs", key, n, len(m.Outputs))
			}
			break
		}
		if err != nil {
			return fmt.Errorf("restore outputs: %w", err)
		}
		rel := strings.TrimSuffix(h.Name, "/")
		if !safeRel(rel) {
			return fmt.Errorf("restore outputs: unsafe path %q in cache entry %s", h.Name, key)
		}
		// The tar holds what meta.json lists (which confined checked), and
		// nothing else: a link's target and every type as listed.
		e, listed := entries[rel]
		switch {
		case !listed:
			return fmt.Errorf("restore outputs: cache entry %s holds %q, which its meta.json does not list", key, rel)
		case h.Typeflag == tar.TypeDir && e.Type != 'd', h.Typeflag == tar.TypeSymlink && (e.Type != 'l' || h.Linkname != e.Link), h.Typeflag == tar.TypeReg && e.Type != 'f':
			return fmt.Errorf("restore outputs: cache entry %s holds %q unlike its meta.json lists it", key, rel)
		}
		abs := filepath.Join(dest, filepath.FromSlash(rel))
		mode := fs.FileMode(h.Mode).Perm()
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(abs, 0o755); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
			dirs = append(dirs, outputEntry{Path: rel, Mode: uint32(mode)})
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
			_ = os.Remove(abs)
			if err := os.Symlink(h.Linkname, abs); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return fmt.Errorf("restore outputs: %w", err)
			}
			if err := extractFile(abs, tr, mode, e.Digest); err != nil {
				return fmt.Errorf("restore outputs: cache entry %s: %s: %w", key, rel, err)
			}
			if e.Path != "" {
				t := time.Unix(0, e.MtimeNS)
				_ = os.Chtimes(abs, t, t)
			}
		}
	}
	for _, d := range dirs {
		_ = os.Chmod(filepath.Join(dest, filepath.FromSlash(d.Path)), fs.FileMode(d.Mode))
	}
	return nil
}

// extractFile writes r to abs with mode; when digest is known (entries
// written since remote caching), the content must hash to it.
func extractFile(abs string, r io.Reader, mode fs.FileMode, digest string) error {
	_ = os.Remove(abs)
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	h := sha256.New()
	w := io.Writer(f)
	if digest != "" {
		w = io.MultiWriter(f, h)
	}
	if _, err := io.Copy(w, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if digest != "" && hex.EncodeToString(h.Sum(nil)) != digest {
		return errors.New("its content does not match the digest the entry recorded")
	}
	return os.Chmod(abs, mode) // the umask may have narrowed it
}

// safeRel reports whether rel stays inside the directory it is joined to.
func safeRel(rel string) bool { return fsx.CleanLocal(rel) }

// ClearCache removes every build cache entry (runs in flight finish their
// own writes) and returns how many it removed.
func (r *Runner) ClearCache() (removed int, err error) {
	return clearCache(r.opts.CacheDir)
}

func clearCache(cacheDir string) (int, error) { return trimCache(cacheDir, 0) }

// DefaultCacheCap is how many build cache entries a workspace keeps.
const DefaultCacheCap = 2000

// TrimCache removes the oldest build cache entries beyond keep (by
// modification time), so the cache directory stays bounded, and returns how
// many it removed.
func TrimCache(cacheDir string, keep int) (int, error) { return trimCache(cacheDir, keep) }

func trimCache(cacheDir string, keep int) (int, error) {
	dir := buildDir(cacheDir)
	all, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("clear cache: %w", err)
	}
	type aged struct {
		e   fs.DirEntry
		mod time.Time
	}
	var entries []aged
	for _, e := range all {
		if strings.HasPrefix(e.Name(), ".") {
			continue // a write in flight; stale ones go below
		}
		var mod time.Time
		if fi, err := e.Info(); err == nil {
			mod = fi.ModTime()
		}
		entries = append(entries, aged{e, mod})
	}
	if len(entries) <= keep {
		trimKeys(cacheDir, 2*keep)
		return 0, nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].mod.Before(entries[j].mod) })
	removed := 0
	for _, a := range entries[:len(entries)-keep] {
		e := a.e
		// Rename first so a reader never sees a half-removed entry.
		p := filepath.Join(dir, e.Name())
		doomed := filepath.Join(dir, ".rm-"+e.Name()+".tmp-"+newRunID(time.Now())[1:])
		if err := os.Rename(p, doomed); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return removed, fmt.Errorf("clear cache: %w", err)
		}
		if err := os.RemoveAll(doomed); err != nil {
			return removed, fmt.Errorf("clear cache: %w", err)
		}
		removed++
	}
	removeStaleTemps(dir, time.Hour)
	trimKeys(cacheDir, 2*keep)
	return removed, nil
}

// trimKeys keeps the newest keep recorded key parts (core hash --diff), and
// as many files of dependency parts (a part in use is touched again).
func trimKeys(cacheDir string, keep int) {
	trimNewest(keysDir(cacheDir), keep)
	trimNewest(partsDir(cacheDir), keep)
}

// trimNewest removes the files of dir but the newest keep (by
// modification time).
func trimNewest(dir string, keep int) {
	all, err := os.ReadDir(dir)
	if err != nil || len(all) <= keep {
		return
	}
	type aged struct {
		name string
		mod  time.Time
	}
	list := make([]aged, 0, len(all))
	for _, e := range all {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			list = append(list, aged{e.Name(), fi.ModTime()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].mod.Before(list[j].mod) })
	for _, a := range list[:max(0, len(list)-keep)] {
		_ = os.Remove(filepath.Join(dir, a.name))
	}
}

// CacheEntries counts the build cache entries without reading them.
func CacheEntries(cacheDir string) int {
	list, err := os.ReadDir(buildDir(cacheDir))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range list {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}
