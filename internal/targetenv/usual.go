package targetenv

import (
	"fmt"
	"slices"
	"strings"
)

// proxies are the variables that route a tool's network traffic.
var proxies = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"}

// certificates are the variables that add a certificate authority (a
// TLS-intercepting proxy's) to a tool's trust.
var certificates = []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "GIT_SSL_CAINFO", "AWS_CA_BUNDLE", "NIX_SSL_CERT_FILE", "CARGO_HTTP_CAINFO", "npm_config_cafile", "NPM_CONFIG_CAFILE"}

// Usual is what a workspace's tools usually need of the environment
// beyond the base, as core init writes it into targets.yaml.
type Usual struct {
	// Env are variables whose values change what the tools make: the
	// top-level env:, in every key.
	Env []string
	// Pass are variables the tools need to reach their registries
	// (proxies, private module and package settings, tokens): the
	// top-level pass_env:.
	Pass []string
	// Certificates are the certificate variables of those tools. They
	// are written commented out: a target that downloads through a
	// TLS-intercepting proxy needs one, and the others pay for it (a
	// NODE_EXTRA_CA_CERTS costs every Node start 50 ms here).
	Certificates []string
}

// The tools UsualFor knows, by what core init finds.
const (
	ToolGo     = "go"     // a go.mod
	ToolNode   = "node"   // a package.json
	ToolPython = "python" // a pyproject.toml
)

var usual = map[string]Usual{
	ToolGo: {
		Env:          []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT"},
		Pass:         []string{"GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "GOAUTH"},
		Certificates: []string{"SSL_CERT_FILE", "SSL_CERT_DIR"},
	},
	ToolNode: {
		Env:          []string{"NODE_ENV"},
		Pass:         []string{"NODE_OPTIONS", "NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config_registry", "NPM_CONFIG_REGISTRY"},
		Certificates: []string{"NODE_EXTRA_CA_CERTS", "npm_config_cafile", "NPM_CONFIG_CAFILE"},
	},
	ToolPython: {
		Pass:         []string{"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL"},
		Certificates: []string{"REQUESTS_CA_BUNDLE", "PIP_CERT", "SSL_CERT_FILE"},
	},
}

// UsualFor is what the named tools (ToolGo, ToolNode, ToolPython) usually
// need, with the proxies whenever there is a tool at all; each list in
// the order written, without repeats.
func UsualFor(tools ...string) Usual {
	var u Usual
	add := func(list *[]string, names ...string) {
		for _, n := range names {
			if !slices.Contains(*list, n) {
				*list = append(*list, n)
			}
		}
	}
	for _, t := range tools {
		x, ok := usual[t]
		if !ok {
			continue
		}
		if len(u.Pass) == 0 {
			add(&u.Pass, proxies...)
		}
		add(&u.Env, x.Env...)
		add(&u.Pass, x.Pass...)
		add(&u.Certificates, x.Certificates...)
	}
	return u
}

// manifestTools maps the manifest core init found a project by to its tool.
var manifestTools = map[string]string{"go.mod": ToolGo, "package.json": ToolNode, "pyproject.toml": ToolPython, "setup.py": ToolPython, "setup.cfg": ToolPython}

// Section is the top-level env: and pass_env: core init writes for
// projects found by the named manifests (go.mod, package.json,
// pyproject.toml, setup.py, setup.cfg): what their tools usually need
// (UsualFor), the certificate variables commented out. "" when it knows none of them.
func Section(manifests []string) string {
	var tools []string
	for _, m := range manifests {
		if t := manifestTools[m]; t != "" && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	slices.Sort(tools)
	u := UsualFor(tools...)
	if len(u.Pass) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# A target's process gets the base variables (PATH, HOME, the locale, where the\n")
	b.WriteString("# toolchains keep their caches) and those listed here or on it: env: are in\n")
	b.WriteString("# every target's key, pass_env: are passed without being in one.\n")
	if len(u.Env) > 0 {
		fmt.Fprintf(&b, "env: [%s]\n", strings.Join(u.Env, ", "))
	}
	b.WriteString("pass_env:\n")
	for _, n := range u.Pass {
		fmt.Fprintf(&b, "  - %s\n", n)
	}
	if len(u.Certificates) > 0 {
		b.WriteString("  # A TLS-intercepting proxy's certificates: uncomment what a target that\n")
		b.WriteString("  # downloads through one needs. Not passed by default: a tool may read\n")
		b.WriteString("  # one whether it downloads or not (NODE_EXTRA_CA_CERTS costs every Node\n")
		b.WriteString("  # start ~50 ms).\n")
		for _, n := range u.Certificates {
			fmt.Fprintf(&b, "  # - %s\n", n)
		}
	}
	return b.String()
}
