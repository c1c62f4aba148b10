import type { ParentReads } from '../consensus/blockRules';
import { producerKeysOf } from '../modules/staking';
import type { ExecState } from '../protocol/execState';
import { blockGasRefusal } from './blockGas';

/**
 * The block rules' reads of a parent state (consensus/blockRules.ts): the producer's bound keys, the block gas budget.
 */
export const parentReads = (state: ExecState): ParentReads => ({
  producerKeys: (producer) => producerKeysOf(state, producer),
  gasRefusal: (txs) => blockGasRefusal(state, txs),
});
