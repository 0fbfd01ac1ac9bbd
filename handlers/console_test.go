package handlers

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/corehq/core/console"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
)

// consolePath is the console row's path in routes.yaml.
const consolePath = "/console/graph/"

// consoleRequest is a GET of target with the console row's call in its
// context, as the gateway makes it.
func consoleRequest(target string, header ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7391/", nil)
	r.URL.Path = target // as it arrives, uncleaned
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r.WithContext(caller.With(r.Context(), caller.Call{Listener: "loopback", Route: "console.page", Path: consolePath}))
}

func consoleFS() fstest.MapFS {
	return fstest.MapFS{
		"index.html":             {Data: []byte("<!doctype html><title>root</title>")},
		"dir/index.html":         {Data: []byte("<!doctype html><title>dir</title>")},
		"dir/page.html":          {Data: []byte("<!doctype html><title>page</title>")},
		"assets/app-3f2a9c.js":   {Data: []byte("console.log(1)")},
		"assets/app-3f2a9c.css":  {Data: []byte("body{margin:0}")},
		"app.js":                 {Data: []byte("export {}")},
		"favicon.svg":            {Data: []byte("<svg/>")},
		"data.json":              {Data: []byte("{}")},
		"LICENSE":                {Data: []byte("MIT")},
		"blob.core-no-such-type": {Data: []byte{0, 1, 2}},
		"digits.txt":             {Data: []byte("0123456789")},
		`back\slash.js`:          {Data: []byte("reachable only through a backslash")},
		"assets/nested/deep.png": {Data: []byte("font")},
	}
}

