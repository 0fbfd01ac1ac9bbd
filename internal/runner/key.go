package runner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// keyVersion changes whenever the encoding hashed into a cache key does, or
// what it covers, so entries written by an older core are never mistaken
// for current ones. v3: the whole declaration, and the inputs of the
// projects a target's project depends on.
const keyVersion = "core build cache key v3"

// keyer computes the keys of one run (or dry run): what a target reads is
// the inputs package's to say (see its package comment); the keyer hashes
// it, each file once per run while nothing writes (hashMemo), each
// dependency project's part once for all its dependents.
type keyer struct {
	ws        *workspace.Workspace
	env       *targetenv.Env // core's environment, read once for the run
	rule      *inputs.Rule
	memo      *hashMemo
	globals   *globals
	globalErr error
	tools     *toolchains
	// recorded are the digests of the parts whose files the run has kept
	// for core hash --diff (recordParts).
	recorded sync.Map

	mu    sync.Mutex
	parts map[string]*partEntry // by project name
}

type partEntry struct {
	mu  sync.Mutex
	gen uint64
	ok  bool
	d   *inputDigest
	err error
	// listed is the part's last listing: in a later generation it stands
	// while its directories are as they were (inputs.Listing.Holds), and
	// the files are hashed again through the memo, a stat each. Every
	// build bumps the generation, and each of a project's dependents asks
	// for its part again: walking it each time was most of the runner's
	// own cost per target (BENCHMARKS.md, issue 38).
	listed *inputs.Listing
}

func newKeyer(ctx context.Context, ws *workspace.Workspace, root, cacheDir string, env *targetenv.Env) *keyer {
	rule := inputs.New(ws, root, ignore.New(root, cacheDir))
	k := &keyer{ws: ws, env: env, rule: rule, memo: newHashMemo(), tools: newToolchains(), parts: map[string]*partEntry{}}
	// The global inputs (lockfiles, global_inputs) are hashed once per run:
	// they are in every key.
	k.globals, k.globalErr = hashGlobals(ctx, k, inputs.GlobalInputs(ws))
	return k
}

// keyInputs is what one target's key hashed.
type keyInputs struct {
	own    inputDigest // its own inputs, relative to its project
	root   inputDigest // its // inputs and the manifests above its project, relative to the root
	global inputDigest
	env    envPart
	tool   *ToolchainPart
	deps   []depPart // its project's dependencies' parts, by project name
}

// depPart is one dependency project's part in a key: both are shared
// with every other target of the run that reads it.
type depPart struct {
	dep *inputs.Dep
	d   *inputDigest
}

// hash lists and hashes everything t (of project p) reads.
func (k *keyer) hash(ctx context.Context, p *workspace.Project, t *workspace.Target) (keyInputs, error) {
	var in keyInputs
	if k.globalErr != nil {
		return in, fmt.Errorf("global inputs: %w", k.globalErr)
	}
	root := k.rule.Root()
	dir := projectDir(root, p)
	files, err := k.ownFiles(t, p)
	if err != nil {
		return in, fmt.Errorf("list inputs of %s: %w", t.ID(), err)
	}
	if in.own, err = digestFiles(ctx, k.memo, dir, files); err != nil {
		return in, fmt.Errorf("%s: %w", t.ID(), err)
	}
	// Its // inputs, and the manifests above its project.
	if rootFiles, enclosing := t.RootInputs, k.rule.ListEnclosing(t, p); len(rootFiles) > 0 || len(enclosing) > 0 {
		files, err := k.rule.ListRoot(rootFiles)
		if err != nil {
			return in, fmt.Errorf("%s: // inputs: %w", t.ID(), err)
		}
		files = append(files, enclosing...)
		slices.Sort(files)
		files = slices.Compact(files)
		if in.root, err = digestFiles(ctx, k.memo, root, files); err != nil {
			return in, fmt.Errorf("%s: // inputs: %w", t.ID(), err)
		}
	}
	in.global = k.globals.forProject(p.Path)
	if t.ReadsDependencies() {
		for _, d := range k.rule.Dependencies(p) {
			part, err := k.part(ctx, d.Project)
			if err != nil {
				return in, fmt.Errorf("%s: the inputs of project %s, which it depends on: %w", t.ID(), d.Project.Name, err)
			}
			in.deps = append(in.deps, depPart{dep: d, d: part})
		}
	}
	in.env = k.envOf(t)
	if len(t.Toolchain) > 0 {
		if in.tool, err = k.tools.version(ctx, dir, t.Toolchain, k.processEnv(t, dir)); err != nil {
			return in, err
		}
	}
	return in, nil
}

