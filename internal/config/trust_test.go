package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// hostile is a cloned repository's .core/config.yaml that tries every key
// that carries or routes a credential, or widens exposure.
const hostile = `forge:
  api_url: https://attacker.example/
  token: ghp_attackerattackerattacker0000
cache_dir: /tmp/shared-cache
cache:
  remote:
    url: http://attacker.example/cache
    mode: read-write
    header: X-Api-Key
    header_env: GH_TOKEN
share:
  address: 0.0.0.0
log_viewer_url: https://attacker.example/logs
console:
  hosted_origin: https://attacker.example
  dir: /tmp/attacker-console
mcp:
  address: 0.0.0.0:7391
env_mode: loose
`

// hostileKeys are the keys hostile sets, each of which waits for trust.
var hostileKeys = []string{
	"cache.remote.header", "cache.remote.header_env", "cache.remote.mode", "cache.remote.url", "cache_dir",
	"console.dir", "console.hosted_origin", "env_mode", "forge.api_url", "forge.token", "log_viewer_url", "server.address", "share.address",
}

// value is key's effective value, as the status snapshot shows it (a
// secret's as "<redacted>" when set).
func value(c *Config, key string) string { return Effective(c)[key] }

func TestAnUntrustedWorkspaceFileSetsNoCredentialOrExposureKey(t *testing.T) {
	l := loadWith(t, setup{workspace: hostile})
	if l.err != nil {
		t.Fatal(l.err)
	}
	def := Defaults()
	for _, key := range hostileKeys {
		t.Run(key+" keeps its default", func(t *testing.T) {
			if got, want := value(l.cfg, key), value(&def, key); got != want {
				t.Errorf("%s = %q, want the default %q", key, got, want)
			}
		})
	}
	t.Run("one warning names every ignored key and core config trust", func(t *testing.T) {
		if len(l.warnings) != 1 {
			t.Fatalf("warnings = %q, want one", l.warnings)
		}
		for _, want := range append([]string{"core config trust", ".core/config.yaml", "is not trusted"}, hostileKeys...) {
			if !strings.Contains(l.warnings[0], want) {
				t.Errorf("the warning does not mention %q: %s", want, l.warnings[0])
			}
		}
		if strings.Contains(l.warnings[0], "ghp_attacker") {
			t.Errorf("the warning shows a value: %s", l.warnings[0])
		}
	})
}

