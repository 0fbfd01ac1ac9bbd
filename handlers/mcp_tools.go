//go:build !nomcp

package handlers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/attention"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
)

// Bounds of what a tool answers or waits: an agent's context is small, and
// a tool call must not hold a connection forever.
const (
	mcpMaxNodes        = 400       // nodes of a graph answer
	mcpMaxPatch        = 256 << 10 // bytes of a patch answer
	mcpMaxOutput       = 64 << 10  // bytes of a run's output, from its end
	mcpDefaultWait     = 300       // seconds request_attention waits by default
	mcpMaxWait         = 3600      // seconds any tool may wait
	mcpDefaultRunWait  = 60        // seconds run_target waits for the end by default
	mcpCommentAttempts = 3         // a comment retried after a concurrent write
)

type queryIn struct {
	Query string `json:"query" jsonschema:"query terms, space-separated: kind:K, project:NAME, target:PROJECT:TARGET, spell:NAME, symbol:NAME (* wildcard), path:GLOB, depth:N (0-10, default 1), or a WORD matched in ids and names"`
}

type nodeIn struct {
	ID string `json:"id" jsonschema:"a node id such as project:api, target:api:build, doc:README.md, file:libs/mathx/mathx.go or symbol:libs/mathx/mathx.go#Add"`
}

type symbolIn struct {
	Name string `json:"name" jsonschema:"a symbol's name (Add, Server.Start); * matches any run of characters"`
}

type baseIn struct {
	Base string `json:"base,omitempty" jsonschema:"compare against the merge base with this ref (branch, tag, commit); empty: the working tree against HEAD (for affected: the default branch)"`
}

type runIn struct {
	Target      string `json:"target" jsonschema:"a target targets.yaml declares, as project:target"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the run to end before answering with its id (0 to 3600, default 60); read_run reads it later"`
}

type readRunIn struct {
	Run string `json:"run" jsonschema:"a run id from run_target"`
}

type reviewIn struct {
	Op         string `json:"op" jsonschema:"comment, suggest, resolve or reopen"`
	Path       string `json:"path,omitempty" jsonschema:"comment and suggest: the file, as read_diff names it"`
	Line       int    `json:"line,omitempty" jsonschema:"comment and suggest: the line of the new file"`
	Body       string `json:"body,omitempty" jsonschema:"comment and suggest: what you say"`
	Suggestion string `json:"suggestion,omitempty" jsonschema:"suggest: the replacement text for the line"`
	ID         string `json:"id,omitempty" jsonschema:"resolve and reopen: the comment id, from read_diff's session.comments"`
}

type attentionIn struct {
	Need           string `json:"need" jsonschema:"what you need from the person, as a question they can answer"`
	Node           string `json:"node,omitempty" jsonschema:"the graph node it is about, if any"`
	File           string `json:"file,omitempty" jsonschema:"the workspace file it is about, if any"`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"how long to wait for the answer (1 to 3600, default 300); the request stays open after, and await_attention waits again"`
}

type awaitIn struct {
	ID             string `json:"id" jsonschema:"the attention request's id"`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"how long to wait (1 to 3600, default 300)"`
}

type claimIn struct {
	Name string `json:"name,omitempty" jsonschema:"the session job to claim (jobs/session-N); empty: the oldest waiting one"`
}

type completeIn struct {
	Name    string `json:"name" jsonschema:"the session job you claimed"`
	Result  string `json:"result" jsonschema:"succeeded or failed"`
	Message string `json:"message" jsonschema:"what you did, for the person"`
}

type noIn struct{}

