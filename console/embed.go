// Package console embeds the built explorer (console/gen, built from this
// directory's TypeScript sources with Vite) so that the binary serves it at
// /console/graph/ without a separate install. CORE_CONSOLE_DIR serves
// another build instead.
package console

import (
	"embed"
	"io/fs"
)

//go:embed all:gen
var files embed.FS

// Built is the built console: index.html and its assets.
func Built() fs.FS {
	sub, err := fs.Sub(files, "gen")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}
