package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLifecycle covers starting a second server, the status command and the
// ways a server stops.
func TestLifecycle(t *testing.T) {
	t.Parallel()

	t.Run("a_second_server_on_the_same_port_fails_naming_the_address", func(t *testing.T) {
		t.Parallel()
		first := startServer(t, copyDemo(t))
		other := copyDemo(t)
		addr := "127.0.0.1:" + first.Port
		res := runCore(t, other, nil, "server", "start", "--address", addr)
		if res.Code == 0 {
			t.Fatalf("a second server on %s started:\n%s", addr, res)
		}
		if !strings.Contains(res.Stderr, addr) || !strings.Contains(res.Stderr, "already in use") {
			t.Errorf("the error should name %s and say it is in use:\n%s", addr, res)
		}
		if st := readState(t, other); st != nil {
			t.Errorf("the failed server left a server.json: %+v", st)
		}
		if r := get(t, first.URL+"/api/v1/graph", ""); r.Status != http.StatusUnauthorized {
			t.Errorf("the first server no longer answers as before\n%s", r)
		}
	})

	t.Run("a_second_server_on_the_same_workspace_refuses_to_start", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		first := startServer(t, ws)
		res := runCore(t, ws, nil, "server", "start", "--address", "127.0.0.1:0")
		if res.Code == 0 {
			t.Fatalf("a second server on the same workspace started:\n%s", res)
		}
		if !strings.Contains(res.Stderr, "already runs") {
			t.Errorf("the error should say a server already runs:\n%s", res)
		}
		st := readState(t, ws)
		if st == nil || st.PID != first.PID || st.AdminToken != first.AdminToken {
			t.Fatalf("the refused start changed or removed the first server's server.json: %+v", st)
		}
		if r := get(t, first.URL+"/api/v1/graph", ""); r.Status != http.StatusUnauthorized {
			t.Errorf("the first server no longer answers as before\n%s", r)
		}
		if res := runCore(t, ws, nil, "server", "status"); res.Code != 0 {
			t.Errorf("server status after the refused start: want exit 0\n%s", res)
		}
	})

	t.Run("server_status_exits_3_when_no_server_ever_ran", func(t *testing.T) {
		t.Parallel()
		res := runCore(t, copyDemo(t), nil, "server", "status")
		if res.Code != 3 || !strings.Contains(res.Stdout, "not running") {
			t.Errorf("want exit 3 and `not running`\n%s", res)
		}
	})

	t.Run("server_status_exits_0_while_the_server_runs", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		s := startServer(t, ws)
		res := runCore(t, ws, nil, "server", "status")
		if res.Code != 0 || !strings.Contains(res.Stdout, "running") || !strings.Contains(res.Stdout, s.BaseURL) {
			t.Errorf("want exit 0 naming %s\n%s", s.BaseURL, res)
		}
	})

	for _, sig := range []struct {
		name string
		sig  os.Signal
	}{{"SIGTERM", syscall.SIGTERM}, {"SIGINT", os.Interrupt}} {
		t.Run(sig.name+"_exits_0_and_removes_server_json", func(t *testing.T) {
			t.Parallel()
			ws := copyDemo(t)
			s := startServer(t, ws)
			s.Signal(sig.sig)
			code, ok := s.Wait(stopTimeout)
			if !ok {
				t.Fatalf("the server did not exit after %s\n%s", sig.name, s.logs())
			}
			if code != 0 {
				t.Errorf("exit %d after %s, want 0\n%s", code, sig.name, s.logs())
			}
			if st := readState(t, ws); st != nil {
				t.Errorf("server.json survived %s: %+v", sig.name, st)
			}
			if res := runCore(t, ws, nil, "server", "status"); res.Code != 3 {
				t.Errorf("server status after %s: want exit 3\n%s", sig.name, res)
			}
		})
	}

	t.Run("server_stop_stops_a_running_server", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		s := startServer(t, ws)
		res := runCore(t, ws, nil, "server", "stop")
		if res.Code != 0 || !strings.Contains(res.Stdout, "stopped") {
			t.Errorf("server stop: want exit 0 and `stopped`\n%s", res)
		}
		code, ok := s.Wait(stopTimeout)
		if !ok {
			t.Fatalf("the server still runs after `core server stop`\n%s", s.logs())
		}
		if code != 0 {
			t.Errorf("the stopped server exited %d, want 0\n%s", code, s.logs())
		}
		if st := readState(t, ws); st != nil {
			t.Errorf("server.json survived `core server stop`: %+v", st)
		}
		if res := runCore(t, ws, nil, "server", "status"); res.Code != 3 {
			t.Errorf("server status after stop: want exit 3\n%s", res)
		}
		if res := runCore(t, ws, nil, "server", "stop"); res.Code != 0 || !strings.Contains(res.Stdout, "not running") {
			t.Errorf("a second server stop: want exit 0 and `not running`\n%s", res)
		}
	})

	t.Run("a_server_can_start_again_after_a_stop", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		first := startServer(t, ws)
		if code := first.Stop(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		second := startServer(t, ws)
		if second.AdminToken == first.AdminToken {
			t.Error("the restarted server reuses the previous admin token")
		}
		if r := get(t, second.URL+"/api/v1/graph", first.AdminToken); r.Status != http.StatusUnauthorized {
			t.Errorf("the previous server's admin token still works\n%s", r)
		}
	})
}

