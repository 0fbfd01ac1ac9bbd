// Package auth issues and checks the shop's signed session tokens.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"example.com/demo/libs/util"
)

// ErrInvalid is returned for a token that is malformed, forged or expired.
var ErrInvalid = errors.New("auth: invalid token")

// Issue returns a token for user, valid until now+ttl, signed with secret.
func Issue(user string, secret []byte, now time.Time, ttl time.Duration) string {
	body := util.Slugify(user) + "." + strconv.FormatInt(now.Add(ttl).Unix(), 10)
	return body + "." + sign(body, secret)
}

// Verify checks a token and returns the user it was issued to.
func Verify(token string, secret []byte, now time.Time) (string, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return "", ErrInvalid
	}
	body, sig := token[:i], token[i+1:]
	if !hmac.Equal([]byte(sig), []byte(sign(body, secret))) {
		return "", ErrInvalid
	}
	user, exp, ok := strings.Cut(body, ".")
	if !ok {
		return "", ErrInvalid
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || now.Unix() > unix {
		return "", ErrInvalid
	}
	return user, nil
}

func sign(body string, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	// TODO: rotate secrets by key id instead of a single shared secret.
	return hex.EncodeToString(m.Sum(nil))
}
