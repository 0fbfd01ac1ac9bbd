#!/usr/bin/env bash
# Benchmarks of the insight lenses (results: BENCHMARKS.md, "Insight"), on
#   synthetic: bench/insight/histgen through git fast-import, COMMITS commits
#              (default 100,000) over 20,000 files in 200 projects, with
#              renames and bulk commits;
#   real:      a clone of core's own repository;
#   storm:     with STORM=N, 1,000 commits ending on a rename storm (N
#              identical files added, then all moved): the cold pass only.
# Each against git log --numstat -M on the same history, in the same run.
#
# Usage: bench/insight.sh      Knobs: COMMITS=100000 REPS=3 STORM=0 OUT=/tmp/core-bench-insight
set -euo pipefail
cd "$(dirname "$0")/.."
COMMITS=${COMMITS:-100000}
REPS=${REPS:-3}
STORM=${STORM:-0}
OUT=${OUT:-/tmp/core-bench-insight}
rm -rf "$OUT" && mkdir -p "$OUT"
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), $(git version); $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
go build -o "$OUT/core" ./cmd/core

syn="$OUT/synthetic"
git init -q "$syn"
start=$(date +%s)
go run ./bench/insight/histgen -commits "$COMMITS" | git -C "$syn" fast-import --quiet
git -C "$syn" checkout -q main
echo "synthetic history generated in $(( $(date +%s) - start ))s"
echo "== synthetic"
go run ./bench/insight -repo "$syn" -core "$OUT/core" -reps "$REPS"

real="$OUT/real"
git clone -q "$(pwd)" "$real"
echo "== real (core's own repository)"
go run ./bench/insight -repo "$real" -core "$OUT/core" -reps "$REPS"

if [ "$STORM" -gt 0 ]; then
  storm="$OUT/storm"
  git init -q "$storm"
  go run ./bench/insight/histgen -commits 1000 -files 2000 -projects 20 -storm "$STORM" | git -C "$storm" fast-import --quiet
  git -C "$storm" checkout -q main
  echo "== storm ($STORM identical files moved in one commit)"
  go run ./bench/insight -repo "$storm" -core "$OUT/core" -reps 1 -cold
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
