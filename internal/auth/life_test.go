package auth

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitEnd waits for a lifetime to end (generously: nothing here is about
// speed) and returns its cause, or nil when it did not end.
func waitEnd(life context.Context, within time.Duration) error {
	select {
	case <-life.Done():
		return context.Cause(life)
	case <-time.After(within):
		return nil
	}
}

// TestATokensLifetimeEndsWhenTheTokenDies: what a request holds open ends
// with its token, however the token dies; an unrelated change leaves it.
func TestATokensLifetimeEndsWhenTheTokenDies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact string
		// setup returns the principal and kills (or spares) its token.
		run  func(t *testing.T, dir string) (Principal, func())
		want error // nil: it lives on
	}{
		{"a token revoked by another process ends through Watch", func(t *testing.T, dir string) (Principal, func()) {
			server := openStore(t, dir)
			secret, rec := create(t, server, KindConsole, ConsoleRead, time.Hour)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = server.Watch(ctx, nil) }()
			t.Cleanup(func() { cancel(); <-done })
			return authenticate(t, server, secret), func() { inOtherProcess(t, dir, "revoke "+rec.ID) }
		}, ErrRevoked},
		{"a token revoked in the same store ends", func(t *testing.T, dir string) (Principal, func()) {
			s := openStore(t, dir)
			secret, rec := create(t, s, KindMCP, MCP, time.Hour)
			return authenticate(t, s, secret), func() {
				if err := s.Revoke(rec.ID); err != nil {
					t.Fatal(err)
				}
			}
		}, ErrRevoked},
		{"a retired share token ends", func(t *testing.T, dir string) (Principal, func()) {
			s := openStore(t, dir)
			p := authenticate(t, s, s.Mint(KindShare, ConsoleRead, time.Hour))
			return p, func() { s.Redeem(p) }
		}, ErrRevoked},
		{"a token past its expiry ends", func(t *testing.T, dir string) (Principal, func()) {
			s := openStore(t, dir)
			return authenticate(t, s, s.Mint(KindShare, ConsoleRead, 50*time.Millisecond)), func() {}
		}, ErrExpired},
		{"a token that lives on is not ended by another's creation or revocation", func(t *testing.T, dir string) (Principal, func()) {
			s := openStore(t, dir)
			secret, _ := create(t, s, KindConsole, ConsoleRead, time.Hour)
			_, other := create(t, s, KindConsole, ConsoleRead, time.Hour)
			return authenticate(t, s, secret), func() {
				create(t, s, KindMCP, MCP, time.Hour)
				if err := s.Revoke(other.ID); err != nil {
					t.Fatal(err)
				}
				if err := s.Reload(); err != nil {
					t.Fatal(err)
				}
			}
		}, nil},
	} {
		t.Run(c.fact, func(t *testing.T) {
			t.Parallel()
			p, kill := c.run(t, t.TempDir())
			life := p.Lifetime()
			if life == nil || life.Err() != nil {
				t.Fatalf("a live token's lifetime is %v", life)
			}
			kill()
			within := 30 * time.Second
			if c.want == nil {
				within = 200 * time.Millisecond // long enough to see a wrong end
			}
			if got := waitEnd(life, within); !errors.Is(got, c.want) && !(c.want == nil && got == nil) {
				t.Errorf("the lifetime ended with %v, want %v", got, c.want)
			}
		})
	}
}

func TestAPrincipalNoStoreMadeNeverDies(t *testing.T) {
	t.Parallel()
	if (Principal{ID: "tok_x", Kind: KindConsole}).Lifetime() != nil {
		t.Error("a principal made by hand has a lifetime")
	}
}

func authenticate(t *testing.T, s *Store, secret string) Principal {
	t.Helper()
	p, err := s.Authenticate("Bearer " + secret)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
