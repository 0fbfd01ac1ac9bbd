package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/v2"

	"github.com/corehq/core/internal/fsx"
)

// The trust boundary. The workspace's .core/config.yaml comes with the
// repository, so whoever wrote the repository wrote it; the user's own
// config file, the environment and flags are the user's. A key that carries
// or routes a credential (the forge's token and address, the remote cache's
// address and credential header, the log viewer a browser is sent to with
// a run's id, the console page that is handed a pairing code, the directory that
// holds the token store, the loose environment mode that hands every
// variable to the repository's commands) or widens who can reach this
// machine (the share's and the server's address, the hosted console's
// origin) is honoured from the workspace file only after the user trusts that file's content with
// `core config trust`, as direnv (`direnv allow`), mise (`mise trust`), git
// (safe.directory) and VS Code (Workspace Trust) draw the same line. The
// record lives outside the workspace (DefaultTrustFile) and names the
// file's SHA-256, so a changed file is untrusted again.
//
// The Config struct's trust tag says which values of a key wait for trust:
const (
	// trustAlways: every value.
	trustAlways = "always"
	// trustOffLoopback: a host:port whose host is not a loopback address
	// (a per-workspace port on 127.0.0.1 exposes nothing new).
	trustOffLoopback = "off-loopback"
	// trustWhenTrue: true (false only narrows what is exposed).
	trustWhenTrue = "when-true"
	// trustWhenLoose: loose (strict only narrows what reaches targets).
	trustWhenLoose = "when-loose"
)

// TrustCommand is what a user runs to trust the workspace file; every
// message about trust names it.
const TrustCommand = "core config trust"

// NeedsTrust says whether value, read from the workspace file for key,
// counts only once the file is trusted.
func NeedsTrust(key string, value any) bool {
	info, ok := keyIndex[key]
	if !ok {
		return false
	}
	switch info.trust {
	case "":
		return false
	// A value these cannot read is no address or boolean at all: the
	// checks after the layers refuse it, naming the key, which says more
	// than ignoring it would.
	case trustOffLoopback:
		host, _, err := net.SplitHostPort(fmt.Sprint(value))
		return err == nil && !loopbackHost(host)
	case trustWhenTrue:
		b, err := strconv.ParseBool(fmt.Sprint(value))
		return err == nil && b
	case trustWhenLoose:
		return fmt.Sprint(value) != "strict"
	}
	return true // trustAlways, and any tag this switch does not know
}

// trustRule describes in words which values of a key with the trust tag
// tag wait for trust, or "" when none do (KeyInfo.Trust): the table of
// docs/configuration.md says the same.
func trustRule(tag string) string {
	switch tag {
	case "":
		return ""
	case trustOffLoopback:
		return "once trusted, unless its host is loopback"
	case trustWhenTrue:
		return "once trusted, when true"
	case trustWhenLoose:
		return "once trusted, when loose"
	}
	return "once trusted"
}

// DefaultTrustFile is where the trust records live: core/trust.json under
// $XDG_STATE_HOME, else under ~/.local/state (the XDG default, on every
// system, as mise keeps its own). It is outside every workspace, so a
// repository cannot ship its own trust.
func DefaultTrustFile() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "core", "trust.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no place for the trust records: %w; set XDG_STATE_HOME or HOME", err)
	}
	return filepath.Join(home, ".local", "state", "core", "trust.json"), nil
}

// trustBook is the trust file: one record per workspace file, by its path.
type trustBook struct {
	Files map[string]trustRecord `json:"files"`
}

type trustRecord struct {
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
}

// maxTrustFile bounds the trust file: a few hundred bytes per workspace.
const maxTrustFile = 4 << 20

// trustDocument is the trust file at path.
func trustDocument(path string) fsx.Document[trustBook] {
	return fsx.Document[trustBook]{
		Path: path, Name: "trust records", Limit: maxTrustFile, Aside: true,
		Check: func(b *trustBook) error {
			if b.Files == nil {
				b.Files = map[string]trustRecord{}
			}
			return nil
		},
	}
}

func readTrustBook(path string) (trustBook, error) { return trustDocument(path).Read() }

// TrustStatus is what is known of a workspace's .core/config.yaml and its
// trust: `core doctor` prints it, `core config trust` answers it.
type TrustStatus struct {
	// File is the workspace file's path, its root resolved through
	// symlinks: the name its trust is recorded under.
	File string
	// Exists is false when the workspace has no .core/config.yaml.
	Exists bool
	// SHA256 is the file's content hash, in hex.
	SHA256 string
	// Trusted says the trust record holds this content.
	Trusted bool
	// Changed says a record holds other content: the file changed since
	// it was trusted.
	Changed bool
	// TrustedAt is when the content was trusted (zero when not).
	TrustedAt time.Time
	// Guarded lists the keys the file sets that wait for trust, sorted;
	// Values has their values as a message may show them (a secret's as
	// <redacted>).
	Guarded []string
	Values  map[string]string
	// TrustFile is where the records are.
	TrustFile string
}

