package e2e

// The typed services around runs and jobs: StatusService (with the affected
// set `core affected` publishes), ToolService and NotesService, with the
// generated clients.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	notesv1alpha1 "github.com/corehq/core/proto/gen/core/notes/v1alpha1"
	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
)

// affectedJSON is `core affected --json`.
type affectedJSON struct {
	Projects []string `json:"projects"`
	Targets  []string `json:"targets"`
	Files    []string `json:"files"`
	NodeIDs  []string `json:"node_ids"`
}

func decodeAffected(t testing.TB, res cliResult) affectedJSON {
	t.Helper()
	var a affectedJSON
	if err := json.Unmarshal([]byte(res.Stdout), &a); err != nil {
		t.Fatalf("core affected --json does not decode: %v\n%s", err, res)
	}
	return a
}

func statusOf(t testing.TB, s *Server, token string) *statusv1alpha1.GetStatusResponse {
	t.Helper()
	res, err := svcStatus(s, token).GetStatus(rpcCtx(t), &statusv1alpha1.GetStatusRequest{})
	if err != nil {
		t.Fatalf("GetStatus: %v", err)
	}
	return res
}

// TestStatus checks GetStatus on a server with CORE_CONCURRENCY set, and
// the affected set `core affected` computes on a git checkout and publishes
// to it.
func TestStatus(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	wsGitInit(t, ws)
	money := filepath.Join(ws, "libs", "util", "money.go")
	data, err := os.ReadFile(money)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(money, append(data, "\n// A change on the branch.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	wantProjects := []string{"api", "auth", "billing", "util", "web"}

	// Without a server, core affected computes the set and publishes
	// nothing.
	plain := mustCore(t, ws, wsGitEnv, "affected")
	if !strings.Contains(plain.Stdout, "projects: "+strings.Join(wantProjects, ", ")+"\n") {
		t.Errorf("core affected without a server: want projects %v\n%s", wantProjects, plain)
	}
	if strings.Contains(plain.Stderr, "published") {
		t.Errorf("core affected published without a server\n%s", plain)
	}
	offline := decodeAffected(t, mustCore(t, ws, wsGitEnv, "affected", "--json"))
	if !slices.Equal(offline.Projects, wantProjects) || !slices.Equal(offline.Files, []string{"libs/util/money.go"}) {
		t.Errorf("core affected --json: projects %v files %v, want %v and [libs/util/money.go]", offline.Projects, offline.Files, wantProjects)
	}

	began := time.Now()
	s := startServer(t, ws, append([]string{"CORE_CONCURRENCY=3"}, wsGitEnv...)...)
	_, reader := createToken(t, ws, "--grant", "console=read")

	t.Run("get_status_reports_the_workspace_pool_graph_and_config", func(t *testing.T) {
		st := statusOf(t, s, reader)
		wantRoot, _ := filepath.EvalSymlinks(ws)
		gotRoot, _ := filepath.EvalSymlinks(st.GetWorkspace())
		if st.GetWorkspace() == "" || gotRoot != wantRoot {
			t.Errorf("workspace = %q, want %q", st.GetWorkspace(), ws)
		}
		if st.GetVersion() == "" {
			t.Error("version is empty")
		}
		if c := st.GetPool().GetCapacity(); c != 3 {
			t.Errorf("pool.capacity = %d, want 3 (CORE_CONCURRENCY=3)", c)
		}
		if st.GetPool().GetRunning() != 0 || st.GetPool().GetQueued() != 0 {
			t.Errorf("pool running %d queued %d on an idle server", st.GetPool().GetRunning(), st.GetPool().GetQueued())
		}
		if len(st.GetPool().GetAffected()) != 0 {
			t.Errorf("pool.affected = %v before anything was published", st.GetPool().GetAffected())
		}
		if st.GetGraph().GetNodes() <= 0 || st.GetGraph().GetEdges() <= 0 {
			t.Errorf("graph nodes %d edges %d, want both > 0", st.GetGraph().GetNodes(), st.GetGraph().GetEdges())
		}
		if st.GetGraph().GetDiagnostic() != "" {
			t.Errorf("graph diagnostic %q on the demo", st.GetGraph().GetDiagnostic())
		}
		since := st.GetObservingSince()
		if since == nil {
			t.Error("observing_since is not set")
		} else if at := since.AsTime(); at.Before(began.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("observing_since = %v, want between the start (%v) and now", at, began)
		}
		cfg := st.GetConfig()
		if cfg["mcp.address"] != "127.0.0.1:0" {
			t.Errorf("config[mcp.address] = %q, want the 127.0.0.1:0 the server was started with (config: %v)", cfg["mcp.address"], cfg)
		}
		if cfg["concurrency"] != "3" {
			t.Errorf("config[concurrency] = %q, want 3 from CORE_CONCURRENCY", cfg["concurrency"])
		}
	})

	t.Run("core_affected_publishes_the_set_to_pool_affected", func(t *testing.T) {
		res := mustCore(t, ws, wsGitEnv, "affected", "--json")
		set := decodeAffected(t, res)
		if !strings.Contains(res.Stderr, "published ") || !strings.Contains(res.Stderr, s.BaseURL) {
			t.Errorf("core affected does not say it published to %s\n%s", s.BaseURL, res)
		}
		st := statusOf(t, s, reader)
		got := st.GetPool().GetAffected()
		if !slices.Equal(got, set.NodeIDs) {
			t.Errorf("pool.affected = %v, want the CLI's node_ids %v", got, set.NodeIDs)
		}
		for _, p := range wantProjects {
			if !slices.Contains(got, "project:"+p) {
				t.Errorf("pool.affected lacks project:%s: %v", p, got)
			}
		}
		for _, p := range []string{"schemas", "ml", "docs"} {
			if slices.Contains(got, "project:"+p) {
				t.Errorf("pool.affected holds project:%s, which no change reaches: %v", p, got)
			}
		}
		if !slices.Contains(got, "target:util:build") || !slices.Contains(got, "target:api:build") {
			t.Errorf("pool.affected lacks target:util:build or target:api:build: %v", got)
		}
		if b := st.GetPool().GetAffectedBase(); b != "main" {
			t.Errorf("pool.affected_base = %q, want main", b)
		}
	})

	t.Run("publish_affected_needs_the_admin_grant", func(t *testing.T) {
		_, err := svcStatus(s, reader).PublishAffected(rpcCtx(t), &statusv1alpha1.PublishAffectedRequest{Affected: []string{"project:docs"}})
		wantConnectCode(t, err, connect.CodePermissionDenied)
		if got := statusOf(t, s, reader).GetPool().GetAffected(); slices.Contains(got, "project:docs") {
			t.Errorf("a refused publish changed pool.affected: %v", got)
		}
	})
}

// TestToolService lists and runs the workspace's spells.
func TestToolService(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	addSpell(t, ws, "exit-seven", `    run: [sh, -c, "echo to-stdout; echo to-stderr >&2; exit 7"]
    description: fail on purpose
`)
	_, reader := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws, hostGoEnv(t)...)
	tools := svcTools(s, s.AdminToken)

	t.Run("list_tools_lists_the_spells", func(t *testing.T) {
		res, err := svcTools(s, reader).ListTools(rpcCtx(t), &toolv1alpha1.ListToolsRequest{})
		if err != nil {
			t.Fatalf("ListTools with console=read: %v", err)
		}
		got := map[string]*toolv1alpha1.Tool{}
		for _, tool := range res.GetTools() {
			got[tool.GetName()] = tool
		}
		for name, argv := range map[string][]string{
			"fmt":        {"gofmt", "-l", "."},
			"todo-list":  {"grep", "-rn", "--include=*.go", "--include=*.py", "--include=*.ts", "TODO", "."},
			"go-version": {"go", "version"},
			"exit-seven": {"sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 7"},
		} {
			tool := got[name]
			if tool == nil {
				t.Errorf("ListTools lacks %s", name)
				continue
			}
			if !slices.Equal(tool.GetArgv(), argv) {
				t.Errorf("%s argv = %q, want %q", name, tool.GetArgv(), argv)
			}
			if tool.GetDescription() == "" {
				t.Errorf("%s has no description", name)
			}
		}
		if len(got) != 4 {
			t.Errorf("ListTools has %d spells, want 4", len(got))
		}
	})

	t.Run("run_tool_returns_the_exit_code_and_output", func(t *testing.T) {
		res, err := tools.RunTool(rpcCtx(t), &toolv1alpha1.RunToolRequest{Name: "todo-list"})
		if err != nil {
			t.Fatalf("RunTool(todo-list): %v", err)
		}
		if res.GetExitCode() != 0 || !strings.Contains(res.GetOutput(), "TODO: apply tax rules per region.") {
			t.Errorf("todo-list: exit %d output %q, want 0 and the TODO of billing", res.GetExitCode(), res.GetOutput())
		}
		if res.GetOutputTruncated() || res.GetDurationMs() < 0 {
			t.Errorf("truncated %v duration %dms", res.GetOutputTruncated(), res.GetDurationMs())
		}

		res, err = tools.RunTool(rpcCtx(t), &toolv1alpha1.RunToolRequest{Name: "exit-seven"})
		if err != nil {
			t.Fatalf("RunTool(exit-seven): %v", err)
		}
		if res.GetExitCode() != 7 {
			t.Errorf("exit-seven: exit %d, want 7", res.GetExitCode())
		}
		if !strings.Contains(res.GetOutput(), "to-stdout") || !strings.Contains(res.GetOutput(), "to-stderr") {
			t.Errorf("exit-seven: output %q, want stdout and stderr", res.GetOutput())
		}

		res, err = tools.RunTool(rpcCtx(t), &toolv1alpha1.RunToolRequest{Name: "go-version"})
		if err != nil {
			t.Fatalf("RunTool(go-version): %v", err)
		}
		if res.GetExitCode() != 0 || !strings.HasPrefix(res.GetOutput(), "go version go") {
			t.Errorf("go-version: exit %d output %q", res.GetExitCode(), res.GetOutput())
		}
	})

	t.Run("run_tool_of_an_unknown_spell_is_not_found", func(t *testing.T) {
		_, err := tools.RunTool(rpcCtx(t), &toolv1alpha1.RunToolRequest{Name: "rm"})
		wantConnectCode(t, err, connect.CodeNotFound)
		if !strings.Contains(err.Error(), "todo-list") {
			t.Errorf("the error %q does not list the declared spells", err)
		}
	})

	t.Run("run_tool_with_a_console_read_token_is_permission_denied", func(t *testing.T) {
		_, err := svcTools(s, reader).RunTool(rpcCtx(t), &toolv1alpha1.RunToolRequest{Name: "exit-seven"})
		wantConnectCode(t, err, connect.CodePermissionDenied)
	})

	t.Run("metrics_count_the_tools_run_and_not_the_refused_one", func(t *testing.T) {
		if n := metricCounters(t, s)["tools_run"]; n != 3 {
			t.Errorf("tools_run = %d, want 3: todo-list, exit-seven and go-version", n)
		}
	})
}

// TestNotesService puts, lists, replaces and deletes notes.
func TestNotesService(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	_, reader := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws)
	notes := svcNotes(s, s.AdminToken)
	list := func(t *testing.T, node string) []*notesv1alpha1.Note {
		t.Helper()
		res, err := svcNotes(s, reader).ListNotes(rpcCtx(t), &notesv1alpha1.ListNotesRequest{NodeId: node})
		if err != nil {
			t.Fatalf("ListNotes(%q): %v", node, err)
		}
		return res.GetNotes()
	}

	put, err := notes.PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{NodeId: "project:util", Text: "money rounding is subtle"})
	if err != nil {
		t.Fatalf("PutNote: %v", err)
	}
	n := put.GetNote()
	if n.GetId() == "" || n.GetNodeId() != "project:util" || n.GetText() != "money rounding is subtle" {
		t.Fatalf("PutNote returned %v", n)
	}
	if n.GetCreateTime() == nil || !n.GetCreateTime().AsTime().Equal(n.GetUpdateTime().AsTime()) {
		t.Errorf("a new note: create %v update %v, want both, equal", n.GetCreateTime(), n.GetUpdateTime())
	}
	other, err := notes.PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{NodeId: "project:api", Text: "entry point"})
	if err != nil {
		t.Fatalf("PutNote: %v", err)
	}

	t.Run("list_notes_by_node", func(t *testing.T) {
		got := list(t, "project:util")
		if len(got) != 1 || got[0].GetId() != n.GetId() {
			t.Errorf("ListNotes(project:util) = %v, want the one note", got)
		}
		if all := list(t, ""); len(all) != 2 {
			t.Errorf("ListNotes() = %d notes, want 2", len(all))
		}
		if none := list(t, "project:docs"); len(none) != 0 {
			t.Errorf("ListNotes(project:docs) = %v, want none", none)
		}
	})

	t.Run("put_with_an_id_replaces_the_text", func(t *testing.T) {
		res, err := notes.PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{Id: n.GetId(), NodeId: "project:util", Text: "use integer cents"})
		if err != nil {
			t.Fatalf("PutNote(replace): %v", err)
		}
		r := res.GetNote()
		if r.GetId() != n.GetId() || r.GetText() != "use integer cents" {
			t.Errorf("replace returned %v", r)
		}
		if !r.GetCreateTime().AsTime().Equal(n.GetCreateTime().AsTime()) || r.GetUpdateTime().AsTime().Before(n.GetUpdateTime().AsTime()) {
			t.Errorf("replace: create %v (was %v) update %v", r.GetCreateTime().AsTime(), n.GetCreateTime().AsTime(), r.GetUpdateTime().AsTime())
		}
		got := list(t, "project:util")
		if len(got) != 1 || got[0].GetText() != "use integer cents" {
			t.Errorf("after the replace ListNotes(project:util) = %v", got)
		}
	})

	t.Run("invalid_notes_are_invalid_argument", func(t *testing.T) {
		for _, req := range []*notesv1alpha1.PutNoteRequest{
			{NodeId: "project:util", Text: ""},
			{NodeId: "project:util", Text: "   \n"},
			{NodeId: "", Text: "no node"},
		} {
			_, err := notes.PutNote(rpcCtx(t), req)
			wantConnectCode(t, err, connect.CodeInvalidArgument)
		}
		_, err := notes.PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{Id: n.GetId(), NodeId: "project:util", Text: ""})
		wantConnectCode(t, err, connect.CodeInvalidArgument)
		if got := list(t, "project:util"); len(got) != 1 || got[0].GetText() != "use integer cents" {
			t.Errorf("a refused replace changed the note: %v", got)
		}
	})

	t.Run("unknown_ids_are_not_found", func(t *testing.T) {
		_, err := notes.PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{Id: "0123456789abcdef", NodeId: "project:util", Text: "x"})
		wantConnectCode(t, err, connect.CodeNotFound)
		_, err = notes.DeleteNote(rpcCtx(t), &notesv1alpha1.DeleteNoteRequest{Id: "0123456789abcdef"})
		wantConnectCode(t, err, connect.CodeNotFound)
	})

	t.Run("a_console_read_token_cannot_write", func(t *testing.T) {
		_, err := svcNotes(s, reader).PutNote(rpcCtx(t), &notesv1alpha1.PutNoteRequest{NodeId: "project:util", Text: "sneaky"})
		wantConnectCode(t, err, connect.CodePermissionDenied)
		_, err = svcNotes(s, reader).DeleteNote(rpcCtx(t), &notesv1alpha1.DeleteNoteRequest{Id: n.GetId()})
		wantConnectCode(t, err, connect.CodePermissionDenied)
	})

	t.Run("delete_removes_the_note", func(t *testing.T) {
		if _, err := notes.DeleteNote(rpcCtx(t), &notesv1alpha1.DeleteNoteRequest{Id: n.GetId()}); err != nil {
			t.Fatalf("DeleteNote: %v", err)
		}
		if got := list(t, "project:util"); len(got) != 0 {
			t.Errorf("after the delete ListNotes(project:util) = %v", got)
		}
		_, err := notes.DeleteNote(rpcCtx(t), &notesv1alpha1.DeleteNoteRequest{Id: n.GetId()})
		wantConnectCode(t, err, connect.CodeNotFound)
		if all := list(t, ""); len(all) != 1 || all[0].GetId() != other.GetNote().GetId() {
			t.Errorf("the delete touched another note: %v", all)
		}
	})

	t.Run("notes_survive_a_restart", func(t *testing.T) {
		if code := s.Stop(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		s2 := startServer(t, ws)
		res, err := svcNotes(s2, s2.AdminToken).ListNotes(rpcCtx(t), &notesv1alpha1.ListNotesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.GetNotes()) != 1 || res.GetNotes()[0].GetText() != "entry point" {
			t.Errorf("after a restart: %v", res.GetNotes())
		}
	})
}

