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
#   3. REBUILD_ROUNDS rebuilds of a low package's dependents (a new line in
#      LOW's source each round, so that both tools miss): the same set
#      rebuilt by both, wall and CPU time (the whole process tree) and the
#      tool's own CPU (its processes alone, bench/turbo/measure), medians
#      and their ratios; the tools alternate which goes first;
#   4. ROUNDS fully cached runs, interleaved, each after an untimed run of
#      the same tool and a second's pause (the previous run's writes
#      settle), medians and their ratio;
#   5. core's own cost per executed target: PROF_ROUNDS more rebuilds of
#      LOW's dependents in-process (bench/turbo/prof, the runner as core
#      run builds it) under a CPU profile, split by go tool pprof into
#      spawn, hashing, cache write, journals and the rest; then ROUNDS
#      fully cached runs in-process under a second profile, split the same
#      way (where a no-op run's time goes, without the process's start).
#      PROF_ROUNDS=0 skips both.
#
# Both run `npm run build` in each package, CONCURRENCY at a time, in the
# environment this script runs in (ENV=bare: only PATH and HOME), each
# with its defaults: core's strict mode and turbo's pass the builds the
# variables their configuration names and a few of their own. turbo is its
# native binary (not the npm package's Node launcher).
#
# Usage: bench/turbo.sh        (N=200: ~15 min; N=60: ~5 min; needs node and npm, and the npm registry)
# Knobs: N=200 CONCURRENCY=2 ROUNDS=9 REBUILD_ROUNDS=5 PROF_ROUNDS=10 LOW=p003 ENV=inherit|bare
#        TURBO_VERSION=2.11.11 OUT=/tmp/core-bench-turbo
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
CONCURRENCY=${CONCURRENCY:-2}
ROUNDS=${ROUNDS:-9}
REBUILD_ROUNDS=${REBUILD_ROUNDS:-5}
PROF_ROUNDS=${PROF_ROUNDS:-10}
LOW=${LOW:-p003}
ENV=${ENV:-inherit}
TURBO_VERSION=${TURBO_VERSION:-2.11.11}
OUT=${OUT:-/tmp/core-bench-turbo}
rm -rf "$OUT" && mkdir -p "$OUT/tools"
go build -o "$OUT/core" ./cmd/core
go build -o "$OUT/measure" ./bench/turbo/measure
go build -o "$OUT/prof" ./bench/turbo/prof
go run ./bench/turbo -out "$OUT/ws" -n "$N" -npm "$(npm --version)"
(cd "$OUT/tools" && npm install --no-audit --no-fund --loglevel=error "turbo@$TURBO_VERSION" >/dev/null)
TURBO=$(echo "$OUT"/tools/node_modules/@turbo/*/bin/turbo)
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 NO_UPDATE_NOTIFIER=1
cd "$OUT/ws"
npm install --no-audit --no-fund --loglevel=error >/dev/null
git init -q && git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm workspace

echo "# bench/turbo.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs; $(go version | cut -d' ' -f3-); node $(node --version), npm $(npm --version), turbo $("$TURBO" --version); $N packages; concurrency $CONCURRENCY; environment: $ENV ($(env | grep -c .) variables$(env | grep -q '^NODE_EXTRA_CA_CERTS=' && echo ', NODE_EXTRA_CA_CERTS set')); load average $(cut -d' ' -f1-3 /proc/loadavg)"

case "$ENV" in
bare) run_env=(env -i PATH="$PATH" HOME="$HOME" NO_UPDATE_NOTIFIER=1) ;;
inherit) run_env=(env) ;;
*) echo "ENV=$ENV: use inherit or bare" >&2; exit 2 ;;
esac
# Each run goes through measure: wall, CPU of the whole tree, and the
# tool's own CPU, one JSON line appended to $OUT/last.json.
core_run() { MEASURE_OUT="$OUT/last.json" "${run_env[@]}" CORE_CONCURRENCY="$CONCURRENCY" "$OUT/measure" -self "$OUT/core" -- "$OUT/core" run build > "$OUT/core.out" 2> "$OUT/core.err"; }
turbo_run() { MEASURE_OUT="$OUT/last.json" "${run_env[@]}" "$OUT/measure" -self "$TURBO" -- "$TURBO" run build --concurrency="$CONCURRENCY" --ui=stream --output-logs=hash-only > "$OUT/turbo.out" 2>&1; }
# The last measured run's field (wall_ms, cpu_ms, self_ms), rounded.
last() { tail -n1 "$OUT/last.json" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | awk '{printf "%d", $1 + 0.5}'; }
# The packages each run built (not served from its cache), sorted.
core_built() { sed -n 's/^\[[0-9]*\/[0-9]*\] ✔ \(p[0-9]*\):build .*/\1/p' "$OUT/core.err" | sort; }
turbo_built() { sed -n 's/^@bench\/\(p[0-9]*\):build: cache miss.*/\1/p' "$OUT/turbo.out" | sort; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a/b}'; }

echo
echo "## Cold: every build from an empty cache"
echo
rm -rf .core packages/*/dist
core_run; cold_core=$(last wall_ms); n_core=$(core_built | wc -l)
mid=$(printf 'p%03d' $((N / 4)))
# Journals rotate: the id of mid's build is kept now, for core hash --diff.
last_build() { "$OUT/core" runs --target "$mid:build" --limit 0 | awk '$3 == "succeeded" {print $1; exit}'; }
before=$(last_build)
rm -rf .turbo packages/*/dist
turbo_run; cold_turbo=$(last wall_ms); n_turbo=$(turbo_built | wc -l)
echo "| | core | turbo | core / turbo |"
echo "| --- | ---: | ---: | ---: |"
echo "| cold run, $N builds | $cold_core ms ($n_core built) | $cold_turbo ms ($n_turbo built) | $(ratio "$cold_core" "$cold_turbo") |"
# turbo restored nothing of core's and the other way round: both caches
# now hold every build, and the outputs on disk are turbo's (the same bytes).

echo
echo "## What a change rebuilds"
echo
echo "| change | core rebuilt | turbo rebuilt | the same set? |"
echo "| --- | ---: | ---: | --- |"
same_set() { # sets $same for the last runs of both tools
	local c t
	c=$(core_built); t=$(turbo_built)
	same="yes"
	[ "$c" = "$t" ] || same="no: core only $(comm -23 <(echo "$c") <(echo "$t") | grep -c . || true), turbo only $(comm -13 <(echo "$c") <(echo "$t") | grep -c . || true)"
}
compare() { # label
	core_run; turbo_run
	same_set
	echo "| $1 | $(core_built | grep -c . || true) | $(turbo_built | grep -c . || true) | $same |"
}
node -e "const f='packages/$mid/package.json', p=require('./'+f); p.scripts.build += ' --release'; require('fs').writeFileSync(f, JSON.stringify(p, null, 2) + '\n')"
compare "$mid's scripts.build in its package.json"
after=$(last_build)
echo "// one more line" >> "packages/$mid/src/index.js"
compare "a line added to $mid/src/index.js"
echo '{"compilerOptions": {"target": "es2023", "strict": true}}' > tsconfig.base.json
compare "tsconfig.base.json (global in both)"
integrity=$(npm view ms@2.1.2 dist.integrity)
node -e "const f='package-lock.json', l=require('./'+f), m=l.packages['node_modules/ms']; m.version='2.1.2'; m.integrity='$integrity'; require('fs').writeFileSync(f, JSON.stringify(l, null, 2) + '\n')"
compare "package-lock.json: ms 2.1.3 → 2.1.2 ($(grep -l '"ms"' packages/*/package.json | wc -l) packages depend on it)"

echo
echo "core hash --diff on the script change ($mid, its last two builds):"
echo
echo '```'
"$OUT/core" hash --diff "$before" "$after" 2>&1 | head -20 || true
echo '```'

echo
echo "## Rebuilding $LOW's dependents ($REBUILD_ROUNDS interleaved rounds, concurrency $CONCURRENCY)"
echo
: > "$OUT/rebuild.core"; : > "$OUT/rebuild.turbo"
sets=""
for r in $(seq "$REBUILD_ROUNDS"); do
	# A line neither cache has seen: both tools rebuild LOW and what depends on it.
	echo "// round $r $(date +%s%N)" >> "packages/$LOW/src/index.js"
	if [ $((r % 2)) = 1 ]; then order="core turbo"; else order="turbo core"; fi
	for tool in $order; do
		sleep 1
		"${tool}_run"
		echo "$(last wall_ms) $(last cpu_ms) $(last self_ms)" >> "$OUT/rebuild.$tool"
	done
	same_set
	sets="$sets $(core_built | grep -c . || true)/$(turbo_built | grep -c . || true):$same"
done
col() { awk -v c="$1" '{print $c}' "$2" | median; }
# The ratio within each round (the two runs next to each other): its
# geometric mean and range, the spread that load on the machine leaves.
paired() { paste "$OUT/rebuild.core" "$OUT/rebuild.turbo" | awk -v c="$1" -v n=3 '
	{ r = $c / $(c + n); l += log(r); if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
	END { printf "%.2fx (%.2f–%.2f)", exp(l / NR), lo, hi }'; }
echo "| median of $REBUILD_ROUNDS | core | turbo | core / turbo (goal ≤ 1.0x) | per-round ratio: geometric mean (range) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for c in "1 wall" "2 CPU, the whole tree" "3 the tool's own CPU"; do
	i=${c%% *}; name=${c#* }
	a=$(col "$i" "$OUT/rebuild.core"); b=$(col "$i" "$OUT/rebuild.turbo")
	echo "| $name | $a ms | $b ms | **$(ratio "$a" "$b")** | $(paired "$i") |"
done
built=$(core_built | grep -c . || true)
a=$(col 3 "$OUT/rebuild.core"); b=$(col 3 "$OUT/rebuild.turbo")
echo "| the tool's own CPU per executed target ($built) | $(awk -v a="$a" -v n="$built" 'BEGIN {printf "%.1f", a / n}') ms | $(awk -v b="$b" -v n="$built" 'BEGIN {printf "%.1f", b / n}') ms | | |"
echo
echo "built per round (core/turbo: the same set?):$sets"
echo "rounds (wall cpu self ms), core: $(tr '\n' ';' < "$OUT/rebuild.core")"
echo "rounds (wall cpu self ms), turbo: $(tr '\n' ';' < "$OUT/rebuild.turbo")"

echo
echo "## Fully cached: every build served from the cache ($ROUNDS interleaved rounds)"
echo
: > "$OUT/cached.core"; : > "$OUT/cached.turbo"
core_run; turbo_run # both caches hold the last change
# Each timed run follows an untimed one of the same tool: what is measured is
# running it again with nothing changed, as a user does. (Right after the
# other tool, whose restore rewrote every output, core restores them all.)
for _ in $(seq "$ROUNDS"); do
	core_run; sleep 1; core_run; echo "$(last wall_ms) $(last cpu_ms)" >> "$OUT/cached.core"
	[ "$(core_built | grep -c . || true)" = 0 ] || { echo "core rebuilt something in a cached run" >&2; exit 1; }
	turbo_run; sleep 1; turbo_run; echo "$(last wall_ms) $(last cpu_ms)" >> "$OUT/cached.turbo"
	[ "$(turbo_built | grep -c . || true)" = 0 ] || { echo "turbo rebuilt something in a cached run" >&2; exit 1; }
done
cpaired() { paste "$OUT/cached.core" "$OUT/cached.turbo" | awk -v c="$1" -v n=2 '
	{ r = $c / $(c + n); l += log(r); if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
	END { printf "%.2fx (%.2f–%.2f)", exp(l / NR), lo, hi }'; }
c=$(col 1 "$OUT/cached.core"); t=$(col 1 "$OUT/cached.turbo")
echo "| | core | turbo | core / turbo (goal ≤ 0.5x) | per-round ratio: geometric mean (range) |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| cached run, $N builds (median wall) | $c ms | $t ms | **$(ratio "$c" "$t")** | $(cpaired 1) |"
c=$(col 2 "$OUT/cached.core"); t=$(col 2 "$OUT/cached.turbo")
echo "| the same, CPU | $c ms | $t ms | $(ratio "$c" "$t") | $(cpaired 2) |"
echo
echo "rounds (wall cpu ms), core: $(tr '\n' ';' < "$OUT/cached.core"); turbo: $(tr '\n' ';' < "$OUT/cached.turbo")"

if [ "$PROF_ROUNDS" -gt 0 ]; then
	echo
	echo "## core's own cost per executed target ($PROF_ROUNDS rebuilds of $LOW's dependents, in-process)"
	echo
	"${run_env[@]}" "$OUT/prof" -ws . -low "$LOW" -rounds "$PROF_ROUNDS" -concurrency "$CONCURRENCY" -cpuprofile "$OUT/cpu.pprof" \
		-cached "$ROUNDS" -cachedprofile "$OUT/cached.pprof" | tee "$OUT/prof.txt"
	built=$(sed -n 's/.*built \([0-9]*\) .*/\1/p' "$OUT/prof.txt")
	go tool pprof -top -cum -nodecount=100000 "$OUT/prof" "$OUT/cpu.pprof" 2>/dev/null > "$OUT/prof.top"
	go tool pprof -top -cum -nodecount=100000 "$OUT/prof" "$OUT/cached.pprof" 2>/dev/null > "$OUT/cached.top"
	total=$(sed -n 's/.*Total samples = \([0-9.]*\)\(m\?s\).*/\1 \2/p' "$OUT/prof.top" | awk '{print ($2 == "s") ? $1 * 1000 : $1}')
	echo
	echo "| part (the profile's cumulative CPU) | function | ms per executed target | share of the runner's CPU |"
	echo "| --- | --- | ---: | ---: |"
	part() { # label function [top file]
		local cum
		cum=$(awk -v f="$2" '$6 == f {v = $4; u = (v ~ /ms$/) ? 1 : 1000; sub(/m?s$/, "", v); print v * u; exit}' "${3:-$OUT/prof.top}")
		cum=${cum:-0}
		echo "| $1 | \`$2\` | $(awk -v c="$cum" -v n="$built" 'BEGIN {printf "%.2f", c / n}') | $(awk -v c="$cum" -v t="$total" 'BEGIN {printf "%.0f%%", 100 * c / t}') |"
	}
	part "load the workspace and its imports (once a run)" "github.com/corehq/core/internal/live.Resolved"
	part "plan (once a run)" "github.com/corehq/core/internal/runner.(*Runner).prepare"
	part "hash a target's inputs" "github.com/corehq/core/internal/runner.(*keyer).hash"
	part "look the key up" "github.com/corehq/core/internal/runner.lookup"
	part "record the key's parts (for core hash --diff)" "github.com/corehq/core/internal/runner.(*keyer).recordParts"
	part "the target's environment" "github.com/corehq/core/internal/targetenv.(*Env).For"
	part "spawn, wait and capture (with the child's mark and journal)" "github.com/corehq/core/internal/execx.ExecStarted"
	part "· of which fork and exec" "os.StartProcess"
	part "· of which the child's start time (/proc/PID/stat)" "github.com/corehq/core/internal/execx.StartTime"
	part "· of which the crash mark" "github.com/corehq/core/internal/runner.writeMark"
	part "· of which the journal with the child's pid" "github.com/corehq/core/internal/runlog.Replace"
	part "capture its output" "github.com/corehq/core/internal/execx.(*Capture).Write"
	part "remove the crash mark" "github.com/corehq/core/internal/runner.removeMark"
	part "journals (running, the end)" "github.com/corehq/core/internal/runlog.Write"
	part "cache write (outputs.tar, meta.json)" "github.com/corehq/core/internal/runner.store"
	part "garbage collection" "runtime.gcBgMarkWorker"
	echo
	echo "profile: $total ms of samples over $built executed targets"
	# The no-op: the same parts over the cached runs, per run.
	ctotal=$(sed -n 's/.*Total samples = \([0-9.]*\)\(m\?s\).*/\1 \2/p' "$OUT/cached.top" | awk '{print ($2 == "s") ? $1 * 1000 : $1}')
	echo
	echo "The fully cached run in-process ($ROUNDS runs, $N targets each), the profile's cumulative CPU per run:"
	echo
	echo "| part | function | ms per cached run | share |"
	echo "| --- | --- | ---: | ---: |"
	cpart() { # label function
		local cum
		cum=$(awk -v f="$2" '$6 == f {v = $4; u = (v ~ /ms$/) ? 1 : 1000; sub(/m?s$/, "", v); print v * u; exit}' "$OUT/cached.top")
		cum=${cum:-0}
		echo "| $1 | \`$2\` | $(awk -v c="$cum" -v n="$ROUNDS" 'BEGIN {printf "%.1f", c / n}') | $(awk -v c="$cum" -v t="$ctotal" 'BEGIN {printf "%.0f%%", (t > 0) ? 100 * c / t : 0}') |"
	}
	cpart "load the workspace and its imports" "github.com/corehq/core/internal/live.Resolved"
	cpart "· of which the index's sync" "github.com/corehq/core/internal/index.(*Indexer).Sync"
	cpart "plan" "github.com/corehq/core/internal/runner.(*Runner).prepare"
	cpart "hash the inputs" "github.com/corehq/core/internal/runner.(*keyer).hash"
	cpart "look the keys up" "github.com/corehq/core/internal/runner.lookup"
	cpart "check or restore the outputs" "github.com/corehq/core/internal/runner.restore"
	cpart "journals (one batch)" "github.com/corehq/core/internal/runlog.WriteBatch"
	cpart "garbage collection" "runtime.gcBgMarkWorker"
	echo
	echo "profile: $ctotal ms of samples over $ROUNDS cached runs"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
