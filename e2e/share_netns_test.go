package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
)

// netnsClientEnv, when set, makes the e2e test binary a client of a share
// listener instead of running tests: the share test starts it in the other
// network namespace, so that every request crosses a real veth link.
const netnsClientEnv = "CORE_E2E_NETNS_CLIENT"

// clientSpec is what the client does: requests, in order, and optionally
// one event stream it reads until it ends.
type clientSpec struct {
	Token    string     `json:"token"`
	Requests []probeReq `json:"requests"`
	Stream   string     `json:"stream"` // a URL to read until it closes
}

type probeReq struct {
	Method, URL, Host string
	Token             bool // send the share token
}

// netnsClient runs a clientSpec and prints one line per request ("STATUS"
// or "error: ..."), then, for a stream, "open" once it is reading and
// "closed" when it ends.
func netnsClient(spec string) int {
	var c clientSpec
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	client := &http.Client{Timeout: 20 * time.Second}
	for _, r := range c.Requests {
		req, _ := http.NewRequest(r.Method, r.URL, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if r.Host != "" {
			req.Host = r.Host
		}
		if r.Token {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	if c.Stream != "" {
		req, _ := http.NewRequest(http.MethodGet, c.Stream, nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			fmt.Println("error: stream", err)
			return 1
		}
		fmt.Println("open")
		r := bufio.NewReader(resp.Body)
		for {
			if _, err := r.ReadBytes('\n'); err != nil {
				break
			}
		}
		fmt.Println("closed")
	}
	return 0
}

// netns is two network namespaces joined by a veth pair: the server's
// (10.231.7.1) and a colleague's (10.231.7.2).
type netns struct{ server, colleague string }

func newNetns(t *testing.T) netns {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the share test builds network namespaces, which needs root; run the tests as root (CI does)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the share test needs the ip command (iproute2) to build network namespaces")
	}
	id := strconv.Itoa(os.Getpid() % 100000)
	n := netns{server: "core-srv-" + id, colleague: "core-col-" + id}
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := ip("netns", "add", n.server); err != nil {
		t.Skipf("cannot build a network namespace here (%v): the share test needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		_ = ip("netns", "del", n.server)
		_ = ip("netns", "del", n.colleague)
	})
	veth := "cv" + id
	for _, args := range [][]string{
		{"netns", "add", n.colleague},
		{"link", "add", veth + "a", "type", "veth", "peer", "name", veth + "b"},
		{"link", "set", veth + "a", "netns", n.server},
		{"link", "set", veth + "b", "netns", n.colleague},
		{"-n", n.server, "addr", "add", "10.231.7.1/24", "dev", veth + "a"},
		{"-n", n.colleague, "addr", "add", "10.231.7.2/24", "dev", veth + "b"},
		{"-n", n.server, "link", "set", veth + "a", "up"},
		{"-n", n.colleague, "link", "set", veth + "b", "up"},
		{"-n", n.server, "link", "set", "lo", "up"},
		{"-n", n.colleague, "link", "set", "lo", "up"},
	} {
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// client runs the client in the colleague's namespace.
func (n netns) client(t *testing.T, spec clientSpec) *exec.Cmd {
	t.Helper()
	data, _ := json.Marshal(spec)
	cmd := exec.Command("ip", "netns", "exec", n.colleague, os.Args[0])
	cmd.Env = append(os.Environ(), netnsClientEnv+"="+string(data))
	return cmd
}

var shareURLRE = regexp.MustCompile(`(?m)^(http://\S+#token=\S+)$`)

// TestAColleagueOnTheNetworkSeesTheShareAndNothingElse: the server runs in
// one network namespace, and the share's link is opened from another, over
// a real private address.
func TestAColleagueOnTheNetworkSeesTheShareAndNothingElse(t *testing.T) {
	n := newNetns(t)
	ws := copyDemo(t)
	inServer := func(args ...string) *exec.Cmd {
		cmd := exec.Command("ip", append([]string{"netns", "exec", n.server, coreBin, "--workspace", ws}, args...)...)
		cmd.Env = isolatedEnv(t)
		return cmd
	}
	srv := inServer("server", "start", "--address", "127.0.0.1:0")
	out := &testbed.Buffer{}
	srv.Stdout, srv.Stderr = out, out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() })
	for deadline := time.Now().Add(readyTimeout); !readyRE.MatchString(out.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no ready line:\n%s", out)
		}
	}
	share := func(args ...string) string {
		res, err := inServer(append([]string{"share"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("core share %v: %v\n%s", args, err, res)
		}
		return string(res)
	}
	printed := share("--ttl", "10m")
	m := shareURLRE.FindStringSubmatch(printed)
	if m == nil || !strings.Contains(printed, "10.231.7.1:") || !strings.ContainsAny(printed, "▀▄█") {
		t.Fatalf("core share printed no link on 10.231.7.1 with a QR code:\n%s", printed)
	}
	link, _ := url.Parse(m[1])
	frag, _ := url.ParseQuery(link.Fragment)
	token := frag.Get("token")
	base := "http://" + link.Host

	probes := []probeReq{
		{"GET", base + "/api/v1/insight", "", true},                                // shared: 409 (the demo copy is not a git repository), but reached
		{"POST", base + "/core.status.v1alpha1.StatusService/GetStatus", "", true}, // shared
		{"POST", base + "/core.activity.v1alpha1.ActivityService/ListActivities", "", true},
		{"POST", base + "/core.viewer.v1alpha1.ViewerService/ListRuns", "", true},
		{"GET", base + "/console/graph/", "", false},
		{"GET", base + "/api/v1/graph", "", true}, // not shared: 404
		{"GET", base + "/api/v1/diff", "", true},
		{"POST", base + "/mcp", "", true},
		{"POST", base + "/core.job.v1alpha1.JobService/ListJobs", "", true},
		{"POST", base + "/core.tool.v1alpha1.ToolService/ListTools", "", true},
		{"GET", base + "/api/v1/insight", "", false},                        // no token: 401
		{"GET", base + "/api/v1/insight", "127.0.0.1:" + link.Port(), true}, // a loopback Host: 403
		{"GET", base + "/api/v1/insight", "evil.example", true},             // a foreign Host: 403
	}
	want := []string{"409", "200", "200", "200", "200", "404", "404", "404", "404", "404", "401", "403", "403"}
	res, err := n.client(t, clientSpec{Token: token, Requests: probes}).CombinedOutput()
	if err != nil {
		t.Fatalf("the colleague's client: %v\n%s", err, res)
	}
	got := strings.Fields(strings.TrimSpace(string(res)))
	if strings.Join(got, " ") != strings.Join(want, " ") {
		for i, p := range probes {
			g := "?"
			if i < len(got) {
				g = got[i]
			}
			if g != want[i] {
				t.Errorf("%s %s (Host %q): %s, want %s", p.Method, p.URL, p.Host, g, want[i])
			}
		}
	}
	// The main listener is loopback-only: the colleague cannot even reach it.
	mainURL := readState(t, ws).BaseURL
	port := mainURL[strings.LastIndex(mainURL, ":")+1:]
	res, _ = n.client(t, clientSpec{Token: token, Requests: []probeReq{{"POST", "http://10.231.7.1:" + port + "/api/v1/share", "", true}}}).CombinedOutput()
	if !strings.Contains(string(res), "error:") {
		t.Errorf("the colleague reached the loopback listener's share route: %s", res)
	}

	// A stream from the colleague ends when a new share supersedes this one.
	stream := n.client(t, clientSpec{Token: token, Stream: base + "/api/v1/events"})
	sout := &testbed.Buffer{}
	stream.Stdout, stream.Stderr = sout, sout
	if err := stream.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(sout.String(), "open"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the colleague's stream did not open: %s", sout)
		}
	}
	next := share("--ttl", "5m")
	if !strings.Contains(next, "has ended") {
		t.Errorf("a new share does not say it replaced the old one:\n%s", next)
	}
	done := make(chan error, 1)
	go func() { done <- stream.Wait() }()
	select {
	case <-done:
		if !strings.Contains(sout.String(), "closed") {
			t.Errorf("the stream: %s", sout)
		}
	case <-time.After(30 * time.Second):
		_ = stream.Process.Kill()
		t.Fatal("the superseded share's stream did not end")
	}
	res, _ = n.client(t, clientSpec{Token: token, Requests: []probeReq{{"GET", base + "/api/v1/insight", "", true}}}).CombinedOutput()
	if !strings.Contains(string(res), "error:") {
		t.Errorf("the superseded share still answers: %s", res)
	}
	// Stop ends the new one.
	m = shareURLRE.FindStringSubmatch(next)
	if m == nil {
		t.Fatalf("no link:\n%s", next)
	}
	if out := share("stop"); !strings.Contains(out, "has ended") {
		t.Errorf("core share stop: %s", out)
	}
	link2, _ := url.Parse(m[1])
	res, _ = n.client(t, clientSpec{Requests: []probeReq{{"GET", "http://" + link2.Host + "/console/graph/", "", false}}}).CombinedOutput()
	if !strings.Contains(string(res), "error:") {
		t.Errorf("a stopped share still answers: %s", res)
	}
	if out := share("status"); !strings.Contains(out, "no share is open") {
		t.Errorf("core share status after stop: %s", out)
	}

	// At the end of its time box the listener closes and its stream ends.
	short := share("--ttl", "10s")
	m = shareURLRE.FindStringSubmatch(short)
	if m == nil {
		t.Fatalf("no link:\n%s", short)
	}
	link3, _ := url.Parse(m[1])
	frag3, _ := url.ParseQuery(link3.Fragment)
	expiring := n.client(t, clientSpec{Token: frag3.Get("token"), Stream: "http://" + link3.Host + "/api/v1/events"})
	eout := &testbed.Buffer{}
	expiring.Stdout, expiring.Stderr = eout, eout
	if err := expiring.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- expiring.Wait() }()
	select {
	case <-ended:
		if !strings.Contains(eout.String(), "open") || !strings.Contains(eout.String(), "closed") {
			t.Errorf("the expiring share's stream: %s", eout)
		}
	case <-time.After(60 * time.Second):
		_ = expiring.Process.Kill()
		t.Fatal("the share's stream outlived its time box")
	}
	res, _ = n.client(t, clientSpec{Token: frag3.Get("token"), Requests: []probeReq{{"GET", "http://" + link3.Host + "/api/v1/insight", "", true}}}).CombinedOutput()
	if !strings.Contains(string(res), "error:") {
		t.Errorf("an expired share still answers: %s", res)
	}
}
