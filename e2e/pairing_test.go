package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// TestPairing drives the TokenService with the generated Connect client:
// pairing codes, their exchange, and who may manage tokens.
func TestPairing(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws)
	admin := tokenClient(s, s.AdminToken)
	newCode := func(t *testing.T) string {
		t.Helper()
		res, err := admin.CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
		if err != nil {
			t.Fatalf("CreatePairingCode with the admin token: %v", err)
		}
		if res.GetCode() == "" {
			t.Fatal("CreatePairingCode returned no code")
		}
		if exp := res.GetExpireTime().AsTime(); !exp.After(time.Now().Add(-time.Minute)) {
			t.Errorf("the pairing code expires at %s, which is not in the future", exp)
		}
		return res.GetCode()
	}

	t.Run("a_pairing_code_trades_for_a_console_token_that_reads_the_graph", func(t *testing.T) {
		t.Parallel()
		code := newCode(t)
		res, err := tokenClient(s, code).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
		if err != nil {
			t.Fatalf("ExchangePairingCode: %v", err)
		}
		if res.GetToken() == "" || res.GetToken() == code {
			t.Fatalf("the exchange returned token %q", res.GetToken())
		}
		if d := time.Until(res.GetExpireTime().AsTime()); d < 11*time.Hour || d > 13*time.Hour {
			t.Errorf("the console token expires in %s, want about 12h", d)
		}
		if r := get(t, s.URL+"/api/v1/graph", res.GetToken()); r.Status != http.StatusOK {
			t.Fatalf("the exchanged token cannot read the graph\n%s", r)
		}
	})

	t.Run("a_pairing_code_trades_only_once", func(t *testing.T) {
		t.Parallel()
		code := newCode(t)
		pair := tokenClient(s, code)
		if _, err := pair.ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{}); err != nil {
			t.Fatalf("first exchange: %v", err)
		}
		_, err := pair.ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
		wantConnectCode(t, err, connect.CodeUnauthenticated)
	})

	t.Run("of_concurrent_exchanges_of_one_code_exactly_one_succeeds", func(t *testing.T) {
		t.Parallel()
		code := newCode(t)
		pair := tokenClient(s, code)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = pair.ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case connect.CodeOf(err) != connect.CodeUnauthenticated:
				t.Errorf("a losing exchange failed with %s, want unauthenticated: %v", connect.CodeOf(err), err)
			}
		}
		if ok != 1 {
			t.Errorf("%d of %d concurrent exchanges succeeded, want exactly 1", ok, n)
		}
	})

	t.Run("a_console_token_is_refused_by_token_management", func(t *testing.T) {
		t.Parallel()
		res, err := tokenClient(s, newCode(t)).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
		if err != nil {
			t.Fatal(err)
		}
		_, cliToken := createToken(t, ws) // console=read and console=write
		for _, tok := range []string{res.GetToken(), cliToken} {
			c := tokenClient(s, tok)
			_, err = c.ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{})
			wantConnectCode(t, err, connect.CodePermissionDenied)
			_, err = c.CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{})
			wantConnectCode(t, err, connect.CodePermissionDenied)
			_, err = c.RevokeToken(rpcCtx(t), &tokenv1alpha1.RevokeTokenRequest{Id: "tok_000000000000"})
			wantConnectCode(t, err, connect.CodePermissionDenied)
			_, err = c.CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
			wantConnectCode(t, err, connect.CodePermissionDenied)
			// Nor can it trade itself for another token.
			_, err = c.ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
			wantConnectCode(t, err, connect.CodePermissionDenied)
		}
	})

	t.Run("a_pairing_code_is_refused_by_token_management", func(t *testing.T) {
		t.Parallel()
		c := tokenClient(s, newCode(t))
		_, err := c.ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{})
		wantConnectCode(t, err, connect.CodePermissionDenied)
		_, err = c.CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
		wantConnectCode(t, err, connect.CodePermissionDenied)
	})

	t.Run("token_management_without_a_token_is_unauthenticated", func(t *testing.T) {
		t.Parallel()
		c := tokenClient(s, "")
		_, err := c.ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{})
		wantConnectCode(t, err, connect.CodeUnauthenticated)
		_, err = c.ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
		wantConnectCode(t, err, connect.CodeUnauthenticated)
	})

	t.Run("the_admin_token_creates_lists_and_revokes_tokens", func(t *testing.T) {
		t.Parallel()
		created, err := admin.CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{
			Grants: []string{"console=read"}, Ttl: durationpb.New(time.Hour),
		})
		if err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		id, secret := created.GetToken().GetId(), created.GetSecret()
		if r := get(t, s.URL+"/api/v1/graph", secret); r.Status != http.StatusOK {
			t.Fatalf("the created token cannot read the graph\n%s", r)
		}
		list, err := admin.ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{})
		if err != nil {
			t.Fatalf("ListTokens: %v", err)
		}
		found := false
		for _, tok := range list.GetTokens() {
			if tok.GetId() == id {
				found = true
				if tok.GetKind() != "console" || strings.Join(tok.GetGrants(), ",") != "console=read" {
					t.Errorf("listed token %s is %s %v, want console [console=read]", id, tok.GetKind(), tok.GetGrants())
				}
			}
		}
		if !found {
			t.Fatalf("ListTokens does not list %s", id)
		}
		if cli := mustCore(t, ws, nil, "config", "console", "token", "list"); !strings.Contains(cli.Stdout, id) {
			t.Errorf("the CLI does not list the token made over Connect:\n%s", cli)
		}
		if _, err := admin.RevokeToken(rpcCtx(t), &tokenv1alpha1.RevokeTokenRequest{Id: id}); err != nil {
			t.Fatalf("RevokeToken: %v", err)
		}
		eventually(t, "the revoked token is refused", func() bool {
			return get(t, s.URL+"/api/v1/graph", secret).Status == http.StatusUnauthorized
		})
		_, err = admin.RevokeToken(rpcCtx(t), &tokenv1alpha1.RevokeTokenRequest{Id: id})
		wantConnectCode(t, err, connect.CodeNotFound)
		_, err = admin.CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{Kind: "admin"})
		wantConnectCode(t, err, connect.CodeInvalidArgument)
	})

	t.Run("the_JSON_codec_works_too", func(t *testing.T) {
		t.Parallel()
		c := tokenClient(s, s.AdminToken, connect.WithProtoJSON())
		if _, err := c.ListTokens(rpcCtx(t), &tokenv1alpha1.ListTokensRequest{}); err != nil {
			t.Fatalf("ListTokens over JSON: %v", err)
		}
	})
}
