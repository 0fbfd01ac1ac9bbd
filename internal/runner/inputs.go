package runner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/workspace"
)

// keyVersion changes whenever the encoding hashed into a cache key does, so
// entries written by an older core are never mistaken for current ones.
const keyVersion = "core build cache key v2"

// InputMatch reports whether the file rel (slash-separated, relative to the
// target's project directory) is one of the target's inputs: it matches an
// input glob, is not inside .git or node_modules (ignore.NeverName), and is
// not one of the target's own outputs. The affected computation uses the
// same rule as the cache key, so "affected" and "would miss the cache"
// agree. A .gitignore does not make a file less of an input (see package
// ignore for why).
func InputMatch(t *workspace.Target, rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if ignore.NeverName(part) {
			return false
		}
	}
	if isOutput(t.Outputs, rel) {
		return false
	}
	globs := inputGlobs(t)
	return matchUp(globs, rel) || len(globs) > 0 && isManifest(rel)
}

// isManifest reports whether rel (relative to a project) is one of the
// project's manifests, an input of each of its targets that has inputs.
func isManifest(rel string) bool {
	return !strings.Contains(rel, "/") && slices.Contains(workspace.Manifests, rel)
}

// GlobalInputs are the globs, relative to the workspace root, whose files
// are in every target's key: the lockfiles, then global_inputs.
func GlobalInputs(ws *workspace.Workspace) []string {
	return append(workspace.DefaultGlobalInputs(), ws.GlobalInputs...)
}

// RootInputMatch reports whether the file rel (relative to the workspace
// root) is in t's key through the root: a global input, or one of t's //
// inputs. The affected computation asks it beside InputMatch.
func RootInputMatch(ws *workspace.Workspace, t *workspace.Target, rel string) bool {
	return GlobalInputMatch(ws, rel) || len(t.RootInputs) > 0 && !neverPath(rel) && matchUp(t.RootInputs, rel)
}

// GlobalInputMatch reports whether the file rel (relative to the workspace
// root) is a global input: in every target's key.
func GlobalInputMatch(ws *workspace.Workspace, rel string) bool {
	return !neverPath(rel) && matchUp(GlobalInputs(ws), rel)
}

func neverPath(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if ignore.NeverName(part) {
			return true
		}
	}
	return false
}

// inputGlobs is the target's input globs, without trailing slashes.
func inputGlobs(t *workspace.Target) []string {
	globs := t.Inputs
	if globs == nil {
		globs = workspace.DefaultInputs()
	}
	out := make([]string, 0, len(globs))
	for _, g := range globs {
		if g = strings.TrimSuffix(g, "/"); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// matchUp reports whether rel, or a directory above it, matches one of the
// globs: a glob that names a directory ("src", "src/", "bin/") takes
// everything in it, for inputs and outputs alike.
func matchUp(globs []string, rel string) bool {
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, p); ok {
				return true
			}
		}
	}
	return false
}

// OutputMatch reports whether rel (relative to t's project) is one of the
// target's outputs: the rule the review uses to call a file generated.
func OutputMatch(t *workspace.Target, rel string) bool { return isOutput(t.Outputs, rel) }

// isOutput reports whether rel, or a directory above it, matches one of the
// output globs ("bin/" names the directory bin and everything in it).
func isOutput(outputs []string, rel string) bool {
	if len(outputs) == 0 {
		return false
	}
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		if matchOutput(outputs, p) {
			return true
		}
	}
	return false
}

func matchOutput(outputs []string, rel string) bool {
	for _, o := range outputs {
		o = strings.TrimSuffix(o, "/")
		if ok, _ := doublestar.Match(o, rel); ok {
			return true
		}
	}
	return false
}

