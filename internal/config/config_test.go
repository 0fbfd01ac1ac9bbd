package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setup is one Load's world: the environment, the workspace's
// .core/config.yaml, the user's own file, whether the workspace file is
// trusted (core config trust ran on it as written), and flags.
type setup struct {
	env             []string
	workspace, user string
	trusted         bool
	flags           map[string]any
}

// loaded is what Load answered, with the warnings it gave.
type loaded struct {
	cfg      *Config
	err      error
	warnings []string
}

// loadWith runs Load in a world of its own: a fresh workspace, user file
// and trust file, nothing from the machine's environment.
func loadWith(t *testing.T, s setup) loaded {
	t.Helper()
	root := t.TempDir()
	if s.workspace != "" {
		writeFile(t, filepath.Join(root, ".core", "config.yaml"), s.workspace)
	}
	home := t.TempDir()
	userFile := filepath.Join(home, "config.yaml")
	if s.user != "" {
		writeFile(t, userFile, s.user)
	}
	trustFile := filepath.Join(home, "state", "trust.json")
	if s.trusted {
		if _, err := Trust(root, trustFile, false); err != nil {
			t.Fatal(err)
		}
	}
	if s.env == nil {
		s.env = []string{}
	}
	var out loaded
	out.cfg, out.err = Load(Sources{
		WorkspaceRoot: root, UserFile: userFile, Environ: s.env, Flags: s.flags, TrustFile: trustFile,
		Warn: func(msg string) { out.warnings = append(out.warnings, msg) },
	})
	return out
}

