//go:build !nomcp

package handlers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"
)

// Bounds of what a tool waits: a tool call must not hold a connection
// forever. What a tool answers is bounded by the backend (AnswerBudget).
const (
	mcpDefaultWait         = 300  // seconds request_attention waits by default
	mcpMaxWait             = 3600 // seconds any tool may wait
	mcpDefaultRunWait      = 60   // seconds run_target waits for the end by default
	mcpDefaultAffectedWait = 600  // seconds run_affected waits for the end by default
)

// The toolsets an mcp token can be scoped to (core config mcp token create
// --toolsets).
const (
	setRead      = "read"
	setReview    = "review"
	setRun       = "run"
	setAttention = "attention"
)

// A tool's effect on the workspace, which its annotations say.
type effect int

const (
	reads          effect = iota // changes nothing; asking again answers alike
	writes                       // records something new each call (a comment, a request)
	writesSameOnce               // asking again with the same arguments changes nothing more
)

// toolInfo is what /mcp says of a tool besides its schemas: the toolset
// that opens it, its effect, what bounds its answer, and the closed sets
// its inputs take.
type toolInfo struct {
	name, title, desc string
	set               string
	effect            effect
	openWorld         bool   // it talks to something outside this machine (the forge)
	budget            string // what bounds its answer, for docs/mcp.md
	enums             map[string][]string
}

func (ti toolInfo) readOnly() bool { return ti.effect == reads }

func (ti toolInfo) annotations() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           ti.title,
		ReadOnlyHint:    ti.readOnly(),
		IdempotentHint:  ti.effect != writes,
		DestructiveHint: ptr(false),
		OpenWorldHint:   ptr(ti.openWorld),
	}
}

// registry registers the tools a token's scope opens on one server; the
// ones it does not are refused by name (refuse).
type registry struct {
	s       *mcp.Server
	scope   backend.MCPScope
	infos   []toolInfo // every tool, in order: the reference (docs/mcp.md)
	refused map[string]toolInfo
}

// page is the input of a tool that answers a list.
type page struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"the most items to answer (each tool says its default and its most); the answer's budget may cut it shorter"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous answer, with the same other arguments, for the next page"`
}

func (p page) request() backend.PageRequest {
	return backend.PageRequest{Cursor: p.Cursor, Limit: p.Limit}
}

type queryIn struct {
	Query string `json:"query" jsonschema:"query terms, space-separated: kind:K, project:NAME, target:PROJECT:TARGET, spell:NAME, symbol:NAME (* wildcard), path:GLOB, depth:N (0-10, default 1), or a WORD matched in ids and names"`
	page
}

type nodeIn struct {
	ID   string `json:"id" jsonschema:"a node id such as project:api, target:api:build, doc:README.md, file:libs/mathx/mathx.go or symbol:libs/mathx/mathx.go#Add"`
	Kind string `json:"kind,omitempty" jsonschema:"keep the edges of this kind (owns, depends_on, references, imports, ...; counts lists the node's)"`
	page
}

type symbolIn struct {
	Name string `json:"name" jsonschema:"a symbol's name or part of it: Add, Server.Start, Start (finds Runner.Start), srvst (letters in order); * matches any run of characters"`
	Kind string `json:"kind,omitempty" jsonschema:"keep declarations of this kind: func, method, type, const, var, class, function, ..."`
	page
}

type contextIn struct {
	ID   string `json:"id,omitempty" jsonschema:"the symbol's id, symbol:<path>#<name>, as find_symbol and read_diff name it"`
	Name string `json:"name,omitempty" jsonschema:"instead of id: a name that one declaration has (Slugify, Runner.Start)"`
}

type baseIn struct {
	Base string `json:"base,omitempty" jsonschema:"compare against the merge base with this ref (branch, tag, commit); empty: the working tree against HEAD (for affected: the default branch)"`
}

type affectedIn struct {
	baseIn
	page
}

type diffIn struct {
	baseIn
	Mode  string   `json:"mode,omitempty" jsonschema:"summary (the default: per file its kind, role, counts, changed symbols) or full (hunks, each changed symbol's reach, changed lines by coverage)"`
	Paths []string `json:"paths,omitempty" jsonschema:"keep the files these name: files, directories, or globs (libs/**/*_test.go)"`
	page
}

