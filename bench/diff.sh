#!/usr/bin/env bash
# Benchmarks of the diff routes against git itself (results: BENCHMARKS.md,
# "Diff"). Two workspaces:
#
#   synthetic: bench/synth, 200 projects x 100 files (20k files), committed,
#              then a 500-file change: 400 Go files edited, 50 new
#              (untracked), 30 deleted, 20 renamed (staged);
#   real:      core's own repository at HEAD with the working tree of an
#              older commit (BASE_REV, default f8ea3f1) checked out over it:
#              a real change of a few hundred files.
#
# For each, interleaved repetitions (medians, in ms) of:
#   git diff HEAD                    vs  GET /api/v1/diff/patch
#   git diff --stat HEAD             vs  GET /api/v1/diff (fully annotated)
#   GET /api/v1/diff with If-None-Match (the 304 of a repeat), and curl of a
#   static 304 baseline is not needed: it is the route's own cost.
# git diff sees the tracked files only; core's answers include the untracked
# ones as well (50 on the synthetic workspace), so core does more work.
#
# The patch is timed two ways: the wall clock around the curl process (as
# before), and curl's own time_total, from the request's start to the
# answer's last byte. Starting curl (libcurl, OpenSSL and some 30 shared
# libraries) costs about 8 ms more than starting git: the first way charges
# that to the route, the second measures the route as a client that is
# already running (a console, an agent) sees it. Each ratio is also given as
# the median of the repetitions' own ratios, which drifting load on a
# shared machine disturbs less than a ratio of medians.
#
# Usage: bench/diff.sh        Knobs: REPS=7 OUT=/tmp/core-bench-diff-out BASE_REV=f8ea3f1
#                             PATCH_ONLY=1 (only git diff vs the patch)
#                             CORE_BIN=path (a core built elsewhere, e.g. an
#                             older commit's, instead of this tree's)
# The machine is shared and noisy: compare the ratios, which come from the
# same run, rather than absolute times across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-7}
OUT=${OUT:-/tmp/core-bench-diff-out}
BASE_REV=${BASE_REV:-f8ea3f1}
PATCH_ONLY=${PATCH_ONLY:-}
CORE_BIN=${CORE_BIN:-}
rm -rf "$OUT" && mkdir -p "$OUT"
repo=$(pwd)

echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), $(git version)"
if [ -n "$CORE_BIN" ]; then cp "$CORE_BIN" "$OUT/core"; else go build -o "$OUT/core" ./cmd/core; fi

gitq() { git -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false "$@"; }

# ---- the synthetic workspace --------------------------------------------
syn="$OUT/synthetic"
go run ./bench/synth -out "$syn" -projects 200 -files 100 -symbols 5 >/dev/null
(
	cd "$syn"
	# Packed at once, rather than by the gc --auto that 20,000 loose
	# objects start in the background mid-run.
	gitq init -q -b main && gitq add -A && gitq -c gc.auto=0 commit -qm synth && git repack -adq
	mapfile -t gofiles < <(git ls-files '*.go' | sort)
	for f in "${gofiles[@]:0:400}"; do
		printf '\n// edited by the benchmark\nvar benchEdited = 1\n' >>"$f"
	done
	for i in $(seq 1 50); do
		d=projects/p$(printf %03d "$i")/benchnew
		mkdir -p "$d" && printf 'package benchnew\n\nfunc New%d() int { return %d }\n' "$i" "$i" >"$d/new.go"
	done
	for f in "${gofiles[@]:400:30}"; do rm "$f"; done
	for f in "${gofiles[@]:430:20}"; do gitq -c gc.auto=0 mv "$f" "${f%.go}_moved.go"; done
)
echo "synthetic: $(git -C "$syn" ls-files | wc -l) tracked files, $(git -C "$syn" status --porcelain | wc -l) changed paths"

# ---- the real workspace ---------------------------------------------------
real="$OUT/real"
git clone -q "$repo" "$real"
git -C "$real" checkout -q "$BASE_REV" -- . 2>/dev/null || true
echo "real: core at $(git -C "$repo" rev-parse --short HEAD) with $BASE_REV's tree over it: $(git -C "$real" status --porcelain | wc -l) changed paths"

# Microseconds from bash itself ($EPOCHREALTIME): a clock read that starts
# a process would be timed too.
ms() { local t=${EPOCHREALTIME/./}; echo "$t"; }

