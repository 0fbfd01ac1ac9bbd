//go:build !nomcp

package handlers

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/quote"
)

// The resources of /mcp: targets.yaml, the index of the workspace's docs,
// and each doc (only the files the graph knows as docs).
const (
	targetsURI = "core://workspace/targets.yaml"
	docsURI    = "core://workspace/docs"
	docPrefix  = "core://workspace/doc/"
	docURIs    = docPrefix + "{+path}"
)

// addResources registers the resources and the prompt that scope opens
// (the read toolset: both only read).
func addResources(s *mcp.Server, b *backend.Backend, scope backend.MCPScope) {
	if !scope.Allows(setRead, true) {
		return
	}
	s.AddResource(&mcp.Resource{URI: targetsURI, Name: "targets.yaml", Title: "targets.yaml", MIMEType: "application/yaml",
		Description: "The workspace's projects, targets and spells, as declared (cut to the answer's budget)."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			body, err := readResource(b, req.Params.URI)
			if err != nil {
				return nil, err
			}
			return text(req.Params.URI, "application/yaml", body), nil
		})
	s.AddResource(&mcp.Resource{URI: docsURI, Name: "docs", Title: "The workspace's documents", MIMEType: "text/markdown",
		Description: "The workspace's documents (targets.yaml's docs:), each with its title and the URI that reads it."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			body, err := readResource(b, req.Params.URI)
			if err != nil {
				return nil, err
			}
			return text(req.Params.URI, "text/markdown", body), nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: docURIs, Name: "doc", Title: "A document", MIMEType: "text/markdown",
		Description: "A document of the workspace by its path (the docs resource lists them), cut to the answer's budget. Only the graph's docs are read, and only inside the workspace."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			body, err := readResource(b, req.Params.URI)
			if err != nil {
				return nil, err
			}
			return text(req.Params.URI, "text/markdown", body), nil
		})
	addReviewPrompt(s, scope)
}

// readResource is the text of one of the resources: targets.yaml, the
// index of the docs, or a doc. An unknown URI, or a doc the graph does not
// know, is "resource not found".
func readResource(b *backend.Backend, uri string) (string, error) {
	switch uri {
	case targetsURI:
		f, err := b.Graph.TargetsFile()
		if err != nil {
			return "", err
		}
		return f.Text, nil
	case docsURI:
		docs, err := b.Graph.Docs()
		if err != nil {
			return "", err
		}
		return docsIndex(docs), nil
	}
	p, ok := docPath(uri)
	if !ok {
		return "", mcp.ResourceNotFoundError(uri)
	}
	f, err := b.Graph.Doc(p)
	if err != nil {
		return "", mcp.ResourceNotFoundError(uri)
	}
	return f.Text, nil
}

// docsIndex lists docs as markdown, within the answer's budget.
func docsIndex(docs []backend.Doc) string {
	var w strings.Builder
	fmt.Fprintf(&w, "# The workspace's documents (%d)\n\n", len(docs))
	for i, d := range docs {
		if w.Len() > backend.AnswerBudget-2<<10 {
			fmt.Fprintf(&w, "\n(%d more: query_graph with kind:doc lists them a page at a time)\n", len(docs)-i)
			break
		}
		fmt.Fprintf(&w, "- %s%s: %s\n", d.Path, titled(d.Title), docPrefix+escapePath(d.Path))
	}
	return w.String()
}

func titled(t string) string {
	if t == "" {
		return ""
	}
	return " (" + t + ")"
}

func text(uri, mime, body string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}
}

// escapePath escapes each segment of a slash path for a URI.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// docPath is the workspace path a doc URI names; false when it names
// none: another scheme, bad escapes, or a path that is not clean and
// local (fsx.CleanLocal: no "..", not absolute, no backslash). Reading it
// is confined again by the workspace's os.Root (backend.Graph.Doc).
func docPath(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, docPrefix)
	if !ok || rest == "" || len(rest) > 4096 || strings.ContainsAny(rest, "?#") {
		return "", false
	}
	p, err := url.PathUnescape(rest)
	if err != nil || p == "." || strings.ContainsRune(p, 0) || !fsx.CleanLocal(p) {
		return "", false
	}
	return p, true
}

