// Package forge asks the code forge (GitHub, or GitHub Enterprise) about
// the branch under review: its pull request, the reviewers' verdicts, the
// comments and the checks. It computes the payload of
// GET /api/v1/diff/review (Report) and tells check-review which pull
// requests merged (MergedHeads), through github.com/google/go-github.
//
// Decisions the spec leaves open, taken here:
//   - Owner and repository come from the origin remote (`git remote get-url
//     origin`, so url.insteadOf applies): https, http, git and ssh URLs and
//     the scp-like git@HOST:OWNER/REPO.git. A github.com remote is asked at
//     forge.api_url (default https://api.github.com/; set, it is a proxy or
//     a test double); any other host only when forge.api_url is on that
//     host (or api.HOST): GitHub Enterprise. Everything else is
//     unsupported_remote.
//   - The token is forge.token, else GH_TOKEN, else GITHUB_TOKEN. It is
//     sent only by go-github's WithAuthToken, to the API's host (redirects
//     to another host are refused), and never put in a message or a log:
//     every message is scrubbed of it, whole or cut short, and of anything
//     shaped like a GitHub token (scrub.go), and a remote address is quoted
//     with its user info as "***".
//   - The branch's pull request is the one listed with head=OWNER:BRANCH
//     (state all, sorted by update): the open one, else the most recently
//     updated. Its reviews, review comments, conversation comments and the
//     check runs of its head commit are the first page of 100 each;
//     Report.Truncated names a list that has more.
//   - Answers are kept 30 s per (API, owner, repo, branch, token); after
//     that the same requests go out conditionally (If-None-Match): GitHub's
//     304s cost no rate limit (cache.go).
//   - Nothing is an error to the caller: no remote, no token, the network
//     down, a 401/403/404, a rate limit or no pull request is a State with
//     a Message saying what to do. 401 and 403 are no_token (the token is
//     refused or lacks access); 404 and 5xx are unreachable; a primary or
//     secondary rate limit is rate_limited. A 403 or 404 on the check runs
//     alone (a fine-grained token without checks:read) leaves the checks
//     empty and says so in the message.
package forge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/quote"
)

// States of a Report.
const (
	StateOK                = "ok"
	StateNoRemote          = "no_remote"
	StateUnsupportedRemote = "unsupported_remote"
	StateNoToken           = "no_token"
	StateUnreachable       = "unreachable"
	StateNoPullRequest     = "no_pull_request"
	StateRateLimited       = "rate_limited"
)

// Defaults.
const (
	DefaultAPIURL  = "https://api.github.com/"
	DefaultTTL     = 30 * time.Second
	DefaultTimeout = 10 * time.Second
	// PerPage bounds each list: the first page only.
	PerPage = 100
	// answersKept bounds the cached answers (one per branch asked about).
	answersKept = 64
)

// Report is the payload of GET /api/v1/diff/review.
type Report struct {
	State       string       `json:"state"`
	Message     string       `json:"message"`
	Forge       string       `json:"forge,omitempty"`
	Owner       string       `json:"owner,omitempty"`
	Repo        string       `json:"repo,omitempty"`
	Branch      string       `json:"branch,omitempty"`
	PullRequest *PullRequest `json:"pull_request,omitempty"`
	Reviews     []Verdict    `json:"reviews"`
	Comments    []Comment    `json:"comments"`
	Checks      []Check      `json:"checks"`
	// Limit is the most of each list asked for; Truncated names the lists
	// ("reviews", "review_comments", "issue_comments", "checks") that have
	// more on the forge.
	Limit     int      `json:"limit"`
	Truncated []string `json:"truncated,omitempty"`
	FetchedAt string   `json:"fetched_at,omitempty"` // RFC 3339, UTC
	Cached    bool     `json:"cached"`
}