type patchIn struct {
	baseIn
	Paths  []string `json:"paths,omitempty" jsonschema:"keep the files these name: files, directories, or globs (libs/**/*_test.go)"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor from the previous answer, with the same base and paths, for the next part"`
}

type runIn struct {
	Target      string `json:"target" jsonschema:"a target targets.yaml declares, as project:target"`
	Force       bool   `json:"force,omitempty" jsonschema:"run it (and its dependencies) even when the build cache holds the result, and refresh the cache"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the run to end before answering with its id (0 to 3600, default 60); read_run waits on"`
}

type runAffectedIn struct {
	baseIn
	Name        string `json:"name,omitempty" jsonschema:"the target name to run in every affected project (default test)"`
	Force       bool   `json:"force,omitempty" jsonschema:"run them even when the build cache holds the result, and refresh the cache"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the runs to end (0 to 3600, default 600); read_run waits on each"`
}

type readRunIn struct {
	Run         string `json:"run" jsonschema:"a run id from run_target, run_affected or list_runs"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"wait up to this long for a queued or running run to end (0 to 3600, default 0)"`
}

type listRunsIn struct {
	Target string `json:"target,omitempty" jsonschema:"keep the runs of this target (project:target)"`
	Status string `json:"status,omitempty" jsonschema:"keep the runs that ended so, or are in this state"`
	page
}

type ciReportIn struct {
	Dirs []string `json:"dirs" jsonschema:"directories inside the workspace, relative to its root, where a CI run's shards' run journals were downloaded (their .core/runs)"`
	page
}

type insightIn struct {
	Lens    string `json:"lens,omitempty" jsonschema:"one lens; empty: all five"`
	Window  string `json:"window,omitempty" jsonschema:"90d, 1y (default), all, or a number of days such as 30d"`
	Project string `json:"project,omitempty" jsonschema:"keep one project"`
	Limit   int    `json:"limit,omitempty" jsonschema:"rows per list (the tool says its default and its most); the answer's budget may cut it shorter"`
}

