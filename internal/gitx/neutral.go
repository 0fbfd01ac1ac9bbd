package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// neutral is the configuration every git command core runs is given,
// overriding the repository's: paths unquoted, and none of the programs a
// configuration can name for a command that reads a repository. No
// fsmonitor hook (git 2.36 and later take false; an older git runs
// /bin/false, fails and scans), no hooks (git worktree add runs
// post-checkout), no signature verification (log.showSignature, or a
// format's %G?, would run gpg.program: emptied, git cannot run it). A
// pager runs only on a terminal, which core never gives git; --no-pager
// says so anyway.
var neutral = []string{
	"-c", "core.quotepath=off",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "log.showSignature=false",
	"-c", "gpg.program=",
	"-c", "gpg.openpgp.program=",
	"-c", "gpg.x509.program=",
	"-c", "gpg.ssh.program=",
}

// diffing are the subcommands that take diff options: each is given
// --no-ext-diff (diff.external, diff.<driver>.command) and --no-textconv
// (diff.<driver>.textconv) right after its name, whatever the caller
// passed.
var diffing = map[string]bool{"diff": true, "log": true, "show": true, "diff-tree": true, "diff-index": true, "diff-files": true}

// noDrivers are the subcommands core runs that read only refs, commits,
// trees, configuration or attributes: none converts a working-tree file
// (a clean or smudge filter) or merges (a merge driver), so they skip the
// drivers look-up and the process it costs. Any other subcommand gets it,
// ls-files too (its -m runs clean filters on racily clean entries).
var noDrivers = map[string]bool{
	"rev-parse": true, "symbolic-ref": true, "merge-base": true, "for-each-ref": true, "rev-list": true,
	"log": true, "diff-tree": true, "config": true, "version": true, "remote": true, "check-attr": true,
}

// Environment variables holding the values of the --config-env overrides,
// for driver names that a -c could not carry.
const (
	emptyEnv = "CORE_GIT_EMPTY"
	falseEnv = "CORE_GIT_FALSE"
)

// driverKeys are the configuration keys that name a program a working-tree
// conversion or a merge runs; drivers lists the repository's.
const driverKeys = `^(filter|merge)\..+\.(clean|smudge|process|required|driver)$`

// drivers returns the global options that switch off every filter and merge
// driver the configuration of dir defines (its own, included, global and
// system files): clean, smudge and process empty (git then converts
// nothing), required false (an empty required filter would fail the
// command), a merge driver empty (git cannot run it, and a merge that
// needs it fails rather than running the repository's program). Drivers
// are found by name, because the attribute that selects one can come from
// any .gitattributes, and git 2.39 cannot be told to ignore those.
//
// An error means the configuration could not be read; the command is then
// not run (Command sets cmd.Err).
func drivers(ctx context.Context, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "-C", dir, "config", "-z", "--get-regexp", driverKeys)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, nil // no such key
	case errors.Is(err, exec.ErrNotFound):
		return nil, ErrNotInstalled
	case err != nil:
		return nil, fmt.Errorf("read the git configuration of %s to keep its filter and merge drivers from running: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	return driverOverrides(out), nil
}

// driverOverrides turns `git config -z --get-regexp driverKeys` output
// ("key\nvalue\0" records) into the options that empty each driver found.
func driverOverrides(out []byte) []string {
	var opts []string
	seen := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, _, _ := bytes.Cut(rec, []byte{'\n'})
		section, rest, ok := strings.Cut(string(key), ".")
		dot := strings.LastIndexByte(rest, '.')
		if !ok || dot < 0 {
			continue
		}
		name := rest[:dot]
		if seen[section+"."+name] {
			continue
		}
		seen[section+"."+name] = true
		prefix := section + "." + name + "."
		switch section {
		case "filter":
			opts = appendOverride(opts, prefix+"clean", "", emptyEnv)
			opts = appendOverride(opts, prefix+"smudge", "", emptyEnv)
			opts = appendOverride(opts, prefix+"process", "", emptyEnv)
			opts = appendOverride(opts, prefix+"required", "false", falseEnv)
		case "merge":
			opts = appendOverride(opts, prefix+"driver", "", emptyEnv)
		}
	}
	return opts
}

// appendOverride sets key to value for one command: with -c, which any
// git takes, unless the key holds "=" (a driver's name may), which -c
// would split at; then with --config-env (git 2.31 and later: an older git
// refuses the option, and the command fails rather than run the driver).
func appendOverride(opts []string, key, value, env string) []string {
	if strings.Contains(key, "=") {
		return append(opts, "--config-env="+key+"="+env)
	}
	return append(opts, "-c", key+"="+value)
}

// subcommand is the index in args of git's subcommand (the first argument
// that is not a global option or its value), or -1.
func subcommand(args []string) int {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++ // the option's value
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return -1
}
