package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/cachedir"
	"time"
)

func TestFiles(t *testing.T) {
	t.Parallel()

	t.Run("files_are_0600", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := openStore(t, dir)
		create(t, s, KindConsole, ConsoleRead, time.Hour)
		for _, name := range []string{"tokens.json", "tokens.lock"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s mode = %v, want 0600", name, fi.Mode().Perm())
			}
		}
	})

	t.Run("only_hashes_are_on_disk", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := openStore(t, dir)
		var secrets []string
		for i := 0; i < 3; i++ {
			secret, rec := create(t, s, KindConsole, ConsoleRead|ConsoleWrite, time.Hour)
			secrets = append(secrets, secret)
			if len(rec.Hash) != 64 {
				t.Fatalf("hash %q is not hex SHA-256", rec.Hash)
			}
		}
		mcp, _ := create(t, s, KindMCP, MCP, time.Hour)
		secrets = append(secrets, mcp, s.Mint(KindAdmin, Admin, 0), s.Mint(KindPair, Pair, time.Minute))
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, sec := range secrets {
				body := sec[len(sec)-secretLen:]
				if bytes.Contains(data, []byte(sec)) || bytes.Contains(data, []byte(body)) {
					t.Fatalf("%s contains a token", e.Name())
				}
			}
		}
	})

	t.Run("ephemeral_tokens_are_never_written", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := openStore(t, dir)
		s.Mint(KindAdmin, Admin, 0)
		s.Mint(KindPair, Pair, time.Minute)
		if _, err := os.Stat(cachedir.Tokens(dir)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("tokens.json exists after minting only ephemeral tokens: %v", err)
		}
		if recs, err := s.List(); err != nil || len(recs) != 0 {
			t.Fatalf("List = %v, %v; want none", recs, err)
		}
	})

	t.Run("the_cache_directory_ignores_itself", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), ".core")
		openStore(t, dir)
		if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCorruptTokensFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, content string }{
		{"invalid_json", "{not json"},
		{"trailing_garbage", `{"version":1,"tokens":[]} x`},
		{"unknown_version", `{"version":9,"tokens":[]}`},
		{"a_short_hash", `{"version":1,"tokens":[{"id":"tok_1","kind":"console","grants":["console=read"],"hash":"abc"}]}`},
		{"an_unknown_kind", `{"version":1,"tokens":[{"id":"tok_1","kind":"root","grants":[],"hash":"` + strings.Repeat("a", 64) + `"}]}`},
		{"an_unknown_grant", `{"version":1,"tokens":[{"id":"tok_1","kind":"console","grants":["everything"],"hash":"` + strings.Repeat("a", 64) + `"}]}`},
	} {
		t.Run("OpenStore_refuses_"+tc.name+"_naming_the_file_and_the_fix", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := cachedir.Tokens(dir)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenStore(dir)
			if err == nil {
				t.Fatal("OpenStore accepted a corrupt file")
			}
			for _, want := range []string{path, "delete", "core config console token create"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}

	t.Run("an_empty_file_is_an_empty_set", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(cachedir.Tokens(dir), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		openStore(t, dir)
	})

	t.Run("a_failed_Reload_keeps_the_last_good_set", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := openStore(t, dir)
		secret, _ := create(t, s, KindConsole, ConsoleRead, time.Hour)
		if err := os.WriteFile(cachedir.Tokens(dir), []byte("{broken"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := s.Reload(); err == nil || !strings.Contains(err.Error(), "tokens.json") {
			t.Fatalf("Reload = %v, want an error naming %s", err, "tokens.json")
		}
		if _, err := s.Authenticate("Bearer " + secret); err != nil {
			t.Fatalf("last good token refused after a failed reload: %v", err)
		}
		if _, _, err := s.Create(KindConsole, ConsoleRead, time.Hour); err == nil {
			t.Fatal("Create overwrote a corrupt file")
		}
	})
}

func TestCreate(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := openStore(t, t.TempDir(), WithClock(clk.Now))

	t.Run("a_record_has_an_id_kind_grants_and_times", func(t *testing.T) {
		_, rec := create(t, s, KindConsole, ConsoleWrite|ConsoleRead, 12*time.Hour)
		if ok, _ := filepath.Match("tok_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]", rec.ID); !ok {
			t.Errorf("id %q is not tok_ + 12 hex chars", rec.ID)
		}
		if rec.Kind != KindConsole || strings.Join(rec.Grants, ",") != "console=read,console=write" {
			t.Errorf("record = %+v", rec)
		}
		if !rec.CreatedAt.Equal(clk.Now()) || rec.ExpiresAt.Sub(rec.CreatedAt) != 12*time.Hour {
			t.Errorf("times = %v .. %v", rec.CreatedAt, rec.ExpiresAt)
		}
	})

	t.Run("json_fields_are_lower_snake_case", func(t *testing.T) {
		b, _ := json.Marshal(Record{})
		for _, k := range []string{`"id"`, `"kind"`, `"grants"`, `"hash"`, `"created_at"`, `"expires_at"`} {
			if !bytes.Contains(b, []byte(k)) {
				t.Errorf("%s missing from %s", k, b)
			}
		}
	})

	for _, tc := range []struct {
		name   string
		kind   Kind
		grants Grant
		ttl    time.Duration
	}{
		{"an_ephemeral_kind_is_refused", KindAdmin, Admin, time.Hour},
		{"a_pair_kind_is_refused", KindPair, Pair, time.Hour},
		{"no_grant_is_refused", KindConsole, None, time.Hour},
		{"admin_on_a_console_token_is_refused", KindConsole, ConsoleRead | Admin, time.Hour},
		{"console_on_an_mcp_token_is_refused", KindMCP, MCP | ConsoleRead, time.Hour},
		{"mcp_on_a_console_token_is_refused", KindConsole, MCP, time.Hour},
		{"a_zero_lifetime_is_refused", KindConsole, ConsoleRead, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := s.Create(tc.kind, tc.grants, tc.ttl); err == nil {
				t.Fatal("Create succeeded")
			}
		})
	}

	t.Run("concurrent_creators_on_one_directory_lose_nothing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		const n = 16
		var wg sync.WaitGroup
		ids := make(chan string, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := OpenStore(dir) // a Store each, like separate processes
				if err != nil {
					t.Error(err)
					return
				}
				_, rec, err := st.Create(KindConsole, ConsoleRead, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				ids <- rec.ID
			}()
		}
		wg.Wait()
		close(ids)
		recs, err := openStore(t, dir).List()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != n {
			t.Fatalf("%d records, want %d", len(recs), n)
		}
	})
}

