package parse

import (
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// md is built when the first doc is parsed, not in every process's start.
var md = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// mentionPattern finds "project:target" in prose and code spans; assembly
// keeps the ones that name a declared target.
var mentionPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9_:/.-])([a-z0-9][a-z0-9_-]*:[a-z0-9][a-z0-9_-]*)(?:$|[^A-Za-z0-9_:/-])`)
})

// parseMarkdown indexes a doc: its title (the first level-one heading), the
// local targets of its links (files, docs, directories; no URLs, no pure
// fragments) and its mentions of targets.
func parseMarkdown(path string, src []byte) FileRecord {
	rec := FileRecord{Path: path, Lang: LangMarkdown}
	doc := md().Parser().Parse(text.NewReader(src))
	seen := map[string]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.Heading:
			if x.Level == 1 && rec.Title == "" {
				rec.Title = strings.TrimSpace(string(nodeText(x, src)))
			}
		case *ast.Link:
			addLink(&rec, string(x.Destination), seen)
		case *ast.Image:
			addLink(&rec, string(x.Destination), seen)
		}
		return ast.WalkContinue, nil
	})
	mentioned := map[string]bool{}
	for _, m := range mentionPattern().FindAllSubmatch(src, -1) {
		s := string(m[1])
		if !mentioned[s] {
			mentioned[s] = true
			rec.Mentions = append(rec.Mentions, s)
		}
	}
	return rec
}

func addLink(rec *FileRecord, dest string, seen map[string]bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") {
		return
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
		return
	}
	if !seen[u.Path] {
		seen[u.Path] = true
		rec.Links = append(rec.Links, u.Path)
	}
}

// nodeText is the plain text under n.
func nodeText(n ast.Node, src []byte) []byte {
	var out []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			out = append(out, t.Segment.Value(src)...)
			continue
		}
		if s, ok := c.(*ast.String); ok {
			out = append(out, s.Value...)
			continue
		}
		out = append(out, nodeText(c, src)...)
	}
	return out
}