func TestATrustedWorkspaceFileSetsThemAll(t *testing.T) {
	l := loadWith(t, setup{workspace: hostile, trusted: true})
	if l.err != nil {
		t.Fatal(l.err)
	}
	if len(l.warnings) != 0 {
		t.Errorf("warnings = %q, want none", l.warnings)
	}
	c := l.cfg
	got := []string{c.Forge.APIURL, c.Forge.Token, c.Cache.Remote.URL, c.Cache.Remote.HeaderEnv, c.Share.Address, c.Server.Address, c.LogViewerURL, c.EnvMode}
	want := []string{"https://attacker.example/", "ghp_attackerattackerattacker0000", "http://attacker.example/cache", "GH_TOKEN", "0.0.0.0", "0.0.0.0:7391", "https://attacker.example/logs", "loose"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAChangedWorkspaceFileIsUntrustedAgain(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	trustFile := filepath.Join(home, "trust.json")
	file := filepath.Join(root, ".core", "config.yaml")
	writeFile(t, file, "forge:\n  api_url: https://ghe.example.com/api/v3/\n")
	if _, err := Trust(root, trustFile, false); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	src := Sources{WorkspaceRoot: root, UserFile: filepath.Join(home, "none.yaml"), Environ: []string{}, TrustFile: trustFile,
		Warn: func(m string) { warnings = append(warnings, m) }}
	if c, err := Load(src); err != nil || c.Forge.APIURL != "https://ghe.example.com/api/v3/" || len(warnings) != 0 {
		t.Fatalf("trusted: api_url %q, %v, warnings %q", c.Forge.APIURL, err, warnings)
	}
	writeFile(t, file, "forge:\n  api_url: https://attacker.example/\n")
	c, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Forge.APIURL != "" {
		t.Errorf("the changed file set forge.api_url to %q", c.Forge.APIURL)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "changed since you trusted it") || !strings.Contains(warnings[0], "core config trust") {
		t.Errorf("warnings = %q", warnings)
	}
	st, err := WorkspaceTrust(root, trustFile)
	if err != nil || st.Trusted || !st.Changed {
		t.Errorf("status = %+v, %v; want changed, not trusted", st, err)
	}
	if _, err := Trust(root, trustFile, false); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(src); err != nil || c.Forge.APIURL != "https://attacker.example/" {
		t.Errorf("re-trusted: api_url %q, %v", c.Forge.APIURL, err)
	}
}

func TestTrustRules(t *testing.T) {
	cases := []struct {
		name      string
		workspace string
		user      string
		env       []string
		key, want string
		warned    bool
	}{
		{"a loopback server address from the workspace file needs no trust", "mcp:\n  address: 127.0.0.1:7400\n", "", nil,
			"server.address", "127.0.0.1:7400", false},
		{"a localhost server address from the workspace file needs no trust", "server:\n  address: localhost:7400\n", "", nil,
			"server.address", "localhost:7400", false},
		{"a server address on every interface waits for trust", "server:\n  address: :7400\n", "", nil,
			"server.address", "127.0.0.1:7391", true},
		{"a server address on every interface under its old name waits for trust", "mcp:\n  address: :7400\n", "", nil,
			"server.address", "127.0.0.1:7391", true},
		{"the workspace file cannot enable a console the user file disabled", "console:\n  enabled: true\n", "console:\n  enabled: false\n", nil,
			"console.enabled", "false", true},
		{"the workspace file may disable the console", "console:\n  enabled: false\n", "", nil,
			"console.enabled", "false", false},
		{"a value equal to the one below it is not worth a warning", "cache:\n  remote:\n    mode: read\n", "", nil,
			"cache.remote.mode", "read", false},
		{"keys that need no trust apply as written", "concurrency: 3\n", "", nil,
			"concurrency", "3", false},
		{"the user's own file is honoured", "", "forge:\n  api_url: https://ghe.example.com/api/v3/\n", nil,
			"forge.api_url", "https://ghe.example.com/api/v3/", false},
		{"the user's own file stays when the workspace file's value is ignored", "forge:\n  api_url: https://attacker.example/\n", "forge:\n  api_url: https://ghe.example.com/api/v3/\n", nil,
			"forge.api_url", "https://ghe.example.com/api/v3/", true},
		{"the environment is honoured", "", "", []string{"CORE_SHARE_ADDRESS=10.0.0.5"},
			"share.address", "10.0.0.5", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := loadWith(t, setup{workspace: tc.workspace, user: tc.user, env: tc.env})
			if l.err != nil {
				t.Fatal(l.err)
			}
			if got := value(l.cfg, tc.key); got != tc.want {
				t.Errorf("%s = %q, want %q", tc.key, got, tc.want)
			}
			if warned := len(l.warnings) > 0; warned != tc.warned {
				t.Errorf("warnings = %q, want warned=%v", l.warnings, tc.warned)
			}
		})
	}
}

func TestTrustIsRecordedOutsideTheWorkspaceByContentHash(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	writeFile(t, filepath.Join(root, ".core", "config.yaml"), hostile)
	st, err := Trust(root, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "state", "core", "trust.json"); st.TrustFile != want {
		t.Errorf("trust file %s, want %s", st.TrustFile, want)
	}
	data, err := os.ReadFile(st.TrustFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), st.SHA256) || strings.Contains(string(data), "attacker") {
		t.Errorf("the record is not the content's hash alone:\n%s", data)
	}
	if fi, err := os.Stat(st.TrustFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode %v, %v", fi.Mode(), err)
	}
	if !reflect.DeepEqual(st.Guarded, hostileKeys) {
		t.Errorf("guarded = %q, want %q", st.Guarded, hostileKeys)
	}

	t.Run("the same file through a symlinked root is trusted", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(root, link); err != nil {
			t.Skip(err)
		}
		if st, err := WorkspaceTrust(link, ""); err != nil || !st.Trusted {
			t.Errorf("through %s: %+v, %v", link, st, err)
		}
	})
	t.Run("the same content in another workspace is not trusted", func(t *testing.T) {
		other := t.TempDir()
		writeFile(t, filepath.Join(other, ".core", "config.yaml"), hostile)
		if st, err := WorkspaceTrust(other, ""); err != nil || st.Trusted {
			t.Errorf("another workspace: %+v, %v", st, err)
		}
	})
	t.Run("revoking forgets it", func(t *testing.T) {
		if _, err := Trust(root, "", true); err != nil {
			t.Fatal(err)
		}
		if st, err := WorkspaceTrust(root, ""); err != nil || st.Trusted || st.Changed {
			t.Errorf("after revoke: %+v, %v", st, err)
		}
	})
	t.Run("a workspace without the file has nothing to trust", func(t *testing.T) {
		_, err := Trust(t.TempDir(), "", false)
		if err == nil || !strings.Contains(err.Error(), "nothing to trust") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestTheDocsMarkEveryKeyThatWaitsForTrust holds the configuration tables
// of docs/configuration.md and docs/remote-cache.md to the trust tags: each
// row's last column says, for the keys in its first, what KeyInfo.Trust
// says, and docs/configuration.md lists every key.
func TestTheDocsMarkEveryKeyThatWaitsForTrust(t *testing.T) {
	for _, doc := range []struct {
		path, section string
		every         bool
	}{
		{"docs/configuration.md", "", true},
		{"docs/remote-cache.md", "## Configuration", false},
	} {
		t.Run(doc.path+" says what the tags say", func(t *testing.T) {
			seen := trustColumn(t, filepath.Join("..", "..", filepath.FromSlash(doc.path)), doc.section)
			var missing []string
			for _, k := range Keys() {
				rule, ok := seen[k.Key]
				if !ok {
					missing = append(missing, k.Key)
					continue
				}
				want := k.Trust
				if want == "" {
					want = "as written"
				}
				if rule != want {
					t.Errorf("%s's workspace-file column says %q, want %q", k.Key, rule, want)
				}
			}
			sort.Strings(missing)
			if doc.every && len(missing) > 0 {
				t.Errorf("the configuration table lacks %v", missing)
			}
		})
	}
}

// trustColumn reads the table rows of the section of the Markdown file at
// path (the whole file when heading is ""): each key named in a row's
// first cell, with the row's last cell.
func trustColumn(t *testing.T, path, heading string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	if heading != "" {
		start := strings.Index(section, "\n"+heading+"\n")
		if start < 0 {
			t.Fatalf("%s has no %q section", path, heading)
		}
		section = section[start+1+len(heading):]
		if end := strings.Index(section, "\n## "); end >= 0 {
			section = section[:end]
		}
	}
	keyRE := regexp.MustCompile("`([a-z_.]+)`")
	seen := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		rule := strings.TrimSpace(cells[len(cells)-1])
		for _, m := range keyRE.FindAllStringSubmatch(cells[0], -1) {
			seen[m[1]] = rule
		}
	}
	return seen
}

func TestEveryTrustTagIsKnown(t *testing.T) {
	for _, k := range Keys() {
		switch k.trust {
		case "", trustAlways, trustOffLoopback, trustWhenTrue, trustWhenLoose:
		default:
			t.Errorf("%s: unknown trust tag %q", k.Key, k.trust)
		}
	}
	if !NeedsTrust("forge.api_url", "x") || NeedsTrust("concurrency", 3) || NeedsTrust("no.such.key", "x") ||
		!NeedsTrust("env_mode", "loose") || NeedsTrust("env_mode", "strict") {
		t.Error("NeedsTrust does not follow the tags")
	}
}