// PullRequest is the branch's pull request.
type PullRequest struct {
	Number    int    `json:"number"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	State     string `json:"state"` // open, closed, merged
	Draft     bool   `json:"draft"`
	Author    string `json:"author"`
	HeadRef   string `json:"head_ref"`
	BaseRef   string `json:"base_ref"`
	HeadSHA   string `json:"head_sha"`
	UpdatedAt string `json:"updated_at,omitempty"`
	MergedAt  string `json:"merged_at,omitempty"`
}

// Verdict is one submitted review.
type Verdict struct {
	Reviewer    string `json:"reviewer"`
	State       string `json:"state"` // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	SubmittedAt string `json:"submitted_at,omitempty"`
	Body        string `json:"body"`
	URL         string `json:"url,omitempty"`
}

// Comment is a review comment on a line (Kind "review") or a comment on the
// conversation (Kind "issue", no path).
type Comment struct {
	Kind         string `json:"kind"`
	ID           int64  `json:"id"`
	Author       string `json:"author"`
	Body         string `json:"body"`
	Path         string `json:"path,omitempty"`
	Line         int    `json:"line,omitempty"`          // on the side below, in the current diff; 0 when outdated
	OriginalLine int    `json:"original_line,omitempty"` // where it was written
	Side         string `json:"side,omitempty"`          // RIGHT (new) or LEFT (old)
	CreatedAt    string `json:"created_at"`
	URL          string `json:"url"`
	InReplyTo    int64  `json:"in_reply_to,omitempty"`
}

// Check is a check run on the pull request's head commit.
type Check struct {
	Name       string `json:"name"`
	Status     string `json:"status"`               // queued, in_progress, completed
	Conclusion string `json:"conclusion,omitempty"` // success, failure, neutral, cancelled, skipped, timed_out, action_required
	URL        string `json:"url,omitempty"`
}

// Config is what the forge needs from core's configuration.
type Config struct {
	Token  string // forge.token; empty: GH_TOKEN, then GITHUB_TOKEN
	APIURL string // forge.api_url; empty: DefaultAPIURL
	// Getenv reads GH_TOKEN and GITHUB_TOKEN; nil is os.Getenv.
	Getenv func(string) string
	// TTL is how long an answer is kept; 0 is DefaultTTL.
	TTL time.Duration
	// Timeout bounds one Report's requests; 0 is DefaultTimeout.
	Timeout time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Log gets one debug line per failed request; nil logs nothing.
	Log *zerolog.Logger
}

// Client asks the forge about the repository at root.
type Client struct {
	cfg     Config
	root    string
	base    *url.URL
	baseErr error
	http    *http.Client
	cache   *condCache

	mu      sync.Mutex
	gh      *github.Client
	ghToken string
	answers map[string]answer

	fetchMu sync.Mutex // one fetch at a time; the second waits and takes its answer
}

type answer struct {
	review Report
	at     time.Time
}

// New returns a client for the repository at root (its origin remote and
// current branch are read at each call). httpClient is copied (nil: a
// default client); the conditional-request cache goes under its transport.
func New(cfg Config, root string, httpClient *http.Client) *Client {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Client{cfg: cfg, root: root, answers: map[string]answer{}}
	api := cfg.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	c.base, c.baseErr = url.Parse(api)
	if c.baseErr == nil && (c.base.Hostname() == "" || (c.base.Scheme != "https" && c.base.Scheme != "http")) {
		c.baseErr = errors.New("not an http(s) URL with a host")
	}
	if c.baseErr == nil && !strings.HasSuffix(c.base.Path, "/") {
		c.base.Path += "/"
	}
	hc := &http.Client{}
	if httpClient != nil {
		*hc = *httpClient
	}
	c.cache = newCondCache(hc.Transport)
	hc.Transport = c.cache
	// The token rides on every request the transport carries: never follow
	// a redirect off the API's host.
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if c.base == nil || !strings.EqualFold(req.URL.Host, c.base.Host) {
			return fmt.Errorf("refusing a redirect to another host (%s)", req.URL.Hostname())
		}
		return nil
	}
	c.http = hc
	return c
}

// target is what a request is about.
type target struct {
	owner, repo, branch, token string
}

// Report answers what the forge knows about the current branch's pull
// request. Every failure is a State with a Message; it never panics or
// returns an error.
func (c *Client) Report(ctx context.Context) Report {
	t, fail := c.target(ctx, "")
	if fail != nil {
		return c.scrub(*fail, t.token)
	}
	key := c.answerKey(t)
	if r, ok := c.cachedAnswer(key); ok {
		return c.scrub(r, t.token)
	}
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	if r, ok := c.cachedAnswer(key); ok { // fetched while this call waited
		return c.scrub(r, t.token)
	}
	r := c.scrub(c.fetch(ctx, t), t.token)
	c.keep(key, r)
	return r
}

func newReport(state, msg string) Report {
	return Report{State: state, Message: msg, Reviews: []Verdict{}, Comments: []Comment{}, Checks: []Check{}, Limit: PerPage}
}

// target reads the origin remote, the branch (the current one when branch
// is "") and the token; a non-nil Report says why there is nothing to ask.
func (c *Client) target(ctx context.Context, branch string) (target, *Report) {
	var t target
	t.token = c.token()
	fail := func(state, msg string) (target, *Report) {
		r := newReport(state, msg)
		r.Owner, r.Repo, r.Branch = t.owner, t.repo, t.branch
		if t.owner != "" {
			r.Forge = "github"
		}
		return t, &r
	}
	if c.baseErr != nil {
		return fail(StateUnsupportedRemote, fmt.Sprintf("forge.api_url %s is not usable (%v): set it to the API's base URL, e.g. https://ghe.example.com/api/v3/", quote.Short(c.cfg.APIURL), c.baseErr))
	}
	res, err := gitx.Run(ctx, c.root, "remote", "get-url", "origin")
	switch {
	case err != nil:
		return fail(StateNoRemote, fmt.Sprintf("cannot read the origin remote: %v", err))
	case res.Exit != 0 && strings.Contains(res.Stderr, "not a git repository"):
		return fail(StateNoRemote, "the workspace is not a git repository, so it has no origin remote: run `git init` and `git remote add origin https://github.com/OWNER/REPO.git`")
	case res.Exit != 0 && (res.Exit == 2 || strings.Contains(strings.ToLower(res.Stderr), "no such remote")):
		return fail(StateNoRemote, "the repository has no origin remote: add one with `git remote add origin https://github.com/OWNER/REPO.git`")
	case res.Exit != 0:
		return fail(StateNoRemote, fmt.Sprintf("cannot read the origin remote: %v", res.Describe("remote", "get-url", "origin")))
	}
	raw := res.Text()
	rem, err := ParseRemote(raw)
	if err != nil {
		return fail(StateUnsupportedRemote, fmt.Sprintf("the origin remote is not a forge repository: %v; core reads OWNER/REPO from https://HOST/OWNER/REPO.git or git@HOST:OWNER/REPO.git", err))
	}
	if msg := c.hostProblem(rem.Host); msg != "" {
		return fail(StateUnsupportedRemote, msg)
	}
	t.owner, t.repo = rem.Owner, rem.Repo
	t.branch = branch
	if t.branch == "" {
		res, err := gitx.Run(ctx, c.root, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil || res.Exit != 0 {
			return fail(StateNoPullRequest, "HEAD is detached, so there is no branch to look up: check out a branch (`git switch NAME`)")
		}
		t.branch = res.Text()
	}
	if t.token == "" {
		return fail(StateNoToken, fmt.Sprintf("no GitHub token: set forge.token (or CORE_FORGE_TOKEN), or GH_TOKEN, to a token that can read %s/%s's pull requests and checks", t.owner, t.repo))
	}
	return t, nil
}

