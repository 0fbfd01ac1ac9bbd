package gateway

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/suggest"
)

var (
	namePattern      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*([._-][a-z0-9]+)*$`) })
	procedurePattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(core\.[a-z][a-z0-9]*\.v[0-9]+(?:(?:alpha|beta)[0-9]+)?)\.([A-Z][A-Za-z0-9]*Service)/([A-Z][A-Za-z0-9]*)$`)
	})
	pathPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+/?$`) })
)

// loopbackOnly lists what the spec keeps off the share listener, whatever a
// row says: the graph, the diff routes, the plan, /mcp, the share route
// itself, and the job, tool and token services.
var loopbackOnly = []struct{ path, why string }{
	{"/api/v1/graph", "the graph is loopback-only"},
	{"/api/v1/diff", "the diff routes are loopback-only"},
	{"/api/v1/plan", "the plan is loopback-only"},
	{"/api/v1/share", "the share route is loopback-only"},
	{"/mcp", "/mcp is loopback-only"},
	{"/core.job.", "the job service is loopback-only"},
	{"/core.tool.", "the tool service runs spells' argv and is loopback-only"},
	{"/core.token.", "token management is loopback-only"},
}

// anyOriginPath is the one path allowed to drop the Host and Origin guards:
// the spec says /mcp "has no host or origin guard, answers any origin and
// relies on its bearer token alone".
const anyOriginPath = "/mcp"

// shareable lists what the share listener may serve (the spec's list, plus
// the console page that a share link opens); everything else stays off it.
var shareable = []string{
	"/api/v1/events", "/api/v1/insight", "/console/",
	"/core.metrics.", "/core.activity.", "/core.status.", "/core.insight.", "/core.viewer.",
}

// removed lists paths the spec retired, with what replaced them.
var removed = map[string]string{
	"/api/v1/status":  "the spec removed it; StatusService/GetStatus replaced it",
	"/api/v1/outputs": "the spec removed it; the viewer service replaced it",
	"/api/v1/output":  "the spec removed it; the viewer service replaced it",
	"/api/v1/runs":    "the spec removed it; ViewerService/ListRuns replaced it",
	"/api/v1/run":     "the spec removed it; ViewerService/GetRun replaced it",
}

// checkRows applies the table's load-time rules to decoded rows.
func checkRows(rows []Row) []Problem {
	var problems []Problem
	names := map[string]int{}
	routes := map[string]int{} // "METHOD path" -> row
	byPath := map[string]int{} // first row of each path
	for i := range rows {
		r := &rows[i]
		bad := func(field, msg string) {
			problems = append(problems, Problem{Row: r.Index, Name: r.Name, Line: r.lineOf(field), Field: field, Msg: msg})
		}

		switch {
		case r.Name == "":
			bad("name", "is required")
		case !namePattern().MatchString(r.Name):
			bad("name", "must be lower-case words joined by '.', '-' or '_', such as graph.read")
		default:
			if j, dup := names[r.Name]; dup {
				bad("name", "is already used by row "+itoa(j))
			} else {
				names[r.Name] = r.Index
			}
		}

		switch {
		case r.Path != "" && r.Procedure != "":
			bad("procedure", "a row has a path or a procedure, not both")
		case r.Procedure != "":
			checkProcedure(r, bad)
		case r.Path != "":
			checkPath(r, bad)
		default:
			bad("path", "is required (or procedure, for a Connect row)")
		}

		switch {
		case r.grant == "":
			bad("grant", "is required; there is no default. Allowed: "+strings.Join(grantChoices, ", "))
		case r.grant == GrantNone:
			r.Grant = auth.None
			if r.Method != "GET" || r.Procedure != "" || strings.HasPrefix(r.Path, "/api/") {
				bad("grant", "none is only for GET rows outside /api/ (static pages); every API route requires a token")
			}
		default:
			g, err := auth.ParseGrant(r.grant)
			if err != nil {
				bad("grant", quote(r.grant)+" is not a grant"+suggest.DidYouMean(r.grant, grantChoices)+"; allowed: "+strings.Join(grantChoices, ", "))
			}
			r.Grant = g
		}

		if r.Exposure == nil {
			r.Exposure = []string{ExposureLoopback}
		}
		seenExp := map[string]bool{}
		for _, e := range r.Exposure {
			switch {
			case e != ExposureLoopback && e != ExposureShare:
				bad("exposure", quote(e)+" is not an exposure; allowed: loopback, share")
			case seenExp[e]:
				bad("exposure", quote(e)+" is listed twice")
			}
			seenExp[e] = true
		}
		if !seenExp[ExposureLoopback] {
			bad("exposure", "must include loopback: [loopback] or [loopback, share]")
		}
		if seenExp[ExposureShare] {
			why := ""
			for _, lo := range loopbackOnly {
				if strings.HasPrefix(r.Path, lo.path) {
					why = lo.why
					break
				}
			}
			if why == "" && !shareablePath(r.Path) {
				why = "the share listener serves only the events and insight routes, the console page and the metrics, activity, status, insight and viewer services"
			}
			if why != "" {
				bad("exposure", "cannot include share: "+why)
			}
			if r.Grant != auth.ConsoleRead && r.grant != GrantNone {
				bad("exposure", "cannot include share: the share listener is read-only, so its rows need console=read (or none for static pages), not "+quote(r.grant))
			}
		}

		if r.Handler == "" {
			bad("handler", "is required: the name of a handler registered in code")
		}

		switch r.Stream {
		case "":
		case "sse":
			if r.Method != "GET" {
				bad("stream", "sse streams are GET rows")
			}
		default:
			bad("stream", quote(r.Stream)+" is not a stream kind; allowed: sse")
		}
		if r.AnyOrigin {
			switch {
			case r.Path != anyOriginPath:
				bad("any_origin", "only "+anyOriginPath+" may drop the Host and Origin guards (the spec's exception); every other row keeps them")
			case r.Grant != auth.MCP:
				bad("any_origin", "a row without the Host and Origin guards relies on its token alone, so it needs grant mcp, not "+quote(r.grant))
			case seenExp[ExposureShare]:
				bad("any_origin", "cannot be exposed on share: the share listener keeps every guard")
			case r.Hosted:
				bad("any_origin", "hosted is meaningless on a row that admits every host and origin")
			}
		}
		if r.Hosted && !strings.HasPrefix(r.Path, "/api/") && r.Procedure == "" {
			bad("hosted", "only /api/ rows and Connect rows can admit the hosted console")
		}

		if r.Path == "" || r.Method == "" {
			continue
		}
		key := r.Method + " " + r.Path
		if j, dup := routes[key]; dup {
			bad("path", key+" is already routed by row "+itoa(j)+" ("+rows[j].Name+")")
			continue
		}
		routes[key] = r.Index
		if j, ok := byPath[r.Path]; ok {
			o := &rows[j]
			switch {
			case o.Prefix != r.Prefix:
				bad("prefix", "rows sharing a path must agree on prefix (row "+itoa(j)+" differs)")
			case o.AnyOrigin != r.AnyOrigin:
				bad("any_origin", "rows sharing a path must agree on any_origin, because the host is checked before the method (row "+itoa(j)+" differs)")
			case o.Hosted != r.Hosted:
				bad("hosted", "rows sharing a path must agree on hosted, because the host is checked before the method (row "+itoa(j)+" differs)")
			case (o.grant == GrantNone) != (r.grant == GrantNone):
				bad("grant", "rows sharing a path must all need a token or all not, because the token is checked before the method (row "+itoa(j)+" differs)")
			}
		} else {
			byPath[r.Path] = r.Index
		}
	}
	return problems
}

func shareablePath(p string) bool {
	for _, ok := range shareable {
		if p == ok || strings.HasPrefix(p, ok) && (strings.HasSuffix(ok, "/") || strings.HasSuffix(ok, ".")) {
			return true
		}
	}
	return false
}

func checkProcedure(r *Row, bad func(field, msg string)) {
	m := procedurePattern().FindStringSubmatch(r.Procedure)
	if m == nil {
		bad("procedure", quote(r.Procedure)+" is not a procedure; write core.<service>.v1alpha1.<Name>Service/<Method>")
		return
	}
	if strings.HasPrefix(m[1], "core.job.v1") && !strings.Contains(m[1], "alpha") && !strings.Contains(m[1], "beta") {
		bad("procedure", "core.job.v1 is the retired form; the job service is core.job.v1alpha1.JobService with RunJob and ListJobs")
	}
	if r.Method != "" {
		bad("method", "Connect rows take no method: procedures are called with POST")
	}
	if r.Prefix {
		bad("prefix", "Connect rows name one procedure; prefix is for static pages")
	}
	r.Method = "POST"
	r.Path = "/" + r.Procedure
}

func checkPath(r *Row, bad func(field, msg string)) {
	switch {
	case !pathPattern().MatchString(r.Path):
		bad("path", quote(r.Path)+" must be an absolute path of plain segments (letters, digits, . _ ~ -), such as /api/v1/graph")
	case strings.Contains(r.Path, "/./") || strings.Contains(r.Path, "/../") || strings.HasSuffix(r.Path, "/..") || strings.HasSuffix(r.Path, "/."):
		bad("path", quote(r.Path)+" has a dot segment")
	case r.Prefix && !strings.HasSuffix(r.Path, "/"):
		bad("path", "a prefix row's path ends in / (it serves the subtree below it)")
	case !r.Prefix && strings.HasSuffix(r.Path, "/") && r.Path != "/":
		bad("path", "only prefix rows end in /; remove the slash or set prefix: true")
	}
	if why, ok := removed[strings.TrimSuffix(r.Path, "/")]; ok {
		bad("path", quote(r.Path)+" may not be routed: "+why)
	}
	switch r.Method {
	case "GET", "POST":
	case "":
		bad("method", "is required; allowed: GET, POST")
	default:
		bad("method", quote(r.Method)+" is not allowed; allowed: GET, POST")
	}
}

func quote(s string) string { return strconv.Quote(s) }

func itoa(i int) string { return strconv.Itoa(i) }
