import { benchTinyTests } from '../helpers/benchRun';

// The node-facing half of `npm run bench` (the other: bench-chain.test.ts).
benchTinyTests(['reads', 'admission', 'inclusion', 'block', 'memory', 'hardhat'], '| GET /status (req/s) |');
