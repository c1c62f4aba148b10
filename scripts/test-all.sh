#!/bin/sh
# `npm run test:all`: every test tier, in two phases (vitest.config.ts lists the tiers).
#   1. unit, integration, browser, fuzz — three files at a time: most integration files wait on
#      nodes (blocks, windows) more than they compute, so a third file fills the idle core.
#   2. multinode, bench, sim — two at a time: a 4-process devnet's finality deadlines do not hold
#      with a third CPU-bound file beside it (measured: the 2 | 2 partition test missed its
#      40 s convergence once with three), and the benchmark floods run last, side by side.
# Both phases run even when the first fails; the exit status is non-zero if either failed.
# CAIRN_TEST_REPORT_DIR: each phase also writes a JSON report there (phase1.json, phase2.json).
report() {
  [ -n "${CAIRN_TEST_REPORT_DIR:-}" ] &&
    echo "--reporter=default --reporter=json --outputFile.json=$CAIRN_TEST_REPORT_DIR/$1.json"
}
npx vitest run --project unit --project integration --project browser --project fuzz --maxWorkers=3 \
  $(report phase1) "$@"
first=$?
npx vitest run --project multinode --project bench --project sim --maxWorkers=2 $(report phase2) "$@"
second=$?
[ "$first" -eq 0 ] && [ "$second" -eq 0 ]
