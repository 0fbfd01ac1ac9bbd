package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/workspace"
)

const graphParams = "flavor=targets, level=projects or select=<terms>"

// graphHandler serves GET /api/v1/graph. The default graph comes from the
// live snapshot's pre-encoded bytes (with an ETag and gzip); the
// flavor=targets and level=projects variants reparse targets.yaml on every
// request, as rule G2 requires.
func graphHandler(ws *live.Workspace) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery == "" {
			return serveSnapshot(w, r, ws)
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return apierr.BadRequest("the query string does not parse; /api/v1/graph takes %s", graphParams)
		}
		for k, v := range q {
			switch k {
			case "flavor", "level", "select":
				if len(v) > 1 {
					return apierr.BadRequest("query parameter %q is given %d times; give it once", k, len(v))
				}
			default:
				return apierr.BadRequest("unknown query parameter %q; /api/v1/graph takes %s", k, graphParams)
			}
		}
		_, hasFlavor := q["flavor"]
		_, hasLevel := q["level"]
		_, hasSelect := q["select"]
		switch {
		case hasFlavor && hasLevel, hasSelect && (hasFlavor || hasLevel):
			return apierr.BadRequest("flavor, level and select are alternatives; give one of them")
		case hasFlavor:
			if f := q.Get("flavor"); f != "targets" {
				return apierr.BadRequest("flavor %q is not allowed; allowed: targets", f)
			}
			return serveReparsed(w, ws.Root(), graph.Targets)
		case hasLevel:
			if l := q.Get("level"); l != "projects" {
				return apierr.BadRequest("level %q is not allowed; allowed: projects", l)
			}
			inferred := ws.InferredDeps()
			return serveReparsed(w, ws.Root(), func(wsp *workspace.Workspace) *graph.Graph {
				return graph.Projects(wsp, inferred...)
			})
		default:
			q, err := query.Parse(q.Get("select"))
			if err != nil {
				return apierr.BadRequest("select: %v", err)
			}
			g, err := ws.Query(q)
			if err != nil {
				return apierr.Unavailable("%v", err)
			}
			return writeGraph(w, g.Encode())
		}
	}
}

func serveSnapshot(w http.ResponseWriter, r *http.Request, ws *live.Workspace) error {
	snap, err := ws.Current()
	if err != nil {
		return apierr.Unavailable("%v", err)
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	// Each representation has its own strong ETag; either one still names
	// the current version when a client revalidates.
	gzipETag := snap.ETag[:len(snap.ETag)-1] + `-gzip"`
	if inm := r.Header.Get("If-None-Match"); etagMatches(inm, snap.ETag) || etagMatches(inm, gzipETag) {
		h.Set("ETag", snap.ETag)
		if etagMatches(inm, gzipETag) {
			h.Set("ETag", gzipETag)
		}
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	body, etag := snap.JSON(), snap.ETag
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body, etag = snap.Gzip(), gzipETag
	}
	h.Set("ETag", etag)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
	return nil
}

func serveReparsed(w http.ResponseWriter, root string, variant func(*workspace.Workspace) *graph.Graph) error {
	wsp, err := workspace.Load(root)
	if err != nil {
		return apierr.Unavailable("%v", err)
	}
	return writeGraph(w, variant(wsp).Encode())
}

func writeGraph(w http.ResponseWriter, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
	return nil
}

// etagMatches implements If-None-Match's weak comparison for one ETag.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding lists gzip without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		params = strings.ReplaceAll(params, " ", "")
		return params != "q=0" && params != "q=0.0" && params != "q=0.00" && params != "q=0.000"
	}
	return false
}
