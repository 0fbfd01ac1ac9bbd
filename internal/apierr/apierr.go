// Package apierr is the error vocabulary shared by the gateway, the handlers
// and the domain packages. A handler returns an *Error (or wraps one) and the
// gateway's single error writer turns it into a status and a JSON body
// {"error":{"code","message"}}; any other error becomes a 500.
package apierr

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Codes, stable strings that clients may switch on.
const (
	CodeInvalidArgument    = "invalid_argument"
	CodeUnauthenticated    = "unauthenticated"
	CodePermission         = "permission_denied"
	CodeForbiddenHost      = "forbidden_host"
	CodeForbiddenOrigin    = "forbidden_origin"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeTooLarge           = "payload_too_large"
	CodeAlreadyExists      = "already_exists"
	CodeConflict           = "conflict"            // a write based on a version that is no longer current
	CodeFailedPrecondition = "failed_precondition" // the workspace is not in a state the route can serve (not a git repository)
	CodeUnavailable        = "unavailable"
	CodeInternal           = "internal"
)

// Error is an error with an HTTP status and a stable code.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// New returns an *Error with a formatted message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400 invalid_argument; the message should name the
// offending input and what is allowed.
func BadRequest(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeInvalidArgument, format, args...)
}

// NotFound is a 404 not_found.
func NotFound(format string, args ...any) *Error {
	return New(http.StatusNotFound, CodeNotFound, format, args...)
}

// Conflict is a 409 conflict: the client wrote against a stale version
// and must read again.
func Conflict(format string, args ...any) *Error {
	return New(http.StatusConflict, CodeConflict, format, args...)
}

// FailedPrecondition is a 409 failed_precondition: the request is fine but
// the workspace cannot answer it as it is (the message says what to change).
func FailedPrecondition(format string, args ...any) *Error {
	return New(http.StatusConflict, CodeFailedPrecondition, format, args...)
}

// Unavailable is a 503 unavailable.
func Unavailable(format string, args ...any) *Error {
	return New(http.StatusServiceUnavailable, CodeUnavailable, format, args...)
}

// As reports the *Error inside err, or a 500 internal error carrying err's
// text when err is not one. Callers decide whether the text may be shown.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return New(http.StatusRequestTimeout, "request_timeout", "the request body did not arrive in time; send it without pausing")
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return New(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is larger than the %d bytes this route accepts", mbe.Limit)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// The client sent less than its Content-Length, or broke off a
		// chunked body: its fault, not the route's.
		return BadRequest("the request body ended before its declared length: send it whole")
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
}
