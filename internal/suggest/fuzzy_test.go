package suggest

import (
	"slices"
	"testing"
)

func TestFuzzyRanksWholeNamesThenPartsThenSubsequences(t *testing.T) {
	names := []string{"Runner.Start", "Start", "StartServer", "restart", "Server.Start", "listenAndServeTLS", "Stop", "SetTimeout", "sToRage"}
	rank := func(p string) []string {
		var got []string
		for _, n := range names {
			if Fuzzy(p, n) > 0 {
				got = append(got, n)
			}
		}
		slices.SortStableFunc(got, func(a, b string) int { return Fuzzy(p, b) - Fuzzy(p, a) })
		return got
	}
	if got := rank("Start"); len(got) < 4 || got[0] != "Start" || (got[1] != "Runner.Start" && got[1] != "Server.Start") {
		t.Errorf("Start ranks %v", got)
	}
	if got := rank("Runner.Start"); got[0] != "Runner.Start" {
		t.Errorf("Runner.Start ranks %v", got)
	}
	if got := rank("lst"); len(got) == 0 || got[0] != "listenAndServeTLS" {
		t.Errorf("lst ranks %v", got)
	}
	if got := rank("stsv"); !slices.Contains(got, "StartServer") {
		t.Errorf("stsv ranks %v", got)
	}
	if Fuzzy("aXb", "axAxb") == 0 {
		t.Error("a subsequence a word start hides was not found")
	}
	if Fuzzy("xyz", "Start") != 0 || Fuzzy("", "Start") != 0 || Fuzzy("tratS", "Start") != 0 {
		t.Error("a pattern that is not a subsequence matched")
	}
}

func FuzzFuzzy(f *testing.F) {
	f.Add("Start", "Runner.Start")
	f.Add("ß", "STRASSE")
	f.Add("\xff", "a\xffb")
	f.Fuzz(func(t *testing.T, p, n string) {
		s := Fuzzy(p, n)
		if s < 0 || s > 1000 {
			t.Fatalf("Fuzzy(%q, %q) = %d", p, n, s)
		}
		if p == n && s > 0 && s != 1000 {
			t.Fatalf("an exact name scores %d", s)
		}
	})
}

func TestFuzzyDoesNotMatchLettersScatteredOverALongName(t *testing.T) {
	for _, n := range []string{"RecommendTest.test_items_already_in_the_basket_are_not_suggested", "RecommendTest.test_features_add_up_quantities", "restart"} {
		if s := Fuzzy("Start", n); s != 0 {
			t.Errorf("Start matches %s (%d)", n, s)
		}
	}
	if Fuzzy("basket", "RecommendTest.test_items_already_in_the_basket") == 0 {
		t.Error("a word of the name does not match")
	}
}
