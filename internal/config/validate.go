package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

type fieldError struct{ key, msg string }

var (
	validatorOnce sync.Once
	validatorInst *validator.Validate
)

func newValidator() *validator.Validate {
	validatorOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		v.RegisterTagNameFunc(func(f reflect.StructField) string { return f.Tag.Get("koanf") })
		_ = v.RegisterValidation("hostport", func(fl validator.FieldLevel) bool {
			return CheckHostPort(fl.Field().String()) == nil
		})
		_ = v.RegisterValidation("origin", func(fl validator.FieldLevel) bool {
			_, err := ParseOrigin(fl.Field().String())
			return err == nil
		})
		_ = v.RegisterValidation("apiurl", func(fl validator.FieldLevel) bool {
			return CheckAPIURL(fl.Field().String()) == nil
		})
		_ = v.RegisterValidation("remoteurl", func(fl validator.FieldLevel) bool {
			return CheckRemoteURL(fl.Field().String()) == nil
		})
		_ = v.RegisterValidation("headername", func(fl validator.FieldLevel) bool {
			return token(fl.Field().String(), "!#$%&'*+-.^_`|~")
		})
		_ = v.RegisterValidation("envname", func(fl validator.FieldLevel) bool {
			s := fl.Field().String()
			return token(s, "_") && !('0' <= s[0] && s[0] <= '9')
		})
		validatorInst = v
	})
	return validatorInst
}

func validate(c *Config) []fieldError {
	err := newValidator().Struct(c)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return []fieldError{{key: "?", msg: err.Error()}}
	}
	out := make([]fieldError, 0, len(verrs))
	for _, fe := range verrs {
		key := strings.TrimPrefix(fe.Namespace(), "Config.")
		out = append(out, fieldError{key: key, msg: explain(fe)})
	}
	return out
}

// explain turns a validator failure into what is allowed.
func explain(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "must be set"
	case "hostport":
		return fmt.Sprintf("%v; write host:port, for example 127.0.0.1:7391 or [::1]:7391", CheckHostPort(fmt.Sprint(fe.Value())))
	case "origin":
		_, err := ParseOrigin(fmt.Sprint(fe.Value()))
		return fmt.Sprintf("%v; write an origin like https://console.example.com (https, a host, no path)", err)
	case "oneof":
		return "allowed values: " + strings.Join(strings.Fields(fe.Param()), ", ")
	case "min":
		return "must be at least " + fe.Param()
	case "max":
		return "must be at most " + fe.Param()
	case "url":
		return "must be an absolute URL such as https://logs.example.com"
	case "apiurl":
		return fmt.Sprintf("%v; write the API's base URL, e.g. https://ghe.example.com/api/v3/", CheckAPIURL(fmt.Sprint(fe.Value())))
	case "remoteurl":
		return fmt.Sprintf("%v; write the cache's base URL, e.g. http://cache.internal:8080/core", CheckRemoteURL(fmt.Sprint(fe.Value())))
	case "headername":
		return "is not an HTTP header name; write one such as Authorization"
	case "envname":
		return "is not an environment variable name; write one such as CORE_CACHE_TOKEN"
	}
	return fmt.Sprintf("fails the %q rule", fe.Tag())
}

// CheckRemoteURL accepts a remote cache's base URL: http or https with a
// host, no user info (the credential goes in a header whose value comes
// from the environment, never in a URL that is shown), query or fragment.
func CheckRemoteURL(s string) error {
	return checkBaseURL(s, true, "put the credential in the environment variable cache.remote.header_env names")
}

// token reports whether s is non-empty and made of letters, digits and
// the bytes in extra.
func token(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(extra, b) >= 0) {
			return false
		}
	}
	return s != ""
}

// CheckAPIURL accepts a forge API base URL: https with a host, or http to a
// loopback host only (a token is never sent in clear over a network), with
// no user info, query or fragment.
func CheckAPIURL(s string) error {
	return checkBaseURL(s, false, "the token goes in forge.token")
}

// checkBaseURL accepts an http or https URL with a host and without user
// info (where the credential goes instead: userHint), query or fragment;
// plain http to a host that is not loopback only when anyHTTP.
func checkBaseURL(s string, anyHTTP bool, userHint string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		if anyHTTP {
			return fmt.Errorf("scheme %q is not http or https", u.Scheme)
		}
		return fmt.Errorf("scheme %q is not https", u.Scheme)
	case u.Hostname() == "":
		return fmt.Errorf("no host")
	case u.Scheme == "http" && !anyHTTP && !loopbackHost(u.Hostname()):
		return fmt.Errorf("http is allowed only to a loopback host (the token would cross the network in clear)")
	case u.User != nil:
		return fmt.Errorf("user info is not allowed (%s)", userHint)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Errorf("query and fragment are not allowed")
	}
	return nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// CheckHostPort accepts host:port with a non-empty host and a port in
// 0..65535 (0 picks a free port).
func CheckHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("not host:port")
	}
	if host == "" {
		return fmt.Errorf("the host is empty")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return nil
}

// ParseOrigin parses a web origin (scheme://host[:port]) as the hosted
// console's: https only, no user info, path, query or fragment. The result is
// normalised (lower-case host, default port dropped) so that comparisons are
// exact.
func ParseOrigin(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("not a URL")
	}
	switch {
	case u.Scheme != "https":
		return nil, fmt.Errorf("scheme %q is not https", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("no host")
	case u.User != nil:
		return nil, fmt.Errorf("user info is not allowed")
	case u.Path != "" && u.Path != "/":
		return nil, fmt.Errorf("path %q is not allowed", u.Path)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("query and fragment are not allowed")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "443" {
		port = ""
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("port %q is not valid", port)
		}
	}
	out := &url.URL{Scheme: "https", Host: host}
	if strings.Contains(host, ":") {
		out.Host = "[" + host + "]"
	}
	if port != "" {
		out.Host += ":" + port
	}
	return out, nil
}