type reviewIn struct {
	Op         string `json:"op" jsonschema:"comment, suggest, resolve or reopen"`
	Path       string `json:"path,omitempty" jsonschema:"comment and suggest: the file, as read_diff names it"`
	Line       int    `json:"line,omitempty" jsonschema:"comment and suggest: the line of the new file"`
	Body       string `json:"body,omitempty" jsonschema:"comment and suggest: what you say"`
	Suggestion string `json:"suggestion,omitempty" jsonschema:"suggest: the replacement text for the line"`
	ID         string `json:"id,omitempty" jsonschema:"resolve and reopen: the comment id, from read_diff's comments"`
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

type jobsIn struct {
	State string `json:"state,omitempty" jsonschema:"keep the jobs in this state"`
	page
}

type claimIn struct {
	Name string `json:"name,omitempty" jsonschema:"the session job to claim (jobs/session-N); empty: the oldest waiting one"`
}

type completeIn struct {
	Name    string `json:"name" jsonschema:"the session job you claimed"`
	Result  string `json:"result" jsonschema:"how it ended"`
	Message string `json:"message" jsonschema:"what you did, for the person"`
}

type noIn struct{}

// The closed sets of inputs.
var (
	runStates = []string{backend.StateQueued, "running", "succeeded", "failed", "cached", "interrupted", "skipped"}
	jobStates = []string{"waiting", "running", "done"}
	results   = []string{"succeeded", "failed"}
)

// addTools registers every tool of /mcp that scope opens, each a thin door
// over b, and refuses the others by name; it returns every tool's info.
func addTools(s *mcp.Server, b *backend.Backend, scope backend.MCPScope) []toolInfo {
	r := &registry{s: s, scope: scope, refused: map[string]toolInfo{}}

	// read: the graph, code, the change, runs and history.
	add(r, toolInfo{name: "query_graph", title: "Query the knowledge graph", set: setRead, effect: reads,
		desc:   "Select nodes of the workspace's knowledge graph with query terms and return them with the edges among them, a page at a time.",
		budget: backend.PageWords.Graph + ", then the edges among them that fit"},
		func(ctx context.Context, in queryIn) (backend.GraphPage, error) {
			return b.Graph.QueryPage(in.Query, in.request())
		})
	add(r, toolInfo{name: "explain_node", title: "Explain a node", set: setRead, effect: reads,
		desc:   "Describe one node of the knowledge graph: its fields, how many edges it has of each kind, and a page of its edges in and out with the node at the other end.",
		budget: backend.PageWords.Edges + "; kind keeps one kind"},
		func(ctx context.Context, in nodeIn) (backend.Explanation, error) {
			return b.Graph.Explain(in.ID, in.Kind, in.request())
		})
	add(r, toolInfo{name: "find_symbol", title: "Find a symbol", set: setRead, effect: reads,
		desc:   "Find code declarations by name, best first: the whole name, its last part (Start finds Runner.Start), or its letters in order (srvst finds ServeStatic); each with its file, line and the files that reference it. An empty answer says what to try.",
		budget: backend.PageWords.Symbols + ", 20 referencing files each"},
		func(ctx context.Context, in symbolIn) (backend.Symbols, error) {
			return b.Graph.FindSymbols(in.Name, in.Kind, in.request())
		})
	add(r, toolInfo{name: "symbol_context", title: "A symbol's definition and callers", set: setRead, effect: reads,
		desc:   "The definition of a symbol and the files that use it, each with the lines that name it (sites) and 3 lines around the first: what to read before changing it.",
		budget: "the definition's first 40 lines, 20 callers of 7 lines, 20 sites a file"},
		func(ctx context.Context, in contextIn) (backend.SymbolContext, error) {
			return b.Graph.SymbolContext(ctx, b.Review, in.ID, in.Name)
		})
	add(r, toolInfo{name: "affected", title: "What the change affects", set: setRead, effect: reads,
		desc:   "The projects and targets the working change affects (committed on the branch since its merge base with base, staged, unstaged and untracked), each with the reason chain that makes it affected.",
		budget: "100 files and 100 projects; " + backend.PageWords.Affected},
		func(ctx context.Context, in affectedIn) (backend.AffectedPage, error) {
			return b.Runs.AffectedPage(ctx, in.Base, in.request())
		})
	add(r, toolInfo{name: "read_diff", title: "Read the annotated change", set: setRead, effect: reads,
		desc:   "The person's working change (staged, unstaged, untracked) against HEAD, or the merge base with base, in reading order: per file its change, role, project, changed symbols and their reach, coverage of changed lines; what it affects; the review's open comments. mode summary (default) first, then full for the files that matter (paths).",
		budget: "summary: " + backend.PageWords.Summary + "; full: " + backend.PageWords.Full + ", 100 hunks a file; 100 affected ids; 50 comments",
		enums:  map[string][]string{"mode": backend.DiffModes}},
		func(ctx context.Context, in diffIn) (backend.DiffView, error) {
			return b.Review.View(ctx, backend.DiffRequest{Base: in.Base, Mode: in.Mode, Paths: in.Paths, Page: in.request()})
		})
	add(r, toolInfo{name: "read_patch", title: "Read the change as a patch", set: setRead, effect: reads,
		desc:   "The working change as one unified patch (untracked files as new files), narrowed to paths, a part at a time: cut at a line's end, next_cursor reads on.",
		budget: "60 KB of patch a part"},
		func(ctx context.Context, in patchIn) (backend.PatchPart, error) {
			return b.Review.Patch(ctx, in.Base, in.Paths, in.Cursor)
		})
	add(r, toolInfo{name: "read_run", title: "Read a run", set: setRead, effect: reads,
		desc:   "A run's result: target, status, exit code, where it came from (built, local or remote cache), duration, the failing tests (go test -json, go test, TAP, JUnit XML outputs), and the end of its output; wait_seconds waits for a run still going.",
		budget: "the output's last 16 KB (4 KB when failing tests were found), 50 failing tests of 2 KB"},
		func(ctx context.Context, in readRunIn) (backend.Summary, error) {
			wait, err := seconds(in.WaitSeconds, 0, 0)
			if err != nil {
				return backend.Summary{}, fmt.Errorf("wait_seconds: %w", err)
			}
			return b.Runs.Summarize(ctx, in.Run, wait)
		})
	add(r, toolInfo{name: "list_runs", title: "List past runs", set: setRead, effect: reads,
		desc:   "The runs core keeps, newest first: each target's status, exit code, cache, trigger and duration; read_run reads one.",
		budget: backend.PageWords.Runs,
		enums:  map[string][]string{"status": runStates}},
		func(ctx context.Context, in listRunsIn) (backend.RunList, error) {
			return b.Runs.ListRuns(in.Target, in.Status, in.request())
		})
	add(r, toolInfo{name: "read_ci_report", title: "Read a CI run's report", set: setRead, effect: reads,
		desc:   "A CI run split across shards (core run --shard I/N), gathered from the shards' run journals the workflow saved: whether it fails and why, each shard's counts, and its targets, the failed ones first with the shard that ran them, their exit code and the end of their output; read_run reads a local run.",
		budget: backend.PageWords.CI + ", each failure's output cut to its last 8 KB"},
		func(ctx context.Context, in ciReportIn) (backend.CIReportPage, error) {
			return b.Runs.ReadCIReport(in.Dirs, in.request())
		})
	add(r, toolInfo{name: "insight", title: "What the history says", set: setRead, effect: reads,
		desc:   "The repository's history as lenses: hotspots (files changed often and complex), affinity (files and projects that change together, hidden couplings), ownership (who knows what, bus factor), trend (activity per project), volatility (targets whose result flips for the same key).",
		budget: backend.PageWords.Insight + ", fewer when the budget needs",
		enums:  map[string][]string{"lens": backend.LensNames}},
		func(ctx context.Context, in insightIn) (backend.InsightView, error) {
			return b.Insight.View(ctx, in.Lens, in.Window, in.Project, in.Limit)
		})
	add(r, toolInfo{name: "review_status", title: "The branch's review on the forge", set: setRead, effect: reads, openWorld: true,
		desc:   "What the forge (GitHub) says of the branch's pull request: its state, verdicts, comments and checks (state says why there is none); and the other branches that change the same files, and whether merging them would conflict.",
		budget: "the forge's first 100 of each list, bodies cut to 1 KB, lists halved to fit"},
		func(ctx context.Context, _ noIn) (backend.ReviewStatus, error) {
			return b.Review.Status(ctx)
		})

	// review: writes on the person's review.
	add(r, toolInfo{name: "review", title: "Comment on the person's change", set: setReview, effect: writes,
		desc:   "Write on the person's review of their working change, next to their own comments, stamped as you: op comment (path, line, body), suggest (path, line, body, suggestion: the replacement for that line), resolve or reopen (id). read_diff shows the comments.",
		budget: "the comment written and the session's counts",
		enums:  map[string][]string{"op": backend.AgentOps}},
		func(ctx context.Context, in reviewIn) (backend.Written, error) {
			a, err := agent(ctx)
			if err != nil {
				return backend.Written{}, err
			}
			return b.Review.AgentWrite(ctx, a, backend.AgentOp{Op: in.Op, Path: in.Path, Line: in.Line, Body: in.Body, Suggestion: in.Suggestion, ID: in.ID})
		})

	// run: the targets targets.yaml declares.
	add(r, toolInfo{name: "run_target", title: "Run a declared target", set: setRun, effect: writesSameOnce,
		desc:   "Run one target that targets.yaml declares (with its dependencies, through the build cache; force runs anyway) and wait for it to end, up to wait_seconds. Answers as read_run does. Only declared targets run; nothing else is executed.",
		budget: "as read_run"},
		func(ctx context.Context, in runIn) (backend.Summary, error) {
			wait, err := seconds(in.WaitSeconds, mcpDefaultRunWait, 0)
			if err != nil {
				return backend.Summary{}, fmt.Errorf("wait_seconds: %w", err)
			}
			return b.Runs.RunAndWait(ctx, in.Target, in.Force, wait)
		})
	add(r, toolInfo{name: "run_affected", title: "Run what the change affects", set: setRun, effect: writesSameOnce,
		desc:   "Run, in one call, the targets of one name (default test) in every project the working change affects (against base; default: the default branch), in parallel through the build cache (force runs anyway), and wait. Answers per target: status, cached or built and from where, duration, the failing tests, else the end of its output; failures first.",
		budget: "failed targets share half the budget (their tests, then output); passed targets by id when many"},
		func(ctx context.Context, in runAffectedIn) (backend.AffectedRun, error) {
			wait, err := seconds(in.WaitSeconds, mcpDefaultAffectedWait, 0)
			if err != nil {
				return backend.AffectedRun{}, fmt.Errorf("wait_seconds: %w", err)
			}
			return b.Runs.RunAffected(ctx, in.Base, in.Name, in.Force, wait)
		})

	// attention: the person, and the work they hand over.
	add(r, toolInfo{name: "request_attention", title: "Ask the person", set: setAttention, effect: writes,
		desc:   "Ask the person something and wait for their answer (the console shows your request in its attention queue; only the person closes it, by answering). Answers state disposed with their reason, or state open if the wait timed out: then await_attention waits again. If you no longer need the answer, stop waiting: the request stays in the queue until the person answers it.",
		budget: "one request"},
		func(ctx context.Context, in attentionIn) (backend.AttentionRequest, error) {
			wait, err := seconds(in.TimeoutSeconds, mcpDefaultWait, 1)
			if err != nil {
				return backend.AttentionRequest{}, fmt.Errorf("timeout_seconds: %w", err)
			}
			a, err := agent(ctx)
			if err != nil {
				return backend.AttentionRequest{}, err
			}
			return b.Attention.Ask(ctx, a.ID, backend.Ask{Need: in.Need, Node: in.Node, File: in.File}, wait)
		})
	add(r, toolInfo{name: "await_attention", title: "Wait for the person's answer", set: setAttention, effect: reads,
		desc:   "Wait again for the answer to an attention request (after a timeout, or after reconnecting).",
		budget: "one request"},
		func(ctx context.Context, in awaitIn) (backend.AttentionRequest, error) {
			wait, err := seconds(in.TimeoutSeconds, mcpDefaultWait, 1)
			if err != nil {
				return backend.AttentionRequest{}, fmt.Errorf("timeout_seconds: %w", err)
			}
			return b.Attention.Await(ctx, in.ID, wait)
		})
	add(r, toolInfo{name: "list_session_jobs", title: "List handed work", set: setAttention, effect: reads,
		desc:   "The work the person handed to agent sessions: waiting, running (claimed) and done.",
		budget: backend.PageWords.Jobs,
		enums:  map[string][]string{"state": jobStates}},
		func(ctx context.Context, in jobsIn) (backend.JobList, error) {
			return b.Attention.JobsPage(in.State, in.request())
		})
	add(r, toolInfo{name: "claim_job", title: "Claim handed work", set: setAttention, effect: writes,
		desc:   "Claim a waiting session job (or the oldest one): it becomes yours, running, until you complete it.",
		budget: "one job"},
		func(ctx context.Context, in claimIn) (backend.SessionJob, error) {
			a, err := agent(ctx)
			if err != nil {
				return backend.SessionJob{}, err
			}
			return b.Attention.Claim(in.Name, a.ID)
		})
	add(r, toolInfo{name: "complete_job", title: "Complete handed work", set: setAttention, effect: writes,
		desc:   "Finish a session job you claimed, with result succeeded or failed and a message for the person.",
		budget: "one job",
		enums:  map[string][]string{"result": results}},
		func(ctx context.Context, in completeIn) (backend.SessionJob, error) {
			a, err := agent(ctx)
			if err != nil {
				return backend.SessionJob{}, err
			}
			return b.Attention.Complete(in.Name, a.ID, in.Result, in.Message)
		})

	if len(r.refused) > 0 {
		s.AddReceivingMiddleware(r.refuse)
	}
	return r.infos
}

// add registers one tool when the registry's scope opens it: its input
// schema from In (with the closed sets as enums), its output schema from
// Out, its handler wrapped by addTool.
func add[In, Out any](r *registry, ti toolInfo, h func(context.Context, In) (Out, error)) {
	r.infos = append(r.infos, ti)
	if !r.scope.Allows(ti.set, ti.readOnly()) {
		r.refused[ti.name] = ti
		return
	}
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", ti.name, err))
	}
	for prop, values := range ti.enums {
		p := in.Properties[prop]
		if p == nil {
			panic(fmt.Sprintf("tool %s has no input %s to close", ti.name, prop))
		}
		p.Enum = make([]any, len(values))
		for i, v := range values {
			p.Enum[i] = v
		}
	}
	t := &mcp.Tool{Name: ti.name, Title: ti.title, Description: ti.desc, Annotations: ti.annotations(), InputSchema: in}
	addTool(r.s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		if err := allowed(ctx, ti); err != nil {
			return nil, zero, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return nil, zero, err
		}
		return textOf(out), out, nil
	})
}

