package backend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/forge"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/reviewstate"
)

// Review is the review area: the person's working change as a page (the
// change annotated, and their review session), the patch, a changed
// symbol's context, the other branches that change the same files, the
// branch's pull request on the forge, and the writes to the session.
type Review struct {
	root     string
	src      func() diff.Source // the page's source: the live view's, or a one-shot one (the CLI)
	sessions *reviewstate.Store
	forge    *forge.Client
}

// liveReview is the review area over a server's live view.
func liveReview(ws *live.Workspace, sessions *reviewstate.Store, fc *forge.Client) *Review {
	if ws == nil {
		return &Review{}
	}
	cache := &diff.Cache{} // shared by the page and the context
	return &Review{root: ws.Root(), sessions: sessions, forge: fc, src: func() diff.Source {
		return diff.Source{Root: ws.Root(), Declared: ws.Resolved, Index: ws.Indexer(), Sessions: sessions, Cache: cache}
	}}
}

func (r *Review) source() diff.Source { return r.src() }

// reviewError maps the diff package's typed errors to answers: a workspace
// outside git is a failed precondition, an unknown base an invalid
// argument naming it, no git unavailable.
func reviewError(err error) error {
	var be *diff.BaseError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, diff.ErrNotRepository):
		return apierr.FailedPrecondition("%v", err)
	case errors.As(err, &be):
		return apierr.BadRequest("%v", err)
	case errors.Is(err, gitx.ErrNotInstalled):
		return apierr.Unavailable("%v", err)
	}
	return err
}

// ETag is the page's ETag as of now, from one git status: what a client
// holding an answer compares before the page is read again.
func (r *Review) ETag(ctx context.Context, base string) (string, error) {
	etag, err := r.source().ETag(ctx, base)
	return etag, reviewError(err)
}

// Page is the annotated change against base ("" for HEAD) with the
// review session, and its ETag ("" when a file changed while it was read).
func (r *Review) Page(ctx context.Context, base string) (diff.Page, string, error) {
	p, etag, err := r.source().TaggedPage(ctx, base)
	return p, etag, reviewError(err)
}

// PatchETag is the ETag of the patch against base as of now.
func (r *Review) PatchETag(ctx context.Context, base string) (string, error) {
	stamp, err := diff.Stamp(ctx, r.root, base)
	if err != nil {
		return "", reviewError(err)
	}
	return patchETag(stamp), nil
}

func patchETag(stamp string) string { return `"patch-` + stamp + `"` }

// WritePatch writes the change against base as one unified patch, as git
// prints it; etag hears the patch's ETag before the first byte (never
// when a file changed while it was read).
func (r *Review) WritePatch(ctx context.Context, w io.Writer, base string, etag func(string)) error {
	return reviewError(diff.WritePatchStamped(ctx, w, r.root, base, func(stamp string) {
		if stamp != "" {
			etag(patchETag(stamp))
		}
	}))
}

// Patch is the change against base as one patch of at most max bytes, and
// whether it was cut there (git stops at the cut).
func (r *Review) Patch(ctx context.Context, base string, max int) (string, bool, error) {
	b := &capBuffer{max: max}
	err := diff.WritePatch(ctx, b, r.root, base)
	if err != nil && !errors.Is(err, errCapped) {
		return "", false, reviewError(err)
	}
	return b.buf.String(), b.cut, nil
}

var errCapped = errors.New("capped")

// capBuffer keeps the first max bytes written to it and then refuses
// more, which stops the patch's git process early. It is not a
// bytes.Buffer: one embedded would hand io.Copy its ReadFrom, which skips
// Write and so the cap.
type capBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		b.cut = true
		return max(room, 0), errCapped
	}
	return b.buf.Write(p)
}

// Context is the supporting context of a changed symbol: its definition
// and its callers.
func (r *Review) Context(ctx context.Context, id string) (diff.Context, error) {
	if id == "" {
		return diff.Context{}, apierr.BadRequest("symbol is required: /api/v1/diff/context?symbol=symbol:<path>#<name>")
	}
	c, err := r.source().Context(ctx, id)
	switch {
	case errors.Is(err, diff.ErrNotSymbolID):
		return c, apierr.BadRequest("%v", err)
	case errors.Is(err, diff.ErrUnknownSymbol):
		return c, apierr.NotFound("%v", err)
	}
	return c, err
}

// Branches are the other branches that change files this change changes,
// and whether merging them would conflict.
func (r *Review) Branches(ctx context.Context) (diff.Branches, error) {
	ch, err := diff.Read(ctx, r.root, "")
	if err != nil {
		return diff.Branches{}, reviewError(err)
	}
	paths := make([]string, 0, len(ch.Files))
	for _, f := range ch.Files {
		paths = append(paths, f.Path)
	}
	b, err := diff.OtherBranches(ctx, r.root, paths)
	return b, reviewError(err)
}

