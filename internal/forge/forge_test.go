package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// openClient is a client of srv for a repository on the open pull
// request's branch, with origin on github.com.
func openClient(t *testing.T, srv *forgeServer, clk *clock) *Client {
	t.Helper()
	dir := repo(t, openBranch, "https://github.com/"+openOwner+"/"+openRepo+".git")
	cfg := Config{APIURL: srv.URL + "/", Token: testToken, Getenv: env(nil)}
	if clk != nil {
		cfg.Now = clk.Now
	}
	return New(cfg, dir, srv.Client())
}

func TestReviewOfAnOpenPullRequest(t *testing.T) {
	isolateGit(t)
	srv := newForge(t, openRoutes(t))
	r := openClient(t, srv, nil).Report(context.Background())

	t.Run("the state is ok and names the repository and branch", func(t *testing.T) {
		if r.State != StateOK || r.Forge != "github" || r.Owner != openOwner || r.Repo != openRepo || r.Branch != openBranch {
			t.Fatalf("review = %s %q %s %s/%s %s", r.State, r.Message, r.Forge, r.Owner, r.Repo, r.Branch)
		}
		if !strings.Contains(r.Message, "pull request #1 (open)") {
			t.Errorf("message = %q", r.Message)
		}
	})
	t.Run("the pull request is the recorded one", func(t *testing.T) {
		pr := r.PullRequest
		if pr == nil {
			t.Fatal("no pull request")
		}
		want := PullRequest{Number: 1, Title: "Add support to reply to a Pull request comment", URL: "https://github.com/rsn491/PyGithub/pull/1",
			State: "open", Author: "rsn491", HeadRef: openBranch, BaseRef: "master", HeadSHA: openHead, UpdatedAt: "2020-02-09T10:54:56Z"}
		if *pr != want {
			t.Errorf("pull request = %+v\nwant %+v", *pr, want)
		}
	})
	t.Run("the reviewers' verdicts are listed with their state", func(t *testing.T) {
		if len(r.Reviews) != 5 {
			t.Fatalf("%d reviews", len(r.Reviews))
		}
		v := r.Reviews[0]
		if v.Reviewer != "jzelinskie" || v.State != "APPROVED" || v.SubmittedAt != "2017-03-22T19:06:59Z" {
			t.Errorf("first review = %+v", v)
		}
	})
	t.Run("review comments carry their path, line and side, and conversation comments none", func(t *testing.T) {
		var review, issue int
		for _, c := range r.Comments {
			switch c.Kind {
			case "review":
				review++
				if c.Path == "" || c.Side != "RIGHT" || c.Line == 0 {
					t.Errorf("review comment %+v", c)
				}
			case "issue":
				issue++
				if c.Path != "" || c.Line != 0 {
					t.Errorf("issue comment with a place: %+v", c)
				}
			}
		}
		if review != 2 || issue != 4 {
			t.Errorf("%d review and %d issue comments, want 2 and 4", review, issue)
		}
		for i := 1; i < len(r.Comments); i++ {
			if r.Comments[i-1].CreatedAt > r.Comments[i].CreatedAt {
				t.Errorf("comments are not in time order: %s before %s", r.Comments[i-1].CreatedAt, r.Comments[i].CreatedAt)
			}
		}
		first := r.Comments[0]
		if first.ID != 1580134 || first.Path != "codegen/templates/GithubObject.py" || first.Line != 73 || first.Author != "jacquev6" {
			t.Errorf("oldest comment = %+v", first)
		}
	})
	t.Run("the head commit's check runs are listed with their conclusion", func(t *testing.T) {
		if len(r.Checks) != 4 {
			t.Fatalf("%d checks", len(r.Checks))
		}
		var failed []string
		for _, c := range r.Checks {
			if c.Conclusion == "failure" {
				failed = append(failed, c.Name)
			}
		}
		if len(failed) != 1 || failed[0] != "test (Python 3.6)" {
			t.Errorf("failed checks = %v", failed)
		}
	})
	t.Run("the pull requests are asked for by head, in every state, and every list is one page of 100", func(t *testing.T) {
		q, _ := url.ParseQuery(srv.requests()[0].Query)
		if q.Get("head") != openOwner+":"+openBranch || q.Get("state") != "all" {
			t.Errorf("query = %v", q)
		}
		for _, s := range srv.requests() {
			if s.Authorization != "Bearer "+testToken {
				t.Errorf("%s sent Authorization %q", s.Path, s.Authorization)
			}
			if !strings.Contains(s.Query, "per_page=100") {
				t.Errorf("%s?%s is not bounded to 100", s.Path, s.Query)
			}
		}
	})
	t.Run("the answer is fresh and says when it was fetched", func(t *testing.T) {
		if r.Cached || r.FetchedAt == "" || r.Limit != 100 || len(r.Truncated) != 0 {
			t.Errorf("cached=%v fetched_at=%q limit=%d truncated=%v", r.Cached, r.FetchedAt, r.Limit, r.Truncated)
		}
	})
	t.Run("the JSON has the payload's field names", func(t *testing.T) {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{`"state":"ok"`, `"pull_request":{"number":1`, `"head_sha":"` + openHead, `"reviews":[`, `"comments":[`, `"checks":[`, `"fetched_at":`, `"cached":false`, `"original_line":7`, `"side":"RIGHT"`} {
			if !bytes.Contains(data, []byte(k)) {
				t.Errorf("JSON has no %s", k)
			}
		}
	})
}

