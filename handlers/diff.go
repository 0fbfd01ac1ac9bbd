package handlers

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/quote"
)

// diffParams reads a diff route's query parameters, refusing any but
// allowed, and each more than once: the answers depend on nothing else.
func diffParams(r *http.Request, allowed ...string) (url.Values, error) {
	takes := "no query parameters"
	if len(allowed) > 0 {
		takes = strings.Join(allowed, ", ")
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, apierr.BadRequest("the query string does not parse; %s takes %s", r.URL.Path, takes)
	}
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			return nil, apierr.BadRequest("unknown query parameter %s; %s takes %s", quote.Short(k), r.URL.Path, takes)
		}
		if len(v) > 1 {
			return nil, apierr.BadRequest("query parameter %s is given %d times; give it once", quote.Short(k), len(v))
		}
	}
	return q, nil
}

// diffHandler serves GET /api/v1/diff: the annotated change and the
// caller's review session. A repeat with nothing changed is a 304: the
// ETag covers the working tree, HEAD, the declared coverage files and the
// session's version.
func diffHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "base")
		if err != nil {
			return err
		}
		base := q.Get("base")
		// A client that holds an answer is likely to get a 304: the
		// stamp alone (one git status) decides. Otherwise the page's own
		// read gives its ETag.
		if r.Header.Get("If-None-Match") != "" {
			etag, err := b.Review.ETag(r.Context(), base)
			if err != nil {
				return err
			}
			if notModified(w, r, etag) {
				return nil
			}
		}
		page, etag, err := b.Review.Page(r.Context(), base)
		if err != nil {
			return err
		}
		body, err := json.Marshal(page)
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		if etag != "" {
			h.Set("ETag", etag)
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
		return nil
	}
}

// diffPatchHandler serves GET /api/v1/diff/patch: the change as one
// unified patch, streamed from git as it prints it.
func diffPatchHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "base")
		if err != nil {
			return err
		}
		base := q.Get("base")
		if r.Header.Get("If-None-Match") != "" {
			etag, err := b.Review.PatchETag(r.Context(), base)
			if err != nil {
				return err
			}
			if notModified(w, r, etag) {
				return nil
			}
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Type", "text/x-diff; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		// git writes its output 4 KB at a time: each would be a chunk and
		// a write to the connection of its own. A failure before the
		// buffer's first flush is answered as an error, not a cut patch.
		bw := bufio.NewWriterSize(w, patchBuffer)
		err = b.Review.WritePatch(r.Context(), bw, base, func(etag string) { h.Set("ETag", etag) })
		if err == nil {
			err = bw.Flush()
		}
		return err
	}
}

// patchBuffer is how much of a patch is written to the connection at once.
const patchBuffer = 64 << 10

// diffContextHandler serves GET /api/v1/diff/context?symbol=ID.
func diffContextHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "symbol")
		if err != nil {
			return err
		}
		c, err := b.Review.Context(r.Context(), q.Get("symbol"))
		if err != nil {
			return err
		}
		return writeJSON(w, c)
	}
}

// diffSessionHandler serves POST /api/v1/diff/session: one operation on
// the review state of the current branch, stamped with the principal the
// gateway authenticated, never with anything the payload says.
func diffSessionHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, ok := caller.Principal(r.Context())
		if !ok {
			return apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "no authenticated caller: send a bearer token")
		}
		op, err := decodeStrict[backend.Op](r.Body)
		if err != nil {
			return err
		}
		op.IfMatch = r.Header.Get("If-Match")
		s, err := b.Review.Write(r.Context(), backend.AuthorOf(string(p.Kind), p.ID), op)
		var stale *backend.StaleSession
		if errors.As(err, &stale) {
			w.Header().Set("ETag", backend.SessionETag(stale.Current))
		}
		if err != nil {
			return err
		}
		w.Header().Set("ETag", backend.SessionETag(s.Version))
		return writeJSON(w, s)
	}
}

// diffBranchesHandler serves GET /api/v1/diff/branches: the other branches
// that change files this change changes, and whether merging them would
// conflict.
func diffBranchesHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := diffParams(r); err != nil {
			return err
		}
		br, err := b.Review.Branches(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, br)
	}
}

// notModified answers 304 when the request already holds etag, and marks
// every answer as one to revalidate (Cache-Control: no-cache).
func notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	w.Header().Set("Cache-Control", "no-cache")
	if !etagMatches(r.Header.Get("If-None-Match"), etag) {
		return false
	}
	w.Header().Set("ETag", etag)
	w.WriteHeader(http.StatusNotModified)
	return true
}

// diffReviewHandler serves GET /api/v1/diff/review: the branch's pull
// request on the forge, its reviews, comments and checks. Every failure
// (no remote, no token, no network, no pull request) is a 200 whose state
// and message say which (forge.Report never fails).
func diffReviewHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := diffParams(r); err != nil {
			return err
		}
		return writeJSON(w, b.Review.PullRequest(r.Context()))
	}
}