// addTools registers every tool of /mcp.
func addTools(s *mcp.Server, d mcpDeps) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add := func(name, title, desc string, ann *mcp.ToolAnnotations) *mcp.Tool {
		return &mcp.Tool{Name: name, Title: title, Description: desc, Annotations: ann}
	}

	addTool(s, add("query_graph", "Query the knowledge graph",
		"Select nodes of the workspace's knowledge graph with query terms and return them with their neighbours and the edges among them (at most 400 nodes).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, any, error) {
			q, err := query.Parse(in.Query)
			if err != nil {
				return nil, nil, err
			}
			g, err := d.ws.Query(q)
			if err != nil {
				return nil, nil, err
			}
			return textResult(capGraph(g))
		})

	addTool(s, add("explain_node", "Explain a node",
		"Describe one node of the knowledge graph: its fields, and every edge in and out with the node at the other end.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in nodeIn) (*mcp.CallToolResult, any, error) {
			e, err := explainNode(d, in.ID)
			if err != nil {
				return nil, nil, err
			}
			return textResult(e)
		})

	addTool(s, add("find_symbol", "Find a symbol",
		"Find the declarations of a code symbol by name (file and line) and the files that reference each.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in symbolIn) (*mcp.CallToolResult, any, error) {
			if strings.TrimSpace(in.Name) == "" || strings.ContainsAny(in.Name, " \t\n") {
				return nil, nil, errors.New("name is required, one word such as Add or Server.Start")
			}
			q, err := query.Parse("symbol:" + in.Name)
			if err != nil {
				return nil, nil, err
			}
			g, err := d.ws.Query(q)
			if err != nil {
				return nil, nil, err
			}
			return textResult(symbolsOf(g))
		})

	addTool(s, add("affected", "What the change affects",
		"The projects and targets the working change affects (committed on the branch since its merge base with base, staged, unstaged and untracked), each with the reason chain that makes it affected.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			ws, err := d.ws.Resolved()
			if err != nil {
				return nil, nil, err
			}
			changed, err := affected.Changed(ctx, d.ws.Root(), in.Base)
			if err != nil {
				return nil, nil, err
			}
			set, why := affected.Explain(ws, changed)
			type item struct {
				ID     string   `json:"id"`
				Reason []string `json:"reason"`
			}
			out := struct {
				Files    []string `json:"files"`
				Projects []item   `json:"projects"`
				Targets  []item   `json:"targets"`
			}{Files: set.Files, Projects: []item{}, Targets: []item{}}
			for _, p := range set.Projects {
				out.Projects = append(out.Projects, item{p, why.Project(p)})
			}
			for _, t := range set.Targets {
				out.Targets = append(out.Targets, item{t, why.Target(t)})
			}
			return textResult(out)
		})

	addTool(s, add("run_target", "Run a declared target",
		"Run one target that targets.yaml declares (with its dependencies, through the build cache) and wait for it to end, up to wait_seconds. Answers the run id, its status and the end of its output. Only declared targets run; nothing else is executed.",
		&mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}),
		func(ctx context.Context, _ *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, any, error) {
			wait, err := seconds(in.WaitSeconds, mcpDefaultRunWait, 0)
			if err != nil {
				return nil, nil, fmt.Errorf("wait_seconds: %w", err)
			}
			declared, err := d.ws.ForRun()
			if err != nil {
				return nil, nil, err
			}
			if declared.Target(in.Target) == nil {
				return nil, nil, fmt.Errorf("%s is not a target targets.yaml declares%s; write project:target (query_graph kind:target lists them)", quote.Short(in.Target), suggest.DidYouMean(in.Target, declared.TargetIDs()))
			}
			id, done, err := d.runner.Start(d.runCtx, declared, in.Target)
			if err != nil {
				return nil, nil, err
			}
			timer := time.NewTimer(wait)
			defer timer.Stop()
			select {
			case <-done:
			case <-timer.C:
			case <-ctx.Done():
			}
			return textResult(readRun(d.cacheDir, id))
		})

	addTool(s, add("read_run", "Read a run's journal",
		"The journal of a run: target, status, exit code, the command, and the end of its output.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in readRunIn) (*mcp.CallToolResult, any, error) {
			if !runner.ValidID(in.Run) {
				return nil, nil, fmt.Errorf("%s is not a run id; run_target answers one", quote.Short(in.Run))
			}
			r := readRun(d.cacheDir, in.Run)
			if r.Error != "" {
				return nil, nil, errors.New(r.Error)
			}
			return textResult(r)
		})

	addTool(s, add("read_diff", "Read the annotated change",
		"The person's working change (staged, unstaged, untracked) against HEAD, or the merge base with base: per file its change, role, owning project, blast radius with reasons, changed symbols and their reach, coverage of changed lines, a reading order, and the review session (comments, viewed marks).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			p, err := diffSource(d.ws, d.sessions, d.reviews).Page(ctx, in.Base)
			if err != nil {
				return nil, nil, err
			}
			return textResult(p)
		})

	addTool(s, add("read_patch", "Read the change as a patch",
		"The working change as one unified patch (untracked files as new files), at most 256 KB; a longer patch is cut with a note.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			var b capBuffer
			b.max = mcpMaxPatch
			if err := diff.WritePatch(ctx, &b, d.ws.Root(), in.Base); err != nil && !errors.Is(err, errCapped) {
				return nil, nil, err
			}
			text := b.String()
			if b.cut {
				text += fmt.Sprintf("\n[core: the patch is longer than %d bytes and was cut here; read_diff lists every file]\n", mcpMaxPatch)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})

	addTool(s, add("review", "Comment on the person's change",
		"Write on the person's review of their working change, next to their own comments, stamped as you: op comment (path, line, body), suggest (path, line, body, suggestion: the replacement for that line), resolve or reopen (id). read_diff shows the session.",
		&mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}),
		func(ctx context.Context, _ *mcp.CallToolRequest, in reviewIn) (*mcp.CallToolResult, any, error) {
			a, err := agent(ctx)
			if err != nil {
				return nil, nil, err
			}
			s, err := reviewWrite(ctx, d, a, in)
			if err != nil {
				return nil, nil, err
			}
			return textResult(s)
		})

	addTool(s, add("request_attention", "Ask the person",
		"Ask the person something and wait for their answer (the console shows your request in its attention queue; only the person closes it, by answering). Answers state disposed with their reason, or state open if the wait timed out: then await_attention waits again. If you no longer need the answer, stop waiting: the request stays in the queue until the person answers it.",
		&mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}),
		func(ctx context.Context, _ *mcp.CallToolRequest, in attentionIn) (*mcp.CallToolResult, any, error) {
			wait, err := seconds(in.TimeoutSeconds, mcpDefaultWait, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("timeout_seconds: %w", err)
			}
			a, err := agent(ctx)
			if err != nil {
				return nil, nil, err
			}
			r, err := d.attention.Create(a.ID, attention.Ask{Need: in.Need, Node: in.Node, File: in.File})
			if err != nil {
				return nil, nil, err
			}
			return awaitAttention(ctx, d, r.ID, wait)
		})

	addTool(s, add("await_attention", "Wait for the person's answer",
		"Wait again for the answer to an attention request (after a timeout, or after reconnecting).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in awaitIn) (*mcp.CallToolResult, any, error) {
			wait, err := seconds(in.TimeoutSeconds, mcpDefaultWait, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("timeout_seconds: %w", err)
			}
			return awaitAttention(ctx, d, in.ID, wait)
		})

	addTool(s, add("list_session_jobs", "List handed work",
		"The work the person handed to agent sessions: waiting, running (claimed) and done.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult(map[string]any{"jobs": d.handoff.List()})
		})

	addTool(s, add("claim_job", "Claim handed work",
		"Claim a waiting session job (or the oldest one): it becomes yours, running, until you complete it.", nil),
		func(ctx context.Context, _ *mcp.CallToolRequest, in claimIn) (*mcp.CallToolResult, any, error) {
			a, err := agent(ctx)
			if err != nil {
				return nil, nil, err
			}
			j, err := d.handoff.Claim(in.Name, a.ID)
			if err != nil {
				return nil, nil, err
			}
			return textResult(j)
		})

	addTool(s, add("complete_job", "Complete handed work",
		"Finish a session job you claimed, with result succeeded or failed and a message for the person.", nil),
		func(ctx context.Context, _ *mcp.CallToolRequest, in completeIn) (*mcp.CallToolResult, any, error) {
			a, err := agent(ctx)
			if err != nil {
				return nil, nil, err
			}
			j, err := d.handoff.Complete(in.Name, a.ID, in.Result, in.Message)
			if err != nil {
				return nil, nil, err
			}
			return textResult(j)
		})
}

