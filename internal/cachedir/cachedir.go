// Package cachedir is the layout of a workspace's cache directory
// (cache_dir; <workspace>/.core by default): the one place that names
// what is kept in it, and which package keeps it. A package that keeps a
// file there asks here for its path; docs/cache-directory.md is Layout
// written out (a test holds the two together).
package cachedir

import "path/filepath"

// Entry is one name at the top of the cache directory.
type Entry struct {
	Name   string // a file, or a directory when it ends in "/"
	Keeper string // the package that writes it
	Holds  string
}

// Layout is every name the cache directory holds, in the order the docs
// list them.
var Layout = []Entry{
	{"server.json", "internal/state", "the running server's address, pid and the CLI's admin token (0600)"},
	{"server.json.lock", "internal/state", "serialises writes of server.json"},
	{"server.lock", "internal/state", "held by the running server for its whole life: one server per workspace"},
	{"tokens.json", "internal/auth", "console and MCP tokens, as SHA-256 hashes (0600)"},
	{"tokens.lock", "internal/auth", "serialises changes to tokens.json"},
	{"index/", "internal/index", "the knowledge graph's index: files, symbols, the encoded graph"},
	{"index.lock", "internal/index", "one indexer at a time"},
	{"build/", "internal/runner", "the build cache: one entry per cache key (meta and outputs)"},
	{"keys/", "internal/runner", "what each key was made of (keys/parts/: the parts, stored once), for core hash --diff"},
	{"restore/", "internal/runner", "staging of cached outputs on their way into the workspace"},
	{"locks/", "internal/runner", "one lock per target: one run of a target at a time across processes"},
	{"runs/", "internal/runlog", "the run log: a journal per run (`<id>.json`), or a run's cache hits in one file (`<first id>--<last id>--<count>.json`); kept to its newest 2,000 journals, trimmed by `core run` when a quarter over that and by the server's maintenance to it"},
	{"review/", "internal/reviewstate", "the review sessions, one file per branch"},
	{"reviews.json", "internal/maintenance", "the check-review job's branches (internal/mergewatch)"},
	{"insight/", "internal/insight", "the kept git history the lenses read"},
	{"activity.jsonl", "internal/activity", "the activity feed"},
	{"notes.json", "internal/notes", "notes on graph nodes"},
	{"jobs.json", "internal/jobs", "the jobs' last runs"},
	{"attention.json", "internal/attention", "the attention queue"},
	{"session-jobs.json", "internal/handoff", "work handed to agent sessions"},
	{"console/", "cmd/core", "the copy of the console core open writes for a file:// snapshot"},
	{".gitignore", "internal/fsx", "ignores everything here, so the cache never shows in git status"},
}

func at(dir, name string) string { return filepath.Join(dir, name) }

// The paths of the entries, for the cache directory dir.
func ServerState(dir string) string     { return at(dir, "server.json") }
func ServerStateLock(dir string) string { return at(dir, "server.json.lock") }
func ServerLock(dir string) string      { return at(dir, "server.lock") }
func Tokens(dir string) string          { return at(dir, "tokens.json") }
func TokensLock(dir string) string      { return at(dir, "tokens.lock") }
func Index(dir string) string           { return at(dir, "index") }
func IndexLock(dir string) string       { return at(dir, "index.lock") }
func Build(dir string) string           { return at(dir, "build") }
func Keys(dir string) string            { return at(dir, "keys") }
func KeyParts(dir string) string        { return filepath.Join(dir, "keys", "parts") }
func Restore(dir string) string         { return at(dir, "restore") }
func Locks(dir string) string           { return at(dir, "locks") }
func Runs(dir string) string            { return at(dir, "runs") }
func Reviews(dir string) string         { return at(dir, "review") }
func MergeWatch(dir string) string      { return at(dir, "reviews.json") }
func Insight(dir string) string         { return at(dir, "insight") }
func Activity(dir string) string        { return at(dir, "activity.jsonl") }
func Notes(dir string) string           { return at(dir, "notes.json") }
func Jobs(dir string) string            { return at(dir, "jobs.json") }
func Attention(dir string) string       { return at(dir, "attention.json") }
func SessionJobs(dir string) string     { return at(dir, "session-jobs.json") }
func Console(dir string) string         { return at(dir, "console") }
