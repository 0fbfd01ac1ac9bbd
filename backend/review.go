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
	"slices"
	"strings"
	"unicode/utf8"

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

// PatchPart is a part of the change's patch, as an agent reads it: the
// bytes from Offset, cut at a line's end to fit the answer's budget.
type PatchPart struct {
	Text   string   `json:"text" jsonschema:"the unified patch from offset (untracked files as new files), as git prints it"`
	Offset int      `json:"offset" jsonschema:"the byte of the whole patch this part starts at"`
	Paths  []string `json:"paths,omitempty" jsonschema:"the paths the patch was narrowed to"`
	// NextCursor reads on where the part was cut.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass it as cursor, with the same base and paths, for the next part; absent when the patch ends here"`
	Note       string `json:"note,omitempty" jsonschema:"where the part was cut and how to narrow"`
}

// patchBudget is what a part's text may take, as JSON.
const patchBudget = AnswerBudget - 4<<10

// Patch is the part of the change against base (narrowed to paths) from
// cursor: git stops once the part is full.
func (r *Review) Patch(ctx context.Context, base string, paths []string, cursor string) (PatchPart, error) {
	only, err := diff.ParsePaths(paths)
	if err != nil {
		return PatchPart{}, apierr.BadRequest("paths: %v", err)
	}
	q := question("read_patch", base, only.Paths())
	offset, err := ParseCursor(q, cursor)
	if err != nil {
		return PatchPart{}, err
	}
	b := &capBuffer{skip: offset, max: patchBudget}
	err = diff.WritePatchOf(ctx, b, r.root, base, only)
	if err != nil && !errors.Is(err, errCapped) {
		return PatchPart{}, reviewError(err)
	}
	text, cut := fitText(b.buf.String(), b.cut, patchBudget)
	part := PatchPart{Text: text, Offset: offset, Paths: only.Paths()}
	switch {
	case cut:
		part.NextCursor = Cursor(q, offset+len(text))
		part.Note = fmt.Sprintf("the patch goes on after byte %d (the answer's budget is %d KB): next_cursor reads on; paths narrows it to some files, and read_diff lists every file", offset+len(text), AnswerBudget>>10)
	case offset > 0 && text == "" && b.seen < offset:
		return PatchPart{}, apierr.BadRequest("the cursor is past the end of the patch (%d bytes now): ask again without cursor", b.seen)
	case text == "" && only != nil:
		part.Note = "no changed file matches paths: read_diff lists the changed files"
	}
	return part, nil
}

// fitText cuts text (cut: it was cut already) at a line's end so that
// it takes at most budget bytes as a JSON string.
func fitText(text string, cut bool, budget int) (string, bool) {
	if cut {
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i+1]
		}
	}
	if jsonLen(text) <= budget {
		return text, cut
	}
	n, end := 2, 0
	for end < len(text) {
		line := len(text[end:])
		if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
			line = i + 1
		}
		if n += jsonLen(text[end : end+line]); n > budget {
			break
		}
		end += line
	}
	if end == 0 { // one line over the budget: cut inside it, on a rune
		for n = 2; end < len(text); end++ {
			if n += jsonLen(text[end : end+1]); n > budget {
				break
			}
		}
		for end > 0 && end < len(text) && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	return text[:end], true
}

// jsonLen is at least the length of s as a JSON string's content, as
// encoding/json escapes it (control characters, quotes, backslashes, and
// <, > and & as \u00XX; a bad byte as \ufffd).
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
				n += 6
			default:
				n += size
			}
			i += size
			continue
		default:
			n++
		}
		i++
	}
	return n
}

var errCapped = errors.New("capped")

// capBuffer keeps max bytes written to it after the first skip, and then
// refuses more, which stops the patch's git process early. It has Write
// alone: a bytes.Buffer, embedded, would hand io.Copy and bufio's WriteTo
// its ReadFrom, which skips Write and so the cap (capbuffer_test.go
// writes through every path that reaches it).
type capBuffer struct {
	buf  bytes.Buffer
	skip int
	max  int
	seen int // bytes written to it, skipped ones included
	cut  bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.seen += n
	if b.skip > 0 {
		s := min(b.skip, len(p))
		b.skip -= s
		p = p[s:]
	}
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		b.cut = true
		return n - len(p) + max(room, 0), errCapped
	}
	b.buf.Write(p)
	return n, nil
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

// The ops of an agent's review write.
const (
	AgentComment = "comment"
	AgentSuggest = "suggest"
	AgentResolve = "resolve"
	AgentReopen  = "reopen"
)

// AgentOps are the ops an agent writes on the review.
var AgentOps = []string{AgentComment, AgentSuggest, AgentResolve, AgentReopen}