bench_ws() {
	local name=$1 ws=$2
	local cache="$OUT/cache-$name"
	CORE_CACHE_DIR="$cache" CORE_SERVER_ADDRESS=127.0.0.1:0 "$OUT/core" --workspace "$ws" server start >"$OUT/server-$name.log" 2>"$OUT/server-$name.err" &
	local pid=$!
	for _ in $(seq 1 600); do
		grep -q '^core server: serving' "$OUT/server-$name.log" && break
		sleep 0.1
	done
	local url
	url=$(grep '^core server: serving' "$OUT/server-$name.log" | awk '{print $NF}')
	local tok
	tok=$(CORE_CACHE_DIR="$cache" "$OUT/core" --workspace "$ws" config console token create | tail -n1)
	local H="Authorization: Bearer $tok"
	# Warm: the index and git's own caches.
	curl -fsS -H "$H" "$url/api/v1/diff" -o "$OUT/$name-diff.json"
	curl -fsS -H "$H" "$url/api/v1/diff/patch" -o "$OUT/$name.patch"
	git -C "$ws" diff HEAD >/dev/null
	local etag
	etag=$(curl -fsS -D - -o /dev/null -H "$H" "$url/api/v1/diff" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
	# Times in microseconds; curl's time_total in seconds.
	local gd=() cp=() ct=() gs=() ca=() c304=()
	for _ in $(seq 1 "$REPS"); do
		t0=$(ms); git -C "$ws" diff HEAD >/dev/null; t1=$(ms); gd+=("$((t1 - t0))")
		t0=$(ms); x=$(curl -fsS -H "$H" "$url/api/v1/diff/patch" -o /dev/null -w '%{time_total}'); t1=$(ms); cp+=("$((t1 - t0))"); ct+=("$x")
		[ -n "$PATCH_ONLY" ] && continue
		t0=$(ms); git -C "$ws" diff --stat HEAD >/dev/null; t1=$(ms); gs+=("$((t1 - t0))")
		t0=$(ms); curl -fsS -H "$H" "$url/api/v1/diff" -o /dev/null; t1=$(ms); ca+=("$((t1 - t0))")
		t0=$(ms); code=$(curl -sS -o /dev/null -w '%{http_code}' -H "$H" -H "If-None-Match: $etag" "$url/api/v1/diff"); t1=$(ms); c304+=("$((t1 - t0))")
		[ "$code" = 304 ] || echo "warning: a repeat answered $code, not 304"
	done
	kill "$pid" && wait "$pid" 2>/dev/null || true
	local files
	files=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["files"]))' "$OUT/$name-diff.json")
	python3 - "$name" "$files" "${gd[*]}" "${cp[*]}" "${ct[*]}" "${gs[*]:-}" "${ca[*]:-}" "${c304[*]:-}" <<'EOF'
import sys, statistics as st
name, files = sys.argv[1], sys.argv[2]
gd, cp, gs, ca, c304 = ([int(x) / 1000 for x in a.split()] for a in (sys.argv[3], sys.argv[4], sys.argv[6], sys.argv[7], sys.argv[8]))
ct = [float(x) * 1000 for x in sys.argv[5].split()]
med = st.median
def paired(a, b):
    return med([x / y for x, y in zip(a, b)])
print(f"| {name} ({files} files in the change) | git diff {med(gd):.1f} ms | /diff/patch {med(cp):.1f} ms, curl's process included | **{med(cp)/med(gd):.2f}x** (paired {paired(cp, gd):.2f}x; goal <= 1.2x) |")
print(f"| {name} | | /diff/patch {med(ct):.1f} ms, curl's time_total | **{med(ct)/med(gd):.2f}x** (paired {paired(ct, gd):.2f}x) |")
if gs:
    print(f"| {name} | git diff --stat {med(gs):.1f} ms | /diff annotated {med(ca):.1f} ms | **{med(ca)/med(gs):.2f}x** (goal <= 3x) |")
    print(f"| {name} | | /diff repeat, 304 {med(c304):.1f} ms | {med(c304)/med(ca):.2f}x of the full answer |")
EOF
}

echo
echo "| workspace | git | core | ratio |"
echo "| --- | --- | --- | --- |"
bench_ws synthetic "$syn"
bench_ws real "$real"
