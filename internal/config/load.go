package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"

	suggestpkg "github.com/corehq/core/internal/suggest"
)

// Sources says where the layers above the defaults come from.
type Sources struct {
	// WorkspaceRoot holds .core/config.yaml; empty skips that layer.
	WorkspaceRoot string
	// UserFile overrides the user config file; empty means
	// <os.UserConfigDir>/core/config.yaml.
	UserFile string
	// Environ replaces os.Environ (tests).
	Environ []string
	// Flags are the values of command-line flags the user set, by key.
	Flags map[string]any
	// TrustFile holds the records of trusted workspace files; empty means
	// DefaultTrustFile.
	TrustFile string
	// Warn receives the one warning about values of the workspace file
	// that wait for trust and were ignored; nil drops it (core doctor
	// reports trust on its own line).
	Warn func(msg string)
}

// Error lists every problem found, one per line.
type Error struct{ Problems []string }

func (e *Error) Error() string {
	return "invalid configuration:\n  " + strings.Join(e.Problems, "\n  ")
}

// KeyInfo describes one configuration key.
type KeyInfo struct {
	Key     string
	Env     string
	Default string
	Help    string
	// Trust says, in words, which values from the workspace file count
	// only once that file is trusted ("" when all do as written).
	Trust string
	kind  reflect.Type
	trust string // the trust tag
}

// Keys lists every key, sorted.
func Keys() []KeyInfo { return keys }

var keys, keyIndex = collectKeys()

// EnvName is the environment variable that sets key.
func EnvName(key string) string {
	return "CORE_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func collectKeys() ([]KeyInfo, map[string]KeyInfo) {
	def := Defaults()
	var out []KeyInfo
	var walk func(t reflect.Type, v reflect.Value, prefix string)
	walk = func(t reflect.Type, v reflect.Value, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := prefix + f.Tag.Get("koanf")
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, v.Field(i), name+".")
				continue
			}
			out = append(out, KeyInfo{
				Key: name, Env: EnvName(name), Help: f.Tag.Get("help"),
				Default: fmt.Sprint(v.Field(i).Interface()), kind: f.Type,
				trust: f.Tag.Get("trust"), Trust: trustRule(f.Tag.Get("trust")),
			})
		}
	}
	walk(reflect.TypeOf(def), reflect.ValueOf(def), "")
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	idx := make(map[string]KeyInfo, len(out))
	for _, k := range out {
		idx[k.Key] = k
	}
	return out, idx
}

// renamed maps a key's old name to its name now. A file, variable or
// flag that says the old name still counts, as the new name: users have
// config files. The snapshot of the effective configuration shows both.
var renamed = map[string]string{"mcp.address": "server.address"}

// rename gives k's keys their names now; one setting under both names
// with two values is an error naming them.
func rename(k *koanf.Koanf, source string) error {
	for old, now := range renamed {
		if !k.Exists(old) {
			continue
		}
		v := k.Get(old)
		if k.Exists(now) && fmt.Sprint(k.Get(now)) != fmt.Sprint(v) {
			return fmt.Errorf("%s: %s is the old name of %s, and the two say different things (%s, %s): keep %s", source, old, now, shown(old, v), shown(now, k.Get(now)), now)
		}
		k.Delete(old)
		_ = k.Set(now, v)
	}
	return nil
}

type layer struct {
	source string
	k      *koanf.Koanf
}

