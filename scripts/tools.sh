# Sourced by the scripts in this directory: installs the pinned developer
# tools, once per version, and puts them first on PATH.
#
# A tool is kept in the user's cache, outside the clone
# ($XDG_CACHE_HOME/core/tools/NAME@VERSION; CORE_TOOLS_DIR overrides), so a
# second clone, or a fresh one on the same CI machine, builds nothing; the
# clone's .cache/bin links to the versions it pins. When that directory
# cannot be written, the tools go into the clone's .cache/tools.
#
# Go tools are built with `go install pkg@version`, so their own module
# graph decides their dependencies and none reach core's go.mod. buf comes
# prebuilt from npm (@bufbuild/buf, the binary buf publishes): building it
# from source was most of a fresh clone's tool time.
BUF_VERSION=v1.75.0
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_CONNECT_GO_VERSION=v1.21.1
STATICCHECK_VERSION=v0.8.2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="${CORE_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/core/tools}"
if ! mkdir -p "$tools" 2>/dev/null || [ ! -w "$tools" ]; then
  tools="$root/.cache/tools"
  mkdir -p "$tools"
fi
toolbin="$root/.cache/bin"
mkdir -p "$toolbin"
export PATH="$toolbin:$PATH"

# link_tool NAME BINARY: the clone's NAME is BINARY.
link_tool() { ln -sfn "$2" "$toolbin/$1"; }

# install_tool NAME PACKAGE VERSION: a Go tool.
install_tool() {
  local dir="$tools/$1@$3"
  if [ ! -x "$dir/$1" ]; then
    echo "installing $1 $3 into $dir ..." >&2
    rm -rf "$dir.tmp"
    GOBIN="$dir.tmp" go install "$2@$3"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  link_tool "$1" "$dir/$1"
}

# install_buf: buf at BUF_VERSION, from npm.
install_buf() {
  local dir="$tools/buf@$BUF_VERSION"
  if [ ! -x "$dir/node_modules/.bin/buf" ]; then
    echo "installing buf $BUF_VERSION into $dir ..." >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    npm install --prefix "$dir.tmp" --no-audit --no-fund --loglevel=error --no-save "@bufbuild/buf@${BUF_VERSION#v}" >/dev/null
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  link_tool buf "$dir/node_modules/.bin/buf"
}
