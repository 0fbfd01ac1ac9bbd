package handlers

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/apierr"
)

// connectErrors is the one place a Connect service's error gets its code:
// the backend answers in apierr's vocabulary, and every service returns
// what it got; an error already of connect's kind passes as it is.
type connectErrors struct{}

// connectCodes maps apierr's codes to connect's.
var connectCodes = map[string]connect.Code{
	apierr.CodeInvalidArgument:    connect.CodeInvalidArgument,
	apierr.CodeUnauthenticated:    connect.CodeUnauthenticated,
	apierr.CodePermission:         connect.CodePermissionDenied,
	apierr.CodeNotFound:           connect.CodeNotFound,
	apierr.CodeTooLarge:           connect.CodeResourceExhausted,
	apierr.CodeAlreadyExists:      connect.CodeAlreadyExists,
	apierr.CodeConflict:           connect.CodeAborted,
	apierr.CodeFailedPrecondition: connect.CodeFailedPrecondition,
	apierr.CodeUnavailable:        connect.CodeUnavailable,
	"unimplemented":               connect.CodeUnimplemented,
	"resource_exhausted":          connect.CodeResourceExhausted,
}

// asConnect is err as a *connect.Error.
func asConnect(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return err
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		if code, ok := connectCodes[ae.Code]; ok {
			return connect.NewError(code, err)
		}
	}
	return connect.NewError(connect.CodeInternal, err)
}

func (connectErrors) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		return res, asConnect(err)
	}
}

func (connectErrors) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (connectErrors) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return asConnect(next(ctx, conn))
	}
}
