package handlers

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

var _ tokenv1alpha1connect.TokenServiceHandler = (*tokenService)(nil)

// tokenService is core.token.v1alpha1.TokenService. Its rows grant admin,
// so console tokens are refused before any method runs.
type tokenService struct{ b *backend.Backend }

// ListTokens lists every token (never a secret).
func (s *tokenService) ListTokens(context.Context, *tokenv1alpha1.ListTokensRequest) (*tokenv1alpha1.ListTokensResponse, error) {
	recs, err := s.b.Tokens.List()
	if err != nil {
		return nil, err
	}
	now := s.b.Tokens.Now()
	out := &tokenv1alpha1.ListTokensResponse{}
	for _, r := range recs {
		out.Tokens = append(out.Tokens, tokenMessage(r, now))
	}
	return out, nil
}

// CreateToken mints a token and answers its secret, once.
func (s *tokenService) CreateToken(ctx context.Context, req *tokenv1alpha1.CreateTokenRequest) (*tokenv1alpha1.CreateTokenResponse, error) {
	var ttl *time.Duration
	if req.GetTtl() != nil {
		d := req.GetTtl().AsDuration()
		ttl = &d
	}
	secret, rec, err := s.b.Tokens.Create(backend.TokenKind(req.GetKind()), req.GetGrants(), ttl)
	if err != nil {
		return nil, err
	}
	caller.Log(ctx).Info().Str(logx.Token, rec.ID).Str(logx.Kind, string(rec.Kind)).Msg("token created")
	return &tokenv1alpha1.CreateTokenResponse{Token: tokenMessage(rec, s.b.Tokens.Now()), Secret: secret}, nil
}

// RevokeToken revokes a token by id.
func (s *tokenService) RevokeToken(ctx context.Context, req *tokenv1alpha1.RevokeTokenRequest) (*tokenv1alpha1.RevokeTokenResponse, error) {
	if err := s.b.Tokens.Revoke(req.GetId()); err != nil {
		return nil, err
	}
	caller.Log(ctx).Info().Str(logx.Token, req.GetId()).Msg("token revoked")
	return &tokenv1alpha1.RevokeTokenResponse{}, nil
}

// CreatePairingCode mints a one-time pairing code.
func (s *tokenService) CreatePairingCode(context.Context, *tokenv1alpha1.CreatePairingCodeRequest) (*tokenv1alpha1.CreatePairingCodeResponse, error) {
	code, expires := s.b.Tokens.PairingCode()
	return &tokenv1alpha1.CreatePairingCodeResponse{Code: code, ExpireTime: timestamppb.New(expires)}, nil
}

// ExchangePairingCode trades the caller's pairing code for a console
// token, once.
func (s *tokenService) ExchangePairingCode(ctx context.Context, _ *tokenv1alpha1.ExchangePairingCodeRequest) (*tokenv1alpha1.ExchangePairingCodeResponse, error) {
	p, _ := caller.Principal(ctx)
	secret, rec, err := s.b.Tokens.ExchangePairingCode(p)
	if err != nil {
		return nil, err
	}
	caller.Log(ctx).Info().Str(logx.Token, rec.ID).Msg("pairing code traded for a console token")
	return &tokenv1alpha1.ExchangePairingCodeResponse{Token: secret, ExpireTime: timestamppb.New(rec.ExpiresAt)}, nil
}

func tokenMessage(r backend.TokenRecord, now time.Time) *tokenv1alpha1.Token {
	return &tokenv1alpha1.Token{
		Id:         r.ID,
		Kind:       string(r.Kind),
		Grants:     r.Grants,
		CreateTime: timestamppb.New(r.CreatedAt),
		ExpireTime: timestamppb.New(r.ExpiresAt),
		Expired:    r.Expired(now),
	}
}