func ptr[T any](v T) *T { return &v }

// addTool registers a tool whose handler cannot take the server down: the
// SDK runs handlers on its own goroutines, outside the gateway's recover,
// so a panic becomes a tool error here and is logged (never the input).
// A tool whose token died while it ran (the request's context ends with
// it: a wait in request_attention returns) answers that, not what it had.
func addTool[In any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, any]) {
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out any, err error) {
		defer func() {
			if v := recover(); v != nil {
				caller.Log(ctx).Error().Str(logx.Tool, t.Name).Str(logx.Panic, fmt.Sprint(v)).Str(logx.Stack, string(debug.Stack())).Msg("mcp tool panicked")
				res, out, err = nil, nil, fmt.Errorf("%s failed inside core (a bug, logged on the server)", t.Name)
			}
		}()
		res, out, err = h(ctx, req, in)
		if cause := context.Cause(ctx); errors.Is(cause, auth.ErrRevoked) || errors.Is(cause, auth.ErrExpired) {
			return nil, nil, cause
		}
		return res, out, err
	})
}

// seconds reads an optional wait in seconds, def when absent, between min
// and mcpMaxWait.
func seconds(v *int, def, min int) (time.Duration, error) {
	n := def
	if v != nil {
		n = *v
	}
	if n < min || n > mcpMaxWait {
		return 0, fmt.Errorf("%d is out of range: give %d to %d seconds", n, min, mcpMaxWait)
	}
	return time.Duration(n) * time.Second, nil
}