// addReviewPrompt is the "review my change" prompt: the order of tools
// that reviews the person's change, adapted to what the scope opens (no
// run_affected without run; without review, the findings are the answer).
func addReviewPrompt(s *mcp.Server, scope backend.MCPScope) {
	s.AddPrompt(&mcp.Prompt{Name: "review_my_change", Title: "Review my change",
		Description: "Review the working change as a careful colleague would: read it, look at what uses the changed code, run the tests it affects, and comment on lines.",
		Arguments:   []*mcp.PromptArgument{{Name: "base", Description: "compare against the merge base with this ref (default: HEAD, the uncommitted change)"}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			base := strings.TrimSpace(req.Params.Arguments["base"])
			if len(base) > 256 || strings.ContainsAny(base, "\n\r") {
				return nil, fmt.Errorf("base %s is not a ref", quote.Short(base))
			}
			against := "the uncommitted change (against HEAD)"
			arg := ""
			if base != "" {
				against, arg = "the change against the merge base with "+base, fmt.Sprintf(" with base %q", base)
			}
			steps := []string{
				fmt.Sprintf("read_diff%s (mode summary): the files in reading order, their roles, the changed symbols and what the change affects.", arg),
				"For each changed symbol that others use, symbol_context with its id: read the definition and the call sites, and check the callers still hold.",
				"read_diff with mode full and paths for the files that matter, or read_patch with paths, to read the lines themselves.",
			}
			if scope.Allows(setRun, false) {
				steps = append(steps, fmt.Sprintf("run_affected%s: the tests of every affected project; read the failing tests it names.", arg))
			}
			if scope.Allows(setReview, false) {
				steps = append(steps, "review op comment (path, line, body) for each problem, op suggest with the replacement line where you have one; keep to what matters.")
			} else {
				steps = append(steps, "Name each problem with its path and line (this token may not write on the review).")
			}
			steps = append(steps, "Sum up: what the change does, what you checked, what you found, and what you could not check.")
			for i := range steps {
				steps[i] = fmt.Sprintf("%d. %s", i+1, steps[i])
			}
			steps = append([]string{fmt.Sprintf("Review %s in this workspace, with core's tools:", against)}, steps...)
			return &mcp.GetPromptResult{Description: "Review my change",
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: strings.Join(steps, "\n")}}}}, nil
		})
}

// maxWatched bounds the resources the feed reads again on each change.
const maxWatched = 64

// resourceFeed tells agents that a resource they subscribed to changed
// (notifications/resources/updated). It listens to the live workspace's
// events, those /api/v1/events streams: on a graph event (a rebuild, or
// symbols alone: a doc's edit is either) or a diagnostic (targets.yaml
// broke or loads again) it reads each watched resource again and notifies
// the subscribers of those whose text changed. A resource is watched from
// its first subscription on (at most maxWatched of them): the SDK forgets
// a subscription with its session, the feed does not hear of it.
type resourceFeed struct {
	b    *backend.Backend
	kick chan struct{}

	mu      sync.Mutex
	servers []*mcp.Server
	watched map[string][sha256.Size]byte // URI -> the hash of its text
	started bool
}

func newResourceFeed(b *backend.Backend) *resourceFeed {
	return &resourceFeed{b: b, kick: make(chan struct{}, 1), watched: map[string][sha256.Size]byte{}}
}

// options are the server options that route subscriptions to the feed.
func (f *resourceFeed) options(o *mcp.ServerOptions) {
	if f == nil {
		return
	}
	o.SubscribeHandler = f.subscribe
	o.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
}

// serve adds a server whose subscribers the feed notifies.
func (f *resourceFeed) serve(s *mcp.Server) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers = append(f.servers, s)
}

// subscribe accepts a subscription to a resource that reads, and watches it.
func (f *resourceFeed) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	body, err := readResource(f.b, uri)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.watched[uri]; !ok && len(f.watched) >= maxWatched {
		return fmt.Errorf("this server already watches %d resources, its most: subscribe to the docs resource, which changes with any doc's title or path", maxWatched)
	}
	f.watched[uri] = sha256.Sum256([]byte(body))
	if !f.started && f.b.Hub != nil { // no hub, no events (a test's backend)
		f.started = true
		f.b.OnWorkspaceChange(func() {
			select {
			case f.kick <- struct{}{}:
			default: // a pass is due already
			}
		})
		go f.run()
	}
	return nil
}

// run makes a pass after each kick: events that come during a pass make
// one more, not one each.
func (f *resourceFeed) run() {
	for range f.kick {
		f.pass()
	}
}

// pass reads the watched resources again and notifies the changed ones.
func (f *resourceFeed) pass() {
	f.mu.Lock()
	uris := make([]string, 0, len(f.watched))
	for u := range f.watched {
		uris = append(uris, u)
	}
	servers := slices.Clone(f.servers)
	f.mu.Unlock()
	slices.Sort(uris)
	for _, uri := range uris {
		body, err := readResource(f.b, uri)
		if err != nil {
			body = "" // gone (a doc removed): that is a change too
		}
		sum := sha256.Sum256([]byte(body))
		f.mu.Lock()
		changed := f.watched[uri] != sum
		f.watched[uri] = sum
		f.mu.Unlock()
		if !changed {
			continue
		}
		for _, s := range servers {
			_ = s.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}
