package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/quote"
)

// AnswerBudget is the most bytes of JSON one answer to an agent takes:
// about 20k tokens (JSON runs 3 to 4 bytes a token), under the 25k tokens
// a client such as Claude Code refuses. Every list an agent reads is
// paged to fit it (Page), and every text (a patch, a run's output) cut.
const AnswerBudget = 64 << 10

// listBudget is what the items of one page may take: the rest of the
// answer (its counts, notes and the fields around the list) fits in the
// difference.
const listBudget = AnswerBudget - 8<<10

// PageRequest asks for one page of a list: from Cursor (a previous
// answer's next_cursor; "" for the first page), at most Limit items (0:
// the list's default).
type PageRequest struct {
	Cursor string
	Limit  int
}

// Paging says which part of a list an answer holds, and how to get the
// rest or narrow the question.
type Paging struct {
	Total      int    `json:"total" jsonschema:"how many items the whole list holds"`
	Offset     int    `json:"offset,omitempty" jsonschema:"the position of this page's first item in the whole list"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass it as cursor, with the same other arguments, for the next page; absent on the last page"`
	Note       string `json:"note,omitempty" jsonschema:"what was left out, and how to narrow the question"`
}

// listLimits are a list's default and largest page: what a limit of 0
// means, and the most a caller may ask.
type listLimits struct{ def, max int }

// The pages of every list the front doors answer, in one place: HTTP,
// Connect, MCP and the CLI pass the caller's limit (0 for the default)
// and the backend applies these (of, page). The cursor's bounds are
// maxCursor and maxOffset.
var (
	// The Connect services' and HTTP routes' lists.
	runsLimits     = listLimits{def: 50, max: 500}   // ListRuns, GET /api/v1/runs
	activityLimits = listLimits{def: 100, max: 1000} // ListActivities

	// The agent's pages (the MCP tools), each also cut to the answer's
	// budget.
	graphLimits        = listLimits{def: 200, max: 400}           // query_graph's nodes
	edgeLimits         = listLimits{def: 100, max: 500}           // explain_node's edges
	symbolLimits       = listLimits{def: 20, max: 100}            // find_symbol's matches
	affectedLimits     = listLimits{def: 100, max: 500}           // affected's targets
	summaryLimits      = listLimits{def: 100, max: 500}           // read_diff's files, mode summary
	fullLimits         = listLimits{def: 20, max: 200}            // read_diff's files, mode full
	runLimits          = listLimits{def: 20, max: 200}            // list_runs
	jobLimits          = listLimits{def: 50, max: 200}            // list_session_jobs
	ciLimits           = listLimits{def: 50, max: 500}            // read_ci_report's targets
	agentInsightLimits = listLimits{def: 10, max: MaxInsightRows} // insight's rows per list
)

// PageWords says the agent's pages in words, for the tools' descriptions
// (handlers/mcp_tools.go), from the limits above: a description cannot
// drift from what the backend applies.
var PageWords = struct{ Graph, Edges, Symbols, Affected, Summary, Full, Runs, Jobs, Insight, CI string }{
	Graph:    graphLimits.words("nodes a page"),
	Edges:    edgeLimits.words("edges a page"),
	Symbols:  symbolLimits.words("declarations a page"),
	Affected: affectedLimits.words("targets a page"),
	Summary:  summaryLimits.words("files a page"),
	Full:     fullLimits.words("files a page"),
	Runs:     runLimits.words("runs a page"),
	Jobs:     jobLimits.words("jobs a page"),
	Insight:  agentInsightLimits.words("rows per list"),
	CI:       ciLimits.words("targets a page"),
}

// words is "200 nodes a page (limit up to 400)".
func (l listLimits) words(what string) string {
	return fmt.Sprintf("%d %s (limit up to %d)", l.def, what, l.max)
}