// consoleLines returns the lines of doctor's output that start with
// "console:".
func consoleLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "console:") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestDoctor checks the console line of `core doctor` in its three states.
func TestDoctor(t *testing.T) {
	t.Parallel()
	off := []string{"CORE_CONSOLE_ENABLED=false"}
	for _, tc := range []struct {
		name      string
		start     bool
		serverEnv []string // the server's environment, when it differs from doctor's
		env       []string
		want      string
	}{
		{"reports_console_reachable_while_the_server_runs", true, nil, nil, "console: reachable"},
		{"reports_console_skipped_when_no_server_runs", false, nil, nil, "console: skipped (server not running)"},
		{"reports_console_disabled_when_console_enabled_is_false", true, nil, off, "console: disabled"},
		{"reports_console_disabled_without_a_server_too", false, nil, off, "console: disabled"},
		// The server's setting decides, not doctor's own configuration.
		{"reports_console_disabled_when_only_the_server_was_started_with_it_off", true, off, nil, "console: disabled"},
		{"reports_console_reachable_when_only_doctor_has_it_off", true, []string{}, off, "console: reachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := copyDemo(t)
			if tc.start {
				env := tc.env
				if tc.serverEnv != nil {
					env = tc.serverEnv
				}
				startServer(t, ws, env...)
			}
			res := runCore(t, ws, tc.env, "doctor")
			if res.Code != 0 {
				t.Errorf("doctor: want exit 0\n%s", res)
			}
			lines := consoleLines(res.Stdout)
			if len(lines) != 1 || lines[0] != tc.want {
				t.Errorf("console lines = %q, want exactly [%q]\n%s", lines, tc.want, res)
			}
		})
	}
}

// TestInvalidConfig checks that a bad setting stops start-up with a message
// naming the key, the value and what is allowed.
func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		env   string
		key   string
		value string
		allow string
	}{
		{"a_bad_mcp_address", "CORE_MCP_ADDRESS=nonsense", "server.address", "nonsense", "host:port"}, // the old name of the key, still read
		{"a_bad_console_enabled", "CORE_CONSOLE_ENABLED=maybe", "console.enabled", "maybe", "true, false"},
		{"a_too_short_keepalive", "CORE_EVENTS_KEEPALIVE=1ms", "events.keepalive", "1ms", "at least"},
		{"a_bad_log_level", "CORE_LOG_LEVEL=loud", "log.level", "loud", "debug, info, warn, error"},
		{"an_http_hosted_origin", "CORE_CONSOLE_HOSTED_ORIGIN=http://console.example", "console.hosted_origin", "http://console.example", "https"},
	} {
		t.Run(tc.name+"_stops_start_up", func(t *testing.T) {
			t.Parallel()
			ws := copyDemo(t)
			args := []string{"server", "start"}
			if !strings.HasPrefix(tc.env, "CORE_MCP_ADDRESS=") {
				args = append(args, "--address", "127.0.0.1:0")
			}
			res := runCore(t, ws, []string{tc.env}, args...)
			if res.Code == 0 {
				t.Fatalf("the server started with %s:\n%s", tc.env, res)
			}
			envName, _, _ := strings.Cut(tc.env, "=")
			for _, want := range []string{tc.key, tc.value, tc.allow, envName} {
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("stderr does not mention %q:\n%s", want, res)
				}
			}
			if strings.Contains(res.Stdout, "serving") {
				t.Errorf("the server printed its ready line:\n%s", res)
			}
			if st := readState(t, ws); st != nil {
				t.Errorf("a refused start left server.json: %+v", st)
			}
		})
	}

	t.Run("a_bad_workspace_config_file_stops_start_up_naming_the_file", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		if err := os.MkdirAll(ws+"/.core", 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws+"/.core/config.yaml", []byte("console:\n  enabled: maybe\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		res := runCore(t, ws, nil, "server", "start", "--address", "127.0.0.1:0")
		if res.Code == 0 {
			t.Fatalf("the server started with a bad .core/config.yaml:\n%s", res)
		}
		for _, want := range []string{"console.enabled", "maybe", ".core/config.yaml", "true, false"} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr does not mention %q:\n%s", want, res)
			}
		}
	})
}

// TestRoutes checks that `core routes` prints the golden exposure matrix.
func TestRoutes(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile(moduleRoot + "/testdata/golden/routes.txt")
	if err != nil {
		t.Fatal(err)
	}
	res := mustCore(t, "", nil, "routes")
	if res.Stdout != string(golden) {
		t.Errorf("core routes differs from testdata/golden/routes.txt:\n--- got\n%s--- want\n%s", res.Stdout, golden)
	}
	for _, name := range []string{"graph.read", "events.stream", "token.pairing.exchange"} {
		if !strings.Contains(res.Stdout, name) {
			t.Errorf("core routes does not list %s", name)
		}
	}
}

