#!/usr/bin/env bash
# CI shards benchmark (results: BENCHMARKS.md, "CI shards (issue 35)").
# Generates a workspace of PACKAGES packages, each with a build and a test
# whose commands sleep for a fixed, seeded time (builds 20-100 ms, tests
# 100-700 ms; a package depends on up to two of the ten before it), then:
#   1. one machine: a cold `core run test` (its journals are the history);
#   2. SHARDS machines: SHARDS fresh clones, each a cold
#      `core run test --shard I/SHARDS --history <1's journals>`, all at
#      once, sharing an nginx remote cache (read-write), as CI runners do.
# Every run has CORE_CONCURRENCY=$SLOTS slots. The targets sleep, so the
# machines being processes on one host costs little; core's own work per
# target is in both. It prints the walls, their ratio, and the plan's lower
# bound as a ratio of the total work.
#
# Usage: bench/shards.sh        (~1 min; needs nginx: Debian's nginx-light)
# Knobs: PACKAGES=100 SHARDS=4 SLOTS=1; KEEP=1 keeps the workspaces and logs
set -euo pipefail
cd "$(dirname "$0")/.."
packages=${PACKAGES:-100}
shards=${SHARDS:-4}
slots=${SLOTS:-1}
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
scripts/cache-server "$tmp/server" "127.0.0.1:$port" 2>"$tmp/server.log" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; if [ -n "${KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/cache/" && break; sleep 0.05; done
go build -o "$tmp/core" ./cmd/core

python3 - "$tmp/ws" "$packages" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(35)
y = ["projects:"]
for i in range(n):
    name = f"p{i:03d}"
    os.makedirs(f"{root}/{name}")
    open(f"{root}/{name}/src.txt", "w").write(name + "\n")
    deps = sorted(set(f"p{j:03d}" for j in r.sample(range(max(0, i - 10), i), min(i, r.randint(0, 2)))))
    b, t = r.randint(20, 100) / 1000, r.randint(100, 700) / 1000
    y.append(f"  {name}:\n    path: {name}\n    deps: [{', '.join(deps)}]\n    targets:")
    y.append(f"      build: {{run: [sleep, '{b}'], inputs: ['**'], deps: ['^build']}}")
    y.append(f"      test: {{run: [sleep, '{t}'], inputs: ['**'], deps: [build]}}")
open(f"{root}/targets.yaml", "w").write("\n".join(y) + "\n")
EOF
(cd "$tmp/ws" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@example.com -c commit.gpgsign=false commit -qm base)

env_of() { env -u CORE_CACHE_REMOTE_URL HOME="$tmp/home" CORE_CONCURRENCY="$slots" "$@"; }
now() { date +%s.%N; }

echo "# bench/shards.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs; $(go version | cut -d' ' -f3-); commit $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workspace: $packages packages, $((2 * packages)) targets; $shards shards; $slots slot(s) per machine"
echo

cp -a "$tmp/ws" "$tmp/one"
t0=$(now)
env_of "$tmp/core" --workspace "$tmp/one" run test --color never >/dev/null 2>"$tmp/one.log"
t1=$(now)
one=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
mkdir -p "$tmp/history" && cp -a "$tmp/one/.core/runs" "$tmp/history/one"

"$tmp/core" --workspace "$tmp/ws" ci plan --shards "$shards" test --history "$tmp/history" --json >"$tmp/plan.json"
"$tmp/core" --workspace "$tmp/ws" ci plan --shards "$shards" test --history "$tmp/history" | sed -n 1,2p

for i in $(seq "$shards"); do cp -a "$tmp/ws" "$tmp/shard$i"; done # the runners' checkouts, before the clock
pids=()
t0=$(now)
for i in $(seq "$shards"); do
  env_of CORE_CACHE_REMOTE_URL="http://127.0.0.1:$port/cache" CORE_CACHE_REMOTE_MODE=read-write \
    "$tmp/core" --workspace "$tmp/shard$i" run test --shard "$i/$shards" --history "$tmp/history" --color never >/dev/null 2>"$tmp/shard$i.log" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(now)
sharded=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
mkdir -p "$tmp/artifacts"
for i in $(seq "$shards"); do cp -a "$tmp/shard$i/.core/runs" "$tmp/artifacts/shard-$i"; done
"$tmp/core" --workspace "$tmp/ws" ci report "$tmp/artifacts" | sed -n 1p
twice=$("$tmp/core" --workspace "$tmp/ws" ci report "$tmp/artifacts" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("ran_twice") or []))')

python3 - "$tmp/plan.json" "$one" "$sharded" "$twice" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
one, sharded, twice = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
total, lb, longest = p["total_ms"] / 1000, p["lower_bound_ms"] / 1000, p["longest_ms"] / 1000
print()
print("| run | wall | vs one machine |")
print("| --- | ---: | ---: |")
print(f"| one machine, cold | {one:.2f} s | 1.00× |")
print(f"| {p['shards']} shards, cold, at once | {sharded:.2f} s | **{sharded / one:.2f}×** |")
print(f"| the plan's lower bound, max(total ÷ N, chain) | {lb:.2f} s of {total:.2f} s | {lb / total:.2f}× of the work |")
print(f"| the plan's longest shard | {longest:.2f} s | {longest / total:.2f}× of the work ({longest / lb:.2f}× the bound) |")
print()
print(f"targets whose command ran on two shards (needed before the cache had them): {twice}")
EOF
