#!/usr/bin/env bash
# What core and Turborepo re-run for `test` after a change to a package low
# in the DAG (results: BENCHMARKS.md, "Cache truth"). The workspace is
# bench/turbo's (N packages, edges only in the package.json files), with a
# test script in every package. turbo's test task depends on "^build", as
# its docs steer a task that reads its dependencies; core's test target
# declares nothing but its own inputs: its key covers the inputs of every
# project its project depends on.
#
# Usage: bench/turbo-tests.sh   (~4 min; needs node and npm, and the npm registry)
# Knobs: N=200 TURBO_VERSION=2.11.11 OUT=/tmp/core-bench-turbo-tests
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
TURBO_VERSION=${TURBO_VERSION:-2.11.11}
OUT=${OUT:-/tmp/core-bench-turbo-tests}
rm -rf "$OUT" && mkdir -p "$OUT/tools"
go build -o "$OUT/core" ./cmd/core
go run ./bench/turbo -out "$OUT/ws" -n "$N" -npm "$(npm --version)"
(cd "$OUT/tools" && npm install --no-audit --no-fund --loglevel=error "turbo@$TURBO_VERSION" >/dev/null)
TURBO="$OUT/tools/node_modules/.bin/turbo"
cd "$OUT/ws"
# A test in every package: it reads its own source.
node -e '
const fs = require("fs");
for (const d of fs.readdirSync("packages")) {
  const f = "packages/" + d + "/package.json", p = JSON.parse(fs.readFileSync(f, "utf8"));
  p.scripts.test = "node -e \"require(\x27fs\x27).readFileSync(\x27src/index.js\x27)\"";
  fs.writeFileSync(f, JSON.stringify(p, null, 2) + "\n");
}
const t = JSON.parse(fs.readFileSync("turbo.json", "utf8"));
t.tasks.test = { dependsOn: ["^build"] };
fs.writeFileSync("turbo.json", JSON.stringify(t, null, 2) + "\n");
let y = fs.readFileSync("targets.yaml", "utf8");
y = y.replace(/        outputs: \[dist\/\]\n/g, "        outputs: [dist/]\n      test:\n        run: [npm, test]\n        inputs: [\"src/**\"]\n");
fs.writeFileSync("targets.yaml", y);
'
npm install --no-audit --no-fund --loglevel=error >/dev/null
git init -q && git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm workspace

bare=(env -i PATH="$PATH" HOME="$HOME" NO_UPDATE_NOTIFIER=1)
core_test() { "${bare[@]}" CORE_CONCURRENCY=2 "$OUT/core" run test > "$OUT/core.out" 2> "$OUT/core.err"; }
turbo_test() { "${bare[@]}" TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 "$TURBO" run test --concurrency=2 --ui=stream --output-logs=hash-only > "$OUT/turbo.out" 2>&1; }
core_ran() { sed -n 's/^\[[0-9]*\/[0-9]*\] ✔ \(p[0-9]*\):test .*/\1/p' "$OUT/core.err" | sort; }
turbo_ran() { sed -n 's/^@bench\/\(p[0-9]*\):test: cache miss.*/\1/p' "$OUT/turbo.out" | sort; }

"$OUT/core" run build > /dev/null 2>&1 # core's tests need no build; turbo's run it first
core_test; turbo_test
core_test; turbo_test
[ "$(core_ran | grep -c . || true)" = 0 ] && [ "$(turbo_ran | grep -c . || true)" = 0 ] || { echo "a second run re-ran tests" >&2; exit 1; }

echo "# bench/turbo-tests.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $N packages, turbo $("$TURBO" --version)"
echo
echo "| change | core re-ran | turbo re-ran | turbo's set within core's? |"
echo "| --- | ---: | ---: | --- |"
for p in p000 p005 $(printf 'p%03d' $((N / 4))); do
	echo "// one more line" >> "packages/$p/src/index.js"
	core_test; turbo_test
	c=$(core_ran); t=$(turbo_ran)
	missing=$(comm -13 <(echo "$c") <(echo "$t") | grep -c . || true)
	verdict="yes"; [ "$missing" = 0 ] || verdict="no: $missing only turbo re-ran"
	echo "| a line added to $p/src/index.js | $(echo "$c" | grep -c . || true) | $(echo "$t" | grep -c . || true) | $verdict |"
done
