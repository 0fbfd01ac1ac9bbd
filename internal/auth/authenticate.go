package auth

import (
	"crypto/sha256"
	"os"
	"time"
)

// Authenticate checks the raw value of an Authorization header and returns
// the principal of its token. The scheme "Bearer" is matched in any case and
// must be followed by exactly one space and the token.
//
// Errors are the package sentinels, unwrapped: ErrMissing (no bearer token),
// ErrMalformed (not shaped like a core token), ErrExpired, ErrUnknown. They
// never contain the token.
//
// The success path does not allocate: the token is hashed through a stack
// buffer and looked up in immutable snapshots (ephemeral tokens first). When
// the hash is unknown and tokens.json has changed on disk since it was last
// read, the file is reloaded once and the lookup retried, so a token the CLI
// has just created works before the watcher notices.
func (s *Store) Authenticate(authorization string) (Principal, error) {
	tok, err := bearer(authorization)
	if err != nil {
		return Principal{}, err
	}
	if !wellFormed(tok) {
		return Principal{}, ErrMalformed
	}
	sum := hashToken(tok)
	if e, ok := s.eph.Load().tokens[sum]; ok {
		return s.principal(&e, sum)
	}
	set := s.persist.Load()
	if e, ok := set.tokens[sum]; ok {
		// A revocation by another process must not depend on the file
		// watcher alone (it may not exist): at most once a second, a hit
		// checks that tokens.json has not changed under it.
		if s.recheckDue() && s.refresh(set) {
			if e, ok := s.persist.Load().tokens[sum]; ok {
				return s.principal(&e, sum)
			}
			return Principal{}, ErrUnknown
		}
		return s.principal(&e, sum)
	}
	if s.refresh(set) {
		if e, ok := s.persist.Load().tokens[sum]; ok {
			return s.principal(&e, sum)
		}
	}
	return Principal{}, ErrUnknown
}

// recheckEvery bounds how stale a revocation can be when the watcher
// misses it.
const recheckEvery = int64(time.Second)

// recheckDue reports, for one caller a second, that it is time to look at
// tokens.json again.
func (s *Store) recheckDue() bool {
	now := s.now().UnixNano()
	last := s.lastCheck.Load()
	return now-last >= recheckEvery && s.lastCheck.CompareAndSwap(last, now)
}

func (s *Store) principal(e *entry, sum [sha256.Size]byte) (Principal, error) {
	if e.expiredAt(s.now()) {
		return Principal{}, ErrExpired
	}
	return Principal{ID: e.id, Kind: e.kind, Grants: e.grants, ExpiresAt: e.expires, hash: sum, life: e.life.ctx}, nil
}

// refresh reloads tokens.json if it differs from the version set was read
// from, and reports whether a reload happened. A failed reload keeps the old
// tokens (and is reported by Watch or an explicit Reload, not here).
func (s *Store) refresh(set *persistSet) bool {
	id := s.currentID()
	if id == set.seen {
		return false
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if cur := s.persist.Load(); cur.seen == id {
		return cur != set // another request loaded this version meanwhile
	}
	_, err := s.loadLocked()
	return err == nil
}

// currentID stats tokens.json; a missing file has the zero fileID.
func (s *Store) currentID() fileID {
	fi, err := os.Stat(s.path)
	if err != nil {
		return fileID{}
	}
	return statID(fi)
}
