#!/usr/bin/env bash
# The reliability suite (issue 19, "Keep it held"; results:
# BENCHMARKS.md, "Reliability"). Not part
# of CI: the full run takes about 10 minutes. It builds core once, then runs
# every scenario of bench/reliability against the real binary, each on its
# own copy of testdata/demo with its own `core server start --address
# 127.0.0.1:0`:
#
#  1. fanout: CLIENTS healthy SSE clients of GET /api/v1/events and STALLED
#     clients that send the request over raw TCP with a tiny receive buffer
#     and never read; EVENTS graph events (edits of README.md's title, each
#     once the previous reached a client). Proves every healthy client gets
#     every event within 5 s of the edit while the stalled clients' sockets
#     fill (about 530 events fill them); reports the latency edit -> receipt,
#     the server's RSS and whether the stalled clients were dropped.
#  2. soak: CONNS request loops for DURATION (graph with gzip, a graph query,
#     GetStatus, ListRuns) with SSE clients open and the graph changing.
#     Proves no request fails and the RSS levels off (the end within 10% +
#     20 MiB of the RSS after the first third).
#  3. tokens: TOKENS `core config console token create` processes at once,
#     a third of them sent SIGKILL after 0-50 ms. Proves every token printed
#     by a process that exited 0 authenticates and is listed, and that
#     tokens.json still loads.
#  4. runs: SIGKILL to the server while a target (sh -c '...; sleep SLEEP')
#     runs, a restart, the same run again. Proves the target's processes die
#     with the server (within 10 s), the crashed run is not shown running,
#     and two runs never overlap.
#  5. bodies: the tests server/limits_test.go generates from routes.yaml
#     (bodies over each POST row's limit, plain and as gzip that expands
#     past it; a truncated body; a gzip bomb's allocations), row by row.
#
# Usage: bench/reliability.sh            (from anywhere in the repository)
#        SHORT=1 bench/reliability.sh    (a smoke run of about a minute)
# Knobs: CLIENTS=1000 STALLED=10 EVENTS=1500 DURATION=3m CONNS=32 SSE=20
#        TOKENS=200 SLEEP=20s SCENARIOS="fanout soak tokens runs bodies"
#        OUT=<dir for report.md and the raw JSON, default
#        /tmp/core-reliability-out>
# It prints a markdown report (also $OUT/report.md) ending in a summary
# table, and exits 1 when any scenario failed.
set -uo pipefail

if [[ -n ${SHORT:-} ]]; then
	: "${CLIENTS:=100}" "${STALLED:=2}" "${EVENTS:=200}" "${DURATION:=15s}" "${CONNS:=8}" "${SSE:=5}" "${TOKENS:=40}" "${SLEEP:=8s}" "${ORPHAN_WAIT:=3s}"
fi
CLIENTS=${CLIENTS:-1000}
STALLED=${STALLED:-10}
EVENTS=${EVENTS:-1500}
DURATION=${DURATION:-3m}
CONNS=${CONNS:-32}
SSE=${SSE:-20}
TOKENS=${TOKENS:-200}
SLEEP=${SLEEP:-20s}
ORPHAN_WAIT=${ORPHAN_WAIT:-10s}
SCENARIOS=${SCENARIOS:-fanout soak tokens runs bodies}
OUT=${OUT:-/tmp/core-reliability-out}

cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/core" ./cmd/core || exit 1
go build -o "$tmp/reliability" ./bench/reliability || exit 1
exec > >(tee "$OUT/report.md")

echo "# bench/reliability.sh $(date -u '+%Y-%m-%d %H:%M UTC')${SHORT:+ (SHORT)}"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(go version | cut -d' ' -f3-); commit $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"

results=()
for s in $SCENARIOS; do
	case $s in
	fanout) args=(-clients "$CLIENTS" -stalled "$STALLED" -events "$EVENTS") ;;
	soak) args=(-duration "$DURATION" -conns "$CONNS" -sse "$SSE") ;;
	tokens) args=(-n "$TOKENS") ;;
	runs) args=(-sleep "$SLEEP" -orphan-wait "$ORPHAN_WAIT") ;;
	bodies) args=() ;;
	*)
		echo "unknown scenario $s" >&2
		exit 2
		;;
	esac
	rm -f "$OUT/$s.json"
	"$tmp/reliability" "$s" -core "$tmp/core" -json "$OUT/$s.json" "${args[@]}"
	results+=("$OUT/$s.json")
done

echo
echo "## Summary"
echo
"$tmp/reliability" summary "${results[@]}"
code=$?
echo
echo "raw results: $OUT"
exit $code
