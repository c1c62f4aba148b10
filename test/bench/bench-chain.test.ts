import { benchTinyTests } from '../helpers/benchRun';

// The chain-facing half of `npm run bench` (the other: bench.test.ts), as a smoke test of the scripts and their
// rows (worstblock-search: 6 loops in its tiny mode). CI runs the cheapest; sync, metaTx, attack and finality
// (a 4-process devnet: 167 s of a loaded CI run, 39 s alone) run with `npm run bench` (bench/results.md), and what they measure has its own tests
// (test/adversarial, the multinode tier).
benchTinyTests(['worstblock', 'worstblock-search']);