func TestNoPullRequestIsAnAnswer(t *testing.T) {
	isolateGit(t)
	srv := newForge(t, map[string]fixture{"/repos/rsn491/PyGithub/pulls": load(t, "pulls-none")})
	r := openClient(t, srv, nil).Report(context.Background())
	if r.State != StateNoPullRequest || r.PullRequest != nil || !strings.Contains(r.Message, "gh pr create") {
		t.Errorf("review = %s %q %+v", r.State, r.Message, r.PullRequest)
	}
	if r.Reviews == nil || r.Comments == nil || r.Checks == nil {
		t.Error("empty lists must be [] in JSON, not null")
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want only the list of pull requests", n)
	}
}

func TestAnswersAreCachedThenRevalidated(t *testing.T) {
	isolateGit(t)
	srv := newForge(t, openRoutes(t))
	clk := newClock()
	c := openClient(t, srv, clk)
	ctx := context.Background()

	first := c.Report(ctx)
	if first.State != StateOK {
		t.Fatalf("first = %s %q", first.State, first.Message)
	}
	sent := len(srv.requests())
	if sent != 5 {
		t.Fatalf("the first answer took %d requests, want 5", sent)
	}

	t.Run("a second call within the TTL makes no request", func(t *testing.T) {
		clk.advance(DefaultTTL - time.Second)
		r := c.Report(ctx)
		if n := len(srv.requests()); n != sent {
			t.Errorf("%d more requests", n-sent)
		}
		if !r.Cached || r.FetchedAt != first.FetchedAt || r.State != StateOK {
			t.Errorf("cached=%v fetched_at %s, first %s", r.Cached, r.FetchedAt, first.FetchedAt)
		}
	})
	t.Run("a call after the TTL revalidates every request with If-None-Match and takes the 304s", func(t *testing.T) {
		clk.advance(2 * time.Second)
		r := c.Report(ctx)
		later := srv.requests()[sent:]
		if len(later) != 5 {
			t.Fatalf("%d requests after the TTL, want 5", len(later))
		}
		for _, s := range later {
			if s.IfNoneMatch == "" || s.Status != http.StatusNotModified {
				t.Errorf("%s: If-None-Match %q, answered %d", s.Path, s.IfNoneMatch, s.Status)
			}
		}
		if r.Cached || r.State != StateOK || r.FetchedAt == first.FetchedAt {
			t.Errorf("revalidated answer: cached=%v state=%s fetched_at=%s", r.Cached, r.State, r.FetchedAt)
		}
		first.FetchedAt, r.FetchedAt = "", ""
		b1, _ := json.Marshal(first)
		b2, _ := json.Marshal(r)
		if !bytes.Equal(b1, b2) {
			t.Errorf("the revalidated answer differs from the first:\n%s\n%s", b1, b2)
		}
	})
	t.Run("the cache holds one entry per request", func(t *testing.T) {
		if n, _ := c.cache.size(); n != 5 {
			t.Errorf("%d entries", n)
		}
	})
}

