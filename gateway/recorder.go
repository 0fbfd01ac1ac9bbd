package gateway

import (
	"net/http"
	"sync"

	"github.com/rs/zerolog"
)

// recorder wraps the ResponseWriter for one request: it remembers the status
// for the access log, the logger of the route that answered, and whether
// the caller passed the token check (5xx detail is for authenticated callers
// only). Recorders are pooled so the pipeline adds no allocation per request.
type recorder struct {
	w           http.ResponseWriter
	status      int
	wroteHeader bool
	authed      bool
	log         *zerolog.Logger
}

var recorderPool = sync.Pool{New: func() any { return new(recorder) }}

func getRecorder(w http.ResponseWriter) *recorder {
	rec := recorderPool.Get().(*recorder)
	*rec = recorder{w: w}
	return rec
}

func putRecorder(rec *recorder) {
	*rec = recorder{}
	recorderPool.Put(rec)
}

func (r *recorder) Header() http.Header { return r.w.Header() }

func (r *recorder) WriteHeader(code int) {
	if r.wroteHeader {
		return
	}
	r.status, r.wroteHeader = code, true
	r.w.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	return r.w.Write(b)
}

// Flush lets streaming handlers (SSE) push each event out.
func (r *recorder) Flush() {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }
