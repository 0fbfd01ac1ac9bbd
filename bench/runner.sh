#!/usr/bin/env bash
# Runner benchmarks (results: BENCHMARKS.md, "Runner").
#
#  1. No-op cached run against hashing the inputs alone: BenchmarkNoopCachedRun
#     (1,000 cached targets: hash every input, look up every key, replay,
#     write the hit journals) and BenchmarkHashInputs (the same hashing, same
#     parallelism, nothing else), from internal/runner/bench_test.go. The goal
#     is noop <= 2x hash. The test binary is built once and run ROUNDS times
#     with -count 1, alternating which benchmark goes first, so drift on a
#     shared machine hits both alike (`go test -count 5` would take all the
#     noop samples before all the hash ones). Then one CPU profile of each.
#  2. Pool overhead per target: bench/runner, 1,000 targets whose argv is
#     /bin/true run by runner.Run with an empty cache, against exec'ing
#     /bin/true 1,000 times directly with the same parallelism.
#     Then the same on tmpfs (/dev/shm), where fsync is free, to show how
#     much of the overhead is the journals' and cache entries' fsyncs.
#  3. RunJob and GetStatus latency against a running server: bench/services
#     starts `go run ./cmd/core --workspace <copy of testdata/demo> server
#     start --address 127.0.0.1:0` and calls the generated Connect clients
#     with the admin token from <ws>/.core/server.json; then again with
#     clients that do not accept gzip.
#
# Usage: bench/runner.sh        (from anywhere in the repository; ~5 min)
# Knobs: ROUNDS=5 BENCHTIME=5x OUT=<dir for raw results and profiles,
#        default /tmp/core-bench-runner-out> POOL_ROUNDS=5 CALLS=2000
#        LARGE_WS=<workspace>: also time the RPCs against a server on it (a
#        .core it creates there is removed afterwards)
set -euo pipefail

ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-5x}
POOL_ROUNDS=${POOL_ROUNDS:-5}
CALLS=${CALLS:-2000}
OUT=${OUT:-/tmp/core-bench-runner-out}
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

cd "$(dirname "$0")/.."
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec > >(tee "$OUT/report.md") 2>&1

echo "# bench/runner.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(go version | cut -d' ' -f3-); commit $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## 1. no-op cached run vs hashing the inputs ($ROUNDS interleaved rounds, -benchtime $BENCHTIME)"
echo
go test -c -o "$tmp/runner.test" ./internal/runner
raw=$OUT/noop-vs-hash.txt
: >"$raw"
for i in $(seq "$ROUNDS"); do
	if ((i % 2)); then order="NoopCachedRun HashInputs"; else order="HashInputs NoopCachedRun"; fi
	for b in $order; do
		(cd internal/runner && "$tmp/runner.test" -test.run '^$' -test.bench "^Benchmark$b\$" \
			-test.benchmem -test.benchtime "$BENCHTIME" -test.count 1) |
			if [[ ! -s $raw ]]; then grep -v '^PASS$'; else grep '^Benchmark'; fi | tee -a "$raw"
	done
done
echo
go run "$BENCHSTAT" "$raw"
echo
# Per-round ratio (each round has one sample of each), then their geometric mean.
awk '/^BenchmarkNoopCachedRun/{n[++a]=$3} /^BenchmarkHashInputs/{h[++b]=$3}
	END{s=0; for(i=1;i<=a;i++){r=n[i]/h[i]; s+=log(r); printf "round %d: noop %.1f ms, hash %.1f ms, noop/hash %.2f\n", i, n[i]/1e6, h[i]/1e6, r}
	printf "geometric mean of noop/hash over %d rounds: %.2f\n", a, exp(s/a)}' "$raw"
echo
echo "### profiles"
(cd internal/runner && "$tmp/runner.test" -test.run '^$' -test.bench '^BenchmarkNoopCachedRun$' -test.benchtime 20x \
	-test.cpuprofile "$OUT/noop.pprof" >/dev/null)
(cd internal/runner && "$tmp/runner.test" -test.run '^$' -test.bench '^BenchmarkHashInputs$' -test.benchtime 20x \
	-test.cpuprofile "$OUT/hash.pprof" >/dev/null)
for p in noop hash; do
	go tool pprof -top -cum -nodecount=45 "$tmp/runner.test" "$OUT/$p.pprof" >"$OUT/$p-top.txt" 2>/dev/null
	echo
	echo "$p (full list: $OUT/$p-top.txt)"
	echo '```'
	grep -E 'Duration:|flat  flat%|runner\.|sha256|syscall\.Syscall|os\.\(\*File\)\.(Read|Write)|doublestar|json|gcBgMarkWorker$|Readdir|ReadDir|Lstat|Open' "$OUT/$p-top.txt" | grep -v 'inline)$' | head -30
	echo '```'
done

echo
echo "## 2. pool overhead per target: 1,000 targets running /bin/true vs exec'ing /bin/true directly"
go run ./bench/runner -rounds "$POOL_ROUNDS" -json "$OUT/pool.json" -cpuprofile "$OUT/pool-run.pprof"
go build -o "$tmp/pool" ./bench/runner
go tool pprof -top -cum -nodecount=45 "$tmp/pool" "$OUT/pool-run.pprof" >"$OUT/pool-run-top.txt" 2>/dev/null || true
echo
echo '```'
grep -E 'Duration:|flat  flat%|runner\.|fsx\.|Fsync|execx\.Exec$|Cmd\)\.Start$' "$OUT/pool-run-top.txt" | grep -v 'inline)$' | head -20
echo '```'
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
	echo
	echo "### the same with the workspace and the cache on tmpfs (/dev/shm: fsync costs nothing), to separate the durable writes"
	TMPDIR=/dev/shm "$tmp/pool" -rounds "$POOL_ROUNDS" -json "$OUT/pool-tmpfs.json"
fi

echo
echo "## 3. RunJob and GetStatus against a running server"
go run ./bench/services -n "$CALLS" -json "$OUT/services.json"
echo
echo "### the same with clients that do not offer gzip (connect-go clients do by default, and the server then compresses every response)"
go run ./bench/services -n "$CALLS" -nogzip -json "$OUT/services-nogzip.json"
if [[ -n ${LARGE_WS:-} ]]; then
	echo
	echo "### against a server on $LARGE_WS (e.g. bench/graph's large workspace, KEEP=1)"
	had_core=; [[ -e $LARGE_WS/.core ]] && had_core=1
	go run ./bench/services -ws "$LARGE_WS" -n 1000 -blocks 5 -jobs jobs/rotate-logs -json "$OUT/services-large.json"
	[[ -n $had_core ]] || rm -rf "$LARGE_WS/.core"
fi
echo
echo "raw results and profiles: $OUT"
