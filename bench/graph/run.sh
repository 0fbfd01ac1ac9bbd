#!/usr/bin/env bash
# Knowledge-graph benchmarks of core against universal-ctags, on synthetic
# workspaces from bench/synth (method: bench/results-graph.md; results:
# BENCHMARKS.md, "Knowledge graph").
#
#   medium: -projects 100 -files 100 -symbols 10   10k files, ~105k symbols, ~11k default-graph nodes
#   large:  -projects 200 -files 480 -symbols 5    96k files, ~494k symbols, ~101k default-graph nodes
#
# For each: cold `core graph --json` (empty CORE_CACHE_DIR) / warm / `ctags -R`
# (interleaved repetitions, medians); server start (fresh cache) to the first
# symbol answered; GET /api/v1/graph p50/p95/p99 (identity, gzip, 304);
# symbol and project queries; peak RSS; change-to-`event: graph` latency over
# SSE with the default debounce (20ms) and CORE_EVENTS_DEBOUNCE=5ms, for edits
# that only append a function (symbol-only) and for edits that also toggle an
# import (the default graph changes). Then CPU profiles of the cold index, the
# change path (both kinds of edit) and a symbol query on large.
#
# Usage: bench/graph/run.sh            (from anywhere in the repository; ~10 min on 2 CPUs)
# Knobs: SIZES="medium large"  CORE_BIN=<prebuilt core>  FROM_HEAD=1 (build core and
#        the helpers from `git archive HEAD` plus this bench/ directory, when the work
#        tree is mid-edit and does not build)  OUT=<dir for results and
#        profiles, default /tmp/core-bench-graph-out>  KEEP=1 (keep the workspaces)
#        REPS_MEDIUM=5 REPS_LARGE=3 SAMPLES_MEDIUM=100 SAMPLES_LARGE=100 STARTS=3
#        SIZES=small: a 400-file smoke test of this script (~1 min)
# The machine is shared and noisy: compare the ratios, which come from the
# same run, rather than absolute times across runs.
set -euo pipefail

cd "$(dirname "$0")/../.."
SIZES=${SIZES:-medium large}
OUT=${OUT:-/tmp/core-bench-graph-out}
REPS_MEDIUM=${REPS_MEDIUM:-5}
REPS_LARGE=${REPS_LARGE:-3}
SAMPLES_MEDIUM=${SAMPLES_MEDIUM:-100}
SAMPLES_LARGE=${SAMPLES_LARGE:-100}
STARTS=${STARTS:-3}