// Load builds the effective configuration from src.
func Load(src Sources) (*Config, error) {
	var problems []string
	var layers []layer

	defaults := koanf.New(".")
	if err := defaults.Load(confmap.Provider(defaultMap(), "."), nil); err != nil {
		return nil, fmt.Errorf("load defaults: %w", err)
	}

	userFile := src.UserFile
	if userFile == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			userFile = filepath.Join(dir, "core", "config.yaml")
		}
	}
	if userFile != "" {
		l, err := loadFile(userFile)
		if err != nil {
			problems = append(problems, err.Error())
		} else if l != nil {
			layers = append(layers, *l)
		}
	}
	if src.WorkspaceRoot != "" {
		l, err := loadWorkspaceFile(src, defaults, layers)
		if err != nil {
			problems = append(problems, err.Error())
		} else if l != nil {
			layers = append(layers, *l)
		}
	}

	environ := src.Environ
	if environ == nil {
		environ = os.Environ()
	}
	envLayer := koanf.New(".")
	envSource := map[string]string{}
	_ = envLayer.Load(env.Provider(".", env.Opt{
		Prefix:      "CORE_",
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(name, value string) (string, any) {
			for _, k := range keys {
				if k.Env == name {
					envSource[k.Key] = name
					return k.Key, value
				}
			}
			for old, now := range renamed {
				if EnvName(old) == name {
					if envSource[now] == "" {
						envSource[now] = name
					}
					return old, value
				}
			}
			return "", nil // CORE_ variables that are not settings are not ours to judge
		},
	}), nil)
	if err := rename(envLayer, "environment"); err != nil {
		problems = append(problems, err.Error())
	}
	layers = append(layers, layer{source: "environment", k: envLayer})

	if len(src.Flags) > 0 {
		fl := koanf.New(".")
		if err := fl.Load(confmap.Provider(src.Flags, "."), nil); err != nil {
			return nil, fmt.Errorf("load flags: %w", err)
		}
		if err := rename(fl, "flags"); err != nil {
			return nil, err
		}
		layers = append(layers, layer{source: "flag", k: fl})
	}

	merged := defaults
	for _, l := range layers {
		for _, key := range l.k.Keys() {
			info, ok := keyIndex[key]
			source := l.source
			if s, isEnv := envSource[key]; isEnv && l.source == "environment" {
				source = s
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: unknown key %q%s", source, key, suggest(key)))
				continue
			}
			if msg := checkType(info, l.k.Get(key)); msg != "" {
				problems = append(problems, fmt.Sprintf("%s=%s (from %s): %s", key, shown(key, l.k.Get(key)), source, msg))
			}
		}
		if err := merged.Merge(l.k); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", l.source, err))
		}
	}
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}

	var c Config
	if err := merged.UnmarshalWithConf("", &c, koanf.UnmarshalConf{}); err != nil {
		return nil, &Error{Problems: []string{err.Error()}}
	}
	if errs := validate(&c); len(errs) > 0 {
		for _, fe := range errs {
			src := "default"
			for i := len(layers) - 1; i >= 0; i-- {
				if layers[i].k.Exists(fe.key) {
					src = layers[i].source
					if s, ok := envSource[fe.key]; ok && layers[i].source == "environment" {
						src = s
					}
					break
				}
			}
			problems = append(problems, fmt.Sprintf("%s=%s (from %s): %s", fe.key, shown(fe.key, merged.Get(fe.key)), src, fe.msg))
		}
		return nil, &Error{Problems: problems}
	}
	return &c, nil
}

func workspaceFile(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(root, ".core", "config.yaml")
}

func loadFile(path string) (*layer, error) {
	content, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read it: %v", path, err)
	}
	k, err := parseYAML(path, content)
	if err != nil {
		return nil, err
	}
	return &layer{source: path, k: k}, nil
}

// loadWorkspaceFile is the layer of the workspace's .core/config.yaml,
// without the values that wait for trust (NeedsTrust) when the file's
// content is not trusted. below are the layers under it (on defaults),
// against which an ignored value is judged: one that changes nothing is
// not worth a warning.
func loadWorkspaceFile(src Sources, defaults *koanf.Koanf, below []layer) (*layer, error) {
	root := src.WorkspaceRoot
	content, k, err := readWorkspaceFile(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	trustFile := src.TrustFile
	if trustFile == "" {
		trustFile, _ = DefaultTrustFile() // none: nothing is trusted
	}
	st := status(root, content, k, trustFile)
	if st.Trusted || len(st.Guarded) == 0 {
		return &layer{source: workspaceFile(root), k: k}, nil
	}
	under := defaults.Copy()
	for _, l := range below {
		_ = under.Merge(l.k)
	}
	var ignored []string
	for _, key := range st.Guarded {
		if fmt.Sprint(k.Get(key)) != fmt.Sprint(under.Get(key)) {
			ignored = append(ignored, key)
		}
		k.Delete(key)
	}
	if len(ignored) > 0 && src.Warn != nil {
		src.Warn(untrustedWarning(st, ignored))
	}
	return &layer{source: workspaceFile(root), k: k}, nil
}

// parseYAML reads content, the bytes of the config file at path.
func parseYAML(path string, content []byte) (*koanf.Koanf, error) {
	k := koanf.New(".")
	if err := k.Load(rawBytes(content), yaml.Parser()); err != nil {
		return nil, fmt.Errorf("%s: not a valid YAML config file: %v", path, err)
	}
	return k, rename(k, path)
}

// rawBytes is a koanf provider of bytes already read.
type rawBytes []byte

func (b rawBytes) ReadBytes() ([]byte, error) { return b, nil }

func (b rawBytes) Read() (map[string]any, error) {
	return nil, errors.New("rawBytes needs a parser")
}

// defaultMap flattens Defaults() into key -> value.
func defaultMap() map[string]any {
	m := make(map[string]any, len(keys))
	def := reflect.ValueOf(Defaults())
	for _, k := range keys {
		v := def
		for _, part := range strings.Split(k.Key, ".") {
			v = fieldByTag(v, part)
		}
		m[k.Key] = v.Interface()
	}
	return m
}

func fieldByTag(v reflect.Value, tag string) reflect.Value {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("koanf") == tag {
			return v.Field(i)
		}
	}
	panic("config: no field with tag " + tag)
}

