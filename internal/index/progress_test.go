package index

import "testing"

func TestAPassReportsTheFilesItFoundAndParsed(t *testing.T) {
	root := newFixture(t)
	cache := t.TempDir()
	ix := New(root, cache, Options{})
	if p := ix.Progress(); p.Phase != PhaseIdle {
		t.Fatalf("before a pass: %+v", p)
	}
	syncIndex(t, ix, root)
	p := ix.Progress()
	if p.Phase != PhaseDone || p.Found == 0 || p.ToParse != p.Found || p.Parsed != p.ToParse {
		t.Errorf("a cold pass: %+v, want done with every found file parsed", p)
	}
	warm := New(root, cache, Options{})
	syncIndex(t, warm, root)
	if w := warm.Progress(); w.Phase != PhaseDone || w.Found != p.Found || w.ToParse != 0 || w.Parsed != 0 {
		t.Errorf("a warm pass: %+v, want %d found and nothing to parse", w, p.Found)
	}
}