func TestListAndRevoke(t *testing.T) {
	t.Parallel()
	clk := newClock()
	dir := t.TempDir()
	s := openStore(t, dir, WithClock(clk.Now))
	_, old := create(t, s, KindConsole, ConsoleRead, time.Minute)
	clk.Advance(time.Second)
	secret, rec := create(t, s, KindConsole, ConsoleRead, time.Hour)
	clk.Advance(time.Second)
	_, mcp := create(t, s, KindMCP, MCP, time.Hour)
	clk.Advance(2 * time.Minute) // old expires

	t.Run("list_is_sorted_by_creation_and_includes_expired_tokens", func(t *testing.T) {
		recs, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, r := range recs {
			got = append(got, r.ID)
		}
		want := []string{old.ID, rec.ID, mcp.ID}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("List ids = %v, want %v", got, want)
		}
		if !recs[0].Expired(clk.Now()) || recs[1].Expired(clk.Now()) {
			t.Fatal("Expired is wrong")
		}
		if !sort.SliceIsSorted(recs, func(i, j int) bool { return recs[i].CreatedAt.Before(recs[j].CreatedAt) }) {
			t.Fatal("not sorted")
		}
	})

	t.Run("a_write_prunes_expired_tokens", func(t *testing.T) {
		if err := s.Revoke(mcp.ID); err != nil {
			t.Fatal(err)
		}
		recs, _ := s.List()
		if len(recs) != 1 || recs[0].ID != rec.ID {
			t.Fatalf("after revoke: %+v", recs)
		}
	})

	t.Run("an_expired_token_shown_by_list_can_be_revoked", func(t *testing.T) {
		_, gone := create(t, s, KindConsole, ConsoleRead, time.Minute)
		clk.Advance(2 * time.Minute)
		if err := s.Revoke(gone.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a_revoked_token_is_refused_at_once_by_its_store", func(t *testing.T) {
		if err := s.Revoke(rec.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.Authenticate("Bearer " + secret)
		wantErr(t, err, ErrUnknown)
	})

	t.Run("revoking_an_unknown_id_names_it_and_the_list_command", func(t *testing.T) {
		err := s.Revoke("tok_000000000000")
		wantErr(t, err, ErrNotFound)
		for _, want := range []string{"tok_000000000000", "core config console token list"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})

	t.Run("revoking_by_secret_does_not_echo_it", func(t *testing.T) {
		tok, _ := create(t, s, KindConsole, ConsoleRead, time.Hour)
		err := s.Revoke(tok)
		wantErr(t, err, ErrNotFound)
		assertNoSecret(t, err, tok)
		if _, err := s.Authenticate("Bearer " + tok); err != nil {
			t.Fatalf("token revoked by secret: %v", err)
		}
	})
}
