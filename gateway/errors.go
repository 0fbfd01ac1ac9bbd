package gateway

import (
	"errors"
	"net/http"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/jsonx"
)

// The pipeline's own refusals, built once.
var (
	errForbiddenHost   = forbiddenHost("the server answers loopback hosts only (127.0.0.1, [::1], localhost)")
	errForbiddenOrigin = &apierr.Error{Status: http.StatusForbidden, Code: apierr.CodeForbiddenOrigin, Message: "this Origin is not allowed to call the server"}
	errNotFound        = &apierr.Error{Status: http.StatusNotFound, Code: apierr.CodeNotFound, Message: "no such route"}
	errMethod          = &apierr.Error{Status: http.StatusMethodNotAllowed, Code: apierr.CodeMethodNotAllowed, Message: "method not allowed on this route; see the Allow header"}
	errGrant           = &apierr.Error{Status: http.StatusForbidden, Code: apierr.CodePermission, Message: "the token lacks the grant this route requires"}
	errKind            = &apierr.Error{Status: http.StatusForbidden, Code: apierr.CodePermission, Message: "this kind of token is not accepted on this listener"}
	errPeer            = &apierr.Error{Status: http.StatusForbidden, Code: apierr.CodePermission, Message: "this route answers loopback peers only"}
	errInternal        = &apierr.Error{Status: http.StatusInternalServerError, Code: apierr.CodeInternal, Message: "internal error"}
)

// forbiddenHost is the Host guard's refusal; why names what the listener
// answers instead.
func forbiddenHost(why string) *apierr.Error {
	return &apierr.Error{Status: http.StatusForbidden, Code: apierr.CodeForbiddenHost, Message: "this Host is not allowed: " + why}
}

// notMounted is the 404 of a path whose row the listener left out, saying
// why.
func notMounted(why string) *apierr.Error {
	return &apierr.Error{Status: http.StatusNotFound, Code: apierr.CodeNotFound, Message: why}
}

func unauthenticated(err error) *apierr.Error {
	return &apierr.Error{Status: http.StatusUnauthorized, Code: apierr.CodeUnauthenticated, Message: err.Error()}
}

var connectErrors = connect.NewErrorWriter()

// writeError is the one place an error becomes a response. A request to a
// Connect row that speaks a Connect protocol gets a Connect error; every
// other one gets {"error":{"code","message"}}. A 5xx carries its detail only
// when the caller passed the token check.
func writeError(rec *recorder, r *http.Request, rt *route, err error) {
	if rec.wroteHeader {
		return // the handler already answered; the access log shows its status
	}
	e := apierr.As(err)
	if e.Status >= 500 && !rec.authed {
		e = errInternal
	}
	h := rec.Header()
	if e.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="core"`)
	}
	// A Connect call gets a Connect error (a body over the limit is
	// resource_exhausted, as connect-go answers a body it cannot read);
	// anything else, a wrong method included, gets the JSON body.
	if rt != nil && rt.connect && r.Method == http.MethodPost && connectErrors.IsSupported(r) {
		ce := connect.NewError(connectCode(e), errors.New(e.Message))
		_ = connectErrors.Write(rec, r, ce)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	rec.WriteHeader(e.Status)
	body := make([]byte, 0, 64+len(e.Message))
	body = append(body, `{"error":{"code":`...)
	body = jsonx.AppendString(body, e.Code)
	body = append(body, `,"message":`...)
	body = jsonx.AppendString(body, e.Message)
	body = append(body, "}}\n"...)
	_, _ = rec.Write(body)
}

func connectCode(e *apierr.Error) connect.Code {
	switch e.Code {
	case apierr.CodeUnauthenticated:
		return connect.CodeUnauthenticated
	case apierr.CodePermission, apierr.CodeForbiddenHost, apierr.CodeForbiddenOrigin:
		return connect.CodePermissionDenied
	case apierr.CodeNotFound:
		return connect.CodeNotFound
	case apierr.CodeInvalidArgument:
		return connect.CodeInvalidArgument
	case apierr.CodeAlreadyExists:
		return connect.CodeAlreadyExists
	case apierr.CodeTooLarge:
		return connect.CodeResourceExhausted
	case apierr.CodeUnavailable:
		return connect.CodeUnavailable
	case apierr.CodeMethodNotAllowed:
		return connect.CodeUnimplemented
	}
	return connect.CodeInternal
}
