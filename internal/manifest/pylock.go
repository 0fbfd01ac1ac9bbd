package manifest

import "github.com/pelletier/go-toml/v2"

// ParsePyLock reads the names of the packages a uv.lock or poetry.lock
// pins (both list them as [[package]] tables), normalized (PyName).
func ParsePyLock(data []byte) ([]string, error) {
	var lock struct {
		Package []struct {
			Name string `toml:"name"`
		} `toml:"package"`
	}
	if err := toml.Unmarshal(data, &lock); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(lock.Package))
	for _, p := range lock.Package {
		names = append(names, PyName(p.Name))
	}
	return names, nil
}