var durationType = reflect.TypeOf(time.Duration(0))

// checkType reports, in words a user can act on, why v cannot be the value of
// key; "" when it can. Strings from the environment are parsed as the key's
// type would be.
func checkType(info KeyInfo, v any) string {
	switch {
	case info.kind == durationType:
		switch x := v.(type) {
		case string:
			if _, err := time.ParseDuration(x); err != nil {
				return "not a duration; write it like 500ms, 10s or 2m"
			}
		case int, int64, float64:
		default:
			return "not a duration; write it like 500ms, 10s or 2m"
		}
	case info.kind.Kind() == reflect.Bool:
		switch x := v.(type) {
		case bool:
		case string:
			if _, err := strconv.ParseBool(x); err != nil {
				return "not a boolean; allowed: true, false"
			}
		default:
			return "not a boolean; allowed: true, false"
		}
	case info.kind.Kind() == reflect.Int || info.kind.Kind() == reflect.Int64:
		switch x := v.(type) {
		case int, int64:
		case float64:
			if x != float64(int64(x)) {
				return "not a whole number"
			}
		case string:
			if _, err := strconv.ParseInt(x, 10, 64); err != nil {
				return "not a whole number"
			}
		default:
			return "not a whole number"
		}
	case info.kind.Kind() == reflect.String:
		switch v.(type) {
		case string:
		default:
			return "not a string"
		}
	}
	return ""
}

// shown is v as a problem message may show it: a secret key's value is
// never echoed.
func shown(key string, v any) string {
	if Secret(key) {
		return "<redacted>"
	}
	if str, ok := v.(string); ok && strings.Contains(str, "@") {
		// A URL's user information is a password more often than not.
		if u, err := url.Parse(str); err == nil && u.User != nil {
			u.User = url.User("REDACTED")
			return quote(strings.Replace(u.String(), "REDACTED@", "<redacted>@", 1))
		}
	}
	return quote(v)
}

// Secret says whether key's name suggests a secret (token, secret, password,
// key): its value is redacted wherever configuration is shown.
func Secret(key string) bool {
	for _, s := range []string{"token", "secret", "password", "key"} {
		if strings.Contains(key, s) {
			return true
		}
	}
	return false
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	if m, ok := v.(map[string]any); ok {
		return fmt.Sprintf("<a mapping with %d keys>", len(m))
	}
	return fmt.Sprint(v)
}

// suggest names the closest known key, or lists them all.
func suggest(key string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Key
	}
	if hint := suggestpkg.DidYouMean(key, names); hint != "" {
		return hint
	}
	return "; known keys: " + strings.Join(names, ", ")
}

// Effective returns every key with its value as text, for the status
// snapshot. Keys whose names suggest a secret (Secret: forge.token) are
// redacted when set.
func Effective(c *Config) map[string]string {
	out := make(map[string]string, len(keys))
	v := reflect.ValueOf(*c)
	for _, k := range keys {
		f := v
		for _, part := range strings.Split(k.Key, ".") {
			f = fieldByTag(f, part)
		}
		val := fmt.Sprint(f.Interface())
		if Secret(k.Key) && val != "" {
			val = "<redacted>"
		}
		out[k.Key] = val
	}
	for old, now := range renamed {
		out[old] = out[now]
	}
	return out
}
