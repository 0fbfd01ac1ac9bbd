package console

import (
	"html"
	"io/fs"
	"strings"
	"testing"
)

func TestMetaCSPIsTheHeaderPolicyWithoutFrameAncestors(t *testing.T) {
	meta := MetaCSP()
	if strings.Contains(meta, "frame-ancestors") {
		t.Fatalf("MetaCSP() = %q keeps frame-ancestors, which a meta policy ignores", meta)
	}
	for _, d := range strings.Split(CSP, "; ") {
		if !strings.HasPrefix(d, "frame-ancestors") && !strings.Contains(meta, d) {
			t.Errorf("MetaCSP() = %q lacks %q", meta, d)
		}
	}
	if !strings.Contains(CSP, "frame-ancestors 'none'") {
		t.Errorf("CSP = %q: the served page must not be framed", CSP)
	}
}

func TestWithMetaCSPPrecedesEverythingThePageLoads(t *testing.T) {
	index, err := fs.ReadFile(Built(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	out, err := WithMetaCSP(index)
	if err != nil {
		t.Fatal(err)
	}
	page := string(out)
	tag := `<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(MetaCSP()) + `" />`
	at := strings.Index(page, tag)
	if at < 0 {
		t.Fatalf("no policy tag in\n%s", page)
	}
	for _, el := range []string{"<script", "<link"} {
		if i := strings.Index(page, el); i >= 0 && i < at {
			t.Errorf("%s comes before the policy: the policy would not cover it", el)
		}
	}
	if strings.Replace(page, "\n    "+tag, "", 1) != string(index) {
		t.Error("the page changed beyond the added tag")
	}
	if _, err := WithMetaCSP([]byte("<!doctype html><p>no head</p>")); err == nil {
		t.Error("a page without <head> got a policy somewhere")
	}
}
