// Package console embeds the built explorer (console/gen, built from this
// directory's TypeScript sources with Vite) so that the binary serves it at
// /console/graph/ without a separate install. CORE_CONSOLE_DIR serves
// another build instead. It is also the one home of the page's
// Content-Security-Policy: the server sends it as a header, and the
// file:// copy of `core open` carries it in a <meta> tag.
package console

import (
	"bytes"
	"embed"
	"errors"
	"html"
	"io/fs"
	"strings"
)

//go:embed all:gen
var files embed.FS

// Built is the built console: index.html and its assets.
func Built() fs.FS {
	sub, err := fs.Sub(files, "gen")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// CSP is the page policy of the spec: scripts, styles and frames from the
// page's own origin only, API calls to its origin and loopback, images
// from itself and data: URLs, never framed.
const CSP = "default-src 'self'; connect-src 'self' http://127.0.0.1:* http://[::1]:*; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// metaIgnored are the directives a policy delivered in a <meta> element
// cannot carry: browsers ignore them there (and log a warning), so only
// the header can say them (CSP Level 3, "Delivery via meta").
var metaIgnored = []string{"frame-ancestors", "report-uri", "sandbox"}

// MetaCSP is CSP as a <meta http-equiv> policy: the same directives without
// frame-ancestors, which a meta policy ignores. A file:// page cannot be
// framed by a web page anyway; a served page has the header.
func MetaCSP() string {
	var keep []string
	for _, d := range strings.Split(CSP, ";") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, " ")
		ignored := false
		for _, m := range metaIgnored {
			ignored = ignored || strings.EqualFold(name, m)
		}
		if d != "" && !ignored {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, "; ")
}

// WithMetaCSP returns a copy of the page index with MetaCSP in a
// <meta http-equiv="Content-Security-Policy"> right after <head>: a meta
// policy governs only what comes after it, so it must precede every script
// and stylesheet. For a page that leaves the server (the file:// copy of
// `core open`), which no header accompanies.
func WithMetaCSP(index []byte) ([]byte, error) {
	i := bytes.Index(bytes.ToLower(index), []byte("<head>"))
	if i < 0 {
		return nil, errors.New("the console's index.html has no <head>")
	}
	i += len("<head>")
	meta := `<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(MetaCSP()) + `" />`
	out := make([]byte, 0, len(index)+len(meta)+8)
	out = append(out, index[:i]...)
	out = append(out, "\n    "+meta...)
	out = append(out, index[i:]...)
	return out, nil
}