// allowed checks that the caller's token opens ti (the server was built
// for its scope; this holds it should a request reach another).
func allowed(ctx context.Context, ti toolInfo) error {
	p, ok := caller.Principal(ctx)
	if !ok {
		return errors.New("no authenticated caller")
	}
	if scope := backend.ScopeOf(p.Grants); !scope.Allows(ti.set, ti.readOnly()) {
		return outOfScope(ti, scope)
	}
	return nil
}

func outOfScope(ti toolInfo, scope backend.MCPScope) error {
	what, fix := "the "+ti.set+" toolset", "--toolsets "+ti.set
	if scope.ReadOnly && !ti.readOnly() {
		what, fix = "a token that may change something", "--toolsets "+ti.set+" and without --read-only"
	}
	return fmt.Errorf("%s is outside this token's scope (%s): it needs %s; ask the person for a token made with `core config mcp token create %s`", ti.name, scope, what, fix)
}

// refuse answers a call of a tool the token's scope does not open with a
// tool error saying so, rather than "unknown tool".
func (r *registry) refuse(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				if ti, ok := r.refused[p.Name]; ok {
					res := &mcp.CallToolResult{}
					res.SetError(outOfScope(ti, r.scope))
					return res, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// textOf is the text block of an answer whose text is not its JSON (nil:
// the SDK writes the JSON of the structured content): a patch reads as a
// patch.
func textOf(out any) *mcp.CallToolResult {
	p, ok := out.(backend.PatchPart)
	if !ok {
		return nil
	}
	text := p.Text
	if p.Note != "" {
		text += "\n[core: " + p.Note + "]\n"
	}
	if p.NextCursor != "" {
		text += "[core: next_cursor " + p.NextCursor + "]\n"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func ptr[T any](v T) *T { return &v }

// addTool registers a tool whose handler cannot take the server down: the
// SDK runs handlers on its own goroutines, outside the gateway's recover,
// so a panic becomes a tool error here and is logged (never the input).
// A tool whose token died while it ran (the request's context ends with
// it: a wait in request_attention returns) answers that, not what it had.
// An answer over the budget is an error naming it (the backend pages and
// cuts every answer to fit; this holds it).
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		var zero Out
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
				res, out, err = nil, zero, fmt.Errorf("%s failed inside core (a bug, logged on the server)", t.Name)
			}
		}()
		res, out, err = h(ctx, req, in)
		if cause := context.Cause(ctx); errors.Is(cause, backend.ErrTokenRevoked) || errors.Is(cause, backend.ErrTokenExpired) {
			return nil, zero, cause
		}
		if err == nil {
			if n := answerLen(out); n > backend.AnswerBudget {
				caller.Log(ctx).Error().Str(logx.Tool, t.Name).Int(logx.Bytes, n).Msg("mcp answer over the budget")
				return nil, zero, fmt.Errorf("%s's answer is %d KB, over the budget of %d KB: narrow the question (limit, paths, kind)", t.Name, n>>10, backend.AnswerBudget>>10)
			}
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