// TestFailuresAreStates: every way of not having an answer is a state
// and a message that says what to do, never an error or a panic.
func TestFailuresAreStates(t *testing.T) {
	isolateGit(t)
	closed := func() string { // a port nothing listens on
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		return "http://" + addr + "/"
	}()
	gh := "https://github.com/" + openOwner + "/" + openRepo + ".git"
	cases := []struct {
		name    string
		dir     func(t *testing.T) string
		apiURL  string // "" = the fake forge; "-" = none
		answer  string // a fixture every path answers with
		token   string
		state   string
		message string
	}{
		{"a workspace outside git has no remote", func(t *testing.T) string { return t.TempDir() }, "", "", testToken,
			StateNoRemote, "not a git repository"},
		{"a repository without origin has no remote", func(t *testing.T) string { return repo(t, "main", "") }, "", "", testToken,
			StateNoRemote, "git remote add origin"},
		{"a GitLab remote without forge.api_url is unsupported", func(t *testing.T) string { return repo(t, "main", "git@gitlab.com:o/r.git") }, "-", "", testToken,
			StateUnsupportedRemote, "forge.api_url"},
		{"an Enterprise remote on another host than forge.api_url is unsupported", func(t *testing.T) string { return repo(t, "main", "https://ghe.example.com/o/r.git") }, "", "", testToken,
			StateUnsupportedRemote, "set forge.api_url to ghe.example.com's API"},
		{"a remote that is a local path is unsupported", func(t *testing.T) string { return repo(t, "main", "/srv/git/r.git") }, "", "", testToken,
			StateUnsupportedRemote, "local path"},
		{"a detached HEAD has no branch to look up", func(t *testing.T) string {
			d := repo(t, "main", gh)
			g(t, d, "checkout", "-q", "--detach")
			return d
		}, "", "", testToken, StateNoPullRequest, "detached"},
		{"no token anywhere", func(t *testing.T) string { return repo(t, openBranch, gh) }, "", "", "",
			StateNoToken, "set forge.token"},
		{"a refused token (401)", func(t *testing.T) string { return repo(t, openBranch, gh) }, "", "bad-credentials", testToken,
			StateNoToken, "401 Bad credentials"},
		{"a repository GitHub does not show (404)", func(t *testing.T) string { return repo(t, openBranch, "git@github.com:nobody/nothing.git") }, "", "", testToken,
			StateUnreachable, "404"},
		{"the primary rate limit", func(t *testing.T) string { return repo(t, openBranch, gh) }, "", "rate-limited", testToken,
			StateRateLimited, "rate limit"},
		{"the secondary rate limit", func(t *testing.T) string { return repo(t, openBranch, gh) }, "", "secondary-rate-limited", testToken,
			StateRateLimited, "try again in 1m0s"},
		{"the network down (a closed port)", func(t *testing.T) string { return repo(t, openBranch, gh) }, closed, "", testToken,
			StateUnreachable, "connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newForge(t, nil)
			if tc.answer != "" {
				srv.answerAll(load(t, tc.answer))
			}
			api := srv.URL + "/"
			switch tc.apiURL {
			case "":
			case "-":
				api = ""
			default:
				api = tc.apiURL
			}
			var buf bytes.Buffer
			log := zerolog.New(&buf).Level(zerolog.DebugLevel)
			c := New(Config{APIURL: api, Token: tc.token, Getenv: env(nil), Log: &log}, tc.dir(t), srv.Client())
			r := c.Report(context.Background())
			if r.State != tc.state || !strings.Contains(r.Message, tc.message) {
				t.Errorf("review = %s %q; want %s with %q", r.State, r.Message, tc.state, tc.message)
			}
			data, _ := json.Marshal(r)
			if bytes.Contains(data, []byte(testToken)) || bytes.Contains(buf.Bytes(), []byte(testToken)) {
				t.Errorf("the token is in the answer or the log:\n%s\n%s", data, buf.String())
			}
		})
	}
}

func TestTheTokenComesFromConfigThenGHTokenThenGitHubToken(t *testing.T) {
	isolateGit(t)
	cases := []struct {
		name, cfg string
		env       map[string]string
		want      string
	}{
		{"forge.token wins over the environment", "from-config", map[string]string{"GH_TOKEN": "from-gh", "GITHUB_TOKEN": "from-github"}, "from-config"},
		{"GH_TOKEN comes before GITHUB_TOKEN", "", map[string]string{"GH_TOKEN": "from-gh", "GITHUB_TOKEN": "from-github"}, "from-gh"},
		{"GITHUB_TOKEN is the last resort", "", map[string]string{"GITHUB_TOKEN": "from-github"}, "from-github"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newForge(t, map[string]fixture{"/repos/rsn491/PyGithub/pulls": load(t, "pulls-none")})
			dir := repo(t, openBranch, "https://github.com/rsn491/PyGithub")
			New(Config{APIURL: srv.URL + "/", Token: tc.cfg, Getenv: env(tc.env)}, dir, srv.Client()).Report(context.Background())
			if got := srv.requests()[0].Authorization; got != "Bearer "+tc.want {
				t.Errorf("Authorization = %q, want the token %q", got, tc.want)
			}
		})
	}
}

