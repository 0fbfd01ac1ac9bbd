package runner

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/corehq/core/internal/manifest"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// A target's environment: package targetenv says what reaches its process
// (strict: the base and what targets.yaml lists; loose: everything), the
// runner reads core's environment once per run (Options.Environ) and puts
// in the key the mode, the values of the variables env: names (the
// target's and the workspace's) and the names pass_env: lists.

// envVar is a variable of a key: its name, whether it is set, its value.
type envVar struct {
	name, value string
	set         bool
}

// envPart is what a key holds of the environment.
type envPart struct {
	mode      string
	own       []envVar // the target's env:
	workspace []envVar // the top-level env:
	// workspacePass is the top-level pass_env: (the target's own is in
	// its declaration).
	workspacePass []string
}

// envOf reads the values of t's env: and the workspace's from the run's
// environment.
func (k *keyer) envOf(t *workspace.Target) envPart {
	read := func(names []string) []envVar {
		out := make([]envVar, len(names))
		for i, name := range names {
			v, set := k.env.Lookup(name)
			out[i] = envVar{name: name, value: v, set: set}
		}
		return out
	}
	return envPart{mode: k.env.Mode(), own: read(t.Env), workspace: read(k.ws.Env), workspacePass: k.ws.PassEnv}
}

// lists are the names and prefixes targets.yaml passes to t: what is in
// its key and what is passed without being in it, its own and the
// workspace's.
func (k *keyer) lists(t *workspace.Target) [][]string { return targetenv.Lists(k.ws, t) }

// processEnv is the whole environment of t's process (and of its
// toolchain's version command), which runs in dir.
func (k *keyer) processEnv(t *workspace.Target, dir string) []string {
	return k.env.For(dir, k.lists(t)...)
}

// hintFileMax bounds a file a failed command names that its hint reads.
const hintFileMax = 256 << 10

// hints names the variables t (run in dir) did not get and may have needed,
// after it failed with output: those its command, the package.json script
// it runs, a file either of them names or its output mentions (package
// targetenv, Hints). Strict mode only; nothing when none was withheld.
func (k *keyer) hints(t *workspace.Target, dir, output string) []targetenv.Hint {
	withheld := k.env.Withheld(k.lists(t)...)
	if len(withheld) == 0 {
		return nil
	}
	sources := []targetenv.Source{{Where: "its command", Text: strings.Join(t.Run, " ")}}
	words := t.Run
	if name := scriptName(t.Run); name != "" {
		if script := packageScript(dir, name); script != "" {
			sources = append(sources, targetenv.Source{Where: "its package.json script " + name, Text: script})
			words = append(append([]string(nil), words...), strings.Fields(script)...)
		}
	}
	read := 0
	for _, w := range words {
		if read == 8 || !strings.ContainsAny(w, "/.") || strings.HasPrefix(w, "-") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > hintFileMax {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		read++
		sources = append(sources, targetenv.Source{Where: w + ", which its command runs", Text: string(data)})
	}
	sources = append(sources, targetenv.Source{Where: "its output", Text: output, Output: true})
	return targetenv.Hints(withheld, sources)
}

// packageScript is the text of the script name of the package.json in dir
// ("" when there is none).
func packageScript(dir, name string) string {
	data, err := manifest.Read(dir, "package.json")
	if err != nil {
		return ""
	}
	scripts, err := manifest.PackageScripts(data)
	if err != nil {
		return ""
	}
	return scripts[name]
}
