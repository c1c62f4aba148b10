import { join } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import { ActorRef } from '../../src/actors/actorRef';
import { standaloneConsensus } from '../../src/actors/consensus/consensusActors';
import { mempoolBehavior } from '../../src/actors/mempoolActor';
import type {
  ConsensusMsg,
  ConsensusReplies,
  MempoolLookup,
  MempoolMsg,
  MempoolReplies,
  TxLifecycleMsg,
} from '../../src/actors/protocol';
import { ChainView } from '../../src/api/chainView';
import { HeadAccounts } from '../../src/api/headAccounts';
import { DEV_NETWORK, devNetworkGenesis } from '../../src/chain/devnet';
import { applyGenesis } from '../../src/chain/genesis';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { TxPool } from '../../src/mempool/pool';
import { fromHex, type Hex } from '../../src/primitives/hex';
import type { Head } from '../../src/protocol/chain';
import { TREASURY_ADDRESS } from '../../src/protocol/params';
import type { Block } from '../../src/protocol/types';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { ChainStore } from '../../src/storage/chainStore';
import { SigningGuard } from '../../src/storage/signingGuard';
import { realVerifier } from './verifier';

/**
 * Two validators of one genesis (3 funded accounts), each a real consensus actor and mempool over its own in-memory
 * store, on a clock the test moves: for tests of what two nodes that built their own branches do with each other's.
 */
export const SLOT = 10;
export const { spec, validators, accounts } = devNetworkGenesis(3, 2);
export const users: HybridKeys[] = accounts.map((a) => deriveKeys(fromHex(a.secret)));
const log = pino({ level: 'silent' });

export interface ConsensusNode {
  index: number;
  kv: MemoryKv;
  store: ChainStore;
  view: ChainView;
  pool: TxPool;
  chain: ActorRef<ConsensusMsg, ConsensusReplies>;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  clock: { now: number };
  /** What the mempool told the transaction lifecycle actor (admitted, dropped with the reason), in order. */
  txReports: TxLifecycleMsg[];
}

async function genesisStore(): Promise<{ kv: MemoryKv; store: ChainStore; head: Head }> {
  const kv = new MemoryKv();
  const store = new ChainStore(kv);
  const state = await StateTrie.open(kv, null);
  const g = await applyGenesis(state, spec);
  const batch = kv.batch();
  const stateRoot = await state.flush(batch);
  const head: Head = { height: 0, hash: g.header.hash, stateRoot, finalizedHeight: 0, timestamp: g.header.timestamp };
  store.putBlock(batch, g, head, [...spec.accounts.map((a) => a.address), TREASURY_ADDRESS]);
  await kv.write(batch);
  state.settle();
  return { kv, store, head };
}

/** Validator `index`'s node at genesis; `scratch` makes the folder of its signing guard (test/helpers/scratch.ts). */
export async function consensusNode(index: number, scratch: (prefix: string) => string): Promise<ConsensusNode> {
  const { kv, store, head } = await genesisStore();
  const view = new ChainView(head, validators.map((v) => v.address).sort(), await store.summariesDesc(0, 1));
  const headAccounts = new HeadAccounts(kv, view);
  const pool = new TxPool({ cap: 1_000, lifetimeMs: 3_600_000, maxNonceGap: 64 });
  const clock = { now: head.timestamp + SLOT };
  const mempool = new ActorRef<MempoolMsg, MempoolReplies>(`mempool${index}`);
  const txReports: TxLifecycleMsg[] = [];
  mempool.attach(
    mempoolBehavior({
      pool,
      recent: new Map<Hex, MempoolLookup>(),
      readAccount: (a) => headAccounts.read(a),
      inChain: async (id) => (await store.txLocation(id)) !== undefined,
      now: () => clock.now,
      log,
      lifecycles: { txs: { send: (m) => txReports.push(m) } },
    }),
  );
  const chain = new ActorRef<ConsensusMsg, ConsensusReplies>(`chain${index}`);
  const guard = await SigningGuard.open(join(scratch('cairn-consensus-'), 'guard.json'));
  chain.attach(
    standaloneConsensus({
      kv,
      store,
      view,
      mempool,
      keys: validators[index],
      network: DEV_NETWORK,
      idleBlockMs: 0,
      slotMs: SLOT,
      guard,
      log,
      verifier: realVerifier,
    }),
  );
  return { index, kv, store, view, pool, chain, mempool, clock, txReports };
}

/** The node's canonical blocks, 1..head. */
export async function blocksOf(n: ConsensusNode): Promise<Block[]> {
  const out: Block[] = [];
  for (let h = 1; h <= n.view.head.height; h++) out.push((await n.store.block(h))!);
  return out;
}

/**
 * Produces one block in this node's next own slot (empty blocks too: idle pace 0); false when the validator abstains:
 * after a reorganization its vote for the epoch's checkpoint may have been for the other branch (signing guard).
 */
export async function produce(n: ConsensusNode): Promise<boolean> {
  const order = validators.map((v) => v.address).sort();
  const mine = order.indexOf(validators[n.index].address);
  let slot = Math.floor(Math.max(n.clock.now, n.view.head.timestamp + 1) / SLOT) + 1;
  while (slot % 2 !== mine) slot++;
  n.clock.now = slot * SLOT;
  const before = n.view.head.height;
  await n.chain.ask({ type: 'slotTick', now: n.clock.now });
  if (n.view.head.height === before) return false;
  expect(n.view.head.height).toBe(before + 1);
  return true;
}