func TestTheTokenIsNeverShown(t *testing.T) {
	isolateGit(t)
	const secret = "ghs_SECRETsecretSECRETsecret42"
	cases := []struct {
		name   string
		remote string
		answer string
	}{
		{"a refused token", "https://github.com/rsn491/PyGithub.git", "bad-credentials"},
		{"a token in the remote's user info, on an unsupported host", "https://x-access-token:" + secret + "@gitlab.com/o/r.git", ""},
		{"a token in the remote's user info, on a malformed path", "https://x-access-token:" + secret + "@github.com/only-owner", ""},
		{"an answer that echoes the token", "https://github.com/rsn491/PyGithub.git", "echo"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" stays out of the answer and the log", func(t *testing.T) {
			srv := newForge(t, nil)
			switch tc.answer {
			case "echo":
				srv.answerAll(load(t, "bad-credentials", `"Bad credentials"`, `"Bad credentials `+secret+`"`))
			case "":
			default:
				srv.answerAll(load(t, tc.answer))
			}
			var buf bytes.Buffer
			log := zerolog.New(&buf).Level(zerolog.DebugLevel)
			dir := repo(t, "feature", tc.remote)
			r := New(Config{APIURL: srv.URL + "/", Getenv: env(map[string]string{"GH_TOKEN": secret}), Log: &log}, dir, srv.Client()).Report(context.Background())
			data, _ := json.Marshal(r)
			if r.State == StateOK || r.Message == "" {
				t.Fatalf("review = %s %q", r.State, r.Message)
			}
			if bytes.Contains(data, []byte(secret)) || strings.Contains(buf.String(), secret) {
				t.Errorf("the token shows:\nanswer %s\nlog %s", data, buf.String())
			}
		})
	}
}

func TestARedirectToAnotherHostIsNotFollowed(t *testing.T) {
	isolateGit(t)
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		_, _ = w.Write([]byte("[]"))
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	dir := repo(t, openBranch, "https://github.com/rsn491/PyGithub.git")
	r := New(Config{APIURL: redirect.URL + "/", Token: testToken, Getenv: env(nil)}, dir, redirect.Client()).Report(context.Background())
	if leaked.Load() {
		t.Fatal("the token was sent to the redirect's host")
	}
	if r.State != StateUnreachable || !strings.Contains(r.Message, "another host") {
		t.Errorf("review = %s %q", r.State, r.Message)
	}
}

func TestAnEnterpriseRemoteIsAskedAtItsAPI(t *testing.T) {
	isolateGit(t)
	srv := newForge(t, openRoutes(t))
	srv.prefix = "/api/v3"
	u, _ := url.Parse(srv.URL)
	cases := []struct{ name, remote string }{
		{"an scp-like remote on the API's host", "git@" + u.Hostname() + ":" + openOwner + "/" + openRepo + ".git"},
		{"an https remote on the API's host", "https://" + u.Host + "/" + openOwner + "/" + openRepo},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t, openBranch, tc.remote)
			r := New(Config{APIURL: srv.URL + "/api/v3/", Token: testToken, Getenv: env(nil)}, dir, srv.Client()).Report(context.Background())
			if r.State != StateOK || r.PullRequest == nil || r.PullRequest.Number != 1 {
				t.Errorf("review = %s %q", r.State, r.Message)
			}
		})
	}
}

