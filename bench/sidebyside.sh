#!/usr/bin/env bash
# Two commits of core measured side by side on this machine, alternating
# runs, for a change that must not change speed (issue 31; BENCHMARKS.md,
# "Side by side: issue 31"). Both trees are exported with `git archive`
# (the working tree is not used) and built once; every measurement then
# alternates the two binaries, swapping which goes first each round
# (ABBA...), so drift and other work on a shared machine hit both alike.
#
#  noop     BenchmarkNoopCachedRun and BenchmarkHashInputs
#           (internal/runner/bench_test.go): the no-op run of 1,000
#           cached targets, and hashing their inputs alone. Each round runs
#           each test binary once, -benchtime $BENCHTIME.
#  gateway  BenchmarkSideBySide (gateway/bench_test.go): the pipeline and
#           bare net/http on the same requests. Each round runs each test
#           binary once, -count 1; benchstat compares the two commits.
#  index    a cold `core graph --json` (the workspace's .core removed
#           before every run) on real code, timed by bench/graph/driver
#           around fork and wait (wall, CPU, peak RSS). Corpora:
#             core    core's own tree at BEFORE (git archive)
#             go      the Go distribution's source ($(go env GOROOT)/src)
#             python  Python's standard library (/usr/lib/python3.*)
#           go and python get the generated targets.yaml of
#           bench/graph/real.sh (one project per top-level directory).
#
# Per measure: the median of each side, the ratio of the medians
# (after/before), and the ratio taken within each round (its geometric
# mean and range: the spread).
#
# Usage: BEFORE=ca77cd5 bench/sidebyside.sh
# Knobs: AFTER=HEAD PARTS="noop gateway index" CORPORA="core go python"
#        ROUNDS=8 (noop) BENCHTIME=5x GW_ROUNDS=6 GW_BENCHTIME=1s
#        REPS=9 (index) OUT=/tmp/core-bench-sidebyside
set -euo pipefail

: "${BEFORE:?set BEFORE to the commit to compare against}"
AFTER=${AFTER:-HEAD}
PARTS=${PARTS:-noop gateway index}
CORPORA=${CORPORA:-core go python}
ROUNDS=${ROUNDS:-8}
BENCHTIME=${BENCHTIME:-5x}
GW_ROUNDS=${GW_ROUNDS:-6}
GW_BENCHTIME=${GW_BENCHTIME:-1s}
REPS=${REPS:-9}
OUT=${OUT:-/tmp/core-bench-sidebyside}
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

cd "$(dirname "$0")/.."
before=$(git rev-parse --short "$BEFORE")
after=$(git rev-parse --short "$AFTER")
rm -rf "$OUT" && mkdir -p "$OUT"/{a,b,bin}
exec > >(tee "$OUT/report.md") 2>&1

echo "# bench/sidebyside.sh $(date -u '+%Y-%m-%d %H:%M UTC'): before $before, after $after"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(go version | cut -d' ' -f3-); load average $(cut -d' ' -f1-3 /proc/loadavg)"

git archive "$BEFORE" | tar -x -C "$OUT/a"
git archive "$AFTER" | tar -x -C "$OUT/b"
go build -o "$OUT/bin/driver" ./bench/graph/driver

# one SIDE (a or b) then the other, swapping the order every round
order() { if (($1 % 2)); then echo "a b"; else echo "b a"; fi; }
name() { if [ "$1" = a ]; then echo "before $before"; else echo "after $after"; fi; }

# summary LABEL FILE_A FILE_B UNIT SCALE: one value per line per round in
# each file; medians, ratio of medians, per-round ratios' geometric mean
# and range.
summary() {
	paste "$2" "$3" | awk -v l="$1" -v u="$4" -v s="$5" '
		function med(x, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j-1] > x[j]; j--) { t = x[j]; x[j] = x[j-1]; x[j-1] = t }
			return (n % 2) ? x[(n+1)/2] : (x[n/2] + x[n/2+1]) / 2 }
		{ n++; a[n] = $1; b[n] = $2; r = $2 / $1; lr += log(r); if (n == 1 || r < lo) lo = r; if (n == 1 || r > hi) hi = r
		  if (n == 1 || $1 < amin) amin = $1; if (n == 1 || $1 > amax) amax = $1; if (n == 1 || $2 < bmin) bmin = $2; if (n == 1 || $2 > bmax) bmax = $2 }
		END { ma = med(a, n); mb = med(b, n)
			printf "| %s | %d | %.1f %s (%.1f–%.1f) | %.1f %s (%.1f–%.1f) | **%.3f×** | %.3f× (%.3f–%.3f) |\n",
				l, n, ma*s, u, amin*s, amax*s, mb*s, u, bmin*s, bmax*s, mb/ma, exp(lr/n), lo, hi }'
}
header() {
	echo
	echo "| measure | rounds | before $before: median (range) | after $after: median (range) | after/before, medians | per-round ratio: geometric mean (range) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
}

