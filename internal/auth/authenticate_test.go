package auth

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/corehq/core/internal/cachedir"
	"time"
)

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := openStore(t, t.TempDir(), WithClock(clk.Now))
	console, rec := create(t, s, KindConsole, ConsoleRead|ConsoleWrite, 12*time.Hour)
	mcp, _ := create(t, s, KindMCP, MCP, time.Hour)
	shortLived, _ := create(t, s, KindConsole, ConsoleRead, time.Minute)
	admin := s.Mint(KindAdmin, Admin, 0)
	share := s.Mint(KindShare, ConsoleRead, time.Minute)
	clk.Advance(2 * time.Minute) // shortLived and share are now expired

	unknown, _ := newSecret(KindConsole) // well formed, never stored
	body := console[len("core_console_"):]

	for _, tc := range []struct {
		name   string
		header string
		err    error
		kind   Kind
		grants Grant
	}{
		{"a_console_token_is_accepted", "Bearer " + console, nil, KindConsole, ConsoleRead | ConsoleWrite},
		{"lowercase_bearer_is_accepted", "bearer " + console, nil, KindConsole, ConsoleRead | ConsoleWrite},
		{"uppercase_BEARER_is_accepted", "BEARER " + console, nil, KindConsole, ConsoleRead | ConsoleWrite},
		{"an_mcp_token_is_accepted", "Bearer " + mcp, nil, KindMCP, MCP},
		{"an_ephemeral_admin_token_without_expiry_is_accepted", "Bearer " + admin, nil, KindAdmin, Admin},
		{"an_empty_header_is_missing", "", ErrMissing, "", 0},
		{"a_bare_scheme_is_missing", "Bearer", ErrMissing, "", 0},
		{"a_scheme_and_space_is_missing", "Bearer ", ErrMissing, "", 0},
		{"basic_auth_is_missing", "Basic dXNlcjpwYXNz", ErrMissing, "", 0},
		{"a_token_without_scheme_is_missing", console, ErrMissing, "", 0},
		{"a_scheme_without_space_is_missing", "Bearer" + console, ErrMissing, "", 0},
		{"a_unicode_lookalike_scheme_is_missing", "Beare\u0280 " + console, ErrMissing, "", 0},
		{"two_spaces_are_malformed", "Bearer  " + console, ErrMalformed, "", 0},
		{"a_tab_after_the_scheme_is_missing", "Bearer\t" + console, ErrMissing, "", 0},
		{"a_trailing_space_is_malformed", "Bearer " + console + " ", ErrMalformed, "", 0},
		{"a_wrong_prefix_is_refused", "Bearer core_bogus_" + body, ErrMalformed, "", 0},
		{"a_foreign_prefix_is_refused", "Bearer ghp_" + body, ErrMalformed, "", 0},
		{"an_uppercase_prefix_is_refused", "Bearer CORE_CONSOLE_" + body, ErrMalformed, "", 0},
		{"a_truncated_token_is_refused", "Bearer " + console[:len(console)-1], ErrMalformed, "", 0},
		{"an_extended_token_is_refused", "Bearer " + console + "A", ErrMalformed, "", 0},
		{"a_non_base64url_char_is_refused", "Bearer core_console_" + body[:42] + "+", ErrMalformed, "", 0},
		{"a_token_with_another_kinds_prefix_is_unknown", "Bearer core_mcp_" + body, ErrUnknown, "", 0},
		{"an_unknown_token_is_refused", "Bearer " + unknown, ErrUnknown, "", 0},
		{"an_expired_token_is_refused", "Bearer " + shortLived, ErrExpired, "", 0},
		{"an_expired_share_token_is_refused", "Bearer " + share, ErrExpired, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.Authenticate(tc.header)
			if tc.err != nil {
				if err != tc.err { //nolint:errorlint // sentinels are returned unwrapped
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if p != (Principal{}) {
					t.Fatalf("a refused token still gave a principal: %+v", p)
				}
				for _, sec := range []string{console, mcp, shortLived, admin, share, unknown} {
					assertNoSecret(t, err, sec)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if p.Kind != tc.kind || p.Grants != tc.grants {
				t.Fatalf("principal = %+v, want kind %s grants %v", p, tc.kind, tc.grants)
			}
		})
	}

	t.Run("the_principal_carries_the_record_id_and_expiry", func(t *testing.T) {
		p, err := s.Authenticate("Bearer " + console)
		if err != nil || p.ID != rec.ID || !p.ExpiresAt.Equal(rec.ExpiresAt) {
			t.Fatalf("principal = %+v, %v; want id %s expiring %v", p, err, rec.ID, rec.ExpiresAt)
		}
	})
}

func TestTokenShape(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	for _, k := range []Kind{KindConsole, KindShare, KindMCP, KindAdmin, KindPair} {
		t.Run(string(k)+"_tokens_have_a_readable_prefix_and_256_random_bits", func(t *testing.T) {
			var tok string
			if k.persistent() {
				tok, _ = create(t, s, k, k.allowedGrants(), time.Hour)
			} else {
				tok = s.Mint(k, k.allowedGrants(), time.Hour)
			}
			re := regexp.MustCompile(`^core_` + string(k) + `_[A-Za-z0-9_-]{43}$`)
			if !re.MatchString(tok) {
				t.Fatalf("token %q does not match %s", tok, re)
			}
			if !wellFormed(tok) {
				t.Fatal("a minted token is not wellFormed")
			}
		})
	}
	t.Run("two_tokens_differ", func(t *testing.T) {
		a, b := s.Mint(KindPair, Pair, time.Minute), s.Mint(KindPair, Pair, time.Minute)
		if a == b {
			t.Fatal("two mints gave the same token")
		}
	})
}

// TestHelperProcess is not a test: it is the "other process" (standing in for
// the CLI) that the tests below start. It does what CORE_AUTH_HELPER says.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("CORE_AUTH_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	s, err := OpenStore(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	switch arg := os.Getenv("CORE_AUTH_HELPER"); {
	case arg == "create":
		secret, rec, err := s.Create(KindConsole, ConsoleRead, time.Hour)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(rec.ID)
		fmt.Println(secret)
	case strings.HasPrefix(arg, "revoke "):
		if err := s.Revoke(strings.TrimPrefix(arg, "revoke ")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(0)
}

// inOtherProcess runs TestHelperProcess with the given action on dir and
// returns its stdout lines.
func inOtherProcess(t *testing.T, dir, action string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "CORE_AUTH_HELPER_DIR="+dir, "CORE_AUTH_HELPER="+action)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %q: %v", action, err)
	}
	return strings.Fields(string(out))
}

