package auth

import (
	"testing"
	"time"
)

func TestIssueThenVerify(t *testing.T) {
	secret := []byte("demo-secret")
	now := time.Unix(1700000000, 0)
	tok := Issue("Ada Lovelace", secret, now, time.Hour)
	user, err := Verify(tok, secret, now.Add(time.Minute))
	if err != nil || user != "ada-lovelace" {
		t.Fatalf("Verify = %q, %v", user, err)
	}
	if _, err := Verify(tok, secret, now.Add(2*time.Hour)); err == nil {
		t.Fatal("an expired token was accepted")
	}
	if _, err := Verify(tok, []byte("other"), now); err == nil {
		t.Fatal("a token signed with another secret was accepted")
	}
}
