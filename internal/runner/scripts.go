package runner

import (
	"fmt"
	"path"
	"path/filepath"

	"github.com/corehq/core/internal/manifest"
	"github.com/corehq/core/internal/parallel"
)

// scriptName is the package.json script an argv runs (npm run X, npm X for
// npm's own lifecycle names, pnpm [run] X, yarn [run] X, bun run X), or "".
func scriptName(argv []string) string {
	if len(argv) < 2 {
		return ""
	}
	tool, rest := filepath.Base(argv[0]), argv[1:]
	switch tool {
	case "npm":
		switch rest[0] {
		case "run", "run-script":
			if len(rest) > 1 {
				return rest[1]
			}
			return ""
		case "test", "start", "stop", "restart":
			return rest[0]
		}
	case "pnpm", "yarn":
		if rest[0] == "run" {
			if len(rest) > 1 {
				return rest[1]
			}
			return ""
		}
		if rest[0] == "test" || rest[0] == "build" || rest[0] == "lint" {
			return rest[0]
		}
	case "bun":
		if rest[0] == "run" && len(rest) > 1 {
			return rest[1]
		}
	}
	return ""
}

// checkScripts refuses, before anything runs, a target whose argv runs a
// package.json script its project does not have, as the workspace's load
// read its package.json (else read here). (What the script says is in
// the key: package.json is an input of every target of its project.)
// The targets are checked on every core; the first refusal in order is
// the one said.
func checkScripts(root string, order []*node) error {
	mr := manifest.NewReader(root) // the root opened once for all
	defer mr.Close()
	errs := make([]error, len(order))
	parallel.For(len(order), func(i int) { errs[i] = checkScript(root, mr, order[i]) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkScript(root string, mr *manifest.Reader, n *node) error {
	name := scriptName(n.t.Run)
	if name == "" {
		return nil
	}
	pj := filepath.Join(root, filepath.FromSlash(n.p.Path), "package.json")
	// As the workspace's load read it; read here only when it read none,
	// to say why.
	has, known := n.p.Script(name)
	if !known {
		data, err := mr.Read(path.Join(n.p.Path, "package.json"))
		if err != nil {
			return fmt.Errorf("run: %s runs the package.json script %q, but %s cannot be read: %v", n.t.ID(), name, rel(root, pj), err)
		}
		scripts, err := manifest.PackageScripts(data)
		if err != nil {
			return fmt.Errorf("run: %s is not valid JSON (%v): %s runs one of its scripts", rel(root, pj), err, n.t.ID())
		}
		_, has = scripts[name]
	}
	if !has {
		return fmt.Errorf("run: %s runs the script %q, which %s does not define: add it under \"scripts\", or fix the target's run", n.t.ID(), name, rel(root, pj))
	}
	return nil
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
