#!/usr/bin/env bash
# Remote build cache benchmark (results: BENCHMARKS.md, "Remote cache").
# Starts nginx with scripts/cache-server on a free loopback port and runs
# bench/remote against it: a full remote-hit run of TARGETS targets with
# outputs against a full local-hit run, and the transfer against curl
# fetching the same blobs from the same server.
#
# Usage: bench/remote.sh      (~2 min; needs nginx: Debian's nginx-light)
# Knobs: TARGETS=1000 SIZE=65536 ROUNDS=5
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
scripts/cache-server "$tmp/server" "127.0.0.1:$port" 2>"$tmp/server.log" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/cache/" && break; sleep 0.05; done
echo "# bench/remote.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(go version | cut -d' ' -f3-); $(nginx -v 2>&1 | cut -d: -f2- | sed 's/^ //'); $(curl --version | head -1 | cut -d' ' -f1-2); commit $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"
go run ./bench/remote -url "http://127.0.0.1:$port/cache" -targets "${TARGETS:-1000}" -size "${SIZE:-65536}" -rounds "${ROUNDS:-5}"
