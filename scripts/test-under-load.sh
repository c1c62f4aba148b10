#!/usr/bin/env bash
# Runs `npm run test:all` RUNS times in a row (default 3) beside BURNERS CPU burners (default 2:
# one busy loop per core of a 2-core machine), and prints each run's result, its two phases'
# wall times and the time of each tier (the sum of its files' durations). The burners are
# killed when the script ends, however it ends.
#   RUNS=3 BURNERS=2 sh scripts/test-under-load.sh
set -u
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
burners=${BURNERS:-2}
pids=""
for _ in $(seq 1 "$burners"); do
  node -e 'for (;;) {}' &
  pids="$pids $!"
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
export CAIRN_REQUIRE_BROWSER=1
fails=0
for i in $(seq 1 "$runs"); do
  reports=$(mktemp -d)
  run_tmp=$(mktemp -d /tmp/cairn-load-tmp.XXXXXX)
  started=$(date +%s)
  TMPDIR="$run_tmp" CAIRN_TEST_REPORT_DIR="$reports" npm run --silent test:all > "$reports/out.log" 2>&1
  status=$?
  took=$(( $(date +%s) - started ))
  node -e '
    const fs = require("fs"); const dir = process.argv[1];
    const tiers = {}; let passed = 0, failed = 0; const phases = [];
    for (const ph of ["phase1", "phase2"]) {
      let r; try { r = JSON.parse(fs.readFileSync(`${dir}/${ph}.json`, "utf8")); } catch { failed++; continue; }
      passed += r.numPassedTests ?? 0; failed += (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
      const ends = r.testResults.map((t) => t.endTime);
      phases.push(`${ph} ${Math.round((Math.max(...ends) - r.startTime) / 1000)} s`);
      for (const t of r.testResults) {
        const tier = t.name.replace(/^.*\/test\//, "").split("/")[0];
        tiers[tier] = (tiers[tier] ?? 0) + (t.endTime - t.startTime) / 1000;
        if (t.status !== "passed") console.log(`  failed: ${t.name.replace(/^.*\/test\//, "test/")}`);
      }
    }
    const byTier = Object.entries(tiers).map(([k, s]) => `${k} ${Math.round(s)} s`).join(", ");
    console.log(`  ${passed} passed, ${failed} failed; ${phases.join(", ")}; file time per tier: ${byTier}`);
  ' "$reports"
  stray=$(find "$run_tmp" -mindepth 1 -maxdepth 1 ! -name 'tsx-*' 2>/dev/null | wc -l)
  echo "run $i: exit $status, $took s, temp folders left: $stray"
  if [ "$status" -ne 0 ] || [ "$stray" -ne 0 ]; then
    fails=$((fails + 1))
    # The whole output and what was left behind, for the failure's post-mortem.
    mkdir -p test-artifacts && cp "$reports/out.log" "test-artifacts/load-run-$i.log"
    find "$run_tmp" -mindepth 1 -maxdepth 1 ! -name 'tsx-*' >> "test-artifacts/load-run-$i.log"
    echo "  output: test-artifacts/load-run-$i.log"
  fi
  rm -rf "$run_tmp" "$reports"
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$((runs - fails))/$runs runs passed beside $burners CPU burners (load average now: $load)"
[ "$fails" -eq 0 ]