// PullRequest is what the forge says of the branch's pull request: its
// reviews, comments and checks. It never fails: every problem (no remote,
// no token, no network, no pull request) is a state with a message.
func (r *Review) PullRequest(ctx context.Context) forge.Report {
	return r.forge.Report(ctx)
}

// Write is one write to the person's review session on the current
// branch, by author (whom the route authenticated: never the payload).
//
// The one rule, whichever door it comes through: a comment anchors to the
// line's text as its writer saw it (the console sends what it showed; an
// agent or the CLI, which send none, get the line as the workspace file
// holds it now), so that a later edit of the line marks it outdated; and a
// writer that names the version it read (the console: a version or
// If-Match) gets a conflict when the session moved on, while one that
// names none (an agent, the CLI) writes on the latest version, retried
// when a concurrent write wins the race.
func (r *Review) Write(ctx context.Context, author reviewstate.Author, op reviewstate.Op) (reviewstate.Session, error) {
	branch, err := diff.SessionKey(ctx, r.root)
	if err != nil {
		return reviewstate.Session{}, reviewError(err)
	}
	if op.Op == reviewstate.OpComment && op.Text == nil && op.Path != "" && op.Line > 0 && op.Author == nil && op.By == nil && op.ResolvedBy == nil {
		text, err := lineText(r.root, op.Path, op.Line)
		if err != nil {
			return reviewstate.Session{}, apierr.BadRequest("%v", err)
		}
		op.Text = &text
	}
	latest := op.Version == nil && op.IfMatch == ""
	for attempt := 1; ; attempt++ {
		if latest {
			cur, err := r.sessions.Load(branch)
			if err != nil {
				return reviewstate.Session{}, err
			}
			v := cur.Version
			op.Version = &v
		}
		s, err := r.sessions.Apply(branch, author, op)
		var stale *reviewstate.StaleError
		var input *reviewstate.InputError
		switch {
		case errors.As(err, &stale) && latest && attempt < writeAttempts:
			continue
		case errors.As(err, &stale):
			return s, &StaleSession{Current: stale.Current, err: apierr.Conflict("%v", err)}
		case errors.As(err, &input):
			return s, apierr.BadRequest("%v", err)
		case errors.As(err, &reviewstate.TooManyError{}), errors.As(err, new(*reviewstate.SizeError)):
			return s, apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeTooLarge, "%v", err)
		}
		return s, err
	}
}

// AuthorOf is who a review write is stamped with, from the principal the
// route authenticated (its token's kind and id): a console token is the
// person at the console, an mcp token an agent, and the admin token, which
// only the CLI holds (the server's state file, mode 0600), the CLI as the
// machine's user. Never from the payload.
func AuthorOf(kind, id string) Author {
	if auth.Kind(kind) == auth.KindAdmin {
		return CLIAuthor()
	}
	return Author{Kind: kind, ID: id}
}

// CLIAuthor is the author of the CLI's review writes: `core review`, with
// the server up (through the route) or down (through the same store).
func CLIAuthor() Author {
	name := "local"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return Author{Kind: "cli", ID: name}
}

// writeAttempts bounds the retries of a write on the latest version.
const writeAttempts = 3

// StaleSession is the conflict of a write based on an old version: Current
// is the version now (its ETag, for the console to read again).
type StaleSession struct {
	Current int
	err     error
}

func (e *StaleSession) Error() string { return e.err.Error() }
func (e *StaleSession) Unwrap() error { return e.err }

// SessionETag is the ETag of a session version.
func SessionETag(version int) string { return diff.SessionETag(version) }

// Suggestion is a comment's body with a suggested replacement of its line,
// as GitHub writes one: what an agent's suggest op writes.
func Suggestion(body, replacement string) string {
	return strings.TrimSpace(body) + "\n\n```suggestion\n" + strings.TrimSuffix(replacement, "\n") + "\n```"
}

// lineText reads line n (from 1) of the workspace file rel, which a
// comment anchors to; the file is opened inside the workspace root.
func lineText(root, rel string, n int) (string, error) {
	if rel == "" || n < 1 {
		return "", errors.New("path and line (from 1) are required for a comment")
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return "", err
	}
	defer rt.Close()
	f, err := rt.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", fmt.Errorf("cannot read %s in the workspace: comment on a file the change lists", quote.Short(rel))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text(), nil
		}
	}
	return "", fmt.Errorf("%s has no line %d", quote.Short(rel), n)
}
