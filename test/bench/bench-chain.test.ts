import { benchTinyTests } from '../helpers/benchRun';

// The chain-facing half of `npm run bench` (the other: bench.test.ts).
benchTinyTests(['worstblock', 'metaTx', 'finality', 'attack', 'sync']);
