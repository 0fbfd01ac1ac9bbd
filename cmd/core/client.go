package main

import (
	"github.com/corehq/core/backend"

	"errors"
	"net/http"
	"time"

	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
)

// serverConn reaches the workspace's running server with the admin
// credential from its state file (mode 0600, readable only by its owner).
type serverConn struct {
	st     state.State
	client *http.Client
}

// errNoServer says how to get a server when a command needs one.
var errNoServer = errors.New("core server is not running for this workspace: start it with `core server start`")

func (e *env) server() (*serverConn, error) {
	st, alive, err := state.Live(e.cacheDir)
	if errors.Is(err, state.ErrNotRunning) || (err == nil && !alive) {
		return nil, errNoServer
	}
	if err != nil {
		return nil, err
	}
	return &serverConn{st: st, client: &http.Client{
		Timeout:   30 * time.Second,
		Transport: backend.BearerTransport{Token: st.AdminToken},
	}}, nil
}

// serverConn is the running server of the workspace.
func (g *globals) serverConn() (*serverConn, error) {
	e, err := g.load(nil)
	if err != nil {
		return nil, err
	}
	return e.server()
}

func (c *serverConn) jobs() jobv1alpha1connect.JobServiceClient {
	return jobv1alpha1connect.NewJobServiceClient(c.client, c.st.BaseURL)
}

func (c *serverConn) status() statusv1alpha1connect.StatusServiceClient {
	return statusv1alpha1connect.NewStatusServiceClient(c.client, c.st.BaseURL)
}
