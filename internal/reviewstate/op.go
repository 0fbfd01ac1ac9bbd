package reviewstate

import (
	"github.com/corehq/core/internal/fsx"

	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/quote"
)

// Op is one write, the body of POST /api/v1/diff/session. The handler
// decodes it strictly (unknown keys refused) and sets IfMatch from the
// header.
type Op struct {
	Version *int    `json:"version"`
	Op      string  `json:"op"`
	Path    string  `json:"path"`
	Line    int     `json:"line"`
	Hash    string  `json:"hash"`
	Text    *string `json:"text"`
	Body    string  `json:"body"`
	ID      string  `json:"id"`

	// Keys that would name an author are decoded only to be refused with
	// the reason: the route decides authorship.
	Author     json.RawMessage `json:"author"`
	By         json.RawMessage `json:"by"`
	ResolvedBy json.RawMessage `json:"resolved_by"`

	// IfMatch is the request's If-Match header, "" when absent.
	IfMatch string `json:"-"`
}

// The operations.
const (
	OpCursor  = "cursor"
	OpView    = "view"
	OpUnview  = "unview"
	OpComment = "comment"
	OpResolve = "resolve"
	OpReopen  = "reopen"
	OpDelete  = "delete"
)

var ops = []string{OpCursor, OpView, OpUnview, OpComment, OpResolve, OpReopen, OpDelete}

// StaleError refuses a write based on an old version.
type StaleError struct{ Current, Sent int }

func (e *StaleError) Error() string {
	return fmt.Sprintf("the review session changed (version %d, you sent %d): read GET /api/v1/diff again and retry", e.Current, e.Sent)
}

// InputError is a write that is wrong in itself; its message names the
// field and what is allowed.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func bad(format string, args ...any) error { return &InputError{Msg: fmt.Sprintf(format, args...)} }

// SizeError refuses a write after which the session would be larger than
// its file may be.
type SizeError struct{ Size, Max int }

func (e *SizeError) Error() string {
	return fmt.Sprintf("the review session would be %d MB, over its %d MB: delete or resolve comments, or unmark viewed files", e.Size>>20, e.Max>>20)
}

// TooManyError refuses a comment beyond MaxComments.
type TooManyError struct{}

func (TooManyError) Error() string {
	return fmt.Sprintf("too many comments: a branch holds at most %d; delete or resolve some", MaxComments)
}

// version is the version the writer read, from the field or If-Match;
// both, when present, must agree.
func (o Op) version() (int, error) {
	fromHeader, hasHeader := -1, o.IfMatch != ""
	if hasHeader {
		tag := strings.TrimPrefix(strings.TrimSpace(o.IfMatch), "W/")
		n, err := strconv.Atoi(strings.Trim(tag, `"`))
		if err != nil || n < 0 {
			return 0, bad(`If-Match must be the session's version as an ETag, e.g. If-Match: "7"`)
		}
		fromHeader = n
	}
	switch {
	case o.Version == nil && !hasHeader:
		return 0, bad(`version is required: send the version GET /api/v1/diff gave (session.version), or an If-Match header`)
	case o.Version != nil && *o.Version < 0:
		return 0, bad("version must be 0 or more")
	case o.Version != nil && hasHeader && *o.Version != fromHeader:
		return 0, bad("version %d and If-Match %d disagree: send one, or the same in both", *o.Version, fromHeader)
	case o.Version != nil:
		return *o.Version, nil
	}
	return fromHeader, nil
}

