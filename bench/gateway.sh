#!/usr/bin/env bash
# Go benchmarks of the gateway pipeline against bare net/http, compared with
# benchstat: one column per implementation (bare, pipeline), one row per
# request (read, cors, 401, 401unknown), with the delta.
#
# go test -count N would repeat each sub-benchmark N times in a row, so all
# bare samples would be taken before all pipeline ones; instead the test
# binary is built once and run COUNT times with -count 1, so every round
# measures bare then pipeline for each request and drift on a shared machine
# hits both sides alike.
#
# Usage: bench/gateway.sh            (from anywhere in the repository)
# Knobs: COUNT=6 BENCHTIME=1s OUT=<file to keep the raw results>
set -euo pipefail

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/gateway.txt}
: >"$out"

echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-)"
go test -c -o "$tmp/gateway.test" ./gateway
for i in $(seq "$COUNT"); do
	# Header lines (goos, cpu, ...) once; benchstat reads them for all.
	(cd gateway && "$tmp/gateway.test" -test.run '^$' -test.bench '^BenchmarkSideBySide$' \
		-test.benchmem -test.benchtime "$BENCHTIME" -test.count 1) |
		if ((i == 1)); then grep -v '^PASS$'; else grep '^Benchmark'; fi | tee -a "$out"
done
echo
go run "$BENCHSTAT" -col /impl "$out"
