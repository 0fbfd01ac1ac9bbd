package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/quote"
)

const graphParams = "flavor=targets, level=projects or select=<terms> (with edge_limit=<n>)"

// maxEdgeLimit bounds edge_limit; any graph's edges fit under it.
const maxEdgeLimit = 1 << 30

// graphHandler serves GET /api/v1/graph. The default graph comes from the
// live snapshot's pre-encoded bytes (with an ETag and gzip); the
// flavor=targets and level=projects variants reparse targets.yaml on every
// request, as rule G2 requires.
func graphHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery == "" {
			snap, err := b.Graph.Current()
			if err != nil {
				return err
			}
			return serveCurrent(w, r, snap, snap.ETag)
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return apierr.BadRequest("the query string does not parse; /api/v1/graph takes %s", graphParams)
		}
		for k, v := range q {
			switch k {
			case "flavor", "level", "select", "edge_limit":
				if len(v) > 1 {
					return apierr.BadRequest("query parameter %s is given %d times; give it once", quote.Short(k), len(v))
				}
			default:
				return apierr.BadRequest("unknown query parameter %s; /api/v1/graph takes %s", quote.Short(k), graphParams)
			}
		}
		_, hasFlavor := q["flavor"]
		_, hasLevel := q["level"]
		_, hasSelect := q["select"]
		_, hasLimit := q["edge_limit"]
		limit := 0
		if hasLimit {
			if !hasSelect {
				return apierr.BadRequest("edge_limit goes with select=<terms>")
			}
			l := q.Get("edge_limit")
			if limit, err = strconv.Atoi(l); err != nil || limit < 0 || limit > maxEdgeLimit {
				return apierr.BadRequest("edge_limit %s is not a number of edges (0 to %d)", quote.Short(l), maxEdgeLimit)
			}
		}
		var g interface{ Encode() []byte }
		switch {
		case hasFlavor && hasLevel, hasSelect && (hasFlavor || hasLevel):
			return apierr.BadRequest("flavor, level and select are alternatives; give one of them")
		case hasFlavor:
			if f := q.Get("flavor"); f != "targets" {
				return apierr.BadRequest("flavor %s is not allowed; allowed: targets", quote.Short(f))
			}
			g, err = b.Graph.Targets()
		case hasLevel:
			if l := q.Get("level"); l != "projects" {
				return apierr.BadRequest("level %s is not allowed; allowed: projects", quote.Short(l))
			}
			g, err = b.Graph.Projects()
		default:
			if hasLimit {
				g, err = b.Graph.QueryDrawn(q.Get("select"), limit)
			} else {
				g, err = b.Graph.Query(q.Get("select"))
			}
			if err != nil {
				if e := apierr.As(err); e.Code == apierr.CodeInvalidArgument {
					return apierr.BadRequest("select: %s", e.Message)
				}
			}
		}
		if err != nil {
			return err
		}
		return writeJSONBody(w, g.Encode())
	}
}

// encoded is a snapshot's bytes, made once per version.
type encoded interface {
	JSON() []byte
	Gzip() []byte
}

func serveCurrent(w http.ResponseWriter, r *http.Request, snap encoded, etag string) error {
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding") // beside the Vary: Origin of CORS
	// Each representation has its own strong ETag; either one still names
	// the current version when a client revalidates, as long as the client
	// can take that representation: a 304 naming the gzip ETag tells a
	// cache to serve its gzip copy. When both match ("*", or a cache
	// listing all it holds), the 304 names the one a 200 would carry.
	gzipETag := etag[:len(etag)-1] + `-gzip"`
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		match := ""
		switch {
		case gz && etagMatches(inm, gzipETag):
			match = gzipETag
		case etagMatches(inm, etag):
			match = etag
		}
		if match != "" {
			h.Set("ETag", match)
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	h.Set("Content-Type", "application/json")
	body := snap.JSON()
	if gz {
		h.Set("Content-Encoding", "gzip")
		body, etag = snap.Gzip(), gzipETag
	}
	h.Set("ETag", etag)
	h.Set("Content-Length", strconv.Itoa(len(body)))
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

// acceptsGzip reports whether an Accept-Encoding header admits gzip: named
// (or x-gzip) with a q-value above 0, or, when it is not named, covered by
// "*" with one above 0 (RFC 9110, section 12.5.3). A q-value that does not
// parse admits nothing.
func acceptsGzip(header string) bool {
	star := 0.0
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.TrimSpace(coding)
		switch {
		case strings.EqualFold(coding, "gzip"), strings.EqualFold(coding, "x-gzip"):
			return qValue(params) > 0
		case coding == "*":
			star = qValue(params)
		}
	}
	return star > 0
}

// qValue is the weight among a coding's parameters: 1 when there is none,
// 0 when it is not a number from 0 to 1.
func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(q >= 0 && q <= 1) { // NaN parses and fails both comparisons
			return 0
		}
		return q
	}
	return 1
}