func TestMergedHeads(t *testing.T) {
	isolateGit(t)
	client := func(t *testing.T, srv *forgeServer, remote, token string) *Client {
		return New(Config{APIURL: srv.URL + "/", Token: token, Getenv: env(nil)}, repo(t, "main", remote), srv.Client())
	}
	t.Run("a squash-merged pull request gives its head", func(t *testing.T) {
		srv := newForge(t, map[string]fixture{"/repos/PyGithub/PyGithub/pulls": load(t, "pulls-merged")})
		heads, asked, err := client(t, srv, "git@github.com:PyGithub/PyGithub.git", testToken).MergedHeads(context.Background(), "list_user_projects")
		if err != nil || !asked || len(heads) != 1 || heads[0] != "21a6dfef170b2bdcf33dda731ad3a3e9681cffbe" {
			t.Errorf("heads %v asked %v err %v", heads, asked, err)
		}
		q, _ := url.ParseQuery(srv.requests()[0].Query)
		if q.Get("head") != "PyGithub:list_user_projects" || q.Get("state") != "all" {
			t.Errorf("query = %v", q)
		}
	})
	t.Run("an open pull request is not merged", func(t *testing.T) {
		srv := newForge(t, openRoutes(t))
		heads, asked, err := client(t, srv, "https://github.com/rsn491/PyGithub", testToken).MergedHeads(context.Background(), openBranch)
		if err != nil || !asked || len(heads) != 0 {
			t.Errorf("heads %v asked %v err %v", heads, asked, err)
		}
	})
	t.Run("without a token the forge is not asked", func(t *testing.T) {
		srv := newForge(t, nil)
		_, asked, err := client(t, srv, "https://github.com/rsn491/PyGithub", "").MergedHeads(context.Background(), openBranch)
		if asked || err != nil || len(srv.requests()) != 0 {
			t.Errorf("asked %v err %v, %d requests", asked, err, len(srv.requests()))
		}
	})
	t.Run("a refused token is an error naming the fix, without the token", func(t *testing.T) {
		srv := newForge(t, nil)
		srv.answerAll(load(t, "bad-credentials"))
		_, asked, err := client(t, srv, "https://github.com/rsn491/PyGithub", testToken).MergedHeads(context.Background(), openBranch)
		if !asked || err == nil || !strings.Contains(err.Error(), "forge.token") || strings.Contains(err.Error(), testToken) {
			t.Errorf("asked %v err %v", asked, err)
		}
	})
}

// TestAnEchoedTokenCutShortIsScrubbed: a forge's error message is quoted
// cut to its first 60 characters, so a token it echoes may arrive without
// its end, which a search for the whole token misses. Tokens of GitHub's
// shapes are scrubbed by their prefix, and any other token by its head.
func TestAnEchoedTokenCutShortIsScrubbed(t *testing.T) {
	isolateGit(t)
	const echo = "Bad credentials, as the server saw them: "
	cases := []struct{ name, token string }{
		{"a classic token (ghp_)", "ghp_" + strings.Repeat("Ab1", 12)},
		{"an OAuth token (gho_)", "gho_" + strings.Repeat("Cd2", 12)},
		{"a user-to-server token (ghu_)", "ghu_" + strings.Repeat("Ef3", 12)},
		{"a server-to-server token (ghs_)", "ghs_" + strings.Repeat("Gh4", 12)},
		{"a fine-grained token (github_pat_)", "github_pat_11" + strings.Repeat("Ij5_", 20)},
		{"a token of no known shape", "zz" + strings.Repeat("Kl6", 20)},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is not in the answer or the log", func(t *testing.T) {
			if len(echo)+len(tc.token) <= 60 {
				t.Fatal("the echo would not be cut: lengthen it")
			}
			srv := newForge(t, nil)
			srv.answerAll(load(t, "bad-credentials", `"Bad credentials"`, `"`+echo+tc.token+`"`))
			var buf bytes.Buffer
			log := zerolog.New(&buf).Level(zerolog.DebugLevel)
			dir := repo(t, openBranch, "https://github.com/rsn491/PyGithub.git")
			r := New(Config{APIURL: srv.URL + "/", Getenv: env(map[string]string{"GH_TOKEN": tc.token}), Log: &log}, dir, srv.Client()).Report(context.Background())
			if r.State != StateNoToken || !strings.Contains(r.Message, "<redacted>") {
				t.Fatalf("review = %s %q; want no_token with the echo redacted", r.State, r.Message)
			}
			data, _ := json.Marshal(r)
			head := tc.token[:minTokenHead]
			if bytes.Contains(data, []byte(head)) || strings.Contains(buf.String(), head) {
				t.Errorf("a piece of the token shows:\nanswer %s\nlog %s", data, buf.String())
			}
		})
	}
	t.Run("a GitHub token the request did not send is scrubbed too", func(t *testing.T) {
		if got := scrubToken("echoed ghp_someoneElsesToken01 and github_pat_11AB_cd", "mine-0123456789"); got != "echoed <redacted> and <redacted>" {
			t.Errorf("scrubToken = %q", got)
		}
	})
}
