import type { Logger } from 'pino';
import type { ChainStore } from '../storage/chainStore';
import { ActorRef } from './actorRef';
import { blockLifecycleBehavior, blockLifecycleTable } from './blockLifecycleActor';
import type {
  BlockLifecycleMsg,
  BlockLifecycleReplies,
  LifecycleReports,
  TxLifecycleMsg,
  TxLifecycleReplies,
} from './protocol';
import { txLifecycleBehavior, txLifecycleTable } from './txLifecycleActor';

export interface LifecycleActorsDeps {
  store: Pick<ChainStore, 'txLifecycleEvents' | 'txLocation' | 'summary' | 'heightOfHash'>;
  finalizedHeight: () => number;
  log: Logger;
}

/**
 * The two node-local lifecycle actors (transactions, blocks). Their tables belong to this
 * object, not to the behaviours, so a restarted actor keeps what it held.
 */
export function lifecycleActors(d: LifecycleActorsDeps) {
  // Admissions come one message each: room for a flood's worth.
  const txs = new ActorRef<TxLifecycleMsg, TxLifecycleReplies>('txLifecycle', 65_536);
  const blocks = new ActorRef<BlockLifecycleMsg, BlockLifecycleReplies>('blockLifecycle', 4_096);
  const txDeps = { ...d, table: txLifecycleTable(), log: d.log.child({ actor: 'txLifecycle' }) };
  const blockDeps = { ...d, table: blockLifecycleTable(), log: d.log.child({ actor: 'blockLifecycle' }) };
  const specs = [
    { ref: txs, start: async () => txLifecycleBehavior(txDeps) },
    { ref: blocks, start: async () => blockLifecycleBehavior(blockDeps) },
  ] as const;
  /** Outside a supervisor (tests, tools): both behaviours attached at once. */
  const attach = () => {
    txs.attach(txLifecycleBehavior(txDeps));
    blocks.attach(blockLifecycleBehavior(blockDeps));
  };
  return { txs, blocks, specs, attach } satisfies LifecycleReports & Record<string, unknown>;
}
export type LifecycleActors = ReturnType<typeof lifecycleActors>;

/** Outside a node (tests, tools): the actors, running. */
export function standaloneLifecycles(d: LifecycleActorsDeps): LifecycleActors {
  const a = lifecycleActors(d);
  a.attach();
  return a;
}