// hostProblem says why the remote's host is not asked at the API, or "".
func (c *Client) hostProblem(host string) string {
	if host == "github.com" || host == "ssh.github.com" {
		return ""
	}
	api := strings.ToLower(c.base.Hostname())
	if c.cfg.APIURL == "" {
		return fmt.Sprintf("the origin remote is on %s, not github.com, and core's forge is GitHub: if %s is a GitHub Enterprise server, set forge.api_url to its API, e.g. https://%s/api/v3/", host, host, host)
	}
	if host == api || "api."+host == api {
		return ""
	}
	return fmt.Sprintf("the origin remote is on %s but forge.api_url is on %s: set forge.api_url to %s's API, e.g. https://%s/api/v3/", host, api, host, host)
}

func (c *Client) token() string {
	for _, t := range []string{c.cfg.Token, c.cfg.Getenv("GH_TOKEN"), c.cfg.Getenv("GITHUB_TOKEN")} {
		if t = strings.TrimSpace(t); t != "" {
			return t
		}
	}
	return ""
}

// scrub removes the token from the message, whatever put it there, whole
// or cut short (scrubToken).
func (c *Client) scrub(r Report, token string) Report {
	r.Message = scrubToken(r.Message, token)
	return r
}

func (c *Client) answerKey(t target) string {
	sum := sha256.Sum256([]byte(t.token))
	return strings.Join([]string{c.base.String(), t.owner, t.repo, t.branch, hex.EncodeToString(sum[:8])}, "\x00")
}

