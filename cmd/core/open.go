package main

import (
	"github.com/corehq/core/backend"

	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/corehq/core/console"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/server"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

// maxDataLink is the longest #data= link core hands a browser; beyond it,
// --serve is the way.
const maxDataLink = 1 << 20

func newOpenCmd(g *globals) *cobra.Command {
	var targets, serve, printOnly bool
	cmd := &cobra.Command{
		Use:   "open [--targets] [--serve] [--print]",
		Short: "Open the explorer on this workspace",
		Long: `Opens the explorer in a browser.

With a server running, the link is a pairing link,
{base_url}/console/graph/#token=<code>: the code is single-use and short-lived,
and the page trades it for a 12h console token (live mode). Without a server,
the graph travels in the link itself (#data=, compressed) and opens from a copy
of the console in the cache directory (snapshot mode). --serve runs a small
loopback server with a snapshot of the graph instead and opens it with #src=,
for browsers that refuse the other two. --targets shows the target graph.`,
		Example: "  core open\n  core open --targets --print\n  core open --serve",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.load(nil)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			show := func(link string) error {
				fmt.Fprintln(out, link)
				if !printOnly {
					openBrowser(cmd, link)
				}
				return nil
			}
			if serve {
				return serveSnapshot(cmd, e, targets, show)
			}
			if c, err := e.server(); err == nil {
				if off, err := probeConsole(cmd.Context(), c.st.BaseURL); err == nil && off != "" {
					return fmt.Errorf("the server at %s has no console (%s); `core open --serve` opens a snapshot instead", c.st.BaseURL, off)
				}
				link, err := pairingLink(cmd.Context(), c.client, c.st.BaseURL, targets)
				if err != nil {
					return err
				}
				return show(link)
			}
			data, err := snapshotGraph(e, targets)
			if err != nil {
				return err
			}
			link, err := dataLink(e.cacheDir, data, targets)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "no server is running: opening a snapshot (start one with `core server start` for live mode)")
			return show(link)
		},
	}
	cmd.Flags().BoolVar(&targets, "targets", false, "show the target graph")
	cmd.Flags().BoolVar(&serve, "serve", false, "serve a snapshot from a temporary loopback server and open it with #src=")
	cmd.Flags().BoolVar(&printOnly, "print", false, "print the link instead of opening a browser")
	return cmd
}

// pairingLink mints a one-time code with the admin credential and builds the
// link of the spec's pairing contract.
func pairingLink(ctx context.Context, client *http.Client, baseURL string, targets bool) (string, error) {
	code, err := pairingCode(ctx, client, baseURL)
	if err != nil {
		return "", err
	}
	return PairingURL(baseURL, code, targets), nil
}

// pairingCode mints a one-time code, which the console page trades for a
// console token, with the admin credential of client.
func pairingCode(ctx context.Context, client *http.Client, baseURL string) (string, error) {
	res, err := tokenv1alpha1connect.NewTokenServiceClient(client, baseURL).CreatePairingCode(ctx, &tokenv1alpha1.CreatePairingCodeRequest{})
	if err != nil {
		return "", fmt.Errorf("mint a pairing code: %w", err)
	}
	return res.GetCode(), nil
}

// PairingURL is {base_url}/console/graph/#token=<code>[&flavor=targets]: the
// code rides in the fragment, which browsers never send to a server.
func PairingURL(baseURL, code string, targets bool) string {
	link := baseURL + server.ConsolePath() + "#token=" + url.QueryEscape(code)
	if targets {
		link += "&flavor=targets"
	}
	return link
}

// RunsURL is {base_url}/console/runs/#token=<code>&run=<id>: the console's
// run viewer, paired as the explorer is, with the run to show beside the
// code in the fragment.
func RunsURL(baseURL, code, runID string) string {
	return baseURL + server.RunsPath() + "#token=" + url.QueryEscape(code) + "&run=" + url.QueryEscape(runID)
}

func snapshotGraph(e *env, targets bool) ([]byte, error) {
	if targets {
		g, err := e.local().TargetGraph()
		if err != nil {
			return nil, err
		}
		return g.Encode(), nil
	}
	g, err := e.local().Graph()
	if err != nil {
		return nil, err
	}
	return g.Encode(), nil
}

// dataLink copies the console into the cache directory and returns a
// file:// link carrying the graph, raw-DEFLATE-compressed and base64url
// encoded, in its fragment.
func dataLink(cacheDir string, data []byte, targets bool) (string, error) {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = zw.Write(data)
	_ = zw.Close()
	payload := base64.RawURLEncoding.EncodeToString(buf.Bytes())
	if len(payload) > maxDataLink {
		return "", fmt.Errorf("the graph is too big for a link (%d bytes compressed); use `core open --serve`, or start a server for live mode", buf.Len())
	}
	dir := backend.ConsoleCopy(cacheDir)
	if err := copyConsole(console.Built(), dir); err != nil {
		return "", err
	}
	link := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "index.html"))}).String() + "#data=" + payload
	if targets {
		link += "&flavor=targets"
	}
	return link, nil
}

// copyConsole writes the built console into dir for a file:// snapshot.
// No header comes with a file:// page, so its index.html gets the page
// policy in a <meta> tag (console.WithMetaCSP; a meta policy cannot say
// frame-ancestors, which browsers ignore there): a #src= to a foreign
// host is refused there as on the served page.
func copyConsole(files fs.FS, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		if p == "index.html" {
			if b, err = console.WithMetaCSP(b); err != nil {
				return err
			}
		}
		return backend.WriteFile(dst, b, 0o644)
	})
}

// serveSnapshot runs a loopback server with the console and one graph
// snapshot until interrupted.
func serveSnapshot(cmd *cobra.Command, e *env, targets bool, show func(string) error) error {
	data, err := snapshotGraph(e, targets)
	if err != nil {
		return err
	}
	srv, err := server.NewSnapshotServer(data, console.Built(), logx.New(cmd.ErrOrStderr(), "warn", e.cfg.Log.Format))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_ = show(srv.Link(targets))
	fmt.Fprintln(cmd.ErrOrStderr(), "serving a snapshot of the graph on "+srv.URL+"; Ctrl-C to stop")
	return srv.Serve(ctx)
}

// openBrowser hands a link to the desktop's opener; without one the printed
// link is the way.
func openBrowser(cmd *cobra.Command, link string) {
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	if err := exec.Command(opener, link).Start(); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "could not open a browser (%v); open the link above yourself\n", err)
	}
}
