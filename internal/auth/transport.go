package auth

import "net/http"

// Transport is the client side of the bearer token: it sends Token in the
// Authorization header of every request it carries, the one place the
// server reads a token from. Next is the transport below it
// (http.DefaultTransport when nil); an empty Token sends no header.
type Transport struct {
	Token string
	Next  http.RoundTripper
}

// RoundTrip sends a copy of r with the header set; r itself is not changed.
func (t Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.Token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.Token)
	}
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}
