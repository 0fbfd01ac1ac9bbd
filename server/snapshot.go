package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	core "github.com/corehq/core"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/handlers"
)

// SnapshotServer serves the explorer and one graph on a loopback port:
// `core open --serve`, for browsers that refuse both the pairing link and
// the #data= link. It is built from snapshot.routes.yaml through the same
// gateway as the server, so it has the server's Host guard and Origin
// check, and nothing but its two rows.
type SnapshotServer struct {
	// URL is where it listens, http://127.0.0.1:<port>.
	URL string
	// page and graph are the paths of its two rows.
	page, graph string
	ln          net.Listener
	srv         *http.Server
}

// NewSnapshotServer listens on a free loopback port and readies a server of
// console's files and graph (the bytes of the graph route). Serve runs it.
func NewSnapshotServer(graph []byte, console fs.FS, log zerolog.Logger) (*SnapshotServer, error) {
	reg := gateway.NewPlainRegistry()
	handlers.RegisterSnapshot(reg, console, graph)
	table, err := gateway.Load(core.SnapshotRoutesFile, core.SnapshotRoutes, reg)
	if err != nil {
		return nil, fmt.Errorf("the snapshot route table compiled into this binary is invalid (a bug):\n%w", err)
	}
	page, ok1 := table.Row(consoleRow)
	data, ok2 := table.Row("snapshot.graph")
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s lacks the %s or snapshot.graph row (a bug)", core.SnapshotRoutesFile, consoleRow)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on a loopback port: %w", err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	listener, err := gateway.NewListener(table, reg, gateway.ListenerConfig{Exposure: gateway.ExposureLoopback, Port: port, Log: log})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	return &SnapshotServer{
		URL:   "http://" + ln.Addr().String(),
		page:  page.Path,
		graph: data.Path,
		ln:    ln,
		srv:   gateway.NewHTTPServer(listener, gateway.Timeouts{ReadHeader: 10 * time.Second, Idle: time.Minute}, log),
	}, nil
}

// Link opens the explorer on the snapshot: #src= names the graph.
func (s *SnapshotServer) Link(targets bool) string {
	link := s.URL + s.page + "#src=" + url.QueryEscape(s.URL+s.graph)
	if targets {
		link += "&flavor=targets"
	}
	return link
}

// Serve answers until ctx ends.
func (s *SnapshotServer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = s.srv.Close() })
	defer stop()
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
