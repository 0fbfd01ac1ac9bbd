//go:build !nomcp

package handlers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/quote"
)

// Bounds of what a tool answers or waits: an agent's context is small, and
// a tool call must not hold a connection forever.
const (
	mcpMaxNodes       = 400       // nodes of a graph answer
	mcpMaxPatch       = 256 << 10 // bytes of a patch answer
	mcpMaxOutput      = 64 << 10  // bytes of a run's output, from its end
	mcpDefaultWait    = 300       // seconds request_attention waits by default
	mcpMaxWait        = 3600      // seconds any tool may wait
	mcpDefaultRunWait = 60        // seconds run_target waits for the end by default
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

// addTools registers every tool of /mcp, each a thin door over b.
func addTools(s *mcp.Server, b *backend.Backend) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add := func(name, title, desc string, ann *mcp.ToolAnnotations) *mcp.Tool {
		return &mcp.Tool{Name: name, Title: title, Description: desc, Annotations: ann}
	}

	addTool(s, add("query_graph", "Query the knowledge graph",
		"Select nodes of the workspace's knowledge graph with query terms and return them with their neighbours and the edges among them (at most 400 nodes).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, any, error) {
			g, err := b.Graph.Query(in.Query)
			if err != nil {
				return nil, nil, err
			}
			return textResult(backend.Cap(g, mcpMaxNodes))
		})

	addTool(s, add("explain_node", "Explain a node",
		"Describe one node of the knowledge graph: its fields, and every edge in and out with the node at the other end.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in nodeIn) (*mcp.CallToolResult, any, error) {
			e, err := b.Graph.Explain(in.ID)
			if err != nil {
				return nil, nil, err
			}
			return textResult(e)
		})

	addTool(s, add("find_symbol", "Find a symbol",
		"Find the declarations of a code symbol by name (file and line) and the files that reference each.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in symbolIn) (*mcp.CallToolResult, any, error) {
			syms, err := b.Graph.Symbols(in.Name)
			if err != nil {
				return nil, nil, err
			}
			return textResult(map[string]any{"symbols": syms})
		})

	addTool(s, add("affected", "What the change affects",
		"The projects and targets the working change affects (committed on the branch since its merge base with base, staged, unstaged and untracked), each with the reason chain that makes it affected.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			a, err := b.Runs.Affected(ctx, in.Base)
			if err != nil {
				return nil, nil, err
			}
			return textResult(a)
		})

	addTool(s, add("run_target", "Run a declared target",
		"Run one target that targets.yaml declares (with its dependencies, through the build cache) and wait for it to end, up to wait_seconds. Answers the run id, its status and the end of its output. Only declared targets run; nothing else is executed.",
		&mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}),
		func(ctx context.Context, _ *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, any, error) {
			wait, err := seconds(in.WaitSeconds, mcpDefaultRunWait, 0)
			if err != nil {
				return nil, nil, fmt.Errorf("wait_seconds: %w", err)
			}
			r, err := b.Runs.RunAndWait(ctx, in.Target, wait, mcpMaxOutput)
			if err != nil {
				return nil, nil, err
			}
			return textResult(r)
		})

	addTool(s, add("read_run", "Read a run's journal",
		"The journal of a run: target, status, exit code, the command, and the end of its output.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in readRunIn) (*mcp.CallToolResult, any, error) {
			r, err := b.Runs.Summarize(in.Run, mcpMaxOutput)
			if err != nil {
				return nil, nil, err
			}
			return textResult(r)
		})

	addTool(s, add("read_diff", "Read the annotated change",
		"The person's working change (staged, unstaged, untracked) against HEAD, or the merge base with base: per file its change, role, owning project, blast radius with reasons, changed symbols and their reach, coverage of changed lines, a reading order, and the review session (comments, viewed marks).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			p, _, err := b.Review.Page(ctx, in.Base)
			if err != nil {
				return nil, nil, err
			}
			return textResult(p)
		})

	addTool(s, add("read_patch", "Read the change as a patch",
		"The working change as one unified patch (untracked files as new files), at most 256 KB; a longer patch is cut with a note.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in baseIn) (*mcp.CallToolResult, any, error) {
			text, cut, err := b.Review.Patch(ctx, in.Base, mcpMaxPatch)
			if err != nil {
				return nil, nil, err
			}
			if cut {
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
			op := backend.Op{Op: in.Op, Path: in.Path, Line: in.Line, Body: in.Body, ID: in.ID}
			switch in.Op {
			case backend.OpComment:
			case "suggest":
				if in.Suggestion == "" {
					return nil, nil, errors.New("suggestion is required for op suggest: the replacement text for the line")
				}
				op.Op, op.Body = backend.OpComment, backend.Suggestion(in.Body, in.Suggestion)
			case backend.OpResolve, backend.OpReopen:
			default:
				return nil, nil, fmt.Errorf("op %s is not one the review tool takes: comment, suggest, resolve or reopen", quote.Short(in.Op))
			}
			if op.Op == backend.OpComment && (in.Path == "" || in.Line < 1) {
				return nil, nil, errors.New("path and line (from 1) are required for a comment")
			}
			sess, err := b.Review.Write(ctx, a, op)
			if err != nil {
				return nil, nil, err
			}
			return textResult(sess)
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
			r, err := b.Attention.Ask(ctx, a.ID, backend.Ask{Need: in.Need, Node: in.Node, File: in.File}, wait)
			if err != nil {
				return nil, nil, err
			}
			return textResult(r)
		})

	addTool(s, add("await_attention", "Wait for the person's answer",
		"Wait again for the answer to an attention request (after a timeout, or after reconnecting).", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, in awaitIn) (*mcp.CallToolResult, any, error) {
			wait, err := seconds(in.TimeoutSeconds, mcpDefaultWait, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("timeout_seconds: %w", err)
			}
			r, err := b.Attention.Await(ctx, in.ID, wait)
			if err != nil {
				return nil, nil, err
			}
			return textResult(r)
		})

	addTool(s, add("list_session_jobs", "List handed work",
		"The work the person handed to agent sessions: waiting, running (claimed) and done.", readOnly),
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult(map[string]any{"jobs": b.Attention.Jobs()})
		})

	addTool(s, add("claim_job", "Claim handed work",
		"Claim a waiting session job (or the oldest one): it becomes yours, running, until you complete it.", nil),
		func(ctx context.Context, _ *mcp.CallToolRequest, in claimIn) (*mcp.CallToolResult, any, error) {
			a, err := agent(ctx)
			if err != nil {
				return nil, nil, err
			}
			j, err := b.Attention.Claim(in.Name, a.ID)
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
			j, err := b.Attention.Complete(in.Name, a.ID, in.Result, in.Message)
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
		if life, ok := ctx.Value(lifelineKey{}).(context.Context); ok {
			var cancel context.CancelCauseFunc
			ctx, cancel = context.WithCancelCause(ctx)
			defer cancel(nil)
			stop := context.AfterFunc(life, func() { cancel(context.Cause(life)) })
			defer stop()
		}
		defer func() {
			if v := recover(); v != nil {
				caller.Log(ctx).Error().Str(logx.Tool, t.Name).Str(logx.Panic, fmt.Sprint(v)).Str(logx.Stack, string(debug.Stack())).Msg("mcp tool panicked")
				res, out, err = nil, nil, fmt.Errorf("%s failed inside core (a bug, logged on the server)", t.Name)
			}
		}()
		res, out, err = h(ctx, req, in)
		if cause := context.Cause(ctx); errors.Is(cause, backend.ErrTokenRevoked) || errors.Is(cause, backend.ErrTokenExpired) {
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
