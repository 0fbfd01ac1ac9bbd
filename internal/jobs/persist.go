package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/corehq/core/internal/fsx"
)

// persisted is the shape of the last-runs file.
type persisted struct {
	Version  int             `json:"version"`
	LastRuns map[string]*Run `json:"last_runs"` // by bare job name
}

const persistVersion = 1

// Persist makes last runs survive restarts: it loads the records in path
// (JSON; a missing file is an empty record) and, from then on, rewrites the
// file after every run (atomically, mode 0600). Call it once, before or
// after Register; records of jobs not registered are kept in the file. A
// corrupt file is reported, and persistence stays on, so the next run
// replaces it with a good one. Only the server writes this file, so no
// cross-process lock is taken.
func (m *Manager) Persist(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("job history %s: %w", path, err)
	}
	data, err := os.ReadFile(path)
	var p persisted
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = nil
	case err != nil:
		err = fmt.Errorf("read job history %s: %w", path, err)
	default:
		if jerr := json.Unmarshal(data, &p); jerr != nil {
			err = fmt.Errorf("job history %s is corrupt (%v): last runs start empty and the file is rewritten after the next run", path, jerr)
			p = persisted{}
		} else if p.Version != persistVersion {
			err = fmt.Errorf("job history %s has version %d, want %d: last runs start empty and the file is rewritten after the next run", path, p.Version, persistVersion)
			p = persisted{}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.path = path
	for name, r := range p.LastRuns {
		if r == nil || !namePattern().MatchString(name) {
			continue
		}
		m.loaded[name] = r
		if e, ok := m.jobs[name]; ok && e.last == nil {
			e.last = r
		}
	}
	return err
}

// Err reports the last failure to save the job history (nil when the last
// save worked or persistence is off).
func (m *Manager) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saveErr
}

// save writes the job history if Persist enabled it. Saves are serialised,
// and each reads the state once it holds saveMu, so the last file written
// always holds the newest runs.
func (m *Manager) save() {
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	m.mu.Lock()
	path := m.path
	p := persisted{Version: persistVersion, LastRuns: map[string]*Run{}}
	for name, r := range m.loaded {
		p.LastRuns[name] = r
	}
	for name, e := range m.jobs {
		if e.last != nil {
			p.LastRuns[name] = e.last
		}
	}
	m.mu.Unlock()
	if path == "" {
		return
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err == nil {
		err = fsx.WriteFileAtomic(path, append(data, '\n'), 0o600)
	}
	m.mu.Lock()
	m.saveErr = err
	m.mu.Unlock()
}
