package auth

import (
	"strings"
	"testing"
	"time"
)

func BenchmarkAuthenticate(b *testing.B) {
	s := openStore(b, b.TempDir())
	for i := 0; i < 100; i++ { // a realistically populated store
		create(b, s, KindConsole, ConsoleRead, time.Hour)
	}
	secret, _ := create(b, s, KindConsole, ConsoleRead|ConsoleWrite, time.Hour)
	h := "Bearer " + secret
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Authenticate(h); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzAuthenticate feeds arbitrary Authorization values to a store holding
// real tokens: nothing panics, nothing random authenticates, and every error
// is one of the fixed sentinels (so no input is ever echoed).
func FuzzAuthenticate(f *testing.F) {
	s := openStore(f, f.TempDir())
	console, _ := create(f, s, KindConsole, ConsoleRead, time.Hour)
	pair := s.Mint(KindPair, Pair, time.Hour)
	body := console[len("core_console_"):]
	for _, seed := range []string{
		"", "Bearer", "Bearer ", "bearer x", "Basic abc",
		"Bearer core_console_" + strings.Repeat("A", 43),
		"Bearer core_pair_" + strings.Repeat("_", 43),
		"Bearer core_mcp_" + body,
		"Bearer  core_console_" + body,
		"BEARER core_share_" + body[:40] + "===",
		"Bearer core_admin_" + body + "\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, h string) {
		p, err := s.Authenticate(h)
		if err == nil {
			if h == "Bearer "+console || h == "Bearer "+pair || strings.EqualFold(h[:7], "bearer ") && (h[7:] == console || h[7:] == pair) {
				return
			}
			t.Fatalf("random input authenticated as %+v", p)
		}
		if !isSentinel(err) {
			t.Fatalf("error %q is not a sentinel", err)
		}
	})
}