// trustName is the name the trust of root's workspace file is recorded
// under: the same file through any spelling of the root.
func trustName(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return workspaceFile(abs)
}

func digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// status judges content, read from root's workspace file, against the
// records in trustFile. A trust file that cannot be read trusts nothing.
func status(root string, content []byte, k *koanf.Koanf, trustFile string) TrustStatus {
	st := TrustStatus{File: trustName(root), Exists: true, SHA256: digest(content), TrustFile: trustFile, Values: map[string]string{}}
	for _, key := range k.Keys() {
		if NeedsTrust(key, k.Get(key)) {
			st.Guarded = append(st.Guarded, key)
			st.Values[key] = shown(key, k.Get(key))
		}
	}
	sort.Strings(st.Guarded)
	if trustFile == "" {
		return st
	}
	book, err := readTrustBook(trustFile)
	if err != nil {
		return st
	}
	if rec, ok := book.Files[st.File]; ok {
		st.Trusted = rec.SHA256 == st.SHA256
		st.Changed = !st.Trusted
		if st.Trusted {
			st.TrustedAt = rec.TrustedAt
		}
	}
	return st
}

// WorkspaceTrust reports on root's .core/config.yaml as it is now.
// trustFile "" is DefaultTrustFile.
func WorkspaceTrust(root, trustFile string) (TrustStatus, error) {
	if trustFile == "" {
		var err error
		if trustFile, err = DefaultTrustFile(); err != nil {
			return TrustStatus{}, err
		}
	}
	content, k, err := readWorkspaceFile(root)
	if errors.Is(err, os.ErrNotExist) {
		return TrustStatus{File: trustName(root), TrustFile: trustFile}, nil
	}
	if err != nil {
		return TrustStatus{}, err
	}
	return status(root, content, k, trustFile), nil
}

// Trust records root's .core/config.yaml, as it is now, as trusted; revoke
// removes its record instead. trustFile "" is DefaultTrustFile.
func Trust(root, trustFile string, revoke bool) (TrustStatus, error) {
	if trustFile == "" {
		var err error
		if trustFile, err = DefaultTrustFile(); err != nil {
			return TrustStatus{}, err
		}
	}
	content, k, err := readWorkspaceFile(root)
	switch {
	case errors.Is(err, os.ErrNotExist) && revoke:
		content, k = nil, koanf.New(".")
	case errors.Is(err, os.ErrNotExist):
		return TrustStatus{}, fmt.Errorf("%s does not exist: there is nothing to trust (settings for this machine go in your own config file or the environment)", workspaceFile(root))
	case err != nil:
		return TrustStatus{}, fmt.Errorf("%w; fix the file, then run `%s` again", err, TrustCommand)
	}
	var st TrustStatus
	err = trustDocument(trustFile).Update(func(book *trustBook) (bool, error) {
		st = status(root, content, k, trustFile)
		st.Exists = content != nil
		if revoke {
			delete(book.Files, st.File)
			st.Trusted, st.Changed, st.TrustedAt = false, false, time.Time{}
		} else {
			now := time.Now().UTC().Truncate(time.Second)
			book.Files[st.File] = trustRecord{SHA256: st.SHA256, TrustedAt: now}
			st.Trusted, st.Changed, st.TrustedAt = true, false, now
		}
		return true, nil
	})
	if err != nil {
		return TrustStatus{}, fmt.Errorf("record the trust: %w", err)
	}
	return st, nil
}

// readWorkspaceFile reads root's .core/config.yaml once: the bytes that
// are hashed are the bytes that are parsed, so a file swapped between a
// check and a read cannot slip in.
func readWorkspaceFile(root string) ([]byte, *koanf.Koanf, error) {
	path := workspaceFile(root)
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	k, err := parseYAML(path, content)
	if err != nil {
		return nil, nil, err
	}
	return content, k, nil
}

// untrustedWarning is the one warning for a workspace file whose keys in
// ignored were dropped.
func untrustedWarning(st TrustStatus, ignored []string) string {
	why := "is not trusted"
	if st.Changed {
		why = "changed since you trusted it"
	}
	return fmt.Sprintf("%s %s, so its %s %s ignored (keys that carry or route credentials, or widen who can reach this machine, count from a workspace file only once you trust it): read the file, then run `%s` to use them, or set them in your own config file or the environment",
		st.File, why, strings.Join(ignored, ", "), plural(len(ignored), "is", "are"), TrustCommand)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
