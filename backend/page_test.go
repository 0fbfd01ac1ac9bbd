package backend

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAPageFitsItsLimitAndTheBudgetAndSaysHowToGoOn(t *testing.T) {
	items := make([]string, 1000)
	for i := range items {
		items[i] = strings.Repeat("x", 1000)
	}
	q := question("t", "a")
	got, p, err := page(items, q, PageRequest{}, listLimits{50, 500}, listBudget, "narrow it")
	if err != nil || len(got) != 50 || p.Total != 1000 || p.NextCursor == "" || !strings.Contains(p.Note, "narrow it") {
		t.Fatalf("the first page: %d items, %+v, %v", len(got), p, err)
	}
	got, p, err = page(items, q, PageRequest{Cursor: p.NextCursor, Limit: 500}, listLimits{50, 500}, listBudget, "")
	if err != nil || p.Offset != 50 || len(got) >= 500 || !strings.Contains(p.Note, "budget") {
		t.Fatalf("a page over the budget: %d items, %+v, %v", len(got), p, err)
	}
	if b, _ := json.Marshal(got); len(b) > listBudget {
		t.Errorf("the page is %d bytes, over %d", len(b), listBudget)
	}
	if _, _, err := page(items, q, PageRequest{Limit: 501}, listLimits{50, 500}, listBudget, ""); err == nil {
		t.Error("a limit over the most was taken")
	}
	if _, _, err := page(items, question("t", "b"), PageRequest{Cursor: p.NextCursor}, listLimits{50, 500}, listBudget, ""); err == nil {
		t.Error("a cursor of another question was taken")
	}
	// One item over the budget still comes back alone, not as nothing.
	big := []string{strings.Repeat("y", 2*listBudget), "z"}
	got, p, err = page(big, q, PageRequest{}, listLimits{50, 500}, listBudget, "")
	if err != nil || len(got) != 1 || p.NextCursor == "" {
		t.Errorf("an item over the budget: %d items, %+v, %v", len(got), p, err)
	}
	got, p, err = page([]string{}, q, PageRequest{}, listLimits{50, 500}, listBudget, "")
	if err != nil || len(got) != 0 || p.Note != "" || p.NextCursor != "" {
		t.Errorf("an empty list: %v %+v %v", got, p, err)
	}
}

func FuzzParseCursor(f *testing.F) {
	q := question("read_diff", "HEAD")
	f.Add(Cursor(q, 0))
	f.Add(Cursor(q, 1234))
	f.Add("12.")
	f.Add("-1." + fingerprint(q))
	f.Add("0012." + fingerprint(q))
	f.Add("99999999999999999999." + fingerprint(q))
	f.Fuzz(func(t *testing.T, c string) {
		n, err := ParseCursor(q, c)
		if err != nil {
			return
		}
		if n < 0 || n > maxOffset {
			t.Fatalf("%q gave offset %d", c, n)
		}
		if c != "" && Cursor(q, n) != c {
			t.Fatalf("%q is taken as %d, whose cursor is %q", c, n, Cursor(q, n))
		}
	})
}

func FuzzJSONLenBoundsTheEncoding(f *testing.F) {
	f.Add("plain\n")
	f.Add("<&>\"\\\t\x01\u2028é\xff")
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s)
		if jsonLen(s) < len(b)-2 {
			t.Fatalf("jsonLen(%q) = %d, the encoding takes %d", s, jsonLen(s), len(b)-2)
		}
		text, _ := fitText(s, false, 64)
		if b, _ := json.Marshal(text); len(b) > 64+2 && len(text) > 0 && strings.Contains(text, "\n") {
			t.Fatalf("fitText(%q) = %q, %d bytes as JSON", s, text, len(b))
		}
	})
}
