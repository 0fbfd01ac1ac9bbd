#!/usr/bin/env bash
# Throughput of the gateway pipeline against bare net/http, side by side.
#
# Builds bench/pipeline (one trivial GET read route served on two loopback
# ports: bare http.ServeMux, and the full gateway listener requiring
# console=read), checks that both answer the same bytes, then runs wrk
# against each in rounds of one run per side, alternating which side goes
# first (ABBA...), so that drift and order effects on a shared machine hit
# both sides alike. Prints requests/sec and server CPU time per request for
# every run, the ratio pipeline/bare of every round, and the verdict on the
# geometric mean of those ratios (goal: >= 0.90). Keep ROUNDS even so each
# side goes first equally often.
#
# Usage: bench/pipeline.sh            (from anywhere in the repository)
# Knobs: ROUNDS=4 THREADS=2 CONNS=32 DURATION=10s WARMUP=2s
#        PIN=1 runs the server on CPU 0 with GOMAXPROCS=1 and wrk on CPU 1,
#        so the server is the bottleneck (use THREADS=1): the stricter test.
#        MAXOTHER=10: a round is "clean" when nothing but the server and wrk
#        used more than this percentage of the machine during either run;
#        the verdict counts clean rounds only (all rounds if none is clean).
#        Each round first waits up to QUIETWAIT=300 seconds for the machine
#        to be idle.
set -euo pipefail

ROUNDS=${ROUNDS:-4}
THREADS=${THREADS:-2}
CONNS=${CONNS:-32}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
PIN=${PIN:-0}
MAXOTHER=${MAXOTHER:-10}
QUIETWAIT=${QUIETWAIT:-300}

srv=() cli=()
if [[ $PIN == 1 ]]; then
	srv=(env GOMAXPROCS=1 taskset -c 0)
	cli=(taskset -c 1)
fi

cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null 2>&1; then
	echo "wrk not found; installing the Debian package" >&2
	if ! apt-get install -y wrk >/dev/null; then
		apt-get update >/dev/null
		apt-get install -y wrk >/dev/null
	fi
fi