// TestStaleState covers a server that died without cleaning up.
func TestStaleState(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	dead := startServer(t, ws)
	dead.Signal(syscall.SIGKILL)
	if _, ok := dead.Wait(stopTimeout); !ok {
		t.Fatal("SIGKILL did not end the server")
	}
	if st := readState(t, ws); st == nil || st.PID != dead.PID {
		t.Fatalf("after SIGKILL server.json should still name pid %d: %+v", dead.PID, st)
	}

	t.Run("server_status_exits_3_for_a_dead_server", func(t *testing.T) {
		if res := runCore(t, ws, nil, "server", "status"); res.Code != 3 {
			t.Errorf("want exit 3\n%s", res)
		}
	})

	t.Run("doctor_skips_the_console_of_a_dead_server", func(t *testing.T) {
		res := runCore(t, ws, nil, "doctor")
		if lines := consoleLines(res.Stdout); len(lines) != 1 || lines[0] != "console: skipped (server not running)" {
			t.Errorf("console lines = %q\n%s", lines, res)
		}
	})

	t.Run("a_new_server_replaces_the_stale_state", func(t *testing.T) {
		s := startServer(t, ws)
		st := readState(t, ws)
		if st == nil || st.PID != s.PID {
			t.Fatalf("server.json = %+v, want pid %d", st, s.PID)
		}
		if r := get(t, s.URL+"/api/v1/graph", dead.AdminToken); r.Status != http.StatusUnauthorized {
			t.Errorf("the dead server's admin token works on the new server\n%s", r)
		}
		if code := s.Stop(); code != 0 {
			t.Errorf("exit %d", code)
		}
		if st := readState(t, ws); st != nil {
			t.Errorf("server.json survived the new server's shutdown: %+v", st)
		}
	})

	t.Run("server_stop_removes_a_stale_state_file", func(t *testing.T) {
		s := startServer(t, ws)
		s.Signal(syscall.SIGKILL)
		if _, ok := s.Wait(stopTimeout); !ok {
			t.Fatal("SIGKILL did not end the server")
		}
		res := runCore(t, ws, nil, "server", "stop")
		if res.Code != 0 || !strings.Contains(res.Stdout, "stale") {
			t.Errorf("want exit 0 and a word about the stale file\n%s", res)
		}
		if st := readState(t, ws); st != nil {
			t.Errorf("server.json survived `server stop`: %+v", st)
		}
	})
}

// TestConcurrentStart starts two servers on one workspace at the same time.
func TestConcurrentStart(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	// Launched back to back: each start takes far longer (graph build,
	// bind) than the gap between them.
	servers := [2]*Server{launchServer(t, ws), launchServer(t, ws)}
	// Each one either becomes ready or exits; wait until both have decided.
	deadline := time.Now().Add(readyTimeout)
	ready := func(s *Server) bool { return readyRE.MatchString(s.Stdout.String()) }
	for {
		decided := 0
		for _, s := range servers {
			if ready(s) || s.Exited() {
				decided++
			}
		}
		if decided == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two servers neither became ready nor exited")
		}
		time.Sleep(20 * time.Millisecond)
	}
	running := 0
	for _, s := range servers {
		if ready(s) && !s.Exited() {
			running++
		} else if !strings.Contains(s.Stderr.String(), "already runs") {
			t.Errorf("the refused server does not say one already runs:\n%s", s.logs())
		}
	}
	if running != 1 {
		t.Errorf("%d servers run for one workspace, want exactly 1\n--- first\n%s\n--- second\n%s", running, servers[0].logs(), servers[1].logs())
	}
}

// The server's log is text for a person (the demo asks for it, a terminal
// gets it) and JSON for a script: by default off a terminal, or asked for
// by --log-format json over the configuration.
func TestTheServerLogIsTextOrJSONAsTheFlagSays(t *testing.T) {
	ws := copyDemo(t)
	for _, c := range []struct {
		name  string
		flags []string
		env   []string
		json  bool
	}{
		{"off a terminal by default", nil, nil, true},
		{"--log-format console", []string{"--log-format", "console"}, nil, false},
		{"--log-format json over CORE_LOG_FORMAT=console", []string{"--log-format", "json"}, []string{"CORE_LOG_FORMAT=console"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServerFlags(t, ws, c.flags, c.env...)
			lines := strings.Split(strings.TrimSpace(s.Stderr.String()), "\n")
			if len(lines) < 2 {
				t.Fatalf("no log lines before the ready line:\n%s", s.logs())
			}
			for _, line := range lines {
				var obj map[string]any
				if isJSON := json.Unmarshal([]byte(line), &obj) == nil; isJSON != c.json {
					t.Errorf("JSON %v, want %v: %q", isJSON, c.json, line)
				}
			}
			want := `"message":"indexing"`
			if !c.json {
				want = "INF indexing workspace=" + ws
			}
			if !strings.Contains(s.Stderr.String(), want) {
				t.Errorf("the log does not say it is indexing (%s):\n%s", want, s.logs())
			}
		})
	}
}
