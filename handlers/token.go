package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/auth"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// Lifetimes fixed by the spec and DESIGN.md.
const (
	// ConsoleTokenTTL is the lifetime of a console token from a pairing
	// code, and the default of `token create`.
	ConsoleTokenTTL = 12 * time.Hour
	// DefaultPairTTL is how long a pairing link stays usable.
	DefaultPairTTL = 5 * time.Minute
	// MaxTokenTTL caps what CreateToken accepts.
	MaxTokenTTL = 90 * 24 * time.Hour
)

// tokenService implements core.token.v1alpha1.TokenService. The gateway has
// already checked the grant of each procedure (admin for management, pair
// for the exchange), so a console token never reaches these methods.
type tokenService struct{ d Deps }

func (s *tokenService) ListTokens(context.Context, *tokenv1alpha1.ListTokensRequest) (*tokenv1alpha1.ListTokensResponse, error) {
	recs, err := s.d.Tokens.List()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	now := s.d.Now()
	out := &tokenv1alpha1.ListTokensResponse{}
	for _, r := range recs {
		out.Tokens = append(out.Tokens, tokenMessage(r, now))
	}
	return out, nil
}

func (s *tokenService) CreateToken(_ context.Context, req *tokenv1alpha1.CreateTokenRequest) (*tokenv1alpha1.CreateTokenResponse, error) {
	kind := auth.Kind(req.GetKind())
	switch kind {
	case "":
		kind = auth.KindConsole
	case auth.KindConsole, auth.KindMCP:
	default:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("kind %q cannot be created here; allowed: console, mcp", req.GetKind()))
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
	ttl := ConsoleTokenTTL
	if req.GetTtl() != nil {
		ttl = req.GetTtl().AsDuration()
	}
	if ttl <= 0 || ttl > MaxTokenTTL {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("ttl %s is out of range; allowed: more than 0 and at most %s", ttl, MaxTokenTTL))
	}
	secret, rec, err := s.d.Tokens.Create(kind, g, ttl)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	return &tokenv1alpha1.CreateTokenResponse{Token: tokenMessage(rec, s.d.Now()), Secret: secret}, nil
}

func (s *tokenService) RevokeToken(_ context.Context, req *tokenv1alpha1.RevokeTokenRequest) (*tokenv1alpha1.RevokeTokenResponse, error) {
	if req.GetId() == "" {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("id is required; see ListTokens"))
	}
	if err := s.d.Tokens.Revoke(req.GetId()); err != nil {
		if errors.Is(err, auth.ErrNotFound) {
			return nil, connect.NewError(connect.CodeNotFound, err)
		}
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	return &tokenv1alpha1.RevokeTokenResponse{}, nil
}

func (s *tokenService) CreatePairingCode(context.Context, *tokenv1alpha1.CreatePairingCodeRequest) (*tokenv1alpha1.CreatePairingCodeResponse, error) {
	code := s.d.Tokens.Mint(auth.KindPair, auth.Pair, s.d.PairTTL)
	return &tokenv1alpha1.CreatePairingCodeResponse{Code: code, ExpireTime: timestamppb.New(s.d.Now().Add(s.d.PairTTL))}, nil
}

// ExchangePairingCode spends the pairing code the caller sent as its bearer
// token and returns a 12h console token. Of two concurrent exchanges of one
// code, exactly one succeeds.
func (s *tokenService) ExchangePairingCode(ctx context.Context, _ *tokenv1alpha1.ExchangePairingCodeRequest) (*tokenv1alpha1.ExchangePairingCodeResponse, error) {
	info, ok := connect.CallInfoForHandlerContext(ctx)
	if !ok {
		return nil, connect.NewError(connect.CodeInternal, errors.New("no call info"))
	}
	p, err := s.d.Tokens.Authenticate(info.RequestHeader().Get("Authorization"))
	if err != nil || p.Kind != auth.KindPair || !s.d.Tokens.Redeem(p) {
		return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("this pairing code was already used or has expired: open a fresh link with `core open`"))
	}
	secret, rec, err := s.d.Tokens.Create(auth.KindConsole, auth.ConsoleRead|auth.ConsoleWrite, ConsoleTokenTTL)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
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
