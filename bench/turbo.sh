#!/usr/bin/env bash
# core side by side with Turborepo on one npm-workspaces monorepo (results:
# BENCHMARKS.md, "Side by side with Turborepo"). bench/turbo writes N
# packages in a layered DAG whose edges are only in the package.json files
# (targets.yaml names no project deps), `npm install` makes the lockfile,
# and turbo is installed from npm at a pinned version. Then:
#
#   1. a cold run of every build, each tool from an empty cache (once);
#   2. what each tool rebuilds after a change, side by side: a package's
#      build script, one of its source files, the shared config, and the
#      lockfile (an external package moved to another version in range),
#      and `core hash --diff` on the script change;
#   3. ROUNDS fully cached runs, interleaved, each after an untimed run of
#      the same tool and a second's pause (the previous run's writes
#      settle), medians and their ratio.
#
# Both run `npm run build` in each package, two at a time.
#
# Usage: bench/turbo.sh        (~3 min; needs node and npm, and the npm registry)
# Knobs: N=200 ROUNDS=9 TURBO_VERSION=2.11.11 OUT=/tmp/core-bench-turbo
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
ROUNDS=${ROUNDS:-9}
TURBO_VERSION=${TURBO_VERSION:-2.11.11}
OUT=${OUT:-/tmp/core-bench-turbo}
rm -rf "$OUT" && mkdir -p "$OUT/tools"
go build -o "$OUT/core" ./cmd/core
go run ./bench/turbo -out "$OUT/ws" -n "$N" -npm "$(npm --version)"
(cd "$OUT/tools" && npm install --no-audit --no-fund --loglevel=error "turbo@$TURBO_VERSION" >/dev/null)
TURBO="$OUT/tools/node_modules/.bin/turbo"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 NO_UPDATE_NOTIFIER=1
cd "$OUT/ws"
npm install --no-audit --no-fund --loglevel=error >/dev/null
git init -q && git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm workspace

