package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A whole lockfile in every key rebuilds every target when one dependency
// moves. npm's lockfile (v2 and v3, and npm-shrinkwrap.json) says which
// installed package each package resolves, so a target's key takes only
// the part its project resolves: the entries of the root package, of the
// packages in the project's directory (its own, a workspace of the root),
// and of every external package they reach, followed through dependencies
// as Node resolves them.
// That is what Turborepo hashes too. A lockfile of any other kind, or one
// that does not parse, stays whole in every key.

// npmLockNames are the root files read as npm lockfiles.
var npmLockNames = []string{"package-lock.json", "npm-shrinkwrap.json"}

// npmLock is a parsed npm lockfile.
type npmLock struct {
	entries map[string]npmEntry // by install path; "" is the root package
	paths   []string            // the entries' install paths, sorted
	mu      sync.Mutex
	slices  map[string][32]byte // by project path
}

type npmEntry struct {
	raw  []byte // the entry's JSON, compacted: any change to it counts
	link bool   // a workspace package, linked into node_modules
	deps []string
}

// maxLockSize bounds the lockfile read and decoded (a large monorepo's is
// a few tens of megabytes). A larger one stays whole in every key.
const maxLockSize = 256 << 20

// parseNPMLock reads an npm lockfile; ok is false when it is not one this
// slicing understands (lockfileVersion 1 has no "packages").
func parseNPMLock(data []byte) (*npmLock, bool) {
	if len(data) > maxLockSize {
		return nil, false
	}
	var doc struct {
		LockfileVersion int                        `json:"lockfileVersion"`
		Packages        map[string]json.RawMessage `json:"packages"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.LockfileVersion < 2 || doc.Packages == nil {
		return nil, false
	}
	l := &npmLock{entries: make(map[string]npmEntry, len(doc.Packages)), slices: map[string][32]byte{}}
	for p, raw := range doc.Packages {
		var e struct {
			Link                 bool              `json:"link"`
			Dependencies         map[string]string `json:"dependencies"`
			DevDependencies      map[string]string `json:"devDependencies"`
			OptionalDependencies map[string]string `json:"optionalDependencies"`
			PeerDependencies     map[string]string `json:"peerDependencies"`
		}
		if json.Unmarshal(raw, &e) != nil {
			return nil, false
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return nil, false
		}
		var deps []string
		for _, m := range []map[string]string{e.Dependencies, e.DevDependencies, e.OptionalDependencies, e.PeerDependencies} {
			for name := range m {
				deps = append(deps, name)
			}
		}
		slices.Sort(deps)
		l.entries[p] = npmEntry{raw: buf.Bytes(), link: e.Link, deps: slices.Compact(deps)}
		l.paths = append(l.paths, p)
	}
	slices.Sort(l.paths)
	return l, true
}

// slice is the digest of the part of the lockfile the project at
// projectPath (relative to the workspace root, "." for the root) resolves.
func (l *npmLock) slice(projectPath string) [32]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.slices[projectPath]; ok {
		return s
	}
	seen := map[string]bool{}
	var missing []string
	var walk func(at string)
	walk = func(at string) {
		if seen[at] {
			return
		}
		seen[at] = true
		for _, name := range l.entries[at].deps {
			got, ok := l.resolve(at, name)
			switch {
			case !ok:
				// Not installed (an optional or peer dependency): its
				// arrival changes the slice.
				missing = append(missing, at+"\x00"+name)
			case !l.entries[got].link:
				// A linked workspace package is a project of its own:
				// its part is in its own targets' keys, and in this
				// one's through their keys when the target depends on them.
				walk(got)
			}
		}
	}
	walk("")
	// The project's own package, and any package the lockfile places
	// inside the project's directory (a project that holds workspaces of
	// its own; the root project holds them all).
	p := strings.TrimPrefix(path.Clean(projectPath), "./")
	if p == "." {
		for _, at := range l.paths {
			walk(at)
		}
	} else {
		// The sorted paths from p on that start with it: p itself, what
		// is under p/, and siblings such as p-web, which are not.
		under := p + "/"
		i, _ := slices.BinarySearch(l.paths, p)
		for ; i < len(l.paths) && strings.HasPrefix(l.paths[i], p); i++ {
			if at := l.paths[i]; at == p || strings.HasPrefix(at, under) {
				walk(at)
			}
		}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	slices.Sort(missing)
	h := sha256.New()
	e := encoder{h: h}
	e.int(len(paths))
	for _, p := range paths {
		e.str(p)
		e.str(string(l.entries[p].raw))
	}
	e.int(len(missing))
	for _, m := range missing {
		e.str(m)
	}
	var s [32]byte
	h.Sum(s[:0])
	l.slices[projectPath] = s
	return s
}

// resolve finds the package name as Node does from the package installed
// at at: in at/node_modules, then in each directory above it.
func (l *npmLock) resolve(at, name string) (string, bool) {
	for dir := at; ; {
		p := "node_modules/" + name
		if dir != "" && dir != "." {
			p = dir + "/" + p
		}
		if _, ok := l.entries[p]; ok {
			return p, true
		}
		up := path.Dir(dir)
		// Dir stops at "." for a relative path, as npm writes them, and
		// at "/" for an absolute one, which a damaged lockfile may hold.
		if dir == "" || dir == "." || up == dir {
			return "", false
		}
		dir = up
	}
}

// globals is a run's global inputs (the lockfiles, global_inputs), hashed
// once: every file whole, but an npm lockfile, of which each project's
// targets take their part.
type globals struct {
	d      inputDigest
	lock   *npmLock
	lockAt int // the lockfile's index in d.names
}

func hashGlobals(ctx context.Context, k *keyer, globs []string) (*globals, error) {
	root := k.rule.Root()
	files, err := k.rule.ListRoot(globs)
	if err != nil {
		return nil, err
	}
	d, err := digestFiles(ctx, k.memo, root, files)
	if err != nil {
		return nil, err
	}
	g := &globals{d: d}
	for i, name := range d.names {
		if !slices.Contains(npmLockNames, name) {
			continue
		}
		abs := filepath.Join(root, name)
		if st, err := os.Stat(abs); err != nil || st.Size() > maxLockSize {
			continue
		}
		if data, err := os.ReadFile(abs); err == nil {
			if l, ok := parseNPMLock(data); ok {
				g.lock, g.lockAt = l, i
				break
			}
		}
	}
	return g, nil
}

// forProject is the global part of the key of a target of the project at
// projectPath: the npm lockfile's entry (kind 's') is the project's part.
func (g *globals) forProject(projectPath string) inputDigest {
	if g.lock == nil {
		return g.d
	}
	digests := slices.Clone(g.d.digests)
	digests[g.lockAt] = fileDigest{kind: 's', sum: g.lock.slice(projectPath)}
	return digestOf(g.d.names, digests)
}