func TestAnotherProcess(t *testing.T) {
	t.Parallel()

	t.Run("a_token_created_by_another_process_is_accepted_without_restart", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		server := openStore(t, dir)
		// The server already holds a token, so its snapshot is not empty.
		create(t, server, KindConsole, ConsoleRead, time.Hour)
		out := inOtherProcess(t, dir, "create")
		p, err := server.Authenticate("Bearer " + out[1])
		if err != nil {
			t.Fatalf("token from the CLI refused: %v", err)
		}
		if p.ID != out[0] || p.Grants != ConsoleRead {
			t.Fatalf("principal = %+v, want id %s", p, out[0])
		}
	})

	t.Run("a_revocation_by_another_process_is_seen_after_Reload", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		server := openStore(t, dir)
		secret, rec := create(t, server, KindConsole, ConsoleRead, time.Hour)
		if _, err := server.Authenticate("Bearer " + secret); err != nil {
			t.Fatal(err)
		}
		inOtherProcess(t, dir, "revoke "+rec.ID)
		if err := server.Reload(); err != nil {
			t.Fatal(err)
		}
		_, err := server.Authenticate("Bearer " + secret)
		wantErr(t, err, ErrUnknown)
	})

	t.Run("without_a_watcher_a_revocation_is_seen_a_second_later", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		server := openStore(t, dir, WithClock(clock))
		cli := openStore(t, dir)
		secret, rec := create(t, server, KindConsole, ConsoleRead, time.Hour)
		if _, err := server.Authenticate("Bearer " + secret); err != nil {
			t.Fatal(err)
		}
		if err := cli.Revoke(rec.ID); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		now = now.Add(1100 * time.Millisecond)
		mu.Unlock()
		_, err := server.Authenticate("Bearer " + secret)
		wantErr(t, err, ErrUnknown)
	})

	t.Run("a_revocation_by_another_store_is_seen_through_Watch", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		server := openStore(t, dir)
		cli := openStore(t, dir)
		secret, rec := create(t, server, KindConsole, ConsoleRead, time.Hour)
		keep, _ := create(t, cli, KindConsole, ConsoleRead, time.Hour)

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- server.Watch(ctx, func(err error) { t.Errorf("watch: %v", err) })
		}()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Watch returned %v", err)
			}
		}()

		if _, err := server.Authenticate("Bearer " + secret); err != nil {
			t.Fatal(err)
		}
		if err := cli.Revoke(rec.ID); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, err := server.Authenticate("Bearer " + secret)
			if err == ErrUnknown { //nolint:errorlint
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("revoked token still accepted after 5s: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := server.Authenticate("Bearer " + keep); err != nil {
			t.Fatalf("a token that was not revoked is refused: %v", err)
		}
	})

	t.Run("deleting_tokens_json_revokes_every_stored_token_through_Watch", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		server := openStore(t, dir)
		secret, _ := create(t, server, KindConsole, ConsoleRead, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = server.Watch(ctx, nil) }()
		time.Sleep(50 * time.Millisecond) // let the watch start
		if err := os.Remove(cachedir.Tokens(dir)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, err := server.Authenticate("Bearer " + secret); err == ErrUnknown { //nolint:errorlint
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("token still accepted after its file was deleted")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestPairingCode(t *testing.T) {
	t.Parallel()

	t.Run("a_pairing_code_is_single_use_under_concurrency", func(t *testing.T) {
		t.Parallel()
		s := openStore(t, t.TempDir())
		for round := 0; round < 20; round++ {
			code := s.Mint(KindPair, Pair, time.Minute)
			var wins atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := 0; i < 32; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					p, err := s.Authenticate("Bearer " + code)
					if err != nil {
						return // already redeemed by another goroutine
					}
					if s.Redeem(p) {
						wins.Add(1)
					}
				}()
			}
			close(start)
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("round %d: %d redeems succeeded, want exactly 1", round, n)
			}
			if _, err := s.Authenticate("Bearer " + code); err != ErrUnknown { //nolint:errorlint
				t.Fatalf("a redeemed code still authenticates: %v", err)
			}
		}
	})

	t.Run("an_expired_pairing_code_cannot_be_redeemed", func(t *testing.T) {
		t.Parallel()
		clk := newClock()
		s := openStore(t, t.TempDir(), WithClock(clk.Now))
		code := s.Mint(KindPair, Pair, time.Minute)
		p, err := s.Authenticate("Bearer " + code)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		if s.Redeem(p) {
			t.Fatal("an expired code was redeemed")
		}
	})

	t.Run("a_persistent_token_is_not_redeemable", func(t *testing.T) {
		t.Parallel()
		s := openStore(t, t.TempDir())
		secret, _ := create(t, s, KindConsole, ConsoleRead, time.Hour)
		p, err := s.Authenticate("Bearer " + secret)
		if err != nil {
			t.Fatal(err)
		}
		if s.Redeem(p) {
			t.Fatal("Redeem removed a persistent token")
		}
		if _, err := s.Authenticate("Bearer " + secret); err != nil {
			t.Fatalf("persistent token stopped working after Redeem: %v", err)
		}
	})

	t.Run("redeeming_one_code_leaves_the_others", func(t *testing.T) {
		t.Parallel()
		s := openStore(t, t.TempDir())
		a, b := s.Mint(KindPair, Pair, time.Minute), s.Mint(KindShare, ConsoleRead, 0)
		p, _ := s.Authenticate("Bearer " + a)
		if !s.Redeem(p) {
			t.Fatal("first redeem failed")
		}
		if _, err := s.Authenticate("Bearer " + b); err != nil {
			t.Fatalf("other ephemeral token lost: %v", err)
		}
	})
}

