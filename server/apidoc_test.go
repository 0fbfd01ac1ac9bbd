package server

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/corehq/core/gateway"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/api.md from routes.yaml and the protos")

var (
	serviceRE = regexp.MustCompile(`^service (\w+) \{`)
	rpcRE     = regexp.MustCompile(`^\s*rpc (\w+)\((\w+)\) returns \((\w+)\);`)
	packageRE = regexp.MustCompile(`^package ([\w.]+);`)
)

// protoDocs reads each service's and method's leading comments from the
// .proto sources: procedure ("core.x.v1alpha1.XService/Method") -> comment,
// and service -> comment.
func protoDocs(t *testing.T) (methods, services map[string]string) {
	t.Helper()
	methods, services = map[string]string{}, map[string]string{}
	files, err := filepath.Glob(filepath.Join("..", "proto", "core", "*", "*", "*.proto"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no proto sources: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pkg, svc := "", ""
		var comment []string
		for _, line := range strings.Split(string(data), "\n") {
			trim := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(trim, "//"):
				comment = append(comment, strings.TrimSpace(strings.TrimPrefix(trim, "//")))
				continue
			case packageRE.MatchString(trim):
				pkg = packageRE.FindStringSubmatch(trim)[1]
			case serviceRE.MatchString(trim):
				svc = pkg + "." + serviceRE.FindStringSubmatch(trim)[1]
				services[svc] = strings.Join(comment, " ")
			case rpcRE.MatchString(line) && svc != "":
				m := rpcRE.FindStringSubmatch(line)
				methods[svc+"/"+m[1]] = strings.Join(comment, " ")
			}
			comment = nil
		}
	}
	return methods, services
}

// TestTheAPIReferenceIsTheRouteTables keeps docs/api.md, the reference of
// every route and service, generated from routes.yaml and the protos.
func TestTheAPIReferenceIsTheRouteTables(t *testing.T) {
	tab := realTable(t)
	methods, services := protoDocs(t)
	var b strings.Builder
	b.WriteString("# The console API, route by route\n\n")
	b.WriteString("Generated from [routes.yaml](../routes.yaml) and the `.proto` sources in [proto/](../proto) by\n`go test ./server -run TestTheAPIReferenceIsTheRouteTables -update-docs`; a test fails when it is out of date.\n")
	b.WriteString("docs/console-api.md says how the pipeline checks each request; docs/mcp.md lists the MCP tools.\n\n")
	b.WriteString("Every route needs `Authorization: Bearer <token>` with the grant named (`none`: a static page). **Exposure** says which listener serves it: `loopback` (the server's port) and `share` (a share link's listener). Flags: `hosted` (the hosted console's host and origin are admitted), `any-origin` (no Host guard, no Origin check), `loopback-peer` (the TCP peer must be this machine), `prefix` (the subtree), `stream=sse`.\n\n")
	b.WriteString("## Plain routes\n\n| Method | Path | Grant | Exposure | Flags | What it answers |\n|---|---|---|---|---|---|\n")
	rows := tab.Select(gateway.ExposureLoopback, nil)
	exposure := func(r gateway.Row) string {
		if r.Exposed(gateway.ExposureShare) {
			return "loopback, share"
		}
		return "loopback"
	}
	flagsOf := func(r gateway.Row) string {
		var f []string
		if r.Hosted {
			f = append(f, "hosted")
		}
		if r.AnyOrigin {
			f = append(f, "any-origin")
		}
		if r.LoopbackPeer {
			f = append(f, "loopback-peer")
		}
		if r.Prefix {
			f = append(f, "prefix")
		}
		if r.Stream != "" {
			f = append(f, "stream="+r.Stream)
		}
		if r.MaxBody > 0 {
			f = append(f, fmt.Sprintf("max body %d B", r.MaxBody))
		}
		return strings.Join(f, ", ")
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, r := range rows {
		if r.Procedure != "" {
			continue
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s | %s | %s |\n", r.Method, r.Path, r.Grant, exposure(r), flagsOf(r), cell(r.Summary))
	}
	b.WriteString("\n## Connect services\n\nConnect RPCs are `POST /<procedure>` with a JSON (`Content-Type: application/json`) or protobuf body; errors are Connect errors.\n")
	bySvc := map[string][]gateway.Row{}
	for _, r := range rows {
		if r.Procedure != "" {
			svc, _, _ := strings.Cut(r.Procedure, "/")
			bySvc[svc] = append(bySvc[svc], r)
		}
	}
	names := make([]string, 0, len(bySvc))
	for s := range bySvc {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, svc := range names {
		fmt.Fprintf(&b, "\n### `%s`\n\n", svc)
		if c := services[svc]; c != "" {
			b.WriteString(c + "\n\n")
		}
		b.WriteString("| Method | Grant | Exposure | What it does |\n|---|---|---|---|\n")
		for _, r := range bySvc[svc] {
			_, m, _ := strings.Cut(r.Procedure, "/")
			doc := methods[r.Procedure]
			if doc == "" {
				doc = r.Summary
			}
			if doc == "" {
				t.Errorf("%s has neither a comment in its .proto nor a summary in routes.yaml", r.Procedure)
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", m, r.Grant, exposure(r), cell(doc))
		}
	}
	const path = "../docs/api.md"
	if *updateDocs {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Error("docs/api.md is out of date: run go test ./server -run TestTheAPIReferenceIsTheRouteTables -update-docs")
	}
}
