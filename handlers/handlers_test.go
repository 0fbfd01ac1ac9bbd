package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
)

// answer is a handler's response as a client would see it: what it wrote,
// or, when it returned an error, the status and message the gateway's error
// writer makes of it (apierr.As) in its place.
type answer struct {
	*httptest.ResponseRecorder
	// Err is the handler's error, nil when it answered itself.
	Err *apierr.Error
}

// serve calls h with r as the gateway does and returns the answer.
func serve(t *testing.T, h gateway.HandlerFunc, r *http.Request) answer {
	t.Helper()
	return serveTo(t, httptest.NewRecorder(), h, r)
}

// serveTo is serve with a recorder that may hold headers already, as the
// gateway's does once CORS has run.
func serveTo(t *testing.T, w *httptest.ResponseRecorder, h gateway.HandlerFunc, r *http.Request) answer {
	t.Helper()
	err := h(w, r)
	if err == nil {
		return answer{ResponseRecorder: w}
	}
	e := apierr.As(err)
	if w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Fatalf("the handler wrote %d %q and then returned %v", w.Code, w.Body, err)
	}
	w.Code = e.Status
	return answer{ResponseRecorder: w, Err: e}
}

// message is the error message of a refusal, "" when there was none.
func (a answer) message() string {
	if a.Err == nil {
		return ""
	}
	return a.Err.Message
}