// ownFiles lists t's own inputs. When they are the whole of p's part
// (inputs.Rule.OwnIsPart), the listing is kept as the part's: p's
// dependents, which hash the part after p built, walk p again only if
// one of its directories changed since.
func (k *keyer) ownFiles(t *workspace.Target, p *workspace.Project) ([]string, error) {
	if !k.rule.OwnIsPart(t, p) {
		return k.rule.ListOwn(t, p)
	}
	e := k.partEntry(p)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.listed == nil || !e.listed.Holds() {
		l, err := k.rule.ListPart(p)
		if err != nil {
			e.listed = nil
			return nil, err
		}
		e.listed = l
	}
	return e.listed.Files, nil
}

func (k *keyer) partEntry(q *workspace.Project) *partEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.parts[q.Name]
	if !ok {
		e = &partEntry{}
		k.parts[q.Name] = e
	}
	return e
}

// part is project q's part, hashed once per generation of the memo: its
// dependents share it.
func (k *keyer) part(ctx context.Context, q *workspace.Project) (*inputDigest, error) {
	e := k.partEntry(q)
	e.mu.Lock()
	defer e.mu.Unlock()
	gen := k.memo.gen.Load()
	if e.ok && e.gen == gen {
		return e.d, e.err
	}
	d, err := k.hashPart(ctx, q, e)
	if err != nil && ctx.Err() != nil {
		return nil, err // not kept: a cancelled hash says nothing of the files
	}
	e.d, e.err, e.gen, e.ok = &d, err, gen, true
	return e.d, err
}

// hashPart hashes q's part: its files, then those above its directory it
// takes, named with a leading // (relative to the root). e (locked) keeps
// the listing.
func (k *keyer) hashPart(ctx context.Context, q *workspace.Project, e *partEntry) (inputDigest, error) {
	if e.listed == nil || !e.listed.Holds() {
		l, err := k.rule.ListPart(q)
		if err != nil {
			e.listed = nil
			return inputDigest{}, err
		}
		e.listed = l
	}
	files, above := e.listed.Files, e.listed.Above
	digests, err := hashFiles(ctx, k.memo, projectDir(k.rule.Root(), q), files)
	if err != nil {
		return inputDigest{}, err
	}
	if len(above) > 0 {
		more, err := hashFiles(ctx, k.memo, k.rule.Root(), above)
		if err != nil {
			return inputDigest{}, err
		}
		names := slices.Clone(files)
		for _, f := range above {
			names = append(names, "//"+f)
		}
		return digestOf(names, append(digests, more...)), nil
	}
	return digestOf(files, digests), nil
}

