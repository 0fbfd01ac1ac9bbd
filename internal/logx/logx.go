// Package logx sets up zerolog for core and names the log fields once, so
// that every line uses the same keys and a reviewer can see at a glance what
// a log may hold. Nothing here accepts a header, a token, a query value or a
// body: callers log route names, statuses and counts.
package logx

import (
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

// Field names.
const (
	Listener  = "listener"
	Method    = "method"
	Route     = "route"
	Status    = "status"
	Latency   = "latency"
	Panic     = "panic"
	Stack     = "stack"
	Address   = "address"
	Workspace = "workspace"
	File      = "file"
	Nodes     = "nodes"
	Edges     = "edges"
	Version   = "version"
	Reason    = "reason"
	PID       = "pid"
	Token     = "token_id" // a token's id (tok_...), never the token
	Kind      = "kind"
	Run       = "run_id"
	Tool      = "tool" // an MCP tool's name
	Bytes     = "bytes"
)

// New returns a logger writing to w at level ("debug", "info", "warn",
// "error"). format "console" is text for people, "json" one object a line
// for machines, "auto" (or "") console when w is a terminal and json
// otherwise. Console text is coloured only on a terminal, and never with
// NO_COLOR set.
func New(w io.Writer, level, format string) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		lvl = zerolog.InfoLevel
	}
	tty := false
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		tty = true
	}
	if format == "auto" || format == "" {
		format = "json"
		if tty {
			format = "console"
		}
	}
	if format == "console" {
		_, noColor := os.LookupEnv("NO_COLOR")
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly, NoColor: !tty || noColor}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// SafeMethod returns the request method if it is a standard one and
// "OTHER" otherwise, so that a client cannot write arbitrary text into the
// access log through the method.
func SafeMethod(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return m
	}
	return "OTHER"
}