// AgentOp is one write of an agent on the person's review: a comment on a
// line, a suggested replacement of the line (a GitHub suggestion block),
// or resolving or reopening a comment.
type AgentOp struct {
	Op, Path, Body, Suggestion, ID string
	Line                           int
}

// Written is what an agent's write did: the comment it wrote or changed,
// and the session's counts.
type Written struct {
	Comment reviewstate.Comment `json:"comment"`
	Session DiffSessionInfo     `json:"session"`
}

// AgentWrite is an agent's write on the review session, by author.
func (r *Review) AgentWrite(ctx context.Context, author Author, in AgentOp) (Written, error) {
	op := Op{Op: in.Op, Path: in.Path, Line: in.Line, Body: in.Body, ID: in.ID}
	switch in.Op {
	case AgentComment:
	case AgentSuggest:
		if in.Suggestion == "" {
			return Written{}, apierr.BadRequest("suggestion is required for op suggest: the replacement text for the line")
		}
		op.Op, op.Body = OpComment, Suggestion(in.Body, in.Suggestion)
	case AgentResolve, AgentReopen:
		if in.ID == "" {
			return Written{}, apierr.BadRequest("id is required for op %s: a comment id, from read_diff's comments", in.Op)
		}
	default:
		return Written{}, apierr.BadRequest("op %s is not one the review tool takes: comment, suggest, resolve or reopen", quote.Short(in.Op))
	}
	if op.Op == OpComment && (in.Path == "" || in.Line < 1) {
		return Written{}, apierr.BadRequest("path and line (from 1) are required for a comment")
	}
	s, err := r.Write(ctx, author, op)
	if err != nil {
		return Written{}, err
	}
	_, _, info := sessionOf(s, nil)
	w := Written{Session: info}
	for i := len(s.Comments) - 1; i >= 0; i-- {
		c := s.Comments[i]
		if op.Op == OpComment && c.Author == author && c.Path == op.Path && c.Line == op.Line || op.Op != OpComment && c.ID == op.ID {
			w.Comment = c
			break
		}
	}
	return w, nil
}

// ReviewStatus is the branch as others see it: what the forge says of its
// pull request (verdicts, comments, checks), and the other branches that
// change the same files and whether merging them would conflict.
type ReviewStatus struct {
	Forge    forge.Report  `json:"forge" jsonschema:"the pull request of the branch on the forge; state says why there is none (no_remote, no_token, no_pull_request, ...)"`
	Branches diff.Branches `json:"branches" jsonschema:"other branches that change files this change changes, and whether merging them would conflict"`
	Note     string        `json:"note,omitempty"`
}

const maxForgeBody = 1 << 10

// Status is the branch's review status, within the answer's budget:
// comment bodies cut to 1 KB, then the longest lists shortened.
func (r *Review) Status(ctx context.Context) (ReviewStatus, error) {
	st := ReviewStatus{Forge: r.PullRequest(ctx)}
	br, err := r.Branches(ctx)
	if err != nil {
		st.Note = "the other branches could not be read: " + err.Error()
	}
	st.Branches = br
	if st.Branches.Branches == nil {
		st.Branches.Branches = []diff.Branch{}
	}
	// The forge's answer is kept for 30 s: its lists are copied, not cut
	// in place.
	st.Forge.Comments, st.Forge.Reviews = slices.Clone(st.Forge.Comments), slices.Clone(st.Forge.Reviews)
	for i := range st.Forge.Comments {
		st.Forge.Comments[i].Body = cutText(st.Forge.Comments[i].Body, maxForgeBody)
	}
	for i := range st.Forge.Reviews {
		st.Forge.Reviews[i].Body = cutText(st.Forge.Reviews[i].Body, maxForgeBody)
	}
	for round := 0; round < 20 && encodedLen(st) > listBudget; round++ {
		f := &st.Forge
		switch {
		case len(f.Comments) > 10:
			f.Comments = f.Comments[:len(f.Comments)/2]
		case len(st.Branches.Branches) > 10:
			st.Branches.Branches = st.Branches.Branches[:len(st.Branches.Branches)/2]
		case len(f.Checks) > 10:
			f.Checks = f.Checks[:len(f.Checks)/2]
		case len(f.Reviews) > 10:
			f.Reviews = f.Reviews[:len(f.Reviews)/2]
		default:
			f.Comments, f.Reviews = nil, nil
			for i := range st.Branches.Branches {
				b := &st.Branches.Branches[i]
				b.Overlap = b.Overlap[:min(len(b.Overlap), 20)]
			}
		}
		if round == 0 {
			st.Note = strings.TrimPrefix(st.Note+fmt.Sprintf("; lists were shortened to fit the answer's budget of %d KB: the pull request's page has them all", AnswerBudget>>10), "; ")
		}
	}
	return st, nil
}
