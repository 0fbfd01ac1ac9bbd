#!/usr/bin/env bash
# The knowledge-graph cold index on real code (issue 17), against
# universal-ctags on the same tree: corpora assembled from what this kind of
# machine has without a download, each with a generated targets.yaml (one
# project per top-level directory):
#
#   go:     the Go distribution's source tree ($(go env GOROOT)/src)
#   python: Python's standard library (/usr/lib/python3.*)
#   js:     the console's npm dependencies as shipped (console/node_modules)
#   big:    a monorepo of BIG_FILES files (500,000): the Go distribution,
#           Python's standard library and dist-packages, and the console's,
#           the MCP Inspector's and the system's node_modules, hard-linked
#           again and again under distinct roots (k01-go-archive/, ...),
#           one project per top-level directory of each source
#
# For each: REPS interleaved runs of a cold `core graph --json` (empty cache)
# and `ctags -R`, wall and CPU time (user+sys) and peak RSS, timed by
# bench/graph/driver around fork and wait; medians and ratios. Then 3*REPS
# warm runs (the cache kept; median, beside `core --version`, the floor of
# any run), and
# the share of the Go and Python files that took the fast parser and why the
# others fell back (bench/graph/prof -mode phases). Nothing is committed: the
# corpora are copied to OUT.
#
# Then REPS server starts (fresh cache) timed to the first answer for a
# symbol the corpus declares (bench/graph/driver server -only-start), each
# after a ctags -R run, against their median wall time.
#
# Usage: bench/graph/real.sh        Knobs: CORPORA="go python js" REPS=3 OUT=/tmp/core-bench-real
#        JS_SRC=console/node_modules (the node_modules to copy, after npm ci)
#        BASE=<a core binary> also times it, interleaved (a before/after column)
#        BIG_FILES=500000 (the big corpus's size; cp -al, so it takes no data)
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPORA=${CORPORA:-go python js}
JS_SRC=${JS_SRC:-console/node_modules}
REPS=${REPS:-3}
OUT=${OUT:-/tmp/core-bench-real}
rm -rf "$OUT" && mkdir -p "$OUT"
go build -o "$OUT/core" ./cmd/core
go build -o "$OUT/prof" ./bench/graph/prof
go build -o "$OUT/driver" ./bench/graph/driver
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), $(ctags --version | head -1)"

assemble() { # name source
	local ws="$OUT/$1" src=$2
	mkdir -p "$ws"
	cp -r "$src"/. "$ws"/
	rm -rf "$ws/.core"
	assemble_targets "$1" "$ws"
}