func TestConsoleServesFilesBelowItsRowsPath(t *testing.T) {
	t.Parallel()
	h := consoleHandler(consoleFS())
	const immutable, noCache = "public, max-age=31536000, immutable", "no-cache"
	cases := []struct {
		name, path, body, ctype, cache string
	}{
		{"the row's path is index.html", consolePath, "<!doctype html><title>root</title>", "text/html; charset=utf-8", noCache},
		{"a directory's path is its index.html", consolePath + "dir/", "<!doctype html><title>dir</title>", "text/html; charset=utf-8", noCache},
		{"a page below a directory", consolePath + "dir/page.html", "<!doctype html><title>page</title>", "text/html; charset=utf-8", noCache},
		{"an asset is immutable", consolePath + "assets/app-3f2a9c.js", "console.log(1)", "text/javascript; charset=utf-8", immutable},
		{"a stylesheet asset is immutable", consolePath + "assets/app-3f2a9c.css", "body{margin:0}", "text/css; charset=utf-8", immutable},
		{"an asset deeper below assets/ is immutable", consolePath + "assets/nested/deep.png", "font", "image/png", immutable},
		{"a script outside assets/ is revalidated", consolePath + "app.js", "export {}", "text/javascript; charset=utf-8", noCache},
		{"an SVG", consolePath + "favicon.svg", "<svg/>", "image/svg+xml", noCache},
		{"a JSON file", consolePath + "data.json", "{}", "application/json", noCache},
		{"a file without an extension is octet-stream", consolePath + "LICENSE", "MIT", "application/octet-stream", noCache},
		{"an unknown extension is octet-stream", consolePath + "blob.core-no-such-type", "\x00\x01\x02", "application/octet-stream", noCache},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := serve(t, h, consoleRequest(c.path))
			if a.Code != http.StatusOK || a.Body.String() != c.body {
				t.Fatalf("%s: %d %q (%s), want 200 %q", c.path, a.Code, a.Body, a.message(), c.body)
			}
			hd := a.Header()
			want := map[string]string{
				"Content-Type":               c.ctype,
				"Cache-Control":              c.cache,
				"Content-Security-Policy":    console.CSP,
				"X-Content-Type-Options":     "nosniff",
				"Referrer-Policy":            "no-referrer",
				"Cross-Origin-Opener-Policy": "same-origin",
				"Content-Length":             strconv.Itoa(len(c.body)),
			}
			for k, v := range want {
				if got := hd.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestConsoleRefusesWhatIsNotAFileBelowIt(t *testing.T) {
	t.Parallel()
	h := consoleHandler(consoleFS())
	cases := []struct{ name, path string }{
		{"a directory without its slash", consolePath + "dir"},
		{"a directory without an index.html", consolePath + "assets/"},
		{"a missing file", consolePath + "missing.js"},
		{"a missing directory's index", consolePath + "missing/"},
		{"a parent path", consolePath + "../index.html"},
		{"a parent path inside the console", consolePath + "dir/../index.html"},
		{"a dot path", consolePath + "./index.html"},
		{"a doubled slash", consolePath + "/index.html"},
		{"a doubled slash inside", consolePath + "dir//page.html"},
		{"a backslash, even to a file that exists", consolePath + `back\slash.js`},
		{"a backslash parent path", consolePath + `..\index.html`},
		{"a NUL", consolePath + "index.html\x00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := serve(t, h, consoleRequest(c.path))
			if a.Code != http.StatusNotFound || a.Err == nil || a.Err.Code != "not_found" {
				t.Fatalf("%q: %d %q, want 404 not_found", c.path, a.Code, a.Body)
			}
			if a.Body.Len() != 0 || a.Header().Get("Content-Security-Policy") != "" {
				t.Error("a refusal wrote a page")
			}
		})
	}
}

func TestAConsoleWithoutFilesIs404(t *testing.T) {
	t.Parallel()
	a := serve(t, consoleHandler(nil), consoleRequest(consolePath))
	if a.Code != http.StatusNotFound || a.message() != "this build has no console" {
		t.Fatalf("%d %q", a.Code, a.message())
	}
}

func TestARangeRequestGets206WithThoseBytes(t *testing.T) {
	t.Parallel()
	h := consoleHandler(consoleFS())
	cases := []struct {
		rng, body, contentRange string
	}{
		{"bytes=2-5", "2345", "bytes 2-5/10"},
		{"bytes=7-", "789", "bytes 7-9/10"},
		{"bytes=-3", "789", "bytes 7-9/10"},
		{"bytes=0-0", "0", "bytes 0-0/10"},
		{"bytes=8-100", "89", "bytes 8-9/10"},
	}
	for _, c := range cases {
		t.Run(c.rng, func(t *testing.T) {
			t.Parallel()
			a := serve(t, h, consoleRequest(consolePath+"digits.txt", "Range", c.rng))
			if a.Code != http.StatusPartialContent || a.Body.String() != c.body || a.Header().Get("Content-Range") != c.contentRange {
				t.Fatalf("Range %s: %d %q Content-Range %q, want 206 %q %q", c.rng, a.Code, a.Body, a.Header().Get("Content-Range"), c.body, c.contentRange)
			}
			if a.Header().Get("Content-Security-Policy") != console.CSP {
				t.Error("a partial response lacks the page policy")
			}
		})
	}
	t.Run("a range past the end is 416", func(t *testing.T) {
		t.Parallel()
		a := serve(t, h, consoleRequest(consolePath+"digits.txt", "Range", "bytes=20-30"))
		if a.Code != http.StatusRequestedRangeNotSatisfiable {
			t.Fatalf("%d %q", a.Code, a.Body)
		}
	})
}

// noSeekFS hides its files' Seek, as a file system that streams would.
type noSeekFS struct{ fs.FS }

type noSeekFile struct{ fs.File }

func (n noSeekFS) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return noSeekFile{f}, nil
}

func TestAFileThatCannotSeekIsServedWhole(t *testing.T) {
	t.Parallel()
	a := serve(t, consoleHandler(noSeekFS{consoleFS()}), consoleRequest(consolePath+"digits.txt", "Range", "bytes=2-5"))
	if a.Code != http.StatusOK || a.Body.String() != "0123456789" || a.Header().Get("Content-Length") != "10" {
		t.Fatalf("%d %q Content-Length %q, want 200 with the whole file", a.Code, a.Body, a.Header().Get("Content-Length"))
	}
	if a.Header().Get("Content-Type") != "text/plain; charset=utf-8" || a.Header().Get("Content-Security-Policy") != console.CSP {
		t.Errorf("headers %v", a.Header())
	}
}

// consoleDir is a real console directory: index.html, an asset, a
// subdirectory, a link inside it and a link out of it.
func consoleDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":    "<!doctype html><title>disk</title>",
		"assets/app.js": "console.log(2)",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("outside the console"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"escape.txt": secret, "inside.html": "index.html", "up.html": "../" + filepath.Base(filepath.Dir(secret)) + "/secret.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openRootFS(t *testing.T, dir string) fs.FS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Close() })
	return root.FS()
}

func TestIfModifiedSinceTheFilesMtimeIs304(t *testing.T) {
	t.Parallel()
	dir := consoleDir(t)
	mtime := time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "index.html"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	for name, files := range map[string]fs.FS{"os.DirFS": os.DirFS(dir), "os.Root": openRootFS(t, dir)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := consoleHandler(files)
			a := serve(t, h, consoleRequest(consolePath))
			if a.Code != http.StatusOK || a.Header().Get("Last-Modified") != mtime.Format(http.TimeFormat) {
				t.Fatalf("%d Last-Modified %q, want 200 %q", a.Code, a.Header().Get("Last-Modified"), mtime.Format(http.TimeFormat))
			}
			for ims, want := range map[string]int{
				mtime.Format(http.TimeFormat):                   http.StatusNotModified,
				mtime.Add(time.Hour).Format(http.TimeFormat):    http.StatusNotModified,
				mtime.Add(-time.Second).Format(http.TimeFormat): http.StatusOK,
			} {
				a := serve(t, h, consoleRequest(consolePath, "If-Modified-Since", ims))
				if a.Code != want {
					t.Errorf("If-Modified-Since %s: %d, want %d", ims, a.Code, want)
				}
				if want == http.StatusNotModified && a.Body.Len() != 0 {
					t.Errorf("If-Modified-Since %s: a 304 with a body", ims)
				}
			}
		})
	}
}