// awaitAttention waits up to wait for request id and answers its state.
func awaitAttention(ctx context.Context, d mcpDeps, id string, wait time.Duration) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r, err := d.attention.Wait(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return textResult(r)
}

// capGraph bounds a graph answer to mcpMaxNodes nodes and the edges among
// them, saying so when it cut.
func capGraph(g *graph.Graph) any {
	type answer struct {
		Nodes     []graph.Node `json:"nodes"`
		Edges     []graph.Edge `json:"edges"`
		Truncated string       `json:"truncated,omitempty"`
	}
	if len(g.Nodes) <= mcpMaxNodes {
		return answer{Nodes: g.Nodes, Edges: g.Edges}
	}
	keep := make(map[string]bool, mcpMaxNodes)
	for _, n := range g.Nodes[:mcpMaxNodes] {
		keep[n.ID] = true
	}
	var edges []graph.Edge
	for _, e := range g.Edges {
		if keep[e.Source] && keep[e.Target] {
			edges = append(edges, e)
		}
	}
	return answer{Nodes: g.Nodes[:mcpMaxNodes], Edges: edges,
		Truncated: fmt.Sprintf("%d of %d nodes shown: narrow the query (kind:, project:, path:, depth:0)", mcpMaxNodes, len(g.Nodes))}
}

// explanation is explain_node's answer.
type explanation struct {
	Node graph.Node `json:"node"`
	In   []link     `json:"in"`
	Out  []link     `json:"out"`
}

type link struct {
	Kind string `json:"kind"`
	Node string `json:"node"`
	Name string `json:"name,omitempty"`
}

func explainNode(d mcpDeps, id string) (explanation, error) {
	if id == "" {
		return explanation{}, errors.New("id is required, such as project:api")
	}
	var g *graph.Graph
	if rest, ok := strings.CutPrefix(id, "symbol:"); ok {
		_, name, found := strings.Cut(rest, "#")
		if !found || name == "" || strings.ContainsAny(name, " \t\n*") {
			return explanation{}, fmt.Errorf("%s is not a symbol id: write symbol:<path>#<name>", quote.Short(id))
		}
		q, err := query.Parse("symbol:" + name)
		if err != nil {
			return explanation{}, err
		}
		if g, err = d.ws.Query(q); err != nil {
			return explanation{}, err
		}
	} else {
		snap, err := d.ws.Current()
		if err != nil {
			return explanation{}, err
		}
		g = snap.Graph()
	}
	names := make(map[string]string, len(g.Nodes))
	var e explanation
	found := false
	for _, n := range g.Nodes {
		names[n.ID] = n.Name
		if n.ID == id {
			e.Node, found = n, true
		}
	}
	if !found {
		return explanation{}, fmt.Errorf("no node %s: query_graph finds ids (a WORD term matches ids and names)", quote.Short(id))
	}
	e.In, e.Out = []link{}, []link{}
	for _, ed := range g.Edges {
		switch id {
		case ed.Target:
			e.In = append(e.In, link{ed.Kind, ed.Source, names[ed.Source]})
		case ed.Source:
			e.Out = append(e.Out, link{ed.Kind, ed.Target, names[ed.Target]})
		}
	}
	return e, nil
}

