// Package config loads core's settings in koanf layers (later wins):
// built-in defaults, the user's config file, the workspace's
// .core/config.yaml, the environment (CORE_ + the key upper-cased, '.' as
// '_'), then command-line flags. Every layer is checked on its own first, so
// an error names the key, the value, where it came from and what is allowed;
// then validator checks the merged struct. The server refuses to start on any
// problem: a security setting is never guessed. The workspace's file comes
// with the repository, so the keys that carry credentials or widen exposure
// count from it only once the user has trusted its content (trust.go).
package config

import (
	"time"
)

// Config is the effective configuration. The koanf tags are the keys users
// write; Keys() lists them with their environment names. A trust tag marks
// a key that carries or routes a credential, or widens who can reach this
// machine: from the workspace's .core/config.yaml, which comes with the
// repository, its value counts only once the user trusts the file (see
// trust.go for the tag's values).
type Config struct {
	Console struct {
		Enabled      bool   `koanf:"enabled" trust:"when-true" help:"false removes every console route (/api/v1/ and /console/)"`
		HostedOrigin string `koanf:"hosted_origin" validate:"omitempty,origin" trust:"always" help:"origin of the hosted console web app, e.g. https://console.example.com (empty: none)"`
		Dir          string `koanf:"dir" trust:"always" help:"directory of a built console to serve instead of the embedded one"`
	} `koanf:"console"`

	// Pool capacity for runs; 0 picks it from the machine (see the runner).
	Concurrency int `koanf:"concurrency" validate:"min=0,max=1024" help:"parallel targets; 0 = 4 on hosted CI runners, else min(CPUs, 8)"`

	// What of core's environment reaches a target (package targetenv).
	// Loose passes every variable, credentials included, to the
	// repository's commands: from the workspace's file it waits for trust.
	EnvMode string `koanf:"env_mode" validate:"oneof=strict loose" trust:"when-loose" help:"strict: a target gets the base variables and those targets.yaml lists (env:, pass_env:); loose: every variable of core's environment (only env: is in its key)"`

	CacheDir string `koanf:"cache_dir" trust:"always" help:"cache directory (default <workspace>/.core)"`

	// The remote tier of the build cache (internal/remotecache): Bazel's
	// HTTP remote-cache protocol. The credential's value is read from the
	// environment variable HeaderEnv names, so it is in no file and never
	// in the effective configuration.
	Cache struct {
		Remote struct {
			URL         string        `koanf:"url" validate:"omitempty,remoteurl" trust:"always" help:"base URL of a Bazel HTTP remote cache (bazel-remote, BuildBuddy, nginx with WebDAV PUT), e.g. http://cache.internal:8080/core (empty: none)"`
			Mode        string        `koanf:"mode" validate:"oneof=read read-write" trust:"always" help:"read (laptops: use what others built) or read-write (CI: also upload what ran)"`
			Header      string        `koanf:"header" validate:"omitempty,headername" trust:"always" help:"name of the request header that carries the credential, e.g. Authorization (empty: none)"`
			HeaderEnv   string        `koanf:"header_env" validate:"omitempty,envname" trust:"always" help:"environment variable holding that header's value, e.g. CORE_CACHE_TOKEN (the value is never logged or shown)"`
			Timeout     time.Duration `koanf:"timeout" validate:"min=100ms,max=1h" help:"limit on each request to the remote cache, from connecting to the last byte"`
			Parallelism int           `koanf:"parallelism" validate:"min=1,max=256" help:"requests to the remote cache in flight at once"`
		} `koanf:"remote"`
	} `koanf:"cache"`

	LogViewerURL string `koanf:"log_viewer_url" validate:"omitempty,url" trust:"always" help:"base address of a log viewer for core run --open (run=<id> is added to its query); unset, --open opens the console's run viewer"`

	Log struct {
		Level  string `koanf:"level" validate:"oneof=debug info warn error" help:"log level"`
		Format string `koanf:"format" validate:"oneof=auto json console" help:"log format; auto = console on a terminal, else json"`
		Access bool   `koanf:"access" help:"one access line per request; false logs only requests that fail with a 5xx"`
	} `koanf:"log"`

	Server struct {
		// The one loopback port of the server: console, Connect services,
		// /mcp. Its old name, mcp.address, still counts (renamed).
		Address           string        `koanf:"address" validate:"required,hostport" trust:"off-loopback" help:"address the server listens on (host:port); the console mounts only on a loopback address (formerly mcp.address, still read)"`
		ReadHeaderTimeout time.Duration `koanf:"read_header_timeout" validate:"min=100ms,max=10m" help:"time allowed to read request headers"`
		IdleTimeout       time.Duration `koanf:"idle_timeout" validate:"min=1s,max=24h" help:"keep-alive idle timeout"`
		ShutdownTimeout   time.Duration `koanf:"shutdown_timeout" validate:"min=100ms,max=10m" help:"grace period for in-flight requests on shutdown"`
		MaxBody           int64         `koanf:"max_body" validate:"min=1024,max=1073741824" help:"largest request body a route accepts, in bytes (a row's max_body overrides)"`
	} `koanf:"server"`

	// The code forge that GET /api/v1/diff/review and check-review ask
	// (internal/forge). Token is a secret: never shown, logged or echoed.
	Forge struct {
		Token  string `koanf:"token" trust:"always" help:"GitHub token for the branch's pull request (empty: GH_TOKEN, then GITHUB_TOKEN)"`
		APIURL string `koanf:"api_url" validate:"omitempty,apiurl" trust:"always" help:"GitHub API base URL, for GitHub Enterprise e.g. https://ghe.example.com/api/v3/ (empty: https://api.github.com/)"`
	} `koanf:"forge"`

	Share struct {
		Address string `koanf:"address" validate:"omitempty,ip" trust:"always" help:"the address the share listener binds (default: the first private IPv4 of an interface that is up)"`
	} `koanf:"share"`

	// The insight lenses (internal/insight).
	Insight struct {
		BulkFiles int `koanf:"bulk_files" validate:"min=1,max=1000000" help:"a commit touching more files than this is a bulk change (vendoring, mass renames): left out of hotspots, affinity and ownership, counted in trend"`
	} `koanf:"insight"`

	Events struct {
		KeepAlive time.Duration `koanf:"keepalive" validate:"min=100ms,max=10m" help:"interval of SSE keep-alive comments"`
		Debounce  time.Duration `koanf:"debounce" validate:"min=1ms,max=10s" help:"quiet time after a file change before the graph is rebuilt"`
	} `koanf:"events"`
}

// Defaults is the bottom layer.
func Defaults() Config {
	var c Config
	c.Server.Address = "127.0.0.1:7391"
	c.Console.Enabled = true
	c.EnvMode = "strict"
	c.Log.Level = "info"
	c.Log.Format = "auto"
	c.Server.ReadHeaderTimeout = 10 * time.Second
	c.Server.IdleTimeout = 120 * time.Second
	c.Server.ShutdownTimeout = 10 * time.Second
	c.Server.MaxBody = 1 << 20
	c.Insight.BulkFiles = 100
	c.Cache.Remote.Mode = "read"
	c.Cache.Remote.Timeout = 30 * time.Second
	c.Cache.Remote.Parallelism = 8
	c.Events.KeepAlive = 15 * time.Second
	c.Events.Debounce = 20 * time.Millisecond
	return c
}