const (
	// Rows per insight list (GET /api/v1/insight, InsightService, core
	// insight): the report's own bounds, which package insight applies.
	InsightDefaultRows = insight.DefaultLimit
	MaxInsightRows     = insight.MaxLimit

	// CLIRuns is how many runs `core runs` lists unless asked (0 lists
	// every run: the CLI reads the cache directory itself).
	CLIRuns = 20
)

// of is the page size a caller's limit asks for: the default for 0, a
// bad request outside 1 to max.
func (l listLimits) of(limit int) (int, error) {
	switch {
	case limit == 0:
		return l.def, nil
	case limit < 0 || limit > l.max:
		return 0, apierr.BadRequest("limit %d is out of range: give 1 to %d (default %d)", limit, l.max, l.def)
	}
	return limit, nil
}

// page cuts one page of items for the question q (what the cursor is
// bound to: the tool and its arguments but the cursor and the limit):
// from the cursor's offset, at most the limit and at most budget bytes of
// JSON, never fewer than one item. narrow says how to ask a smaller
// question; it goes into the note when the page is not the whole list.
func page[T any](items []T, q string, r PageRequest, l listLimits, budget int, narrow string) ([]T, Paging, error) {
	limit, err := l.of(r.Limit)
	if err != nil {
		return nil, Paging{}, err
	}
	offset, err := ParseCursor(q, r.Cursor)
	if err != nil {
		return nil, Paging{}, err
	}
	p := Paging{Total: len(items), Offset: offset}
	if offset > len(items) {
		return nil, p, apierr.BadRequest("the cursor is past the end of the list (%d items now): ask again without cursor", len(items))
	}
	end, size := offset, 2
	for end < len(items) && end-offset < limit {
		b, err := json.Marshal(items[end])
		if err != nil {
			return nil, p, err
		}
		size += len(b) + 1
		if size > budget && end > offset {
			break
		}
		end++
	}
	if end < len(items) {
		p.NextCursor = Cursor(q, end)
	}
	if end-offset < len(items) {
		why := ""
		if end-offset < limit && end < len(items) {
			why = fmt.Sprintf(" (the answer's budget is %d KB)", AnswerBudget>>10)
		}
		p.Note = fmt.Sprintf("items %d to %d of %d shown%s", min(offset+1, end), end, len(items), why)
		if p.NextCursor != "" {
			p.Note += ": next_cursor reads on"
		}
		if narrow != "" {
			p.Note += "; " + narrow
		}
	}
	return items[offset:end], p, nil
}

// Cursor is the cursor of offset in the answers to question q: the
// offset and a fingerprint of the question, so that a cursor is never
// read against another question's list.
func Cursor(q string, offset int) string {
	return strconv.Itoa(offset) + "." + fingerprint(q)
}

func fingerprint(q string) string {
	sum := sha256.Sum256([]byte(q))
	return hex.EncodeToString(sum[:5])
}

// maxCursor bounds a cursor's length and its offset.
const (
	maxCursor = 64
	maxOffset = 1 << 30
)

// ParseCursor is the offset a cursor of question q names; "" is 0. A
// cursor of another question, or not a cursor, is an invalid argument.
func ParseCursor(q, c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	bad := apierr.BadRequest("cursor %s is not a next_cursor this tool gave for these arguments: ask again without cursor", quote.Short(c))
	if len(c) > maxCursor {
		return 0, bad
	}
	n, fp, ok := strings.Cut(c, ".")
	if !ok || fp != fingerprint(q) || n == "" || len(n) > 10 || strings.TrimLeft(n, "0123456789") != "" || len(n) > 1 && n[0] == '0' {
		return 0, bad
	}
	offset, err := strconv.Atoi(n)
	if err != nil || offset > maxOffset {
		return 0, bad
	}
	return offset, nil
}

// question is the canonical text of a question: the tool's name and its
// arguments but the page's, for Cursor.
func question(tool string, args ...any) string {
	b, _ := json.Marshal(args)
	return tool + " " + string(b)
}

// encodedLen is the length of v as JSON.
func encodedLen(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// cutText is s cut to at most n bytes, on a rune's start, with " …" when
// it was cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n-4, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}
