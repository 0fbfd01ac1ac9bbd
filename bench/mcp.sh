#!/usr/bin/env bash
# core's /mcp on core's own repository, as a coding agent uses it (results:
# BENCHMARKS.md, "MCP answers"). A clone of SRC_REPO at HEAD, whose change
# is the one against BASE (default HEAD~150: a few hundred files); a server
# started on it (index warm) and an mcp token; then bench/mcp calls every
# tool (each row's largest answer and its median latency, against a bare
# MCP round trip measured in the same run) and times run_affected against
# `core run --affected test --base BASE` on the CLI, interleaved, over the
# same cache.
#
# The cache is filled first by one untimed `core run --affected test`. So
# that this takes seconds, not the half hour of every affected project's
# go test (and e2e -race) on a shared 2-CPU machine, the clone's
# targets.yaml runs `true` for the test targets: a cached run never starts
# the command, so what both sides do (the affected targets, their keys,
# the cache's answers, the stored output replayed) is the same; the
# stored outputs are empty rather than go test's, and the run's
# failing-test parse has nothing to read.
#
# Usage: bench/mcp.sh     Knobs: SRC_REPO=. BASE=HEAD~150 REPS=5 RUN_REPS=5
#                         OUT=/tmp/core-bench-mcp
#                         CORE_BIN=path (a core built elsewhere, e.g. an
#                         older commit's, instead of this tree's)
#                         TOOLS=0 (run_affected against the CLI only)
# The machine is shared and noisy: compare the ratios, which come from the
# same run, rather than absolute times across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
SRC_REPO=${SRC_REPO:-$repo}
BASE=${BASE:-HEAD~150}
REPS=${REPS:-5}
RUN_REPS=${RUN_REPS:-5}
OUT=${OUT:-/tmp/core-bench-mcp}
CORE_BIN=${CORE_BIN:-}
TOOLS=${TOOLS:-1}
rm -rf "$OUT" && mkdir -p "$OUT"

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), $(git version); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$CORE_BIN" ]; then cp "$CORE_BIN" "$OUT/core"; else go build -o "$OUT/core" ./cmd/core; fi
go build -o "$OUT/mcp" ./bench/mcp

ws="$OUT/core-repo"
git clone -q "$SRC_REPO" "$ws"
echo "workspace: core at $(git -C "$ws" rev-parse --short HEAD), the change against $BASE ($(git -C "$ws" rev-parse --short "$BASE")): $(git -C "$ws" diff --name-only "$BASE" | wc -l) files"
sed -i -E 's/run: \[go, test, (-race, )?(\.|\.\/\.\.\.)\]/run: [true]/' "$ws/targets.yaml"
grep -q 'run: \[go, test' "$ws/targets.yaml" && { echo "a test target still runs go test"; exit 1; }

export CORE_CACHE_DIR="$OUT/cache"
"$OUT/core" --workspace "$ws" run --affected test --base "$BASE" --color never >"$OUT/fill.log" 2>&1 || { tail -20 "$OUT/fill.log"; exit 1; }
echo "cache filled: $(tail -n1 "$OUT/fill.log")"

CORE_SERVER_ADDRESS=127.0.0.1:0 "$OUT/core" --workspace "$ws" server start >"$OUT/server.log" 2>"$OUT/server.err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
	grep -q '^core server: serving' "$OUT/server.log" && break
	sleep 0.1
done
url=$(grep '^core server: serving' "$OUT/server.log" | awk '{print $NF}')
tok=$("$OUT/core" --workspace "$ws" config mcp token create | tail -n1)
# Warm: the graph, the symbols and git's caches, one call each.
"$OUT/core" --workspace "$ws" describe graph >/dev/null 2>&1 || true

"$OUT/mcp" -url "$url" -token "$tok" -core "$OUT/core" -ws "$ws" -base "$BASE" -reps "$REPS" -run-reps "$RUN_REPS" -tools="$([ "$TOOLS" = 0 ] && echo false || echo true)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
