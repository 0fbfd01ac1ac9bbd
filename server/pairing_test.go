package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/corehq/core/internal/auth"
	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

// TestAPairingCodeIsTradedAsItDies: the exchange redeems the code, which
// ends the code's lifetime and so the exchange request's own context; the
// answer, a console token, must still reach the page. The client sends a
// deadline, so that connect waits on that context from the start.
func TestAPairingCodeIsTradedAsItDies(t *testing.T) {
	s := startServer(t, nil)
	code := s.Tokens.Mint(auth.KindPair, auth.Pair, time.Minute)
	client := tokenv1alpha1connect.NewTokenServiceClient(&http.Client{Transport: auth.Transport{Token: code}}, s.BaseURL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := client.ExchangePairingCode(ctx, &tokenv1alpha1.ExchangePairingCodeRequest{})
	if err != nil {
		t.Fatalf("the exchange failed: %v", err)
	}
	if _, err := s.Tokens.Authenticate("Bearer " + res.GetToken()); err != nil {
		t.Errorf("the console token it gave does not authenticate: %v", err)
	}
}