// TestPoolCapacity checks the pool capacity GetStatus reports against the
// spec's rule: CORE_CONCURRENCY if set, else 4 on hosted CI runners, else
// min(CPU count, 8).
func TestPoolCapacity(t *testing.T) {
	t.Parallel()
	auto := int32(min(runtime.NumCPU(), 8))
	// The variables the detection reads, cleared: the tests may run on CI.
	clean := []string{"GITHUB_ACTIONS=", "RUNNER_ENVIRONMENT=", "TF_BUILD=", "AGENT_ISSELFHOSTED="}
	for _, tc := range []struct {
		name string
		env  []string
		want int32
	}{
		{"min_of_cpus_and_8_on_an_ordinary_machine", nil, auto},
		{"4_on_a_github_hosted_runner", []string{"GITHUB_ACTIONS=true", "RUNNER_ENVIRONMENT=github-hosted"}, 4},
		{"min_of_cpus_and_8_on_a_self_hosted_github_runner", []string{"GITHUB_ACTIONS=true", "RUNNER_ENVIRONMENT=self-hosted"}, auto},
		{"4_on_a_microsoft_hosted_azure_agent", []string{"TF_BUILD=True", "AGENT_ISSELFHOSTED=0"}, 4},
		{"core_concurrency_wins_over_hosted_ci", []string{"GITHUB_ACTIONS=true", "CORE_CONCURRENCY=7"}, 7},
		{"core_concurrency_1", []string{"CORE_CONCURRENCY=1"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := copyDemo(t)
			s := startServer(t, ws, append(slices.Clone(clean), tc.env...)...)
			if got := statusOf(t, s, s.AdminToken).GetPool().GetCapacity(); got != tc.want {
				t.Errorf("pool.capacity = %d, want %d", got, tc.want)
			}
		})
	}

	t.Run("core_concurrency_0_the_documented_default_means_auto", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		env := append(slices.Clone(clean), "CORE_CONCURRENCY=0")
		res := runCore(t, ws, env, "run", "docs:links")
		s := launchServer(t, ws, env...)
		deadline := time.Now().Add(readyTimeout)
		for !readyRE.MatchString(s.Stdout.String()) && !s.Exited() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if res.Code != 0 || s.Exited() {
			code, _ := s.Wait(stopTimeout)
			t.Fatalf("CORE_CONCURRENCY=0 is refused, though README's configuration table gives `0` (auto) as the default "+
				"of concurrency/CORE_CONCURRENCY and the configuration accepts 0 (validate min=0): runner.Capacity reads the variable "+
				"again and allows only 1 to 1024. `core run` exited %d:\n%s\n`core server start` exited %d:\n%s",
				res.Code, res.Stderr, code, s.Stderr.String())
		}
		if !readyRE.MatchString(s.Stdout.String()) {
			t.Fatalf("the server neither got ready nor exited\n%s", s.logs())
		}
	})
}
