import { benchTinyTests } from '../helpers/benchRun';

// The chain-facing half of `npm run bench` (the other: bench.test.ts).
// finality is left to `npm run bench -- --only finality`: a 4-process devnet beside the multinode tier took 167 s of a
// CI run (39 s alone), and the multinode tier already checks 4-process finality.
benchTinyTests(['worstblock', 'metaTx', 'attack', 'sync']);
