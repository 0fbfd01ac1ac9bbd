package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
)

// statusAnswer is the JSON of GetStatus, the fields this test reads.
type statusAnswer struct {
	Workspace string            `json:"workspace"`
	Config    map[string]string `json:"config"`
	Cache     struct {
		Remote string `json:"remote"`
	} `json:"cache"`
	Graph struct {
		Nodes            int32 `json:"nodes"`
		IndexDiagnostics int32 `json:"indexDiagnostics"`
		IndexProblems    []struct {
			Path, Message string
		} `json:"indexProblems"`
	} `json:"graph"`
	raw string
}

func getStatus(t *testing.T, base, token string) statusAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/core.status.v1alpha1.StatusService/GetStatus", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GetStatus at %s: %d %s", base, resp.StatusCode, data)
	}
	var a statusAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	a.raw = string(data)
	return a
}

// TestTheShareStatusShowsNoPathConfigOrProblemText: a colleague on the
// network sees the numbers of the status, not the workspace's absolute
// path, the configuration (the forge's and the remote cache's addresses)
// or the index's problems with their paths and messages; the loopback
// listener answers all of it to the machine's owner.
func TestTheShareStatusShowsNoPathConfigOrProblemText(t *testing.T) {
	const forgeURL, cacheURL, marker = "https://ghe.internal.example/api/v3/", "http://cache.internal.example:8080/core", "snippetMARKERsnippet"
	s := startServer(t, func(c *config.Config) {
		c.Share.Address = shareAddr
		c.Forge.APIURL = forgeURL
		c.Cache.Remote.URL = cacheURL
	})
	root := s.Workspace.Root()
	if err := os.WriteFile(filepath.Join(root, "libs", "util", "broken.go"), []byte("package util\n\nfunc Broken( {\n\t"+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	admin := s.Tokens.Mint(auth.KindAdmin, allGrants, time.Hour)
	var own statusAnswer
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if own = getStatus(t, s.BaseURL, admin); len(own.Graph.IndexProblems) > 0 || time.Now().After(deadline) {
			break
		}
	}
	info := askShare(t, s, admin, `{"ttl":"1m"}`)
	shared := getStatus(t, "http://"+info.Address, shareToken(t, info))

	t.Run("the loopback listener answers the path, the config and the problems", func(t *testing.T) {
		if own.Workspace != root || own.Config["forge.api_url"] != forgeURL || own.Cache.Remote != cacheURL || len(own.Graph.IndexProblems) == 0 {
			t.Errorf("loopback status: %s", own.raw)
		}
	})
	t.Run("the share answers the numbers and the directory's name alone", func(t *testing.T) {
		if shared.Workspace != filepath.Base(root) || shared.Graph.Nodes != own.Graph.Nodes || shared.Graph.IndexDiagnostics != own.Graph.IndexDiagnostics {
			t.Errorf("share status: %s", shared.raw)
		}
		if len(shared.Config) > 0 || shared.Cache.Remote != "" || len(shared.Graph.IndexProblems) > 0 {
			t.Errorf("the share shows the config, the remote or the problems: %s", shared.raw)
		}
		for _, secret := range []string{root, forgeURL, cacheURL, "ghe.internal", "cache.internal", marker, "broken.go"} {
			if bytes.Contains([]byte(shared.raw), []byte(secret)) {
				t.Errorf("the share's status holds %q: %s", secret, shared.raw)
			}
		}
	})
}
