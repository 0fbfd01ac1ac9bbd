package gateway

import (
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Timeouts of a listener's http.Server.
type Timeouts struct {
	ReadHeader time.Duration
	Idle       time.Duration
}

// NewHTTPServer wraps a listener in an http.Server with core's limits. There
// is no ReadTimeout or WriteTimeout: SSE streams live as long as the client
// stays, and request bodies get a deadline in the pipeline instead.
func NewHTTPServer(h http.Handler, t Timeouts, logger zerolog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
		// net/http's own complaints (bad TLS hellos, malformed requests)
		// go to the log at debug level; they never hold request data
		// beyond what net/http chooses to print.
		ErrorLog: log.New(debugWriter{logger.With().Str("component", "net/http").Logger()}, "", 0),
	}
}

type debugWriter struct{ l zerolog.Logger }

func (d debugWriter) Write(p []byte) (int, error) {
	d.l.Debug().Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