for part in $PARTS; do
	case $part in
	noop)
		echo
		echo "## no-op run of 1,000 cached targets ($ROUNDS rounds, -benchtime $BENCHTIME)"
		for s in a b; do (cd "$OUT/$s" && go test -c -o "$OUT/bin/runner-$s.test" ./internal/runner); done
		for s in a b; do : >"$OUT/noop-$s.txt"; done
		for i in $(seq "$ROUNDS"); do
			for s in $(order "$i"); do
				(cd "$OUT/$s/internal/runner" && "$OUT/bin/runner-$s.test" -test.run '^$' \
					-test.bench '^Benchmark(NoopCachedRun|HashInputs)$' -test.benchmem \
					-test.benchtime "$BENCHTIME" -test.count 1) | grep '^Benchmark' >>"$OUT/noop-$s.txt"
			done
			echo "round $i: $(grep NoopCachedRun "$OUT/noop-a.txt" | tail -1 | awk '{printf "before %.1f ms", $3/1e6}'), $(grep NoopCachedRun "$OUT/noop-b.txt" | tail -1 | awk '{printf "after %.1f ms", $3/1e6}')"
		done
		header
		for b in NoopCachedRun HashInputs; do
			for s in a b; do awk -v b="$b" '$1 ~ "^Benchmark" b "(-[0-9]+)?$" {print $3}' "$OUT/noop-$s.txt" >"$OUT/$b-$s.ns"; done
			summary "\`$b\` ns/op" "$OUT/$b-a.ns" "$OUT/$b-b.ns" ms 1e-6
		done
		for s in a b; do
			paste <(awk '$1 ~ /^BenchmarkNoopCachedRun/ {print $3}' "$OUT/noop-$s.txt") \
				<(awk '$1 ~ /^BenchmarkHashInputs/ {print $3}' "$OUT/noop-$s.txt") | awk '{print $1/$2}' >"$OUT/noophash-$s.r"
		done
		summary "noop / hash (the goal's ratio, ≤ 2×)" "$OUT/noophash-a.r" "$OUT/noophash-b.r" × 1
		for s in a b; do
			echo
			echo "$(name $s), allocations per no-op run: $(awk '$1 ~ /^BenchmarkNoopCachedRun/ {print $5 " B/op, " $7 " allocs/op"}' "$OUT/noop-$s.txt" | sort | uniq -c | sort -rn | head -1 | sed 's/^ *[0-9]* //')"
		done
		;;
	gateway)
		echo
		echo "## gateway pipeline ($GW_ROUNDS rounds, -benchtime $GW_BENCHTIME)"
		for s in a b; do (cd "$OUT/$s" && go test -c -o "$OUT/bin/gateway-$s.test" ./gateway); done
		for s in a b; do : >"$OUT/gateway-$s.txt"; done
		for i in $(seq "$GW_ROUNDS"); do
			for s in $(order "$i"); do
				(cd "$OUT/$s/gateway" && "$OUT/bin/gateway-$s.test" -test.run '^$' -test.bench '^BenchmarkSideBySide$' \
					-test.benchmem -test.benchtime "$GW_BENCHTIME" -test.count 1) |
					if ((i == 1)); then grep -v '^PASS$'; else grep '^Benchmark'; fi >>"$OUT/gateway-$s.txt"
			done
			echo "round $i done"
		done
		echo
		echo '```'
		(cd "$OUT" && cp gateway-a.txt "before-$before.txt" && cp gateway-b.txt "after-$after.txt" &&
			go run "$BENCHSTAT" "before-$before.txt" "after-$after.txt" 2>&1 | grep -v '^go: ')
		echo '```'
		header
		for req in read cors 401 401unknown; do
			for impl in pipeline bare; do
				for s in a b; do awk -v k="BenchmarkSideBySide/req=$req/impl=$impl" '$1 ~ "^" k "(-[0-9]+)?$" {print $3}' "$OUT/gateway-$s.txt" >"$OUT/gw-$req-$impl-$s.ns"; done
				summary "\`$req\` $impl ns/op" "$OUT/gw-$req-$impl-a.ns" "$OUT/gw-$req-$impl-b.ns" ns 1
			done
		done
		;;
	index)
		echo
		echo "## cold index on real code ($REPS rounds)"
		for s in a b; do (cd "$OUT/$s" && go build -o "$OUT/bin/core-$s" ./cmd/core); done
		for c in $CORPORA; do
			ws=$OUT/ws-$c
			mkdir -p "$ws"
			case $c in
			# at BEFORE: its targets.yaml is one both binaries read (a newer
			# one may use keys the older binary does not know)
			core) git archive "$BEFORE" | tar -x -C "$ws" ;;
			go | python)
				if [ "$c" = go ]; then src=$(go env GOROOT)/src; else src=$(ls -d /usr/lib/python3.* | head -1); fi
				cp -r "$src"/. "$ws"/
				# bench/graph/real.sh's targets.yaml: one project per top-level directory
				{
					echo "projects:"
					find "$ws" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort | while read -r d; do
						n=$(echo "$d" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9_\n-' '-' | sed 's/^[-_]*//')
						[ -n "$n" ] || continue
						printf '  %s:\n    path: "%s"\n' "$n" "$d"
					done
				} >"$ws/targets.yaml"
				awk '/^  [^ ].*:$/ { if (seen[$0]++) { skip=1; next } } skip>0 { skip--; next } { print }' "$ws/targets.yaml" >"$ws/targets.tmp" && mv "$ws/targets.tmp" "$ws/targets.yaml"
				;;
			*) echo "unknown corpus $c" >&2; exit 2 ;;
			esac
			rm -rf "$ws/.core"
			echo "$c: $(find "$ws" -type f | wc -l) files, $(du -sh "$ws" | cut -f1)"
			# one untimed cold run of each, so the tree is in the page cache for both
			for s in a b; do rm -rf "$ws/.core"; "$OUT/bin/core-$s" --workspace "$ws" graph --json >"$OUT/graph-$c-$s.json"; done
			cmp -s "$OUT/graph-$c-a.json" "$OUT/graph-$c-b.json" && echo "$c: both binaries print the same graph" ||
				echo "$c: the two binaries' graphs differ ($(wc -c <"$OUT/graph-$c-a.json") and $(wc -c <"$OUT/graph-$c-b.json") bytes)"
			for s in a b; do : >"$OUT/index-$c-$s.txt"; done
			for i in $(seq "$REPS"); do
				for s in $(order "$i"); do
					rm -rf "$ws/.core"
					"$OUT/bin/driver" time -- "$OUT/bin/core-$s" --workspace "$ws" graph --json >>"$OUT/index-$c-$s.txt"
				done
			done
			rm -rf "$ws/.core"
		done
		header
		for c in $CORPORA; do
			for s in a b; do
				cut -d' ' -f1 "$OUT/index-$c-$s.txt" >"$OUT/index-$c-$s.wall"
				cut -d' ' -f2 "$OUT/index-$c-$s.txt" >"$OUT/index-$c-$s.cpu"
				cut -d' ' -f3 "$OUT/index-$c-$s.txt" >"$OUT/index-$c-$s.rss"
			done
			summary "$c: cold wall" "$OUT/index-$c-a.wall" "$OUT/index-$c-b.wall" ms 1000
			summary "$c: cold CPU" "$OUT/index-$c-a.cpu" "$OUT/index-$c-b.cpu" ms 1000
			summary "$c: cold peak RSS" "$OUT/index-$c-a.rss" "$OUT/index-$c-b.rss" MB "$(awk 'BEGIN{print 1/1024}')"
		done
		;;
	*) echo "unknown part $part" >&2; exit 2 ;;
	esac
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); raw results in $OUT"
