package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/quote"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

// tokenService implements core.token.v1alpha1.TokenService. The gateway has
// already checked the grant of each procedure (admin for management, pair
// for the exchange), so a console token never reaches these methods.
var _ tokenv1alpha1connect.TokenServiceHandler = (*tokenService)(nil)

type tokenService struct {
	tokens *auth.Store
	now    func() time.Time
}

func (s *tokenService) ListTokens(context.Context, *tokenv1alpha1.ListTokensRequest) (*tokenv1alpha1.ListTokensResponse, error) {
	recs, err := s.tokens.List()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	now := s.now()
	out := &tokenv1alpha1.ListTokensResponse{}
	for _, r := range recs {
		out.Tokens = append(out.Tokens, tokenMessage(r, now))
	}
	return out, nil
}

func (s *tokenService) CreateToken(ctx context.Context, req *tokenv1alpha1.CreateTokenRequest) (*tokenv1alpha1.CreateTokenResponse, error) {
	kind := auth.Kind(req.GetKind())
	switch kind {
	case "":
		kind = auth.KindConsole
	case auth.KindConsole, auth.KindMCP:
	default:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("kind %s cannot be created here; allowed: console, mcp", quote.Short(req.GetKind())))
	}
	grants := req.GetGrants()
	if len(grants) == 0 {
		if kind == auth.KindConsole {
			grants = []string{"console=read", "console=write"}
		} else {
			grants = []string{"mcp"}
		}
	}
	g, err := auth.ParseGrants(grants)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	ttl := auth.ConsoleTokenTTL
	if req.GetTtl() != nil {
		ttl = req.GetTtl().AsDuration()
	}
	if ttl <= 0 || ttl > auth.MaxTokenTTL {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("ttl %s is out of range; allowed: more than 0 and at most %s", ttl, auth.MaxTokenTTL))
	}
	secret, rec, err := s.tokens.Create(kind, g, ttl)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	caller.Log(ctx).Info().Str(logx.Token, rec.ID).Str(logx.Kind, string(rec.Kind)).Msg("token created")
	return &tokenv1alpha1.CreateTokenResponse{Token: tokenMessage(rec, s.now()), Secret: secret}, nil
}

func (s *tokenService) RevokeToken(ctx context.Context, req *tokenv1alpha1.RevokeTokenRequest) (*tokenv1alpha1.RevokeTokenResponse, error) {
	if req.GetId() == "" {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("id is required; see ListTokens"))
	}
	if err := s.tokens.Revoke(req.GetId()); err != nil {
		if errors.Is(err, auth.ErrNotFound) {
			return nil, connect.NewError(connect.CodeNotFound, err)
		}
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	caller.Log(ctx).Info().Str(logx.Token, req.GetId()).Msg("token revoked")
	return &tokenv1alpha1.RevokeTokenResponse{}, nil
}

func (s *tokenService) CreatePairingCode(context.Context, *tokenv1alpha1.CreatePairingCodeRequest) (*tokenv1alpha1.CreatePairingCodeResponse, error) {
	code := s.tokens.Mint(auth.KindPair, auth.Pair, auth.PairTTL)
	return &tokenv1alpha1.CreatePairingCodeResponse{Code: code, ExpireTime: timestamppb.New(s.now().Add(auth.PairTTL))}, nil
}

// ExchangePairingCode spends the pairing code the caller sent as its bearer
// token (the gateway authenticated it; its principal is in the context) and
// returns a 12h console token. Of two concurrent exchanges of one code,
// exactly one succeeds.
func (s *tokenService) ExchangePairingCode(ctx context.Context, _ *tokenv1alpha1.ExchangePairingCodeRequest) (*tokenv1alpha1.ExchangePairingCodeResponse, error) {
	p, ok := caller.Principal(ctx)
	if !ok || p.Kind != auth.KindPair || !s.tokens.Redeem(p) {
		return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("this pairing code was already used or has expired: open a fresh link with `core open`"))
	}
	secret, rec, err := s.tokens.Create(auth.KindConsole, auth.ConsoleRead|auth.ConsoleWrite, auth.ConsoleTokenTTL)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	caller.Log(ctx).Info().Str(logx.Token, rec.ID).Msg("pairing code traded for a console token")
	return &tokenv1alpha1.ExchangePairingCodeResponse{Token: secret, ExpireTime: timestamppb.New(rec.ExpiresAt)}, nil
}

func tokenMessage(r auth.Record, now time.Time) *tokenv1alpha1.Token {
	return &tokenv1alpha1.Token{
		Id:         r.ID,
		Kind:       string(r.Kind),
		Grants:     r.Grants,
		CreateTime: timestamppb.New(r.CreatedAt),
		ExpireTime: timestamppb.New(r.ExpiresAt),
		Expired:    r.Expired(now),
	}
}