func TestMintRefusesProgrammingErrors(t *testing.T) {
	t.Parallel()
	s := openStore(t, t.TempDir())
	for _, tc := range []struct {
		name   string
		kind   Kind
		grants Grant
	}{
		{"an_unknown_kind_panics", Kind("root"), Admin},
		{"a_share_token_with_write_panics", KindShare, ConsoleRead | ConsoleWrite},
		{"a_console_token_with_admin_panics", KindConsole, Admin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			s.Mint(tc.kind, tc.grants, time.Minute)
		})
	}
}

func TestAuthenticateDoesNotAllocate(t *testing.T) {
	s := openStore(t, t.TempDir())
	secret, _ := create(t, s, KindConsole, ConsoleRead, time.Hour)
	share := "Bearer " + s.Mint(KindShare, ConsoleRead, time.Hour)
	h := "Bearer " + secret
	for _, hdr := range []string{h, share} {
		if n := testing.AllocsPerRun(200, func() {
			if _, err := s.Authenticate(hdr); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Fatalf("Authenticate allocates %.1f times per call, want 0", n)
		}
	}
}

func TestARevocationIsSeenWithinASecondWithoutTheWatcher(t *testing.T) {
	dir := t.TempDir()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	a, err := OpenStore(dir, WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	secret, rec, err := a.Create(KindConsole, ConsoleRead, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate("Bearer " + secret); err != nil {
		t.Fatal(err)
	}
	b, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Revoke(rec.ID); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(2 * time.Second))
	if _, err := a.Authenticate("Bearer " + secret); err != ErrUnknown {
		t.Fatalf("a revoked token still authenticates after a second: %v", err)
	}
}