func (c *Client) cachedAnswer(key string) (Report, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[key]
	if !ok || c.cfg.Now().Sub(a.at) >= c.cfg.TTL {
		return Report{}, false
	}
	r := a.review
	r.Cached = true
	return r, true
}

func (c *Client) keep(key string, r Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.answers) >= answersKept {
		var oldest string
		for k, a := range c.answers {
			if oldest == "" || a.at.Before(c.answers[oldest].at) {
				oldest = k
			}
		}
		delete(c.answers, oldest)
	}
	c.answers[key] = answer{review: r, at: c.cfg.Now()}
}

// github is the go-github client for token, made again when it changes.
func (c *Client) github(token string) (*github.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gh != nil && c.ghToken == token {
		return c.gh, nil
	}
	base := c.base.String()
	gh, err := github.NewClient(
		github.WithHTTPClient(c.http),
		github.WithURLs(&base, &base),
		github.WithAuthToken(token),
		github.WithUserAgent("core (github.com/corehq/core)"),
	)
	if err != nil {
		return nil, err
	}
	c.gh, c.ghToken = gh, token
	return gh, nil
}

func stamp(ts github.Timestamp) string {
	if ts.IsZero() {
		return ""
	}
	return ts.UTC().Format(time.RFC3339)
}

// listPulls lists the pull requests whose head is owner:branch, most
// recently updated first, keeping only those whose head is that branch.
func (c *Client) listPulls(ctx context.Context, gh *github.Client, t target) ([]*github.PullRequest, *github.Response, error) {
	prs, resp, err := gh.PullRequests.List(ctx, t.owner, t.repo, &github.PullRequestListOptions{
		State: "all", Head: t.owner + ":" + t.branch, Sort: "updated", Direction: "desc",
		ListOptions: github.ListOptions{PerPage: PerPage},
	})
	if err != nil {
		return nil, resp, err
	}
	out := prs[:0]
	for _, pr := range prs {
		if pr != nil && pr.GetHead().GetRef() == t.branch {
			out = append(out, pr)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].GetUpdatedAt().After(out[j].GetUpdatedAt().Time)
	})
	return out, resp, nil
}

