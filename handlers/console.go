package handlers

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/corehq/core/console"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
)

// setConsoleHeaders puts the page policy (console.CSP, its one home) on a
// console response.
func setConsoleHeaders(h http.Header) {
	h.Set("Content-Security-Policy", console.CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// consoleHandler serves the built explorer's static files below its row's
// path (a prefix row: routes.yaml says where the console lives). They hold
// no data, so they need no token; everything with data is an API route.
func consoleHandler(files fs.FS) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		call, ok := caller.From(r.Context())
		if !ok {
			return apierr.NotFound("no such file") // only the gateway calls this, with the row's path
		}
		return serveConsoleFile(w, r, files, strings.TrimPrefix(r.URL.Path, call.Path))
	}
}

// serveConsoleFile writes one file of the built console with the page
// policy; "" is index.html. http.ServeContent answers ranges and
// conditional requests.
func serveConsoleFile(w http.ResponseWriter, r *http.Request, files fs.FS, name string) error {
	if files == nil {
		return apierr.NotFound("this build has no console")
	}
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if !fs.ValidPath(name) || strings.Contains(name, "\\") {
		return apierr.NotFound("no such file")
	}
	// Regular files only, checked before the open: opening a FIFO in a
	// custom console directory would block until a writer came.
	if st, err := fs.Stat(files, name); err != nil || !st.Mode().IsRegular() {
		// Missing, a directory or a device, or refused by the os.Root (a
		// link out of the directory): there is no such file to serve.
		return apierr.NotFound("no such file in the console: %s", path.Base(name))
	}
	f, err := files.Open(name)
	if err != nil {
		return apierr.NotFound("no such file in the console: %s", path.Base(name))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() { // swapped since the Stat
		return apierr.NotFound("no such file in the console: %s", path.Base(name))
	}
	h := w.Header()
	setConsoleHeaders(h)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	if strings.HasPrefix(name, "assets/") {
		h.Set("Cache-Control", "public, max-age=31536000, immutable") // names carry a content hash
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(w, r, name, st.ModTime(), rs)
		return nil
	}
	h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	_, _ = io.Copy(w, f) // an error is the client leaving; the status is sent
	return nil
}