echo "# bench/turbo.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs; $(go version | cut -d' ' -f3-); node $(node --version), npm $(npm --version), turbo $("$TURBO" --version); $N packages; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Both tools run in the same bare environment: turbo passes its tasks only
# the variables it knows of (its strict mode), core the whole environment,
# and this machine's NODE_EXTRA_CA_CERTS costs every node start 50-100 ms.
bare=(env -i PATH="$PATH" HOME="$HOME" NO_UPDATE_NOTIFIER=1)
core_run() { "${bare[@]}" CORE_CONCURRENCY=2 "$OUT/core" run build > "$OUT/core.out" 2> "$OUT/core.err"; }
turbo_run() { "${bare[@]}" TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 "$TURBO" run build --concurrency=2 --ui=stream --output-logs=hash-only > "$OUT/turbo.out" 2>&1; }
# The packages each run built (not served from its cache), sorted.
core_built() { sed -n 's/^\[[0-9]*\/[0-9]*\] ✔ \(p[0-9]*\):build .*/\1/p' "$OUT/core.err" | sort; }
turbo_built() { sed -n 's/^@bench\/\(p[0-9]*\):build: cache miss.*/\1/p' "$OUT/turbo.out" | sort; }
ms() { echo $((($2 - $1) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo
echo "## Cold: every build from an empty cache"
echo
rm -rf .core packages/*/dist
t0=$(date +%s%N); core_run; t1=$(date +%s%N)
cold_core=$(ms "$t0" "$t1"); n_core=$(core_built | wc -l)
mid=$(printf 'p%03d' $((N / 4)))
# Journals rotate: the id of mid's build is kept now, for core hash --diff.
last_build() { "$OUT/core" runs --target "$mid:build" --limit 0 | awk '$3 == "succeeded" {print $1; exit}'; }
before=$(last_build)
rm -rf .turbo packages/*/dist
t0=$(date +%s%N); turbo_run; t1=$(date +%s%N)
cold_turbo=$(ms "$t0" "$t1"); n_turbo=$(turbo_built | wc -l)
echo "| | core | turbo | core / turbo |"
echo "| --- | ---: | ---: | ---: |"
echo "| cold run, $N builds | $cold_core ms ($n_core built) | $cold_turbo ms ($n_turbo built) | $(awk -v a="$cold_core" -v b="$cold_turbo" 'BEGIN {printf "%.2fx", a/b}') |"
# turbo restored nothing of core's and the other way round: both caches
# now hold every build, and the outputs on disk are turbo's (the same bytes).

echo
echo "## What a change rebuilds"
echo
echo "| change | core rebuilt | turbo rebuilt | the same set? |"
echo "| --- | ---: | ---: | --- |"
compare() { # label
	core_run; turbo_run
	local c t
	c=$(core_built); t=$(turbo_built)
	local same="yes"
	[ "$c" = "$t" ] || same="no: core only $(comm -23 <(echo "$c") <(echo "$t") | grep -c . || true), turbo only $(comm -13 <(echo "$c") <(echo "$t") | grep -c . || true)"
	echo "| $1 | $(echo "$c" | grep -c . || true) | $(echo "$t" | grep -c . || true) | $same |"
	echo "$c" > "$OUT/core.$2"; echo "$t" > "$OUT/turbo.$2"
}
node -e "const f='packages/$mid/package.json', p=require('./'+f); p.scripts.build += ' --release'; require('fs').writeFileSync(f, JSON.stringify(p, null, 2) + '\n')"
compare "$mid's scripts.build in its package.json" script
after=$(last_build)
echo "// one more line" >> "packages/$mid/src/index.js"
compare "a line added to $mid/src/index.js" source
echo '{"compilerOptions": {"target": "es2023", "strict": true}}' > tsconfig.base.json
compare "tsconfig.base.json (global in both)" config
integrity=$(npm view ms@2.1.2 dist.integrity)
node -e "const f='package-lock.json', l=require('./'+f), m=l.packages['node_modules/ms']; m.version='2.1.2'; m.integrity='$integrity'; require('fs').writeFileSync(f, JSON.stringify(l, null, 2) + '\n')"
compare "package-lock.json: ms 2.1.3 → 2.1.2 ($(grep -l '"ms"' packages/*/package.json | wc -l) packages depend on it)" lockfile


echo
echo "core hash --diff on the script change ($mid, its last two builds):"
echo
echo '```'
"$OUT/core" hash --diff "$before" "$after" 2>&1 | head -20 || true
echo '```'

echo
echo "## Fully cached: every build served from the cache ($ROUNDS interleaved rounds)"
echo
: > "$OUT/cached.core"; : > "$OUT/cached.turbo"
core_run; turbo_run # both caches hold the last change
# Each timed run follows an untimed one of the same tool: what is measured is
# running it again with nothing changed, as a user does. (Right after the
# other tool, whose restore rewrote every output, core restores them all.)
for _ in $(seq "$ROUNDS"); do
	core_run; sleep 1; t0=$(date +%s%N); core_run; t1=$(date +%s%N); ms "$t0" "$t1" >> "$OUT/cached.core"
	[ "$(core_built | grep -c . || true)" = 0 ] || { echo "core rebuilt something in a cached run" >&2; exit 1; }
	turbo_run; sleep 1; t0=$(date +%s%N); turbo_run; t1=$(date +%s%N); ms "$t0" "$t1" >> "$OUT/cached.turbo"
	[ "$(turbo_built | grep -c . || true)" = 0 ] || { echo "turbo rebuilt something in a cached run" >&2; exit 1; }
done
c=$(median < "$OUT/cached.core"); t=$(median < "$OUT/cached.turbo")
echo "| | core | turbo | core / turbo (goal ≤ 0.5x) |"
echo "| --- | ---: | ---: | ---: |"
echo "| cached run, $N builds (median) | $c ms | $t ms | **$(awk -v a="$c" -v b="$t" 'BEGIN {printf "%.2fx", a/b}')** |"
echo
echo "rounds, core: $(tr '\n' ' ' < "$OUT/cached.core")ms; turbo: $(tr '\n' ' ' < "$OUT/cached.turbo")ms"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