// computeKey is the cache key: sha256 over a versioned, length-prefixed
// encoding of the global inputs, the target's whole declaration (argv,
// inputs, outputs, dependencies, coverage, dependency_inputs, drift, the
// declared environment variables with their values, the environment's
// mode, the workspace's env: with their values, the names pass_env:
// lists, its own and the workspace's, the toolchain), its project path,
// its own and // inputs (path, kind, content hash), each dependency
// project's part, and its dependencies' keys in order. Variables neither
// the target nor the workspace declares in env: are not in its key; the
// mode is, because a loose run's target saw all of them.
func computeKey(t *workspace.Target, projectPath string, in keyInputs, depKeys []string) string {
	h := sha256.New()
	e := encoder{h: h}
	e.str(keyVersion)
	e.int(in.global.files)
	h.Write(in.global.sum[:])
	e.strs(t.Run)
	e.strs(t.Inputs)
	e.bool(t.InputsDefault)
	e.strs(t.RootInputs)
	e.strs(t.Outputs)
	e.strs(t.Deps)
	e.str(t.Coverage)
	e.str(t.DependencyInputs)
	e.bool(t.Drift)
	vars := func(vs []envVar) {
		e.int(len(vs))
		for _, v := range vs {
			e.str(v.name)
			e.bool(v.set)
			e.str(v.value)
		}
	}
	vars(in.env.own)
	e.str(in.env.mode)
	vars(in.env.workspace)
	e.strs(t.PassEnv)
	e.strs(in.env.workspacePass)
	e.strs(t.Toolchain)
	if in.tool != nil {
		e.str(in.tool.Hash)
	} else {
		e.str("")
	}
	e.str(projectPath)
	e.int(in.own.files)
	h.Write(in.own.sum[:])
	e.int(in.root.files)
	h.Write(in.root.sum[:])
	e.int(len(in.deps))
	for _, d := range in.deps {
		e.str(d.dep.Project.Name)
		e.str(d.dep.Project.Path)
		e.int(d.d.files)
		h.Write(d.d.sum[:])
	}
	e.strs(depKeys)
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

func (e *encoder) strs(list []string) {
	e.int(len(list))
	for _, s := range list {
		e.str(s)
	}
}

func (e *encoder) bool(b bool) {
	if b {
		e.byte(1)
	} else {
		e.byte(0)
	}
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
// may be a secret), only whether it is set and a hash of it. Workspace
// marks a variable of the top-level env:, which is in every key.
type EnvPart struct {
	Name      string `json:"name"`
	Set       bool   `json:"set"`
	Hash      string `json:"sha256,omitempty"`
	Workspace bool   `json:"workspace,omitempty"`
}

// Declaration is what a key holds of the target's declaration besides its
// argv, environment and toolchain.
type Declaration struct {
	Inputs           []string `json:"inputs"` // as written; ["**/*"] with default_inputs when none are
	DefaultInputs    bool     `json:"default_inputs,omitempty"`
	Outputs          []string `json:"outputs"`
	Deps             []string `json:"deps"`
	Coverage         string   `json:"coverage,omitempty"`
	DependencyInputs string   `json:"dependency_inputs"`
	Drift            bool     `json:"drift,omitempty"`
	// PassEnv is the target's pass_env: names (values are never in a key).
	PassEnv []string `json:"pass_env"`
	// FromDefaults are the keys of the declaration the target takes from
	// the defaults: of its name. Not in the key: the key hashes the
	// declaration as it ends up, wherever each part is written.
	FromDefaults []string `json:"from_defaults,omitempty"`
}

// ProjectPart is the part of a dependency project in a key: the files of
// it that its targets read, with why the target's project depends on it.
type ProjectPart struct {
	Project string   `json:"project"`
	Path    string   `json:"path"`
	Via     []string `json:"via"` // the chain of dependencies, from the target's project
	// Hash is the part's digest. Files are its files (relative to its
	// directory; those above it start with //): a recorded key keeps them
	// once per digest, beside the keys (see recordParts).
	Hash  string     `json:"sha256"`
	Files []FileHash `json:"files,omitempty"`
}

// KeyParts is every part of a target's cache key, as `core hash` shows it.
type KeyParts struct {
	Target      string      `json:"target"`
	Key         string      `json:"key"`
	Hit         bool        `json:"hit"`
	Argv        []string    `json:"argv"`
	Declaration Declaration `json:"declaration"`
	Env         []EnvPart   `json:"env"`
	// EnvMode is the environment's mode (strict, loose): in the key.
	EnvMode string `json:"env_mode"`
	// WorkspacePassEnv is the top-level pass_env: names.
	WorkspacePassEnv []string   `json:"workspace_pass_env"`
	Project          string     `json:"project_path"`
	Inputs           []FileHash `json:"inputs"`      // relative to the project
	Root             []FileHash `json:"root_inputs"` // the // inputs, relative to the root
	Global           []FileHash `json:"global_inputs"`
	// Dependencies are the parts of the projects the target's project
	// depends on, transitively (none with dependency_inputs: none).
	Dependencies []ProjectPart `json:"dependency_inputs"`
	// Toolchain is what the target's version command printed (nil when it
	// names none).
	Toolchain *ToolchainPart `json:"toolchain,omitempty"`
	Deps      []Planned      `json:"deps"` // each dependency with its key
}

// partsOf is the parts of a key the runner computed for t from in and
// the dependencies' keys; with files, each dependency project's files.
func partsOf(t *workspace.Target, projectPath, key string, in keyInputs, deps []Planned, files bool) KeyParts {
	k := KeyParts{Target: t.ID(), Key: key, Argv: t.Run, Project: projectPath, Env: []EnvPart{}, Toolchain: in.tool,
		EnvMode: in.env.mode, WorkspacePassEnv: orEmpty(in.env.workspacePass),
		Declaration: Declaration{Inputs: t.Inputs, DefaultInputs: t.InputsDefault, Outputs: t.Outputs, Deps: t.Deps, Coverage: t.Coverage, DependencyInputs: t.DependencyInputs, Drift: t.Drift, PassEnv: orEmpty(t.PassEnv), FromDefaults: t.FromDefaults},
		Inputs:      in.own.hashes(), Root: in.root.hashes(), Global: in.global.hashes(), Dependencies: []ProjectPart{}, Deps: deps}
	for _, vs := range []struct {
		vars      []envVar
		workspace bool
	}{{in.env.own, false}, {in.env.workspace, true}} {
		for _, v := range vs.vars {
			e := EnvPart{Name: v.name, Set: v.set, Workspace: vs.workspace}
			if v.set {
				sum := sha256.Sum256([]byte(v.value))
				e.Hash = hex.EncodeToString(sum[:8])
			}
			k.Env = append(k.Env, e)
		}
	}
	for _, d := range in.deps {
		pp := ProjectPart{Project: d.dep.Project.Name, Path: d.dep.Project.Path, Hash: hex.EncodeToString(d.d.sum[:])}
		if files {
			pp.Files = d.d.hashes()
		}
		for _, e := range d.dep.Chain() {
			pp.Via = append(pp.Via, e.Reason())
		}
		k.Dependencies = append(k.Dependencies, pp)
	}
	if k.Declaration.Outputs == nil {
		k.Declaration.Outputs = []string{}
	}
	if k.Declaration.Deps == nil {
		k.Declaration.Deps = []string{}
	}
	if k.Deps == nil {
		k.Deps = []Planned{}
	}
	return k
}

// keysDir holds the parts of the keys of executed runs, for `core hash
// --diff`: <cache>/keys/<key>.json, and the files of the dependency
// projects' parts they name, once per part: <cache>/keys/parts/<sha256>.json
// (a part is shared by every dependent, and a key of a target deep in a
// workspace names hundreds of files through them).
func keysDir(cacheDir string) string { return cachedir.Keys(cacheDir) }

func partsDir(cacheDir string) string { return cachedir.KeyParts(cacheDir) }

// recordParts keeps n's key for a later --diff (best effort: a failure
// loses only the explanation), and each dependency part's files the run
// has not kept yet.
func (k *keyer) recordParts(cacheDir string, n *node, deps []Planned) {
	if cacheDir == "" {
		return
	}
	if os.MkdirAll(partsDir(cacheDir), 0o700) != nil {
		return
	}
	for _, d := range n.in.deps {
		hash := hex.EncodeToString(d.d.sum[:])
		if _, done := k.recorded.LoadOrStore(hash, true); done {
			continue
		}
		p := filepath.Join(partsDir(cacheDir), hash+".json")
		if _, err := os.Stat(p); err == nil {
			_ = os.Chtimes(p, time.Now(), time.Now()) // in use: kept by trimKeys
			continue
		}
		if data, err := json.Marshal(d.d.hashes()); err == nil {
			_ = fsx.ReplaceFile(p, data, 0o600)
		}
	}
	data, err := json.Marshal(partsOf(n.t, n.p.Path, n.key, n.in, deps, false))
	if err == nil {
		_ = fsx.ReplaceFile(filepath.Join(keysDir(cacheDir), n.key+".json"), data, 0o600)
	}
}

// RecordedParts reads the parts a run recorded for key.
func RecordedParts(cacheDir, key string) (KeyParts, error) {
	var k KeyParts
	if !validHash(key) {
		return k, fmt.Errorf("%q is not a cache key", key)
	}
	data, err := os.ReadFile(filepath.Join(keysDir(cacheDir), key+".json"))
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return k, err
	}
	for i, p := range k.Dependencies {
		if p.Files != nil || !validHash(p.Hash) {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(partsDir(cacheDir), p.Hash+".json")); err == nil {
			_ = json.Unmarshal(data, &k.Dependencies[i].Files)
		}
	}
	return k, nil
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func validHash(s string) bool { return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "" }

// Explain lists every part of target's key as it is now.
func (r *Runner) Explain(ctx context.Context, ws *workspace.Workspace, target string) (KeyParts, error) {
	order, err := r.plan(ctx, ws, []string{target})
	if err != nil {
		return KeyParts{}, err
	}
	for _, n := range order {
		if n.t.ID() != target {
			continue
		}
		deps := make([]Planned, len(n.deps))
		for i, d := range n.deps {
			deps[i] = d.planned
		}
		out := partsOf(n.t, n.p.Path, n.key, n.in, deps, true)
		out.Hit = n.planned.Hit
		return out, nil
	}
	return KeyParts{}, fmt.Errorf("%s was not planned", target)
}