tmp=$(mktemp -d)
pid=
cleanup() {
	if [[ -n $pid ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/pipeline" ./bench/pipeline
"${srv[@]}" "$tmp/pipeline" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do
	grep -qx ready "$tmp/out" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/err" >&2; exit 1; }
	sleep 0.1
done
grep -qx ready "$tmp/out" || { echo "bench/pipeline did not start" >&2; exit 1; }
token=$(sed -n 's/^token=//p' "$tmp/out")
declare -A url=(
	[bare]=$(sed -n 's/^bare=//p' "$tmp/out")
	[pipeline]=$(sed -n 's/^pipeline=//p' "$tmp/out")
)
auth="Authorization: Bearer $token"

# Both sides must answer 200 with the same bytes, and the pipeline must
# refuse a request without the token: otherwise the comparison is void.
curl -fsS -H "$auth" "${url[bare]}" >"$tmp/bare.body"
curl -fsS -H "$auth" "${url[pipeline]}" >"$tmp/pipeline.body"
cmp -s "$tmp/bare.body" "$tmp/pipeline.body" || { echo "bare and pipeline bodies differ" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "${url[pipeline]}")
[[ $code == 401 ]] || { echo "pipeline answered $code without a token, want 401" >&2; exit 1; }

# ticks: CPU time the server process has used so far, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# machine: busy and total clock ticks of the whole machine so far (busy
# counts steal: time the hypervisor gave to someone else).
machine() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
hz=$(getconf CLK_TCK)

# quiet: waits (up to QUIETWAIT seconds) until the machine, with both sides
# idle, is no more than MAXOTHER percent busy over three seconds, so that a
# round does not start in the middle of someone else's build.
quiet() {
	local b0 a0 b1 a1 waited=0
	while ((waited < QUIETWAIT)); do
		read -r b0 a0 < <(machine)
		sleep 3
		read -r b1 a1 < <(machine)
		(((b1 - b0) * 100 <= MAXOTHER * (a1 - a0))) && return 0
		((waited == 0)) && echo "waiting for the machine to quiet down ($(((b1 - b0) * 100 / (a1 - a0)))% busy)" >&2
		waited=$((waited + 3))
	done
	echo "warning: the machine stayed busy for ${QUIETWAIT}s; running anyway" >&2
}

# run IMPL DURATION: prints the requests/sec of one wrk run, the server's
# CPU time per request in microseconds (only one side is loaded at a time,
# so the process's CPU time is that side's), and the share of the machine
# used by anything but the server and wrk during the run (other engineers'
# work, steal), in percent. Fails on any non-2xx answer.
run() {
	local out t0 t1 b0 a0 b1 a1 wcpu TIMEFORMAT='%U %S'
	read -r b0 a0 < <(machine)
	t0=$(ticks)
	{ time "${cli[@]}" wrk -t"$THREADS" -c"$CONNS" -d"$2" -H "$auth" "${url[$1]}" >"$tmp/wrk.out"; } 2>"$tmp/wrk.time"
	t1=$(ticks)
	read -r b1 a1 < <(machine)
	out=$(<"$tmp/wrk.out")
	wcpu=$(tail -1 "$tmp/wrk.time" | awk '{print $1 + $2}')
	if grep -q 'Non-2xx' <<<"$out"; then
		echo "wrk got answers other than 200 from $1:" >&2
		echo "$out" >&2
		exit 1
	fi
	# Timeouts mean the machine (or the server) stalled; the run still
	# counts, but say so.
	if grep -q 'Socket errors' <<<"$out"; then
		echo "warning: $1: $(grep 'Socket errors' <<<"$out" | sed 's/^ *//')" >&2
	fi
	awk -v t="$((t1 - t0))" -v hz="$hz" -v busy="$((b1 - b0))" -v all="$((a1 - a0))" -v w="$wcpu" '
		/ requests in / {n = $1}
		/^Requests\/sec:/ {rps = $2}
		END {
			other = (busy - t - w * hz) * 100 / all
			printf "%s %.2f %.0f\n", rps, t * 1e6 / hz / n, (other < 0 ? 0 : other)
		}' <<<"$out"
}

echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "wrk -t$THREADS -c$CONNS -d$DURATION, $ROUNDS rounds per side, ABBA order; body $(wc -c <"$tmp/bare.body") bytes${srv:+; pinned: server on CPU 0 (GOMAXPROCS=1), wrk on CPU 1}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine widens the spread)"
run bare "$WARMUP" >/dev/null
run pipeline "$WARMUP" >/dev/null

declare -A all=([bare]="" [pipeline]="") cpu=([bare]="" [pipeline]="") last busy
ratios="" clean=""
for i in $(seq "$ROUNDS"); do
	order="bare pipeline"
	((i % 2 == 0)) && order="pipeline bare"
	quiet
	for impl in $order; do
		read -r rps us other < <(run "$impl" "$DURATION")
		all[$impl]+="$rps "
		cpu[$impl]+="$us "
		last[$impl]=$rps
		busy[$impl]=$other
		printf 'round %d %-8s %12s req/s %8s us CPU/req  other load %3s%%\n' "$i" "$impl" "$rps" "$us" "$other"
	done
	r=$(awk -v b="${last[bare]}" -v p="${last[pipeline]}" 'BEGIN {printf "%.3f", p / b}')
	ratios+="$r "
	note="other load above $MAXOTHER% during the round"
	if ((busy[bare] <= MAXOTHER && busy[pipeline] <= MAXOTHER)); then
		clean+="$r "
		note="clean"
	fi
	printf 'round %d ratio    pipeline/bare %.3f (%s)\n' "$i" "$r" "$note"
done

median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
awk -v b="$(median "${all[bare]}")" -v p="$(median "${all[pipeline]}")" -v rs="$ratios" -v cs="$clean" \
	-v cb="$(median "${cpu[bare]}")" -v cp="$(median "${cpu[pipeline]}")" '
	function gmean(s, out,    n, r, i, sum) {
		n = split(s, r, " ")
		if (n == 0) return 0
		out["lo"] = out["hi"] = r[1]
		for (i = 1; i <= n; i++) {
			sum += log(r[i])
			if (r[i] < out["lo"]) out["lo"] = r[i]
			if (r[i] > out["hi"]) out["hi"] = r[i]
		}
		out["n"] = n
		return exp(sum / n)
	}
	BEGIN {
		g = gmean(rs, a)
		gc = gmean(cs, c)
		printf "median   bare     %12.2f req/s %8.2f us CPU/req\n", b, cb
		printf "median   pipeline %12.2f req/s %8.2f us CPU/req\n", p, cp
		printf "ratio    pipeline/bare %.3f (geometric mean of %d rounds, range %.3f-%.3f; ratio of medians %.3f)\n", g, a["n"], a["lo"], a["hi"], p / b
		if (c["n"] > 0 && c["n"] < a["n"])
			printf "ratio    pipeline/bare %.3f over the %d clean rounds (range %.3f-%.3f)\n", gc, c["n"], c["lo"], c["hi"]
		printf "server CPU per request: pipeline/bare %.3f (+%.2f us)\n", cp / cb, cp - cb
		if (c["n"] > 0)
			printf "goal >= 0.90x bare throughput: %s (%.3f, %d clean rounds of %d)\n", (gc >= 0.90 ? "met" : "NOT met"), gc, c["n"], a["n"]
		else
			printf "goal >= 0.90x bare throughput: %s (%.3f; no clean round: the machine was busy, rerun)\n", (g >= 0.90 ? "met" : "NOT met"), g
	}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
