package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
)

// tokenPrefixRE matches the readable prefix of a token, core_<kind>_.
var tokenPrefixRE = regexp.MustCompile(`^core_[a-z]+_`)

func marker(t testing.TB, what string) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "e2emarker" + what + hex.EncodeToString(b)
}

// TestLogsHoldNoSecrets runs a session that puts tokens, a pairing code and
// marker strings into every part of a request, then searches everything the
// server wrote (stdout, stderr at debug level, every file under .core/) for
// them.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws, "CORE_LOG_LEVEL=debug", "CORE_LOG_ACCESS=true", "CORE_EVENTS_KEEPALIVE=200ms")
	secrets := map[string]string{"admin token": s.AdminToken}
	markers := map[string]string{}
	for _, what := range []string{"header", "useragent", "cookie", "body", "connectbody", "query", "path", "bearer", "method"} {
		markers[what] = marker(t, what)
	}
	markers["method"] = strings.ToUpper(markers["method"])
	graphURL := s.URL + "/api/v1/graph"
	ok := func(r response) {
		t.Helper()
		if r.Status != http.StatusOK {
			t.Errorf("want 200\n%s", r)
		}
	}

	// A console token from the CLI, sent the right way and the wrong way.
	_, cliToken := createToken(t, ws, "--grant", "console=read")
	secrets["CLI console token"] = cliToken
	ok(get(t, graphURL, cliToken))
	want401(t, get(t, graphURL+"?access_token="+url.QueryEscape(cliToken), ""))
	want401(t, get(t, s.URL+"/api/v1/events?access_token="+url.QueryEscape(cliToken), ""))

	// Headers carrying markers (and a token in a header that is not
	// Authorization).
	ok(get(t, graphURL, cliToken,
		"X-E2E-Marker", markers["header"],
		"User-Agent", markers["useragent"],
		"Cookie", "session="+markers["cookie"],
		"Referer", "http://127.0.0.1/"+markers["header"],
		"X-Forwarded-For", markers["header"],
		"X-Token", cliToken))
	want401(t, get(t, graphURL, "", "Authorization", "Bearer "+markers["bearer"]))
	unknown := "core_console_" + strings.Repeat("Q", 43-len(markers["bearer"])) + markers["bearer"]
	want401(t, get(t, graphURL, unknown))
	secrets["unknown well-formed token"] = unknown

	// Markers in the query and the path.
	get(t, graphURL+"?select="+markers["query"], cliToken)
	get(t, graphURL+"?"+markers["query"]+"=1", cliToken)
	get(t, s.URL+"/api/v1/"+markers["path"], cliToken)
	get(t, s.URL+"/"+markers["path"]+"?"+markers["query"]+"="+cliToken, "")
	do(t, newRequest(t, markers["method"], graphURL, cliToken, nil))

	// Connect calls: a pairing code, its exchange, a token minted over
	// Connect, and bodies carrying markers.
	admin := tokenClient(s, s.AdminToken)
	pc, err := admin.CreatePairingCode(rpcCtx(t), &tokenv1alpha1.CreatePairingCodeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	secrets["pairing code"] = pc.GetCode()
	wantAPIError(t, get(t, graphURL, pc.GetCode()), http.StatusForbidden, "permission_denied")
	ex, err := tokenClient(s, pc.GetCode()).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	secrets["exchanged console token"] = ex.GetToken()
	ok(get(t, graphURL, ex.GetToken()))
	if _, err := tokenClient(s, pc.GetCode()).ExchangePairingCode(rpcCtx(t), &tokenv1alpha1.ExchangePairingCodeRequest{}); err == nil {
		t.Error("a spent pairing code traded again")
	}
	created, err := admin.CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{Grants: []string{"console=read"}, Ttl: durationpb.New(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	secrets["Connect-minted token"] = created.GetSecret()
	ok(get(t, graphURL, created.GetSecret()))
	if _, err := admin.CreateToken(rpcCtx(t), &tokenv1alpha1.CreateTokenRequest{Kind: markers["connectbody"], Grants: []string{markers["connectbody"]}}); err == nil {
		t.Error("CreateToken accepted a bogus kind")
	}
	for _, body := range []string{
		`{"` + markers["body"] + `":"` + markers["body"] + `"}`,
		`{"kind":"` + markers["body"] + `"}`,
		`{"kind":` + markers["body"],
		markers["body"],
	} {
		for _, proc := range []string{"ListTokens", "CreateToken", "ExchangePairingCode"} {
			for _, tok := range []string{s.AdminToken, cliToken, ""} {
				do(t, newRequest(t, http.MethodPost, s.URL+"/core.token.v1alpha1.TokenService/"+proc, tok,
					strings.NewReader(body), "Content-Type", "application/json", "X-E2E-Marker", markers["header"]))
			}
		}
		do(t, newRequest(t, http.MethodPost, graphURL, cliToken, strings.NewReader(body), "Content-Type", "application/json"))
	}

	// An SSE session with the token, long enough for keep-alives.
	st := openSSE(t, s, ex.GetToken(), "secrets")
	st.waitFor(t, "a keep-alive", func(e sseEvent) bool { return e.Comment == "keep-alive" })
	st.Close()

	// Let the server finish (and flush) its log, then look everywhere.
	if code := s.Stop(); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.logs())
	}
	logs := s.Stderr.String()
	if !strings.Contains(logs, `"route":"graph.read"`) || !strings.Contains(logs, `"route":"token.pairing.exchange"`) {
		t.Fatalf("the access log is missing; this test would prove nothing:\n%s", logs)
	}
	places := map[string]string{"stderr": logs, "stdout": s.Stdout.String()}
	err = filepath.WalkDir(filepath.Join(ws, ".core"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		places[path] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := places[filepath.Join(ws, ".core", "tokens.json")]; !ok {
		t.Error("no tokens.json under .core; the file search looked at nothing")
	}
	find := func(kind, name, value string) {
		t.Helper()
		needles := []string{value}
		if m := tokenPrefixRE.FindString(value); kind == "secret" && m != "" {
			needles = append(needles, value[len(m):]) // the random part alone
		}
		for place, text := range places {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%s holds the %s (%s %q)", place, name, kind, n)
				}
			}
		}
	}
	for name, v := range secrets {
		find("secret", name, v)
	}
	for name, v := range markers {
		find("marker", name, v)
	}
}