// fetch asks the forge; t is complete.
func (c *Client) fetch(ctx context.Context, t target) Report {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	r := newReport(StateOK, "")
	r.Forge, r.Owner, r.Repo, r.Branch = "github", t.owner, t.repo, t.branch
	r.FetchedAt = c.cfg.Now().UTC().Format(time.RFC3339)
	gh, err := c.github(t.token)
	if err != nil {
		r.State, r.Message = StateUnreachable, fmt.Sprintf("cannot set up the GitHub client: %v", err)
		return r
	}
	prs, _, err := c.listPulls(ctx, gh, t)
	if err != nil {
		r.State, r.Message = c.explain(err, "the pull requests", t)
		return r
	}
	var pr *github.PullRequest
	for _, p := range prs {
		if p.GetState() == "open" {
			pr = p
			break
		}
	}
	if pr == nil && len(prs) > 0 {
		pr = prs[0]
	}
	if pr == nil {
		r.State = StateNoPullRequest
		r.Message = fmt.Sprintf("%s/%s has no pull request from %s:%s: push the branch and open one (`gh pr create`)", t.owner, t.repo, t.owner, t.branch)
		return r
	}
	r.PullRequest = pullRequest(pr)
	n := pr.GetNumber()

	var (
		wg                      sync.WaitGroup
		reviews                 []*github.PullRequestReview
		rcomments               []*github.PullRequestComment
		icomments               []*github.IssueComment
		checks                  *github.ListCheckRunsResults
		errs                    [4]error
		more                    [4]bool
		page                    = github.ListOptions{PerPage: PerPage}
		hasNext                 = func(resp *github.Response) bool { return resp != nil && resp.NextPage != 0 }
		reviewsR, rcR, icR, chR *github.Response
	)
	wg.Add(4)
	go func() {
		defer wg.Done()
		reviews, reviewsR, errs[0] = gh.PullRequests.ListReviews(ctx, t.owner, t.repo, n, &page)
		more[0] = hasNext(reviewsR)
	}()
	go func() {
		defer wg.Done()
		rcomments, rcR, errs[1] = gh.PullRequests.ListComments(ctx, t.owner, t.repo, n, &github.PullRequestListCommentsOptions{ListOptions: page})
		more[1] = hasNext(rcR)
	}()
	go func() {
		defer wg.Done()
		icomments, icR, errs[2] = gh.Issues.ListComments(ctx, t.owner, t.repo, n, &github.IssueListCommentsOptions{ListOptions: page})
		more[2] = hasNext(icR)
	}()
	go func() {
		defer wg.Done()
		checks, chR, errs[3] = gh.Checks.ListCheckRunsForRef(ctx, t.owner, t.repo, pr.GetHead().GetSHA(), &github.ListCheckRunsOptions{ListOptions: page})
		more[3] = hasNext(chR)
	}()
	wg.Wait()

	for i, what := range []string{"the reviews", "the review comments", "the comments"} {
		if errs[i] != nil {
			r.State, r.Message = c.explain(errs[i], what, t)
			return r
		}
	}
	var checksNote string
	if errs[3] != nil {
		var er *github.ErrorResponse
		if errors.As(errs[3], &er) && er.Response != nil && (er.Response.StatusCode == http.StatusForbidden || er.Response.StatusCode == http.StatusNotFound) {
			c.logFailure(errs[3], "the check runs", t.token)
			checksNote = fmt.Sprintf("; the check runs are not shown: GitHub answered %d (give the token checks:read)", er.Response.StatusCode)
		} else {
			r.State, r.Message = c.explain(errs[3], "the check runs", t)
			return r
		}
	}
	for i, name := range []string{"reviews", "review_comments", "issue_comments", "checks"} {
		if more[i] {
			r.Truncated = append(r.Truncated, name)
		}
	}

	for _, v := range reviews {
		if v == nil {
			continue
		}
		r.Reviews = append(r.Reviews, Verdict{
			Reviewer: v.GetUser().GetLogin(), State: v.GetState(), SubmittedAt: stamp(v.GetSubmittedAt()),
			Body: v.GetBody(), URL: v.GetHTMLURL(),
		})
	}
	for _, cm := range rcomments {
		if cm == nil {
			continue
		}
		r.Comments = append(r.Comments, Comment{
			Kind: "review", ID: cm.GetID(), Author: cm.GetUser().GetLogin(), Body: cm.GetBody(),
			Path: cm.GetPath(), Line: cm.GetLine(), OriginalLine: cm.GetOriginalLine(), Side: cm.GetSide(),
			CreatedAt: stamp(cm.GetCreatedAt()), URL: cm.GetHTMLURL(), InReplyTo: cm.GetInReplyTo(),
		})
	}
	for _, cm := range icomments {
		if cm == nil {
			continue
		}
		r.Comments = append(r.Comments, Comment{
			Kind: "issue", ID: cm.GetID(), Author: cm.GetUser().GetLogin(), Body: cm.GetBody(),
			CreatedAt: stamp(cm.GetCreatedAt()), URL: cm.GetHTMLURL(),
		})
	}
	sort.SliceStable(r.Comments, func(i, j int) bool {
		a, b := r.Comments[i], r.Comments[j]
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.ID < b.ID
	})
	if checks != nil {
		for _, ch := range checks.CheckRuns {
			if ch == nil {
				continue
			}
			u := ch.GetHTMLURL()
			if u == "" {
				u = ch.GetDetailsURL()
			}
			r.Checks = append(r.Checks, Check{Name: ch.GetName(), Status: ch.GetStatus(), Conclusion: ch.GetConclusion(), URL: u})
		}
	}
	r.Message = fmt.Sprintf("pull request #%d (%s) on %s/%s: %d reviews, %d comments, %d checks", n, r.PullRequest.State, t.owner, t.repo, len(r.Reviews), len(r.Comments), len(r.Checks))
	if len(r.Truncated) > 0 {
		r.Message += fmt.Sprintf("; at most %d of each are listed (%s have more on GitHub)", PerPage, strings.Join(r.Truncated, ", "))
	}
	r.Message += checksNote
	return r
}

