import { benchTinyTests } from '../helpers/benchRun';

// The node-facing half of `npm run bench` (the other: bench-chain.test.ts), as a smoke test of the scripts and
// their rows. CI runs the cheapest (the whole CI run must stay within 15 minutes on 2 cores); admission,
// inclusion, block, memory and hardhat run with `npm run bench` (bench/results.md).
benchTinyTests(['reads', 'gossip'], '| GET /status (req/s) |');