// symbolsOf lists the symbol nodes of g with the files that reference each.
func symbolsOf(g *graph.Graph) any {
	type symbol struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Kind       string   `json:"kind"`
		File       string   `json:"file"`
		Line       int      `json:"line"`
		Project    string   `json:"project,omitempty"`
		References []string `json:"references"`
	}
	refs := map[string][]string{}
	for _, e := range g.Edges {
		if e.Kind == graph.EdgeReferences {
			refs[e.Target] = append(refs[e.Target], strings.TrimPrefix(e.Source, "file:"))
		}
	}
	out := []symbol{}
	for _, n := range g.Nodes {
		if n.Kind != graph.KindSymbol {
			continue
		}
		file, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "symbol:"), "#")
		r := refs[n.ID]
		slices.Sort(r)
		if r == nil {
			r = []string{}
		}
		out = append(out, symbol{n.ID, n.Name, n.SymbolKind, file, n.Line, n.Project, r})
	}
	return map[string]any{"symbols": out}
}

// runView is a run as run_target and read_run answer it.
type runView struct {
	ID        string   `json:"id"`
	Target    string   `json:"target,omitempty"`
	Status    string   `json:"status,omitempty"`
	ExitCode  int      `json:"exit_code"`
	CacheHit  bool     `json:"cache_hit,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	Output    string   `json:"output,omitempty"`
	Truncated bool     `json:"output_truncated,omitempty"`
	Error     string   `json:"error,omitempty"`
}

func readRun(cacheDir, id string) runView {
	j, err := runner.ReadJournal(cacheDir, id)
	if errors.Is(err, runner.ErrNotFound) {
		return runView{ID: id, Error: fmt.Sprintf("no run %s (it may have been rotated out)", id)}
	}
	if err != nil {
		return runView{ID: id, Error: err.Error()}
	}
	v := runView{ID: j.ID, Target: j.Target, Status: j.Status, ExitCode: j.ExitCode, CacheHit: j.CacheHit, Argv: j.Argv, Output: j.Output, Truncated: j.Truncated}
	if len(v.Output) > mcpMaxOutput {
		v.Output, v.Truncated = v.Output[len(v.Output)-mcpMaxOutput:], true
	}
	return v
}

// reviewWrite applies one review op as the agent, at the session's current
// version (an agent writes one op at a time; a concurrent write by the
// person is retried, never lost).
func reviewWrite(ctx context.Context, d mcpDeps, a reviewstate.Author, in reviewIn) (reviewstate.Session, error) {
	op := reviewstate.Op{Op: in.Op, Path: in.Path, Line: in.Line, Body: in.Body, ID: in.ID}
	switch in.Op {
	case "comment", "suggest":
		if in.Op == "suggest" {
			if in.Suggestion == "" {
				return reviewstate.Session{}, errors.New("suggestion is required for op suggest: the replacement text for the line")
			}
			op.Op = reviewstate.OpComment
			op.Body = strings.TrimSpace(in.Body) + "\n\n```suggestion\n" + strings.TrimSuffix(in.Suggestion, "\n") + "\n```"
		}
		text, err := lineText(d.ws.Root(), in.Path, in.Line)
		if err != nil {
			return reviewstate.Session{}, err
		}
		op.Text = &text
	case reviewstate.OpResolve, reviewstate.OpReopen:
	default:
		return reviewstate.Session{}, fmt.Errorf("op %s is not one the review tool takes: comment, suggest, resolve or reopen", quote.Short(in.Op))
	}
	branch, err := diff.SessionKey(ctx, d.ws.Root())
	if err != nil {
		return reviewstate.Session{}, err
	}
	for attempt := 1; ; attempt++ {
		cur, err := d.sessions.Load(branch)
		if err != nil {
			return reviewstate.Session{}, err
		}
		v := cur.Version
		op.Version = &v
		s, err := d.sessions.Apply(branch, a, op)
		var stale *reviewstate.StaleError
		if errors.As(err, &stale) && attempt < mcpCommentAttempts {
			continue
		}
		return s, err
	}
}

// lineText reads line n (from 1) of the workspace file rel, which a comment
// anchors to.
func lineText(root, rel string, n int) (string, error) {
	if rel == "" || n < 1 {
		return "", errors.New("path and line (from 1) are required for a comment")
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", fmt.Errorf("cannot read %s in the workspace: comment on a file read_diff lists", quote.Short(rel))
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

var errCapped = errors.New("capped")

// capBuffer keeps the first max bytes written to it and then refuses more,
// which stops the patch's git process early.
type capBuffer struct {
	bytes.Buffer
	max int
	cut bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.Buffer.Write(p[:max(room, 0)])
		b.cut = true
		return max(room, 0), errCapped
	}
	return b.Buffer.Write(p)
}
