package auth

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable time source for WithClock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openStore(t testing.TB, dir string, opts ...Option) *Store {
	t.Helper()
	s, err := OpenStore(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t testing.TB, s *Store, kind Kind, g Grant, ttl time.Duration) (string, Record) {
	t.Helper()
	secret, rec, err := s.Create(kind, g, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return secret, rec
}

// sentinels are the only errors Authenticate may return.
var sentinels = []error{ErrMissing, ErrMalformed, ErrUnknown, ErrExpired}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if err == s { //nolint:errorlint // Authenticate promises unwrapped sentinels
			return true
		}
	}
	return false
}

// assertNoSecret fails if err's text contains any part of secret's random
// body (a prefix like "core_console_" alone is not secret).
func assertNoSecret(t testing.TB, err error, secret string) {
	t.Helper()
	if err == nil || secret == "" {
		return
	}
	body := secret
	if len(secret) > secretLen {
		body = secret[len(secret)-secretLen:]
	}
	for i := 0; i+8 <= len(body); i += 8 {
		if strings.Contains(err.Error(), body[i:i+8]) {
			t.Fatalf("error leaks part of the token: %v", err)
		}
	}
}

func wantErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
}