// globBase returns the directory part of a glob before its first wildcard,
// or the whole of a glob without one: "src/**/*.go" -> "src", "**/*" -> "",
// "cmd/*/main.go" -> "cmd", "web/src" -> "web/src". A directory that is
// neither above nor below any glob's base cannot hold an input.
func globBase(g string) string {
	if !strings.ContainsAny(g, `*?[{\`) {
		return g
	}
	segs := strings.Split(g, "/")
	var base []string
	for i, s := range segs {
		if i == len(segs)-1 || strings.ContainsAny(s, `*?[{\`) {
			break
		}
		base = append(base, s)
	}
	return strings.Join(base, "/")
}

// inputSet is a target's compiled input rule for one walk.
type inputSet struct {
	globs     []string
	shapes    []globShape
	all       bool // a glob matches every file ("**/*" or "**")
	outputs   []string
	rule      *ignore.Rule // its Never part: never walked
	project   string       // the project's path, to ask the rule about root-relative paths
	manifests bool         // the project's manifests are inputs too
}

// globShape is what the walk needs to know of a glob to skip directories.
type globShape struct {
	base     string // see globBase
	segments int    // number of path segments
	deep     bool   // holds "**": matches at any depth
}

func newInputSet(t *workspace.Target, projectPath string, rule *ignore.Rule) *inputSet {
	s := &inputSet{globs: inputGlobs(t), outputs: t.Outputs, rule: rule, project: projectPath, manifests: true}
	for _, g := range s.globs {
		if g == "**/*" || g == "**" {
			s.all = true
		}
		s.shapes = append(s.shapes, globShape{base: globBase(g), segments: strings.Count(g, "/") + 1, deep: strings.Contains(g, "**")})
	}
	return s
}

// dirWanted reports whether a directory may hold inputs: it (or a
// directory above it) matches a glob, or some glob can match below it.
func (s *inputSet) dirWanted(rel string) bool {
	if s.all || matchUp(s.globs, rel) {
		return true
	}
	depth := strings.Count(rel, "/") + 1
	for _, g := range s.shapes {
		if !g.deep && g.segments <= depth {
			continue // too shallow to match anything below rel
		}
		b := g.base
		if b == "" || b == rel || strings.HasPrefix(b, rel+"/") || strings.HasPrefix(rel, b+"/") {
			return true
		}
	}
	return false
}

func (s *inputSet) fileWanted(rel string) bool {
	return s.all || matchUp(s.globs, rel) || s.manifests && isManifest(rel)
}

// listInputs walks the project directory and returns the target's input
// files, slash-separated, relative to dir, sorted.
func listInputs(dir string, s *inputSet) ([]string, error) {
	if len(s.globs) == 0 {
		return nil, nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			if os.IsNotExist(err) { // removed while we walked
				return nil
			}
			return err
		}
		if p == dir {
			return nil
		}
		rel := filepath.ToSlash(p[len(dir)+1:])
		if d.IsDir() {
			if s.rule.NeverChild(path.Join(s.project, rel), d.Name()) || matchOutput(s.outputs, rel) || !s.dirWanted(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // sockets, devices, pipes
		}
		if len(s.outputs) > 0 && matchOutput(s.outputs, rel) {
			return nil
		}
		if s.fileWanted(rel) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// fileDigest is what the key records of one input file.
type fileDigest struct {
	kind byte // 'f' file, 'x' executable file, 'l' symlink (to a non-file), 's' a project's part of a lockfile
	sum  [32]byte
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashFile hashes one input. Symlinks to files are followed (their content
// is what a tool reads); other symlinks are recorded by their target.
func hashFile(abs string) (fileDigest, error) {
	f, err := os.Open(abs)
	if err != nil {
		if target, lerr := os.Readlink(abs); lerr == nil {
			return fileDigest{kind: 'l', sum: sha256.Sum256([]byte(target))}, nil
		}
		return fileDigest{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileDigest{}, err
	}
	if !fi.Mode().IsRegular() {
		target, _ := os.Readlink(abs)
		return fileDigest{kind: 'l', sum: sha256.Sum256([]byte(target))}, nil
	}
	kind := byte('f')
	if fi.Mode().Perm()&0o111 != 0 {
		kind = 'x'
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	// Small files (most of them) in one read and one Sum256.
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fileDigest{kind: kind, sum: sha256.Sum256(buf[:n])}, nil
	}
	if err != nil {
		return fileDigest{}, err
	}
	h := sha256.New()
	h.Write(buf[:n])
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return fileDigest{}, err
	}
	var d fileDigest
	d.kind = kind
	h.Sum(d.sum[:0])
	return d, nil
}

// hashWorkers is how many files one target hashes at once.
var hashWorkers = max(4, 2*runtime.GOMAXPROCS(0))

// hashFiles hashes the files (relative to dir) in parallel.
func hashFiles(ctx context.Context, dir string, files []string) ([]fileDigest, error) {
	out := make([]fileDigest, len(files))
	workers := min(len(files), hashWorkers)
	if len(files) < 8 {
		workers = 1
	}
	var (
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(files) || ctx.Err() != nil {
				return
			}
			d, err := hashFile(filepath.Join(dir, filepath.FromSlash(files[i])))
			if err != nil {
				errOnce.Do(func() { firstErr = fmt.Errorf("hash input %s: %w", files[i], err) })
				next.Store(int64(len(files)))
				return
			}
			out[i] = d
		}
	}
	for range workers - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// inputDigest is the hash of a target's inputs alone; computeKey folds it
// with the argv, the project path and the dependencies' keys.
type inputDigest struct {
	files int
	sum   [32]byte
	// What was hashed, for the key's parts (KeyParts): the files relative
	// to their base and their digests; a target's // inputs in root*.
	names       []string
	digests     []fileDigest
	rootNames   []string
	rootDigests []fileDigest
}

// hashes lists names with their digests as FileHash.
func hashes(names []string, digests []fileDigest) []FileHash {
	out := make([]FileHash, len(names))
	for i, f := range names {
		out[i] = FileHash{Path: f, Kind: string(digests[i].kind), Hash: hex.EncodeToString(digests[i].sum[:])}
	}
	return out
}

// hashInputs lists and hashes a target's inputs: its project's, and its //
// inputs from the workspace root (folded in after, when it has any).
func hashInputs(ctx context.Context, root string, rule *ignore.Rule, p *workspace.Project, t *workspace.Target) (inputDigest, error) {
	dir := projectDir(root, p)
	files, err := listInputs(dir, newInputSet(t, p.Path, rule))
	if err != nil {
		return inputDigest{}, fmt.Errorf("list inputs of %s: %w", t.ID(), err)
	}
	d, err := digestFiles(ctx, dir, files)
	if err != nil {
		return inputDigest{}, fmt.Errorf("%s: %w", t.ID(), err)
	}
	if len(t.RootInputs) == 0 {
		return d, nil
	}
	r, err := hashRootGlobs(ctx, root, rule, t.RootInputs)
	if err != nil {
		return inputDigest{}, fmt.Errorf("%s: // inputs: %w", t.ID(), err)
	}
	h := sha256.New()
	h.Write(d.sum[:])
	h.Write(r.sum[:])
	out := inputDigest{files: d.files + r.files, names: d.names, digests: d.digests, rootNames: r.names, rootDigests: r.digests}
	h.Sum(out.sum[:0])
	return out, nil
}

// hashRootGlobs lists and hashes the files under root that globs (relative
// to root) match: the global inputs, or a target's // inputs.
func hashRootGlobs(ctx context.Context, root string, rule *ignore.Rule, globs []string) (inputDigest, error) {
	files, err := listRootGlobs(root, rule, globs)
	if err != nil {
		return inputDigest{}, err
	}
	return digestFiles(ctx, root, files)
}

// listRootGlobs lists the files under root that globs (relative to root)
// match, sorted.
func listRootGlobs(root string, rule *ignore.Rule, globs []string) ([]string, error) {
	s := &inputSet{rule: rule, project: "."}
	for _, g := range globs {
		if g = strings.TrimSuffix(g, "/"); g != "" {
			s.globs = append(s.globs, g)
			s.shapes = append(s.shapes, globShape{base: globBase(g), segments: strings.Count(g, "/") + 1, deep: strings.Contains(g, "**")})
		}
	}
	return listInputs(root, s)
}

// digestFiles hashes files (relative to dir) into one digest.
func digestFiles(ctx context.Context, dir string, files []string) (inputDigest, error) {
	digests, err := hashFiles(ctx, dir, files)
	if err != nil {
		return inputDigest{}, err
	}
	return digestOf(files, digests), nil
}

// digestOf folds files and their digests into one digest.
func digestOf(files []string, digests []fileDigest) inputDigest {
	h := sha256.New()
	var e encoder
	e.h = h
	e.int(len(files))
	for i, f := range files {
		e.str(f)
		e.byte(digests[i].kind)
		h.Write(digests[i].sum[:])
	}
	d := inputDigest{files: len(files), names: files, digests: digests}
	h.Sum(d.sum[:0])
	return d
}

// computeKey is the cache key: sha256 over a versioned, length-prefixed
// encoding of the global inputs (the lockfiles and global_inputs), argv, the declared environment variables (name, whether it
// is set, its value), the project path, the inputs (path, kind, content
// hash) and the dependencies' keys in order. Variables a target does not
// declare in env: are not in its key.
func computeKey(t *workspace.Target, projectPath string, in, global inputDigest, tool *ToolchainPart, depKeys []string) string {
	h := sha256.New()
	e := encoder{h: h}
	e.str(keyVersion)
	e.int(global.files)
	h.Write(global.sum[:])
	e.int(len(t.Run))
	for _, a := range t.Run {
		e.str(a)
	}
	if len(t.Env) > 0 {
		// Only a target that declares env adds to the encoding, so that the
		// keys of every other target stay what they were.
		e.str("env")
		e.int(len(t.Env))
		for _, name := range t.Env {
			e.str(name)
			v, set := os.LookupEnv(name)
			if set {
				e.byte(1)
			} else {
				e.byte(0)
			}
			e.str(v)
		}
	}
	if tool != nil {
		// Only a target that names a toolchain adds to the encoding.
		e.str("toolchain")
		e.str(tool.Hash)
	}
	e.str(projectPath)
	e.int(in.files)
	h.Write(in.sum[:])
	e.int(len(depKeys))
	for _, k := range depKeys {
		e.str(k)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type encoder struct {
	h   io.Writer
	buf [binary.MaxVarintLen64]byte
}

func (e *encoder) int(n int) {
	k := binary.PutUvarint(e.buf[:], uint64(n))
	e.h.Write(e.buf[:k])
}

func (e *encoder) str(s string) {
	e.int(len(s))
	io.WriteString(e.h, s)
}

func (e *encoder) byte(b byte) {
	e.buf[0] = b
	e.h.Write(e.buf[:1])
}

func projectDir(root string, p *workspace.Project) string {
	return filepath.Join(root, filepath.FromSlash(p.Path))
}

// FileHash is one file of a key: its path, kind (f file, x executable, l
// symlink, s the part of an npm lockfile the project resolves) and content
// hash.
type FileHash struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Hash string `json:"sha256"`
}

// EnvPart is one declared variable of a key. Its value is not shown (it
// may be a secret), only whether it is set and a hash of it.
type EnvPart struct {
	Name string `json:"name"`
	Set  bool   `json:"set"`
	Hash string `json:"sha256,omitempty"`
}

// KeyParts is every part of a target's cache key, as `core hash` shows it.
type KeyParts struct {
	Target  string     `json:"target"`
	Key     string     `json:"key"`
	Hit     bool       `json:"hit"`
	Argv    []string   `json:"argv"`
	Env     []EnvPart  `json:"env"`
	Project string     `json:"project_path"`
	Inputs  []FileHash `json:"inputs"`      // relative to the project
	Root    []FileHash `json:"root_inputs"` // the // inputs, relative to the root
	Global  []FileHash `json:"global_inputs"`
	// Toolchain is what the target's version command printed (nil when it
	// names none).
	Toolchain *ToolchainPart `json:"toolchain,omitempty"`
	Deps      []Planned      `json:"deps"` // each dependency with its key
}

// partsOf is the parts of a key the runner computed for t from in and
// global (the files and their digests kept from hashing), argv, env and
// the dependencies' keys.
func partsOf(t *workspace.Target, projectPath, key string, in, global inputDigest, tool *ToolchainPart, deps []Planned) KeyParts {
	k := KeyParts{Target: t.ID(), Key: key, Argv: t.Run, Project: projectPath, Env: []EnvPart{}, Toolchain: tool,
		Inputs: hashes(in.names, in.digests), Root: hashes(in.rootNames, in.rootDigests), Global: hashes(global.names, global.digests), Deps: deps}
	for _, name := range t.Env {
		v, set := os.LookupEnv(name)
		e := EnvPart{Name: name, Set: set}
		if set {
			sum := sha256.Sum256([]byte(v))
			e.Hash = hex.EncodeToString(sum[:8])
		}
		k.Env = append(k.Env, e)
	}
	if k.Deps == nil {
		k.Deps = []Planned{}
	}
	return k
}

// keysDir holds the parts of the keys of executed runs, for `core hash
// --diff`: <cache>/keys/<key>.json.
func keysDir(cacheDir string) string { return filepath.Join(cacheDir, "keys") }

// recordParts keeps k for a later --diff (best effort: a failure loses
// only the explanation).
func recordParts(cacheDir string, k KeyParts) {
	if cacheDir == "" {
		return
	}
	data, err := json.Marshal(k)
	if err != nil {
		return
	}
	if os.MkdirAll(keysDir(cacheDir), 0o700) == nil {
		_ = fsx.ReplaceFile(filepath.Join(keysDir(cacheDir), k.Key+".json"), data, 0o600)
	}
}

// RecordedParts reads the parts a run recorded for key.
func RecordedParts(cacheDir, key string) (KeyParts, error) {
	var k KeyParts
	if len(key) != 64 || strings.Trim(key, "0123456789abcdef") != "" {
		return k, fmt.Errorf("%q is not a cache key", key)
	}
	data, err := os.ReadFile(filepath.Join(keysDir(cacheDir), key+".json"))
	if err != nil {
		return k, err
	}
	return k, json.Unmarshal(data, &k)
}

// Explain lists every part of target's key as it is now.
func (r *Runner) Explain(ctx context.Context, ws *workspace.Workspace, target string) (KeyParts, error) {
	planned, err := r.Plan(ctx, ws, []string{target})
	if err != nil {
		return KeyParts{}, err
	}
	self := planned[len(planned)-1]
	for _, p := range planned {
		if p.Target == target {
			self = p
		}
	}
	t := ws.Target(target)
	p := ws.Project(t.Project)
	root := r.opts.Root
	if root == "" {
		root = ws.Root
	}
	rule := ignore.New(root, r.opts.CacheDir)
	out := KeyParts{Target: target, Key: self.Key, Hit: self.Hit, Argv: t.Run, Project: p.Path, Env: []EnvPart{}, Toolchain: self.tool}
	for _, name := range t.Env {
		v, set := os.LookupEnv(name)
		e := EnvPart{Name: name, Set: set}
		if set {
			sum := sha256.Sum256([]byte(v))
			e.Hash = hex.EncodeToString(sum[:8])
		}
		out.Env = append(out.Env, e)
	}
	dir := projectDir(root, p)
	files, err := listInputs(dir, newInputSet(t, p.Path, rule))
	if err != nil {
		return out, err
	}
	if out.Inputs, err = fileHashes(ctx, dir, files); err != nil {
		return out, err
	}
	files, err = listRootGlobs(root, rule, t.RootInputs)
	if err != nil {
		return out, err
	}
	if out.Root, err = fileHashes(ctx, root, files); err != nil {
		return out, err
	}
	global, err := hashGlobals(ctx, root, rule, GlobalInputs(ws))
	if err != nil {
		return out, err
	}
	g := global.forProject(p.Path)
	out.Global = hashes(g.names, g.digests)
	byTarget := map[string]Planned{}
	for _, pl := range planned {
		byTarget[pl.Target] = pl
	}
	out.Deps = []Planned{}
	for _, d := range self.Deps {
		out.Deps = append(out.Deps, byTarget[d])
	}
	return out, nil
}

func fileHashes(ctx context.Context, dir string, files []string) ([]FileHash, error) {
	digests, err := hashFiles(ctx, dir, files)
	if err != nil {
		return nil, err
	}
	out := make([]FileHash, len(files))
	for i, f := range files {
		out[i] = FileHash{Path: f, Kind: string(digests[i].kind), Hash: hex.EncodeToString(digests[i].sum[:])}
	}
	return out, nil
}