func TestAConsoleDirectoryServesOnlyItsRegularFiles(t *testing.T) {
	t.Parallel()
	dir := consoleDir(t)
	files := openRootFS(t, dir)
	h := consoleHandler(files)
	for path, want := range map[string]int{
		consolePath:                      http.StatusOK,
		consolePath + "assets/app.js":    http.StatusOK,
		consolePath + "inside.html":      http.StatusOK, // a link that stays inside
		consolePath + "assets":           http.StatusNotFound,
		consolePath + "escape.txt":       http.StatusNotFound, // an absolute link out
		consolePath + "up.html":          http.StatusNotFound, // a relative link out
		consolePath + "missing.html":     http.StatusNotFound,
		consolePath + "../secret.txt":    http.StatusNotFound,
		consolePath + "assets/../x.html": http.StatusNotFound,
	} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			a := serve(t, h, consoleRequest(path))
			if a.Code != want {
				t.Fatalf("%s: %d %q, want %d", path, a.Code, a.Body, want)
			}
			if want == http.StatusNotFound && a.Err == nil {
				t.Error("a 404 the handler wrote itself, not an apierr")
			}
		})
	}
}

// TestAFIFOIs404WithoutBlocking: opening a FIFO for reading blocks until a
// writer comes, so the handler must refuse it from its Stat. Should the
// open ever happen, the test opens the FIFO for writing to release the
// handler, and fails.
func TestAFIFOIs404WithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.js")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for name, files := range map[string]fs.FS{"os.DirFS": os.DirFS(dir), "os.Root": openRootFS(t, dir)} {
		t.Run(name, func(t *testing.T) {
			h := consoleHandler(files)
			w := httptest.NewRecorder()
			done := make(chan error, 1)
			go func() { done <- h(w, consoleRequest(consolePath+"pipe.js")) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					_ = f.Close()
				}
				<-done
				t.Fatal("the handler blocked opening the FIFO")
			}
			if e := apierr.As(err); err == nil || e.Status != http.StatusNotFound || w.Body.Len() != 0 {
				t.Fatalf("%v, body %q; want a 404 apierr and no body", err, w.Body)
			}
		})
	}
}

// TestTheConsoleReadsItsPathFromTheCall: the handler serves what follows
// the row's path in the request's context, whatever that path is.
func TestTheConsoleReadsItsPathFromTheCall(t *testing.T) {
	t.Parallel()
	h := consoleHandler(consoleFS())
	for _, c := range []struct{ rowPath, urlPath, body string }{
		{"/console/graph/", "/console/graph/app.js", "export {}"},
		{"/ui/", "/ui/app.js", "export {}"},
		{"/ui/", "/ui/", "<!doctype html><title>root</title>"},
		{"/", "/dir/page.html", "<!doctype html><title>page</title>"},
	} {
		r := httptest.NewRequest(http.MethodGet, c.urlPath, nil)
		r = r.WithContext(caller.With(context.Background(), caller.Call{Path: c.rowPath}))
		a := serve(t, h, r)
		if a.Code != http.StatusOK || a.Body.String() != c.body {
			t.Errorf("row %s, GET %s: %d %q, want %q", c.rowPath, c.urlPath, a.Code, a.Body, c.body)
		}
	}
}
