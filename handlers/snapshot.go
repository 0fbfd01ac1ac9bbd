package handlers

import (
	"io/fs"
	"net/http"

	"github.com/corehq/core/gateway"
)

// RegisterSnapshot registers the handlers snapshot.routes.yaml names, for
// the loopback server of `core open --serve`: the console's files, and one
// graph served exactly as it was encoded.
func RegisterSnapshot(reg *gateway.Registry, console fs.FS, graph []byte) {
	reg.Handle("console", consoleHandler(console))
	reg.Handle("snapshot-graph", func(w http.ResponseWriter, _ *http.Request) error {
		return writeJSONBody(w, graph)
	})
}
