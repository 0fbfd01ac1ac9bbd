package main

import "testing"

func TestDoctorFindsTheProgramBehindAWrapper(t *testing.T) {
	for _, c := range []struct {
		argv       []string
		shell, npx string
	}{
		{[]string{"sh", "-c", "tsc -b && node dist/x.js"}, "tsc", ""},
		{[]string{"bash", "-c", "  eslint ."}, "eslint", ""},
		{[]string{"sh", "-c", "cd web && vite build"}, "", ""}, // a builtin first: not a program
		{[]string{"sh", "-c", "./scripts/gen"}, "", ""},        // a path: not on the PATH
		{[]string{"sh", "script.sh"}, "", ""},
		{[]string{"npx", "prettier", "--check", "."}, "", "prettier"},
		{[]string{"npx", "--yes", "-p", "typescript", "tsc"}, "", "tsc"},
		{[]string{"npx", "prettier@3", "."}, "", ""}, // a spec with a version: npx's to resolve
		{[]string{"npx", "-c", "eslint ."}, "", ""},
		{[]string{"npm", "run", "build"}, "", ""},
	} {
		if got, _ := shellProgram(c.argv); got != c.shell {
			t.Errorf("shellProgram(%q) = %q, want %q", c.argv, got, c.shell)
		}
		if got, ok := npxProgram(c.argv); ok && got != c.npx || !ok && c.npx != "" {
			t.Errorf("npxProgram(%q) = %q, %v, want %q", c.argv, got, ok, c.npx)
		}
	}
}