// validate checks the op's own fields, before the session is read.
func (o Op) validate() error {
	if o.Author != nil || o.By != nil || o.ResolvedBy != nil {
		return bad("authorship is decided by the route, not the payload: remove the author field")
	}
	need := func(ok bool, field, example string) error {
		if !ok {
			return bad("%s is required for op %s, e.g. %s", field, o.Op, example)
		}
		return nil
	}
	checkPath := func() error {
		if err := need(o.Path != "", "path", `"path": "api/main.go"`); err != nil {
			return err
		}
		if len(o.Path) > 4096 || !utf8.ValidString(o.Path) || strings.ContainsRune(o.Path, 0) || o.Path == "." || !fsx.CleanLocal(o.Path) {
			return bad("path must be a clean slash path relative to the workspace root, without .., as GET /api/v1/diff names files")
		}
		return nil
	}
	checkLine := func() error {
		if o.Line < 1 {
			return bad("line must be 1 or more (a line of the new file)")
		}
		return nil
	}
	checkID := func() error {
		return need(o.ID != "", "id", `"id": "c7"`)
	}
	switch o.Op {
	case OpCursor:
		if err := checkPath(); err != nil {
			return err
		}
		return checkLine()
	case OpView:
		if err := checkPath(); err != nil {
			return err
		}
		if err := need(o.Hash != "", "hash", `the file's "hash" from GET /api/v1/diff`); err != nil {
			return err
		}
		if len(o.Hash) > 128 {
			return bad("hash is a git blob id, at most 128 characters")
		}
		return nil
	case OpUnview:
		return checkPath()
	case OpComment:
		if err := checkPath(); err != nil {
			return err
		}
		if err := checkLine(); err != nil {
			return err
		}
		if err := need(o.Text != nil, "text", `the line's content, "text": "\treturn a + b"`); err != nil {
			return err
		}
		if len(*o.Text) > MaxText {
			return bad("text is %d bytes; the line's text may be at most %d", len(*o.Text), MaxText)
		}
		if strings.TrimSpace(o.Body) == "" {
			return bad(`body is required for op comment and must not be blank, e.g. "body": "looks off"`)
		}
		if len(o.Body) > MaxBody {
			return bad("body is %d bytes; a comment may be at most %d", len(o.Body), MaxBody)
		}
		return nil
	case OpResolve, OpReopen, OpDelete:
		return checkID()
	case "":
		return bad("op is required: one of %s", strings.Join(ops, ", "))
	}
	return bad("op %s is unknown: one of %s", quote.Short(o.Op), strings.Join(ops, ", "))
}

// apply changes f; validate has passed.
func (o Op) apply(f *file, a Author, now time.Time) error {
	switch o.Op {
	case OpCursor:
		f.Cursor = &Cursor{Path: o.Path, Line: o.Line, Author: a, At: now}
	case OpView:
		f.Viewed = removeMark(f.Viewed, o.Path)
		if len(f.Viewed) >= MaxViewed {
			return bad("at most %d files can be marked viewed", MaxViewed)
		}
		f.Viewed = append(f.Viewed, Mark{Path: o.Path, Hash: o.Hash, Author: a, At: now})
	case OpUnview:
		f.Viewed = removeMark(f.Viewed, o.Path)
	case OpComment:
		if len(f.Comments) >= MaxComments {
			return TooManyError{}
		}
		f.Comments = append(f.Comments, Comment{ID: "c" + strconv.Itoa(f.NextID), Path: o.Path, Line: o.Line, Text: *o.Text, Body: o.Body, Author: a, At: now})
		f.NextID++
	case OpResolve, OpReopen, OpDelete:
		i := -1
		for k, c := range f.Comments {
			if c.ID == o.ID {
				i = k
			}
		}
		if i < 0 {
			return bad("no comment %s on this branch: GET /api/v1/diff lists them", quote.Short(o.ID))
		}
		c := &f.Comments[i]
		switch o.Op {
		case OpResolve:
			c.Resolved, c.ResolvedBy, c.ResolvedAt = true, &a, &now
		case OpReopen:
			c.Resolved, c.ResolvedBy, c.ResolvedAt = false, nil, nil
		case OpDelete:
			f.Comments = append(f.Comments[:i], f.Comments[i+1:]...)
		}
	}
	return nil
}

func removeMark(marks []Mark, p string) []Mark {
	out := marks[:0]
	for _, m := range marks {
		if m.Path != p {
			out = append(out, m)
		}
	}
	return out
}
