package handoff

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestAHandedJobIsClaimedAndCompletedByOneAgent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-jobs.json")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.Hand("write the tests for mathx", "project:mathx", "person")
	if err != nil || j.Name != "jobs/session-1" || j.State != StateWaiting {
		t.Fatalf("hand: %+v %v", j, err)
	}
	c, err := s.Claim("", "agent1")
	if err != nil || c.Name != j.Name || c.State != StateRunning || c.ClaimedBy != "agent1" {
		t.Fatalf("claim: %+v %v", c, err)
	}
	if _, err := s.Complete(j.Name, "agent2", ResultSucceeded, "done"); !errors.Is(err, ErrState) {
		t.Fatalf("another agent completed it: %v", err)
	}
	d, err := s.Complete(j.Name, "agent1", ResultSucceeded, "added 3 tests")
	if err != nil || d.State != StateDone || d.Message != "added 3 tests" || d.Ended == nil {
		t.Fatalf("complete: %+v %v", d, err)
	}
	s2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := s2.List(); len(l) != 1 || l[0].State != StateDone {
		t.Fatalf("after reopen: %+v", l)
	}
	if j2, _ := s2.Hand("next", "", "person"); j2.Name != "jobs/session-2" {
		t.Fatalf("names restart after reopen: %s", j2.Name)
	}
}

func TestSessionJobsRefuseBadInput(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "j.json"), nil)
	j, _ := s.Hand("x", "", "p")
	for _, tc := range []struct {
		name string
		do   func() error
		want error
	}{
		{"an empty text is invalid", func() error { _, err := s.Hand("  ", "", "p"); return err }, ErrInvalid},
		{"an unknown name is not found", func() error { _, err := s.Claim("jobs/session-9", "a"); return err }, ErrNotFound},
		{"completing an unclaimed job is refused", func() error { _, err := s.Complete(j.Name, "a", ResultSucceeded, "m"); return err }, ErrState},
		{"an unknown result is invalid", func() error { _, err := s.Complete(j.Name, "a", "maybe", "m"); return err }, ErrInvalid},
		{"an empty message is invalid", func() error { _, err := s.Complete(j.Name, "a", ResultFailed, ""); return err }, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := s.Claim("", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim("", "b"); !errors.Is(err, ErrNone) {
		t.Fatalf("claim with nothing waiting: %v", err)
	}
	if _, err := s.Claim(j.Name, "b"); !errors.Is(err, ErrState) {
		t.Fatalf("claim of a running job: %v", err)
	}
}