func pullRequest(pr *github.PullRequest) *PullRequest {
	state := pr.GetState()
	if !pr.GetMergedAt().IsZero() || pr.GetMerged() {
		state = "merged"
	}
	return &PullRequest{
		Number: pr.GetNumber(), Title: pr.GetTitle(), URL: pr.GetHTMLURL(), State: state, Draft: pr.GetDraft(),
		Author: pr.GetUser().GetLogin(), HeadRef: pr.GetHead().GetRef(), BaseRef: pr.GetBase().GetRef(),
		HeadSHA: pr.GetHead().GetSHA(), UpdatedAt: stamp(pr.GetUpdatedAt()), MergedAt: stamp(pr.GetMergedAt()),
	}
}

// explain turns a failed request into a state and a message saying what to
// do; what names what was being read ("the pull requests").
func (c *Client) explain(err error, what string, t target) (string, string) {
	c.logFailure(err, what, t.token)
	repo := t.owner + "/" + t.repo
	var (
		rl    *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &rl):
		when := "for a while"
		if !rl.Rate.Reset.IsZero() {
			when = "until " + rl.Rate.Reset.UTC().Format("15:04 UTC")
		}
		return StateRateLimited, fmt.Sprintf("GitHub's API rate limit for this token is used up %s (%s): wait, or use another token in forge.token or GH_TOKEN", when, quote.Prefix(rl.Message))
	case errors.As(err, &abuse):
		after := "a few minutes"
		if abuse.RetryAfter != nil && *abuse.RetryAfter > 0 {
			after = abuse.RetryAfter.Round(time.Second).String()
		}
		return StateRateLimited, fmt.Sprintf("GitHub's secondary rate limit stopped reading %s of %s: try again in %s", what, repo, after)
	case errors.As(err, &er) && er.Response != nil:
		code := er.Response.StatusCode
		msg := quote.Prefix(er.Message)
		switch code {
		case http.StatusUnauthorized:
			return StateNoToken, fmt.Sprintf("GitHub refused the token (401 %s): it is wrong, expired or revoked; set a valid one in forge.token or GH_TOKEN", msg)
		case http.StatusForbidden:
			return StateNoToken, fmt.Sprintf("GitHub does not let the token read %s of %s (403 %s): give it read access to the repository's pull requests and checks", what, repo, msg)
		case http.StatusNotFound:
			return StateUnreachable, fmt.Sprintf("GitHub has no repository %s that the token can see (404 %s): check the origin remote, or give the token access to the repository", repo, msg)
		}
		return StateUnreachable, fmt.Sprintf("GitHub answered %d (%s) when reading %s of %s: try again later", code, msg, what, repo)
	case errors.Is(err, context.DeadlineExceeded):
		return StateUnreachable, fmt.Sprintf("GitHub at %s did not answer within %s: check the network, or forge.api_url", c.base.Host, c.cfg.Timeout)
	case errors.Is(err, context.Canceled):
		return StateUnreachable, "the request was cancelled before GitHub answered"
	}
	return StateUnreachable, fmt.Sprintf("cannot reach GitHub at %s (%s): check the network, a proxy, or forge.api_url", c.base.Host, cause(err))
}

// cause is the innermost reason a request failed, in a few words.
func cause(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns):
		return "cannot resolve " + dns.Name
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return quote.Prefix(err.Error())
}

func (c *Client) logFailure(err error, what, token string) {
	if c.cfg.Log == nil {
		return
	}
	c.cfg.Log.Debug().Str(logx.Reason, scrubToken(err.Error(), token)).Msgf("forge: cannot read %s", what)
}
