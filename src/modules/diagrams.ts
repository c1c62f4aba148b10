import { blockLifecycleMachine } from '../machines/blockLifecycle';
import { permissionChangeMachine } from './permissions/machine';
import { proposalMachine } from './governance/machine';
import { txLifecycleMachine } from '../machines/txLifecycle';
import { taskMachine } from './ai/machine';
import { transferMachine } from './bridge/machine';

/**
 * The node's machines as docs/PROTOCOL.md draws them ("State machines") and GET /machines
 * exports them for fuzzers, node-local ones first, each with the invariants the tests check.
 */
export const DIAGRAMS = [
  {
    name: 'txLifecycle', title: 'Transaction lifecycle (node-local)', source: 'src/machines/txLifecycle.ts', machine: txLifecycleMachine, onChain: false,
    invariants: ['a transaction is in exactly one state', 'finalized is never left', 'an undone transaction is re-included or back in the mempool, never lost'],
  },
  {
    name: 'blockLifecycle', title: 'Block lifecycle (node-local, the importer)', source: 'src/machines/blockLifecycle.ts', machine: blockLifecycleMachine, onChain: false,
    invariants: ['finality never goes back', 'no block at or below the finalized height is undone', 'the same blocks give the same state root'],
  },
  {
    name: 'proposal', title: 'Governance proposal (on-chain)', source: 'src/modules/governance/machine.ts', machine: proposalMachine, onChain: true,
    invariants: ['a proposal reaches exactly one terminal state', 'its deposit is refunded or forfeited exactly once', 'a treasury spend is paid at most once, only when EXECUTED'],
  },
  {
    name: 'permissionChange', title: 'Permission change (on-chain)', source: 'src/modules/permissions/machine.ts', machine: permissionChangeMachine, onChain: true,
    invariants: ['a change is applied at most once, only after its timelock', 'a vetoed change is never applied'],
  },
  {
    name: 'aiTask', title: 'AI task (on-chain)', source: 'src/modules/ai/machine.ts', machine: taskMachine, onChain: true,
    invariants: [
      'every coin paid out was escrowed: the AI escrow = Σ oracle stakes + what open tasks owe',
      'a task reaches exactly one terminal state',
      'the outcome does not depend on the order of transactions within a block',
    ],
  },
  {
    name: 'bridgeTransfer', title: 'Bridge transfer (on-chain)', source: 'src/modules/bridge/machine.ts', machine: transferMachine, onChain: true,
    invariants: [
      'a deposit (sourceChain, sourceTx) is released at most once',
      'the bridge escrow holds exactly what the pools have locked; reserved ≤ locked',
      'a DELAYED transfer has releaseAt above the current height',
    ],
  },
] as const;
