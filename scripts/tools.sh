# Sourced by the scripts in this directory: installs the pinned developer tools
# into .cache/bin (once per version) and puts them first on PATH. Each tool is
# installed with `go install pkg@version`, so its own module graph decides its
# dependencies and none of them reach core's go.mod.
BUF_VERSION=v1.75.0
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_CONNECT_GO_VERSION=v1.21.1
STATICCHECK_VERSION=v0.8.2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
toolbin="$root/.cache/bin"
mkdir -p "$toolbin"
export PATH="$toolbin:$PATH"

# install_tool NAME PACKAGE VERSION
install_tool() {
  local stamp="$toolbin/.$1-$3"
  if [ ! -x "$toolbin/$1" ] || [ ! -f "$stamp" ]; then
    echo "installing $1 $3 ..." >&2
    GOBIN="$toolbin" go install "$2@$3"
    rm -f "$toolbin/.$1-"*
    touch "$stamp"
  fi
}
