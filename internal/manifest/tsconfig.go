package manifest

import "encoding/json"

// TSConfig is what core reads of a tsconfig.json (or jsconfig.json):
// its extends, and the compiler options that say where imports resolve
// (baseUrl, paths) and where a build writes (outDir, declarationDir,
// noEmit). A nil pointer is an option the file does not set.
type TSConfig struct {
	// Extends are the configurations it extends, as written, in order:
	// TypeScript 5 takes a list, the last one winning.
	Extends         []string
	CompilerOptions struct {
		BaseURL        string              `json:"baseUrl"`
		Paths          map[string][]string `json:"paths"`
		OutDir         *string             `json:"outDir"`
		DeclarationDir *string             `json:"declarationDir"`
		NoEmit         *bool               `json:"noEmit"`
	}
}

// ParseTSConfig decodes a tsconfig in its own dialect (comments and
// trailing commas, StripJSONC). A field of an unexpected type is an
// error, as tsc makes it one.
func ParseTSConfig(data []byte) (*TSConfig, error) {
	var raw struct {
		Extends         json.RawMessage `json:"extends"`
		CompilerOptions json.RawMessage `json:"compilerOptions"`
	}
	if err := json.Unmarshal(StripJSONC(data), &raw); err != nil {
		return nil, err
	}
	var c TSConfig
	if len(raw.CompilerOptions) > 0 {
		if err := json.Unmarshal(raw.CompilerOptions, &c.CompilerOptions); err != nil {
			return nil, err
		}
	}
	var one string
	if json.Unmarshal(raw.Extends, &one) == nil {
		c.Extends = []string{one}
	} else {
		_ = json.Unmarshal(raw.Extends, &c.Extends)
	}
	return &c, nil
}
