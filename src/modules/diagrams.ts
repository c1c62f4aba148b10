import { blockLifecycleMachine } from '../machines/blockLifecycle';
import { permissionChangeMachine } from '../machines/permissionChange';
import { proposalMachine } from '../machines/proposal';
import { txLifecycleMachine } from '../machines/txLifecycle';
import { taskMachine } from './ai/taskMachine';
import { transferMachine } from './bridge/transferMachine';

/** The machines docs/PROTOCOL.md draws ("State machines"), node-local ones first. */
export const DIAGRAMS = [
  { title: 'Transaction lifecycle (node-local)', source: 'src/machines/txLifecycle.ts', machine: txLifecycleMachine },
  { title: 'Block lifecycle (node-local, the importer)', source: 'src/machines/blockLifecycle.ts', machine: blockLifecycleMachine },
  { title: 'Governance proposal (on-chain)', source: 'src/machines/proposal.ts', machine: proposalMachine },
  { title: 'Permission change (on-chain)', source: 'src/machines/permissionChange.ts', machine: permissionChangeMachine },
  { title: 'AI task (on-chain)', source: 'src/modules/ai/taskMachine.ts', machine: taskMachine },
  { title: 'Bridge transfer (on-chain)', source: 'src/modules/bridge/transferMachine.ts', machine: transferMachine },
] as const;
