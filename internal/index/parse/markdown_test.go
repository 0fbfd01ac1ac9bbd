package parse

import (
	"slices"
	"testing"
)

func TestParseMarkdown(t *testing.T) {
	src := "---\ntitle: no\n---\n# The *API* guide\n\nSee [util](../libs/util/README.md#usage), [the code](./main.go?x=1), ![img](diagram.png),\n" +
		"[site](https://example.com), [top](#top), [dir](../libs/util/) and [ref][r].\n\nRun `api:build`, then api:test; not http://host:80 or a:b:c.\n\n" +
		"```\n[in code](nope.md)\n```\n\n[r]: /docs/ref.md\n"
	rec := parseMarkdown("docs/api.md", []byte(src))
	t.Run("the title is the first level-one heading", func(t *testing.T) {
		if rec.Title != "The API guide" {
			t.Fatalf("title %q", rec.Title)
		}
	})
	t.Run("local links are kept without fragment or query", func(t *testing.T) {
		want := []string{"../libs/util/README.md", "./main.go", "diagram.png", "../libs/util/", "/docs/ref.md"}
		if !slices.Equal(rec.Links, want) {
			t.Fatalf("links = %q", rec.Links)
		}
	})
	t.Run("project:target mentions are found in prose and code", func(t *testing.T) {
		if !slices.Equal(rec.Mentions, []string{"api:build", "api:test"}) {
			t.Fatalf("mentions = %q", rec.Mentions)
		}
	})
}
