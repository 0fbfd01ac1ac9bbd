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

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/forge"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/reviewstate"
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

// diffError maps the diff package's typed errors to answers: a workspace
// outside git is 409, an unknown base 400 naming it.
func diffError(err error) error {
	var be *diff.BaseError
	switch {
	case errors.Is(err, diff.ErrNotRepository):
		return apierr.FailedPrecondition("%v", err)
	case errors.As(err, &be):
		return apierr.BadRequest("%v", err)
	case errors.Is(err, gitx.ErrNotInstalled):
		return apierr.Unavailable("%v", err)
	}
	return err
}

// diffSource is the live view's side of a diff page, with the cache the
// server's diff routes share.
func diffSource(ws *live.Workspace, sessions *reviewstate.Store, cache *diff.Cache) diff.Source {
	return diff.Source{Root: ws.Root(), Declared: ws.Resolved, Index: ws.Indexer(), Sessions: sessions, Cache: cache}
}

// diffHandler serves GET /api/v1/diff: the annotated change and the
// caller's review session. A repeat with nothing changed is a 304: the
// ETag covers the working tree, HEAD, the declared coverage files and the
// session's version (diff.Source.ETag).
func diffHandler(ws *live.Workspace, sessions *reviewstate.Store, cache *diff.Cache) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "base")
		if err != nil {
			return err
		}
		src := diffSource(ws, sessions, cache)
		base := q.Get("base")
		// A client that holds an answer is likely to get a 304: the
		// stamp alone (one git status) decides. Otherwise the page's own
		// read gives its ETag.
		if r.Header.Get("If-None-Match") != "" {
			etag, err := src.ETag(r.Context(), base)
			if err != nil {
				return diffError(err)
			}
			if notModified(w, r, etag) {
				return nil
			}
		}
		page, etag, err := src.TaggedPage(r.Context(), base)
		if err != nil {
			return diffError(err)
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
func diffPatchHandler(ws *live.Workspace) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "base")
		if err != nil {
			return err
		}
		base := q.Get("base")
		if r.Header.Get("If-None-Match") != "" {
			stamp, err := diff.Stamp(r.Context(), ws.Root(), base)
			if err != nil {
				return diffError(err)
			}
			if notModified(w, r, patchETag(stamp)) {
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
		err = diff.WritePatchStamped(r.Context(), bw, ws.Root(), base, func(stamp string) {
			if stamp != "" {
				h.Set("ETag", patchETag(stamp))
			}
		})
		if err == nil {
			err = bw.Flush()
		}
		return diffError(err)
	}
}

// patchBuffer is how much of a patch is written to the connection at once.
const patchBuffer = 64 << 10

func patchETag(stamp string) string { return `"patch-` + stamp + `"` }

// diffContextHandler serves GET /api/v1/diff/context?symbol=ID.
func diffContextHandler(ws *live.Workspace, sessions *reviewstate.Store, cache *diff.Cache) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "symbol")
		if err != nil {
			return err
		}
		id := q.Get("symbol")
		if id == "" {
			return apierr.BadRequest("symbol is required: /api/v1/diff/context?symbol=symbol:<path>#<name>")
		}
		c, err := diffSource(ws, sessions, cache).Context(r.Context(), id)
		switch {
		case errors.Is(err, diff.ErrNotSymbolID):
			return apierr.BadRequest("%v", err)
		case errors.Is(err, diff.ErrUnknownSymbol):
			return apierr.NotFound("%v", err)
		case err != nil:
			return err
		}
		return writeJSON(w, c)
	}
}

// diffSessionHandler serves POST /api/v1/diff/session: one operation on
// the review state of the current branch, stamped with the principal the
// gateway authenticated, never with anything the payload says.
func diffSessionHandler(ws *live.Workspace, sessions *reviewstate.Store) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, ok := caller.Principal(r.Context())
		if !ok {
			return apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "no authenticated caller: send a bearer token")
		}
		op, err := decodeStrict[reviewstate.Op](r.Body)
		if err != nil {
			return err
		}
		op.IfMatch = r.Header.Get("If-Match")
		branch, err := diff.SessionKey(r.Context(), ws.Root())
		if err != nil {
			return diffError(err)
		}
		s, err := sessions.Apply(branch, reviewstate.Author{Kind: string(p.Kind), ID: p.ID}, op)
		var stale *reviewstate.StaleError
		var input *reviewstate.InputError
		switch {
		case errors.As(err, &stale):
			w.Header().Set("ETag", diff.SessionETag(stale.Current))
			return apierr.Conflict("%v", err)
		case errors.As(err, &input):
			return apierr.BadRequest("%v", err)
		case errors.As(err, &reviewstate.TooManyError{}), errors.As(err, new(*reviewstate.SizeError)):
			return apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeTooLarge, "%v", err)
		case err != nil:
			return err
		}
		w.Header().Set("ETag", diff.SessionETag(s.Version))
		return writeJSON(w, s)
	}
}

// diffBranchesHandler serves GET /api/v1/diff/branches: the other branches
// that change files this change changes, and whether merging them would
// conflict.
func diffBranchesHandler(ws *live.Workspace) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := diffParams(r); err != nil {
			return err
		}
		ch, err := diff.Read(r.Context(), ws.Root(), "")
		if err != nil {
			return diffError(err)
		}
		paths := make([]string, 0, len(ch.Files))
		for _, f := range ch.Files {
			paths = append(paths, f.Path)
		}
		b, err := diff.OtherBranches(r.Context(), ws.Root(), paths)
		if err != nil {
			return diffError(err)
		}
		return writeJSON(w, b)
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
// and message say which (forge.Review never fails).
func diffReviewHandler(fc *forge.Client) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := diffParams(r); err != nil {
			return err
		}
		return writeJSON(w, fc.Review(r.Context()))
	}
}
