package testbed

import (
	"os"
	"path/filepath"
	"strings"
)

// ArmPrograms configures r the way a hostile repository could: every
// program its configuration can name for git to run (an fsmonitor hook,
// hooks, clean, smudge and process filters, a merge driver, textconv, an
// external diff and a diff driver's command, a pager, a signature
// verifier) is a script that appends its role to a marker file, and
// .git/info/attributes gives every path those drivers (by three names: a
// plain one, one with a dot and one with "="). HEAD is rewritten to a
// commit carrying a signature, so that log.showSignature would verify it.
//
// It returns the marker's path; the file does not exist until a program
// runs. Call it after the commits a test needs: git run by r.Git would run
// the programs too (ArmPrograms itself runs none of them).
func (r *GitRepo) ArmPrograms() string {
	r.T.Helper()
	dir := r.T.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "mark.sh")
	// Filters and textconv pass the content through, so that git goes on
	// (and would run the next program) rather than stopping at the first.
	body := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + shellQuote(marker) + "\n" +
		"case \"$1\" in clean|smudge) cat ;; textconv) cat \"$2\" ;; esac\nexit 0\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		r.T.Fatal(err)
	}
	run := func(role string) string { return "sh " + shellQuote(script) + " " + role }
	// gpg.program is run without a shell, so it is a script of its own.
	gpg := filepath.Join(dir, "gpg.sh")
	if err := os.WriteFile(gpg, []byte("#!/bin/sh\n"+run("gpg")+"\n"), 0o755); err != nil {
		r.T.Fatal(err)
	}
	// A signed HEAD: the same commit with a gpgsig header.
	raw := r.Git("cat-file", "commit", "HEAD")
	head, msg, _ := strings.Cut(raw, "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + msg + "\n"
	f := filepath.Join(dir, "signed")
	if err := os.WriteFile(f, []byte(signed), 0o644); err != nil {
		r.T.Fatal(err)
	}
	id := r.Git("hash-object", "-t", "commit", "-w", f)
	r.Git("update-ref", "HEAD", id)

	hooks := filepath.Join(dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		r.T.Fatal(err)
	}
	for _, h := range []string{"post-checkout", "pre-auto-gc", "post-index-change", "reference-transaction"} {
		for _, d := range []string{hooks, filepath.Join(r.Dir, ".git", "hooks")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				r.T.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, h), []byte("#!/bin/sh\n"+run("hook-"+h)+"\n"), 0o755); err != nil {
				r.T.Fatal(err)
			}
		}
	}

	attrs := "* filter=evil diff=evil merge=evil\n*.dot filter=ev.il\n*.eq filter=ev=il\n"
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "attributes"), []byte(attrs), 0o644); err != nil {
		r.T.Fatal(err)
	}
	set := [][2]string{
		{"core.fsmonitor", run("fsmonitor")},
		{"core.hooksPath", hooks},
		{"core.pager", run("pager")},
		{"pager.diff", run("pager-diff")},
		{"diff.external", run("external")},
		{"diff.evil.command", run("diff-command")},
		{"diff.evil.textconv", run("textconv")},
		{"merge.evil.driver", run("merge")},
		{"merge.renormalize", "true"}, // a merge cleans blobs with the filters
		{"log.showSignature", "true"},
		{"gpg.program", gpg},
	}
	for _, name := range []string{"evil", "ev.il", "ev=il"} {
		set = append(set,
			[2]string{"filter." + name + ".clean", run("clean")},
			[2]string{"filter." + name + ".smudge", run("smudge")},
			[2]string{"filter." + name + ".required", "true"})
	}
	set = append(set, [2]string{"filter.ev=il.process", run("process")})
	for _, kv := range set {
		// git config only writes the file: it runs none of these.
		r.Git("config", kv[0], kv[1])
	}
	return marker
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