need_apt=()
command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q 'Universal Ctags' || need_apt+=(universal-ctags)
[[ -x /usr/bin/time ]] || need_apt+=(time)
if ((${#need_apt[@]})); then
	echo "installing ${need_apt[*]}" >&2
	apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/core-bench-graph.XXXXXX)
cleanup() { [[ -n ${KEEP:-} ]] || rm -rf "$WORK"; }
trap cleanup EXIT

BIN=$WORK/bin
mkdir -p "$BIN"
SRC=.
REV=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
if [[ -n ${FROM_HEAD:-} ]]; then
	SRC=$WORK/src
	mkdir -p "$SRC"
	git archive HEAD | tar -x -C "$SRC"
	mkdir -p "$SRC/bench"
	cp -r bench/synth bench/graph "$SRC/bench/"
	REV="$REV (git archive HEAD)"
else
	[[ -z $(git status --porcelain -- ':!bench' 2>/dev/null) ]] || REV="$REV + uncommitted changes"
fi
if [[ -n ${CORE_BIN:-} ]]; then
	CORE=$CORE_BIN
	REV="prebuilt"
else
	CORE=/tmp/bench-core
	(cd "$SRC" && go build -o "$CORE" ./cmd/core)
fi
(cd "$SRC" && go build -o "$BIN/synth" ./bench/synth && go build -o "$BIN/driver" ./bench/graph/driver && go build -o "$BIN/prof" ./bench/graph/prof)

exec > >(tee "$OUT/report.md") 2>&1
echo "# bench/graph run $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-); $(ctags --version | head -1 | cut -d, -f1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "core: $CORE built from $REV"

declare -A ARGS=(
	[small]="-projects 10 -files 40 -symbols 5"
	[medium]="-projects 100 -files 100 -symbols 10"
	[large]="-projects 200 -files 480 -symbols 5"
)
declare -A REPS=([small]=2 [medium]=$REPS_MEDIUM [large]=$REPS_LARGE)
declare -A SAMPLES=([small]=10 [medium]=$SAMPLES_MEDIUM [large]=$SAMPLES_LARGE)

for size in $SIZES; do
	ws=$WORK/$size
	echo
	echo "## $size: bench/synth ${ARGS[$size]}"
	/usr/bin/time -f "generated in %e s" "$BIN/synth" -out "$ws" ${ARGS[$size]} >"$OUT/$size-synth.json"
	jq -c '{files, go_files, ts_files, py_files, docs, packages, symbols, default_nodes_estimate, mb: (.bytes/1e6)}' "$OUT/$size-synth.json"
	sym=$(jq -r '.sample_symbols[0]' "$OUT/$size-synth.json")
	"$BIN/driver" cli -core "$CORE" -ws "$ws" -reps "${REPS[$size]}" -symbol "$sym" -json "$OUT/$size-cli.json"
	"$BIN/driver" server -core "$CORE" -ws "$ws" -summary "$OUT/$size-synth.json" -baseline "$OUT/$size-cli.json" \
		-starts "$STARTS" -n 300 -nq 100 -qbudget 20s -samples "${SAMPLES[$size]}" -gap 150ms -debounces default,5ms -json "$OUT/$size-server.json"
done

# Profiles, on the largest workspace generated.
last=${SIZES##* }
ws=$WORK/$last
edit=$(jq -r .edit_file "$OUT/$last-synth.json")
toggle=$(jq -r .toggle_import "$OUT/$last-synth.json")
sym=$(jq -r '.sample_symbols[3]' "$OUT/$last-synth.json")
echo
echo "## profiles ($last)"
echo
echo "### stages of a cold index, one by one (exported API)"
echo
"$BIN/prof" -ws "$ws" -mode phases
pcache=$WORK/profcache
echo
"$BIN/prof" -ws "$ws" -cache "$pcache" -mode cold -cpuprofile "$OUT/cold.pprof"
"$BIN/prof" -ws "$ws" -cache "$pcache" -mode update -edit "$edit" -toggle "$toggle" -n 12 -cpuprofile "$OUT/update.pprof"
"$BIN/prof" -ws "$ws" -cache "$pcache" -mode update -edit "$edit" -n 12 -cpuprofile "$OUT/update-sym.pprof"
"$BIN/prof" -ws "$ws" -cache "$pcache" -mode symbols -name "$sym" -edit "$edit" -n 5 -cpuprofile "$OUT/symbols.pprof"
mv "$OUT/symbols.pprof.first" "$OUT/symbols-first.pprof"
echo
echo "### project lookups (graph.OwnerOf), one pass over every path"
echo
"$BIN/prof" -ws "$ws" -mode owner
for p in cold update update-sym symbols-first symbols; do
	go tool pprof -top -cum -nodecount=60 "$BIN/prof" "$OUT/$p.pprof" >"$OUT/$p-top.txt" 2>/dev/null
	echo
	echo "### $p: cumulative CPU of the functions that matter (full list: $OUT/$p-top.txt)"
	echo
	echo '```'
	sed -n '/flat  flat%/p' "$OUT/$p-top.txt"
	grep -E 'Duration:|index\.|live\.|graph\.|query\.|gzip|sha256|index\.encodeShard$|index\.encodeFiles$|go/parser\.ParseFile|sitter.*ParseCtx$|runtime\.gcBgMarkWorker$|fsx\.ReadSized$' "$OUT/$p-top.txt" | grep -v 'inline)$' | head -30
	echo '```'
done
echo
echo "raw JSON and profiles: $OUT"
