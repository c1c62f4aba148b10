import type { AnyStateMachine } from 'xstate';
import { blockLifecycleMachine } from '../machines/blockLifecycle';
import { machineRegistry, type AnyMachineDef, type MachineRegistry } from '../machines/registry';
import { nodeModesMachine } from '../machines/nodeModes';
import { txLifecycleMachine } from '../machines/txLifecycle';
import { PERMISSION_CHANGE_STATES, permissionChangeDef } from './permissions/machine';
import { PROPOSAL_STATES, proposalDef } from './governance/machine';
import { TASK_STATES, taskDef } from './ai/machine';
import { TRANSFER_STATES, transferDef } from './bridge/machine';
import type { ActionsAt } from '../machines/actions';
import { proposalActions } from './governance/actions';
import { taskActionsAt } from './ai/actions';
import { transferActions } from './bridge/actions';

/**
 * The one list of the node's machines: what docs/PROTOCOL.md draws ("State machines"), what
 * GET /machines exports for fuzzers, and — for the on-chain ones — what the end-of-block tick
 * runs (MACHINES). Node-local machines first. Each carries the invariants the tests check; an
 * on-chain one its status words (the API's enum, derived from the machine: `statusesOf`) and
 * its per-state deadlines. Adding a machine is one entry here.
 *
 * What is a machine (docs/PROTOCOL.md "State machines"): a thing whose phases a follower must
 * see in order, or that moves on its own at a height (a deadline pays, refunds or applies).
 */
export interface MachineEntry {
  name: string;
  title: string;
  source: string;
  machine: AnyStateMachine;
  onChain: boolean;
  invariants: readonly string[];
  /** The on-chain definition the tick runs. */
  def?: AnyMachineDef;
  /** The API's `status` words (on-chain machines). */
  statuses?: readonly string[];
  /** State → the context field holding the height of its deadline (on-chain machines). */
  deadlines?: Readonly<Record<string, string>>;
  /** What an address may send to an instance (`?for=`): the module's answer, served by the machine's view actor. */
  actions?: ActionsAt;
}

const node = (e: Omit<MachineEntry, 'onChain'>): MachineEntry => ({ ...e, onChain: false });
const onChain = (
  def: AnyMachineDef,
  statuses: readonly string[],
  e: Pick<MachineEntry, 'title' | 'source' | 'invariants' | 'actions'>,
): MachineEntry => ({
  ...e,
  name: def.name,
  machine: def.machine,
  onChain: true,
  def,
  statuses,
  ...(def.deadlines ? { deadlines: def.deadlines as Record<string, string> } : {}),
});

export const MACHINE_LIST: readonly MachineEntry[] = [
  node({
    name: 'txLifecycle',
    title: 'Transaction lifecycle (node-local, the transaction lifecycle actor)',
    source: 'src/machines/txLifecycle.ts',
    machine: txLifecycleMachine,
    invariants: [
      'a transaction is in exactly one state',
      'finalized is never left',
      'an undone transaction is re-included or back in the mempool, never lost',
    ],
  }),
  node({
    name: 'blockLifecycle',
    title: 'Block lifecycle (node-local, the block lifecycle actor)',
    source: 'src/machines/blockLifecycle.ts',
    machine: blockLifecycleMachine,
    invariants: [
      'finality never goes back',
      'no block at or below the finalized height is undone',
      'the same blocks give the same state root',
    ],
  }),
  node({
    name: 'nodeModes',
    title: 'Node modes (node-local, the modes actor)',
    source: 'src/machines/nodeModes.ts',
    machine: nodeModesMachine,
    invariants: [
      'a node serves reads only while ready',
      'signing, once halted (its key seen signing elsewhere), never resumes before a restart',
      'a stop for a failure keeps its reason',
    ],
  }),
  onChain(proposalDef, PROPOSAL_STATES, {
    title: 'Governance proposal (on-chain)',
    source: 'src/modules/governance/machine.ts',
    actions: proposalActions,
    invariants: [
      'a proposal reaches exactly one terminal state',
      'its deposit is refunded or forfeited exactly once',
      'a treasury spend is paid at most once, only when EXECUTED',
    ],
  }),
  onChain(permissionChangeDef, PERMISSION_CHANGE_STATES, {
    title: 'Permission change (on-chain)',
    source: 'src/modules/permissions/machine.ts',
    invariants: ['a change is applied at most once, only after its timelock', 'a vetoed change is never applied'],
  }),
  onChain(taskDef, TASK_STATES, {
    title: 'AI task (on-chain)',
    source: 'src/modules/ai/machine.ts',
    actions: taskActionsAt,
    invariants: [
      'every coin paid out was escrowed: the AI escrow = Σ oracle stakes + what open tasks owe',
      'a task reaches exactly one terminal state',
      'the outcome does not depend on the order of transactions within a block',
    ],
  }),
  onChain(transferDef, TRANSFER_STATES, {
    title: 'Bridge transfer (on-chain)',
    source: 'src/modules/bridge/machine.ts',
    actions: transferActions,
    invariants: [
      'a deposit (sourceChain, sourceTx) is released at most once',
      'the bridge escrow holds exactly what the pools have locked; reserved ≤ locked',
      'a DELAYED transfer has releaseAt above the current height',
    ],
  }),
];

/** The on-chain machines, with their definitions: one view actor each. */
export const ON_CHAIN: readonly (MachineEntry & { def: AnyMachineDef })[] = MACHINE_LIST.filter(
  (m): m is MachineEntry & { def: AnyMachineDef } => m.def !== undefined,
);

/** The on-chain definitions by name, as the end-of-block tick finds them. */
export const MACHINES: MachineRegistry = machineRegistry(MACHINE_LIST.flatMap((m) => (m.def ? [m.def] : [])));
