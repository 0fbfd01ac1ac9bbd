package auth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/quote"
)

const (
	fileVersion = 1
)

// Record is a persistent token as tokens.json stores it and as List and
// Create report it. It holds the hash, never the secret.
type Record struct {
	ID        string    `json:"id"`
	Kind      Kind      `json:"kind"`
	Grants    []string  `json:"grants"`
	Hash      string    `json:"hash"` // hex SHA-256 of the whole token, prefix included
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Expired reports whether r has expired at now.
func (r Record) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// tokensDoc is the layout of tokens.json.
type tokensDoc struct {
	Version int      `json:"version"`
	Tokens  []Record `json:"tokens"`
}

// fileID identifies one version of tokens.json: every write is a rename of a
// new file, so the inode changes; size and times guard against inode reuse.
type fileID struct {
	exists       bool
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

func statID(fi os.FileInfo) fileID {
	id := fileID{exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctime = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return id
}

// persistSet is an immutable snapshot of tokens.json as last loaded.
type persistSet struct {
	tokens map[[sha256.Size]byte]entry
	seen   fileID // the file version last read, loaded or not
}

// ephSet is an immutable snapshot of the in-memory tokens.
type ephSet struct {
	tokens map[[sha256.Size]byte]entry
}

// Store holds the tokens of one cache directory. It is safe for concurrent
// use, and several Stores (in one process or many) may share a directory:
// writes are serialised by a file lock and readers pick up changes through
// Reload, Watch, or Authenticate's own check of the file.
type Store struct {
	dir, path, lockPath string
	now                 func() time.Time

	persist  atomic.Pointer[persistSet]
	eph      atomic.Pointer[ephSet]
	reloadMu sync.Mutex // serialises loads and installs of persist
	// lastCheck is when a hit last checked tokens.json (Unix nanoseconds).
	lastCheck atomic.Int64
	ephMu     sync.Mutex // serialises copy-on-write updates of eph
}

// Option configures OpenStore.
type Option func(*Store)

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// OpenStore opens the token store in cacheDir (created if missing), loading
// cacheDir/tokens.json. A corrupt file is an error naming the file and the fix.
func OpenStore(cacheDir string, opts ...Option) (*Store, error) {
	s := &Store{
		dir:      cacheDir,
		path:     cachedir.Tokens(cacheDir),
		lockPath: cachedir.TokensLock(cacheDir),
		now:      time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	if err := fsx.EnsureCacheDir(cacheDir); err != nil {
		return nil, err
	}
	s.eph.Store(&ephSet{tokens: map[[sha256.Size]byte]entry{}})
	s.persist.Store(&persistSet{tokens: map[[sha256.Size]byte]entry{}})
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path is the tokens file, for messages and tests.
func (s *Store) Path() string { return s.path }

// Create mints a persistent token (console or mcp) valid for ttl, stores its
// hash in tokens.json and returns the secret, which is never seen again.
// Under the file lock it re-reads the file, prunes expired records, appends
// and writes atomically, so concurrent creators (server and CLI) lose nothing.
func (s *Store) Create(kind Kind, grants Grant, ttl time.Duration) (string, Record, error) {
	if !kind.persistent() {
		return "", Record{}, fmt.Errorf("create token: kind %q cannot be stored: allowed kinds are %s and %s", kind, KindConsole, KindMCP)
	}
	if grants == None {
		return "", Record{}, fmt.Errorf("create %s token: no grant given: allowed grants are %s", kind, strings.Join(kind.allowedGrants().Strings(), ", "))
	}
	if extra := grants &^ kind.allowedGrants(); extra != None {
		return "", Record{}, fmt.Errorf("create %s token: grant %s not allowed: allowed grants are %s", kind, extra, strings.Join(kind.allowedGrants().Strings(), ", "))
	}
	if ttl <= 0 {
		return "", Record{}, fmt.Errorf("create %s token: lifetime %v must be positive (for example --expires 12h)", kind, ttl)
	}

	var rec Record
	var secret string
	err := s.update(func(recs []Record, now time.Time) ([]Record, error) {
		var sum [sha256.Size]byte
		secret, sum = newSecret(kind)
		rec = Record{
			ID:        uniqueID(recs),
			Kind:      kind,
			Grants:    grants.Strings(),
			Hash:      hex.EncodeToString(sum[:]),
			CreatedAt: now,
			ExpiresAt: now.Add(ttl),
		}
		return append(recs, rec), nil
	})
	if err != nil {
		return "", Record{}, fmt.Errorf("create %s token: %w", kind, err)
	}
	return secret, rec, nil
}

// List reads tokens.json afresh and returns its records sorted by CreatedAt
// then ID. Expired records are included (until the next write prunes them);
// the caller marks them with Record.Expired.
func (s *Store) List() ([]Record, error) {
	recs, err := s.load()
	if err != nil {
		return nil, err
	}
	sortRecords(recs)
	return recs, nil
}

// Revoke removes the persistent token with the given id.
func (s *Store) Revoke(id string) error {
	if strings.HasPrefix(id, "core_") {
		// The user passed a secret; say so without echoing it.
		return fmt.Errorf("%w: revoke takes a token id (tok_...), not the token itself; find the id with %s", ErrNotFound, listHint)
	}
	err := s.update(func(recs []Record, _ time.Time) ([]Record, error) {
		for i, r := range recs {
			if r.ID == id {
				return append(recs[:i:i], recs[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("%w: no token has id %s; find ids with %s", ErrNotFound, quote.Short(id), listHint)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	return err
}

// Reload re-reads tokens.json. On failure the last good set stays in force
// and the error (naming the file) is returned.
func (s *Store) Reload() error {
	_, err := s.load()
	return err
}

// load reads tokens.json and installs it as the persistent set.
func (s *Store) load() ([]Record, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.loadLocked()
}

// loadLocked is load for a caller holding reloadMu.
func (s *Store) loadLocked() ([]Record, error) {
	recs, id, err := s.readFile()
	if err != nil {
		// Keep the last good tokens, but remember this version so
		// Authenticate does not re-read a broken file on every request.
		old := s.persist.Load()
		s.persist.Store(&persistSet{tokens: old.tokens, seen: id})
		return nil, err
	}
	s.install(recs, id)
	return recs, nil
}

// install replaces the persistent snapshot; the caller holds reloadMu.
// A token no longer in the file is revoked: what its requests hold open
// (its Lifetime) ends.
func (s *Store) install(recs []Record, id fileID) {
	m := make(map[[sha256.Size]byte]entry, len(recs))
	for _, r := range recs {
		var sum [sha256.Size]byte
		_, _ = hex.Decode(sum[:], []byte(r.Hash)) // validated by decodeTokens
		g, _ := ParseGrants(r.Grants)
		m[sum] = entry{id: r.ID, kind: r.Kind, grants: g, expires: r.ExpiresAt}
	}
	gone := carry(s.persist.Load().tokens, m, s.now())
	s.persist.Store(&persistSet{tokens: m, seen: id})
	endAll(gone, ErrRevoked)
}

// update is a read-modify-write of tokens.json under the file lock: it reads
// the current file, applies fn, prunes expired records, writes atomically and
// installs the result.
func (s *Store) update(fn func(recs []Record, now time.Time) ([]Record, error)) error {
	lock, err := fsx.LockFile(s.lockPath)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()

	recs, _, err := s.readFile()
	if err != nil {
		return err
	}
	now := s.now().UTC()
	// fn sees expired records too, so revoking one that List showed works.
	next, err := fn(recs, now)
	if err != nil {
		return err
	}
	live := next[:0]
	for _, r := range next {
		if !r.Expired(now) {
			live = append(live, r)
		}
	}
	next = live
	sortRecords(next)
	data, err := json.MarshalIndent(tokensDoc{Version: fileVersion, Tokens: next}, "", "  ")
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	// Still under the file lock, so the file is the one just written.
	var id fileID
	if fi, err := os.Stat(s.path); err == nil {
		id = statID(fi)
	}
	s.reloadMu.Lock()
	s.install(next, id)
	s.reloadMu.Unlock()
	return nil
}

// readFile reads and validates tokens.json. A missing file is an empty set.
func (s *Store) readFile() ([]Record, fileID, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileID{}, nil
	}
	if err != nil {
		return nil, s.currentID(), fmt.Errorf("read tokens file %s: %w", s.path, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileID{}, fmt.Errorf("read tokens file %s: %w", s.path, err)
	}
	id := statID(fi)
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, id, fmt.Errorf("read tokens file %s: %w", s.path, err)
	}
	recs, err := decodeTokens(data)
	if err != nil {
		return nil, id, fmt.Errorf("tokens file %s is corrupt: %v; move it aside or delete it "+
			"(this revokes every stored console and mcp token), then mint new ones with %s",
			s.path, err, createHint)
	}
	return recs, id, nil
}

// decodeTokens parses and checks tokens.json. Its errors never quote values
// from the file: a hash is not a secret, but nothing here needs to show one.
func decodeTokens(data []byte) ([]Record, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc tokensDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Version != fileVersion {
		return nil, fmt.Errorf("version %d is not supported (this core reads version %d)", doc.Version, fileVersion)
	}
	for i, r := range doc.Tokens {
		switch {
		case r.ID == "":
			return nil, fmt.Errorf("token %d: id is empty", i)
		case !r.Kind.valid():
			return nil, fmt.Errorf("token %d (%s): unknown kind", i, r.ID)
		case len(r.Hash) != 2*sha256.Size || !isLowerHex(r.Hash):
			return nil, fmt.Errorf("token %d (%s): hash is not 64 lowercase hex characters", i, r.ID)
		}
		if _, err := ParseGrants(r.Grants); err != nil {
			return nil, fmt.Errorf("token %d (%s): %w", i, r.ID, err)
		}
	}
	return doc.Tokens, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func sortRecords(recs []Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.Before(recs[j].CreatedAt)
		}
		return recs[i].ID < recs[j].ID
	})
}

// uniqueID returns a fresh id not used by any of recs.
func uniqueID(recs []Record) string {
	for {
		id := newID()
		clash := false
		for _, r := range recs {
			if r.ID == id {
				clash = true
				break
			}
		}
		if !clash {
			return id
		}
	}
}

// Mint creates an ephemeral token (the admin credential, a pairing code, a
// share token) that lives only in this Store's memory and is never written
// to disk. A ttl <= 0 means no expiry: the token dies with the process.
// Asking for an unknown kind, or for a grant the kind may not carry (a share
// token is read-only), is a programming error and panics.
func (s *Store) Mint(kind Kind, grants Grant, ttl time.Duration) string {
	if !kind.valid() {
		panic(fmt.Sprintf("auth: Mint: unknown kind %q", kind))
	}
	if extra := grants &^ kind.allowedGrants(); extra != None {
		panic(fmt.Sprintf("auth: Mint: a %s token may not carry %s", kind, extra))
	}
	secret, sum := newSecret(kind)
	now := s.now()
	e := entry{id: newID(), kind: kind, grants: grants}
	if ttl > 0 {
		e.expires = now.Add(ttl)
	}
	e.life = newLife(now, e.expires)
	s.ephMu.Lock()
	defer s.ephMu.Unlock()
	old := s.eph.Load().tokens
	m := make(map[[sha256.Size]byte]entry, len(old)+1)
	for h, o := range old {
		if !o.expiredAt(now) { // prune as we copy
			m[h] = o
		} else {
			o.life.end(ErrExpired)
		}
	}
	m[sum] = e
	s.eph.Store(&ephSet{tokens: m})
	return secret
}

// Redeem atomically removes the ephemeral token p was authenticated with and
// reports whether this call removed it: of any number of concurrent Redeems
// of one pairing code exactly one returns true. It returns false for a token
// already redeemed, expired, or persistent (those are revoked with Revoke).
// A handler that must be single-use (the pairing exchange) proceeds only on
// true. Redeeming a share token is also how a share listener retires it.
// Either way the token's Lifetime ends (ErrRevoked), and with it whatever
// its requests hold open; the request redeeming it goes on to answer.
func (s *Store) Redeem(p Principal) bool {
	s.ephMu.Lock()
	defer s.ephMu.Unlock()
	old := s.eph.Load().tokens
	e, ok := old[p.hash]
	if !ok || e.id != p.ID {
		return false
	}
	m := make(map[[sha256.Size]byte]entry, len(old))
	for h, o := range old {
		if h != p.hash {
			m[h] = o
		}
	}
	s.eph.Store(&ephSet{tokens: m})
	e.life.end(ErrRevoked)
	return !e.expiredAt(s.now())
}