// load runs Load with the given environment, an untrusted workspace file
// and no user file.
func load(t *testing.T, env []string, workspaceYAML string, flags map[string]any) (*Config, error) {
	t.Helper()
	l := loadWith(t, setup{env: env, workspace: workspaceYAML, flags: flags})
	return l.cfg, l.err
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	c, err := load(t, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Address != "127.0.0.1:7391" || !c.Console.Enabled || c.Console.HostedOrigin != "" {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestEnvironmentNamesFollowTheKeys(t *testing.T) {
	cases := map[string]string{
		"server.address":        "CORE_SERVER_ADDRESS",
		"console.enabled":       "CORE_CONSOLE_ENABLED",
		"console.hosted_origin": "CORE_CONSOLE_HOSTED_ORIGIN",
		"console.dir":           "CORE_CONSOLE_DIR",
		"concurrency":           "CORE_CONCURRENCY",
		"cache_dir":             "CORE_CACHE_DIR",
		"log_viewer_url":        "CORE_LOG_VIEWER_URL",
		"forge.token":           "CORE_FORGE_TOKEN",
		"forge.api_url":         "CORE_FORGE_API_URL",
		"insight.bulk_files":    "CORE_INSIGHT_BULK_FILES",
		"share.address":         "CORE_SHARE_ADDRESS",
	}
	for key, want := range cases {
		if _, ok := keyIndex[key]; !ok {
			t.Errorf("key %s is not a setting", key)
		}
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%s) = %s, want %s", key, got, want)
		}
	}
}

func TestLayersLaterWins(t *testing.T) {
	c, err := load(t,
		[]string{"CORE_CONSOLE_ENABLED=false", "CORE_CONSOLE_HOSTED_ORIGIN=https://Console.Example.com", "CORE_CONCURRENCY=3", "CORE_UNRELATED=x"},
		"mcp:\n  address: 127.0.0.1:9000\nconsole:\n  enabled: true\nevents:\n  debounce: 20ms\n",
		map[string]any{"mcp.address": "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Console.Enabled {
		t.Error("environment did not override the workspace file")
	}
	if c.Server.Address != "127.0.0.1:0" {
		t.Errorf("flag did not override the workspace file: %s", c.Server.Address)
	}
	if c.Concurrency != 3 || c.Events.Debounce != 20*time.Millisecond {
		t.Errorf("concurrency=%d debounce=%s", c.Concurrency, c.Events.Debounce)
	}
}

func TestInvalidValuesNameKeyValueSourceAndAllowed(t *testing.T) {
	cases := []struct {
		name      string
		env       []string
		workspace string
		want      []string
		trusted   bool // the workspace file is trusted
	}{
		{"a boolean that is not one", []string{"CORE_CONSOLE_ENABLED=maybe"}, "",
			[]string{`console.enabled="maybe"`, "CORE_CONSOLE_ENABLED", "allowed: true, false"}, false},
		{"an address without a port", []string{"CORE_SERVER_ADDRESS=localhost"}, "",
			[]string{`server.address="localhost"`, "CORE_SERVER_ADDRESS", "host:port"}, false},
		{"an address without a port under the old name", []string{"CORE_MCP_ADDRESS=localhost"}, "",
			[]string{`server.address="localhost"`, "CORE_MCP_ADDRESS", "host:port"}, false},
		{"a hosted origin over http", []string{"CORE_CONSOLE_HOSTED_ORIGIN=http://console.example.com"}, "",
			[]string{"console.hosted_origin", `scheme "http" is not https`}, false},
		{"a hosted origin with a path", []string{"CORE_CONSOLE_HOSTED_ORIGIN=https://console.example.com/app"}, "",
			[]string{"console.hosted_origin", "path"}, false},
		{"a negative concurrency", []string{"CORE_CONCURRENCY=-2"}, "",
			[]string{"concurrency=", "at least 0"}, false},
		{"concurrency that is not a number", []string{"CORE_CONCURRENCY=lots"}, "",
			[]string{`concurrency="lots"`, "whole number"}, false},
		{"a log level outside the list", nil, "log:\n  level: loud\n",
			[]string{`log.level="loud"`, "config.yaml", "allowed values: debug, info, warn, error"}, false},
		{"an unknown key in the workspace file", nil, "console:\n  enabeld: false\n",
			[]string{"unknown key", "console.enabeld", `did you mean "console.enabled"`}, false},
		{"a duration without a unit", nil, "events:\n  debounce: soon\n",
			[]string{"events.debounce", "not a duration"}, false},
		{"a boolean that is not one, in an untrusted workspace file", nil, "console:\n  enabled: maybe\n",
			[]string{`console.enabled="maybe"`, "config.yaml", "allowed: true, false"}, false},
		{"a file that is not YAML", nil, "mcp: [\n",
			[]string{"not a valid YAML config file"}, false},
		{"a forge API over http to another host", []string{"CORE_FORGE_API_URL=http://ghe.example.com/api/v3/"}, "",
			[]string{`forge.api_url="http://ghe.example.com/api/v3/"`, "CORE_FORGE_API_URL", "loopback"}, false},
		{"a forge API that is not a URL, in a trusted workspace file", nil, "forge:\n  api_url: ghe.example.com\n",
			[]string{"forge.api_url", "https"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is refused with its key and what is allowed", func(t *testing.T) {
			err := loadWith(t, setup{env: tc.env, workspace: tc.workspace, trusted: tc.trusted}).err
			if err == nil {
				t.Fatal("Load accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestAllProblemsAreReportedAtOnce(t *testing.T) {
	_, err := load(t, []string{"CORE_CONSOLE_ENABLED=maybe", "CORE_CONCURRENCY=lots"}, "bogus: 1\n", nil)
	if err == nil {
		t.Fatal("accepted")
	}
	if n := len(err.(*Error).Problems); n != 3 {
		t.Fatalf("got %d problems, want 3: %v", n, err)
	}
}

func TestParseOriginNormalises(t *testing.T) {
	cases := map[string]string{
		"https://Console.Example.com":      "https://console.example.com",
		"https://console.example.com:443/": "https://console.example.com",
		"https://console.example.com:8443": "https://console.example.com:8443",
	}
	for in, want := range cases {
		u, err := ParseOrigin(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseOrigin(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"", "console.example.com", "http://console.example.com", "https://user@console.example.com", "https://console.example.com/?q", "https://console.example.com#x", "https://:443"} {
		if _, err := ParseOrigin(bad); err == nil {
			t.Errorf("ParseOrigin(%q) accepted", bad)
		}
	}
}

func TestEffectiveListsEveryKey(t *testing.T) {
	c := Defaults()
	eff := Effective(&c)
	if len(eff) != len(Keys())+len(renamed) || eff["server.address"] != "127.0.0.1:7391" || eff["mcp.address"] != "127.0.0.1:7391" || eff["console.enabled"] != "true" {
		t.Fatalf("effective = %v", eff)
	}
}

func TestForgeKeys(t *testing.T) {
	cases := []struct {
		name   string
		env    []string
		apiURL string
	}{
		{"no forge settings leave both empty", nil, ""},
		{"a GitHub Enterprise API address is taken as written", []string{"CORE_FORGE_API_URL=https://ghe.example.com/api/v3/"}, "https://ghe.example.com/api/v3/"},
		{"http is accepted to a loopback host", []string{"CORE_FORGE_API_URL=http://127.0.0.1:8080/"}, "http://127.0.0.1:8080/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc.env, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Forge.APIURL != tc.apiURL || c.Forge.Token != "" {
				t.Errorf("forge = %+v, want api_url %q and no token", c.Forge, tc.apiURL)
			}
		})
	}
}

func TestForgeTokenIsNeverShown(t *testing.T) {
	const secret = "ghp_secretsecretsecret1234"
	t.Run("the effective configuration redacts it", func(t *testing.T) {
		c, err := load(t, []string{"CORE_FORGE_TOKEN=" + secret}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Forge.Token != secret {
			t.Fatalf("token not read from CORE_FORGE_TOKEN")
		}
		if got := Effective(c)["forge.token"]; got != "<redacted>" {
			t.Errorf("effective forge.token = %q", got)
		}
	})
	t.Run("a token of the wrong type is refused without its value", func(t *testing.T) {
		err := loadWith(t, setup{user: "forge:\n  token: [12345678901234]\n"}).err
		if err == nil {
			t.Fatal("accepted")
		}
		if strings.Contains(err.Error(), "12345678901234") || !strings.Contains(err.Error(), "forge.token=<redacted>") {
			t.Errorf("error = %q", err)
		}
	})
}

func TestRemoteCacheKeys(t *testing.T) {
	t.Run("the environment sets every key", func(t *testing.T) {
		c, err := load(t, []string{
			"CORE_CACHE_REMOTE_URL=http://cache.internal:8080/core", "CORE_CACHE_REMOTE_MODE=read-write",
			"CORE_CACHE_REMOTE_HEADER=Authorization", "CORE_CACHE_REMOTE_HEADER_ENV=CORE_CACHE_TOKEN",
			"CORE_CACHE_REMOTE_TIMEOUT=5s", "CORE_CACHE_REMOTE_PARALLELISM=16",
		}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Cache.Remote
		if r.URL != "http://cache.internal:8080/core" || r.Mode != "read-write" || r.Header != "Authorization" || r.HeaderEnv != "CORE_CACHE_TOKEN" || r.Timeout.String() != "5s" || r.Parallelism != 16 {
			t.Fatalf("%+v", r)
		}
	})
	for _, tc := range []struct{ name, env, want string }{
		{"a URL with user info is refused", "CORE_CACHE_REMOTE_URL=http://u:p@cache.internal/", "user info is not allowed"},
		{"an ftp URL is refused", "CORE_CACHE_REMOTE_URL=ftp://cache.internal/", "is not http or https"},
		{"an unknown mode is refused", "CORE_CACHE_REMOTE_MODE=write", "allowed values: read, read-write"},
		{"a header name with a space is refused", "CORE_CACHE_REMOTE_HEADER=X Token", "not an HTTP header name"},
		{"a variable name with a dash is refused", "CORE_CACHE_REMOTE_HEADER_ENV=CACHE-TOKEN", "not an environment variable name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, []string{tc.env}, "", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(tc.env, "u:p@") && strings.Contains(err.Error(), "u:p@") {
				t.Fatalf("the message shows the user info: %v", err)
			}
		})
	}
}

func TestARenamedKeyCountsUnderItsOldName(t *testing.T) {
	for _, c := range []struct {
		name      string
		env       []string
		workspace string
		flags     map[string]any
		want      string
		problem   string
	}{
		{"the old name in a file", nil, "mcp:\n  address: 127.0.0.1:7400\n", nil, "127.0.0.1:7400", ""},
		{"the old name in the environment", []string{"CORE_MCP_ADDRESS=127.0.0.1:7401"}, "", nil, "127.0.0.1:7401", ""},
		{"the old name as a flag", nil, "", map[string]any{"mcp.address": "127.0.0.1:7402"}, "127.0.0.1:7402", ""},
		{"the new name in a later layer wins over the old in an earlier one", []string{"CORE_SERVER_ADDRESS=127.0.0.1:7403"}, "mcp:\n  address: 127.0.0.1:7400\n", nil, "127.0.0.1:7403", ""},
		{"the old name in a later layer wins over the new in an earlier one", []string{"CORE_MCP_ADDRESS=127.0.0.1:7404"}, "server:\n  address: 127.0.0.1:7400\n", nil, "127.0.0.1:7404", ""},
		{"both names with one value are one setting", []string{"CORE_MCP_ADDRESS=127.0.0.1:7405", "CORE_SERVER_ADDRESS=127.0.0.1:7405"}, "", nil, "127.0.0.1:7405", ""},
		{"both names with two values in one layer are an error naming both", []string{"CORE_MCP_ADDRESS=127.0.0.1:7406", "CORE_SERVER_ADDRESS=127.0.0.1:7407"}, "", nil, "", "mcp.address is the old name of server.address"},
		{"both names in one file with two values are an error", nil, "mcp:\n  address: 127.0.0.1:7406\nserver:\n  address: 127.0.0.1:7407\n", nil, "", "keep server.address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := load(t, c.env, c.workspace, c.flags)
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("err = %v, want it to say %q", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Server.Address != c.want {
				t.Errorf("server.address = %s, want %s", cfg.Server.Address, c.want)
			}
		})
	}
}