assemble_targets() { # name dir: one project per top-level directory
	local ws=$2
	{
		echo "projects:"
		find "$ws" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort | while read -r d; do
			name=$(echo "$d" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9_\n-' '-' | sed 's/^[-_]*//')
			[ -n "$name" ] || continue
			printf '  %s:\n    path: "%s"\n' "$name" "$d"
		done
	} > "$ws/targets.yaml"
	# Names that collide after folding case keep the first.
	awk '/^  [^ ].*:$/ { if (seen[$0]++) { skip=1; next } } skip>0 { skip--; next } { print }' "$ws/targets.yaml" > "$ws/targets.tmp" && mv "$ws/targets.tmp" "$ws/targets.yaml"
	echo "$1: $(find "$ws" -type f | wc -l) files, $(du -sh "$ws" | cut -f1)"
}

assemble_big() {
	local ws="$OUT/big" want=${BIG_FILES:-500000} k=0 n=0
	local py; py=$(ls -d /usr/lib/python3.* | head -1)
	local -a srcs=("go=$(go env GOROOT)/src" "py=$py" "pypkg=/usr/lib/python3/dist-packages"
		"js=$JS_SRC" "jsmcp=e2e/inspector/node_modules" "jssys=/usr/lib/node_modules")
	mkdir -p "$ws"
	while [ "$n" -lt "$want" ]; do
		k=$((k + 1))
		for s in "${srcs[@]}"; do
			local tag=${s%%=*} src=${s#*=}
			[ -d "$src" ] || continue
			for e in "$src"/*; do
				if [ -d "$e" ]; then
					cp -al "$e" "$ws/$(printf 'k%02d' "$k")-$tag-$(basename "$e")"
				else
					mkdir -p "$ws/$(printf 'k%02d' "$k")-$tag" && cp -l "$e" "$ws/$(printf 'k%02d' "$k")-$tag/"
				fi
			done
		done
		n=$(find "$ws" -type f | wc -l)
	done
	assemble_targets big "$ws"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

measure() { # name
	local ws="$OUT/$1"
	: > "$OUT/$1.core"; : > "$OUT/$1.ctags"
	for i in $(seq "$REPS"); do
		rm -rf "$ws/.core"
		"$OUT/driver" time -- "$OUT/core" --workspace "$ws" graph --json >> "$OUT/$1.core"
		"$OUT/driver" time -dir "$ws" -- ctags -R -f "$OUT/tags" . >> "$OUT/$1.ctags"
		if [ -n "${BASE:-}" ]; then
			rm -rf "$ws/.core"
			"$OUT/driver" time -- "$BASE" --workspace "$ws" graph --json >> "$OUT/$1.base"
		fi
	done
	# Warm runs (the cache kept), after one that stores the graph, and under
	# them the floor of any run: a process that starts and exits (core
	# --version).
	: > "$OUT/$1.warm"; : > "$OUT/$1.floor"
	"$OUT/core" --workspace "$ws" graph --json > /dev/null
	for i in $(seq $((REPS * 3))); do
		"$OUT/driver" time -- "$OUT/core" --workspace "$ws" graph --json | cut -d' ' -f1 >> "$OUT/$1.warm"
		"$OUT/driver" time -- "$OUT/core" --version | cut -d' ' -f1 >> "$OUT/$1.floor"
	done
	local warm floor; warm=$(median < "$OUT/$1.warm"); floor=$(median < "$OUT/$1.floor")
	echo "$1: warm runs $(sort -n "$OUT/$1.warm" | awk '{printf "%.1f ", $1*1000}')ms; core --version $(awk '{printf "%.1f", $1*1000}' <<< "$floor") ms (median)" >&2
	local cw cc cm tw tc tm
	cw=$(cut -d' ' -f1 "$OUT/$1.core" | median); cc=$(cut -d' ' -f2 "$OUT/$1.core" | median); cm=$(cut -d' ' -f3 "$OUT/$1.core" | median)
	tw=$(cut -d' ' -f1 "$OUT/$1.ctags" | median); tc=$(cut -d' ' -f2 "$OUT/$1.ctags" | median); tm=$(cut -d' ' -f3 "$OUT/$1.ctags" | median)
	awk -v n="$1" -v cw="$cw" -v cc="$cc" -v tw="$tw" -v tc="$tc" -v w="$warm" -v cm="$cm" -v tm="$tm" 'BEGIN {
		printf "| %s | %.3f s / %.3f s | %.3f s / %.3f s | **%.2fx** | **%.2fx** | %.1f ms (%.3fx cold) | %.0f MB / %.0f MB |\n", n, cw, cc, tw, tc, cw/tw, cc/tc, w*1000, w/cw, cm/1024, tm/1024 }'
	if [ -n "${BASE:-}" ]; then
		local bw bc bm
		bw=$(cut -d' ' -f1 "$OUT/$1.base" | median); bc=$(cut -d' ' -f2 "$OUT/$1.base" | median); bm=$(cut -d' ' -f3 "$OUT/$1.base" | median)
		awk -v n="$1" -v bw="$bw" -v bc="$bc" -v tw="$tw" -v tc="$tc" -v bm="$bm" 'BEGIN {
			printf "| %s, BASE | %.3f s / %.3f s | (same run) | %.2fx | %.2fx | | %.0f MB |\n", n, bw, bc, bw/tw, bc/tc, bm/1024 }'
	fi
}

for c in $CORPORA; do
	case $c in
	go) assemble go "$(go env GOROOT)/src" ;;
	python) assemble python "$(ls -d /usr/lib/python3.* | head -1)" ;;
	js) assemble js "$JS_SRC" ;;
	big) assemble_big ;;
	*) echo "unknown corpus $c" >&2; exit 2 ;;
	esac
done
echo
echo "| corpus | core cold wall / CPU | ctags -R wall / CPU | wall ratio | CPU ratio | core warm | peak RSS core / ctags |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for c in $CORPORA; do measure "$c"; done
echo
echo "| corpus | fast path | files |"
echo "| --- | --- | --- |"
for c in $CORPORA; do
	"$OUT/prof" -ws "$OUT/$c" -mode phases | sed -n "s/^|   fast path \([a-z]*\) | [^|]* | \(.*\) |$/| $c | \1 | \2 |/p"
done

# A symbol each corpus declares, for the first symbol answer.
declare -A SYMBOL=([go]=NewReader [python]=OrderedDict [js]=createElement [big]=NewReader)
echo
echo "| corpus | server start → listening | start → first symbol answer | vs ctags -R wall |"
echo "| --- | --- | --- | --- |"
for c in $CORPORA; do
	: > "$OUT/$c.start"; : > "$OUT/$c.startctags"
	for i in $(seq "$REPS"); do
		"$OUT/driver" time -dir "$OUT/$c" -- ctags -R -f "$OUT/tags" . | cut -d' ' -f1 >> "$OUT/$c.startctags"
		"$OUT/driver" server -core "$OUT/core" -ws "$OUT/$c" -only-start -starts 1 -symbol "${SYMBOL[$c]}" 2>> "$OUT/$c.start" >/dev/null
	done
	l=$(sed -n 's/.*listening after \([0-9.]*\) ms.*/\1/p' "$OUT/$c.start" | median)
	f=$(sed -n 's/.*first symbol after \([0-9.]*\) ms.*/\1/p' "$OUT/$c.start" | median)
	tw=$(median < "$OUT/$c.startctags")
	awk -v n="$c" -v l="$l" -v f="$f" -v tw="$tw" 'BEGIN { printf "| %s | %.3f s | %.3f s | **%.2fx** |\n", n, l/1000, f/1000, f/1000/tw }'
done
