import { expect } from 'vitest';
import { applyTx, type BlockContext, type TxVerdict } from '../../src/chain/applyTx';
import { buildBlock, type BuildResult } from '../../src/chain/buildBlock';
import { DEV_NETWORK } from '../../src/chain/devnet';
import { finishBlock } from '../../src/chain/finishBlock';
import { applyGenesis, type GenesisSpec } from '../../src/chain/genesis';
import { applyBlock } from '../../src/chain/replay';
import { orderedCandidates } from '../../src/mempool/senderHeap';
import type { ChainEvent } from '../../src/protocol/events';
import type { ExecState } from '../../src/protocol/execState';
import type { Address, Block, SignedTx, TxResult } from '../../src/protocol/types';
import type { Hex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';

/** A state at `genesis` over an in-memory store (not yet committed). */
export async function freshChainState(genesis: GenesisSpec): Promise<{ kv: MemoryKv; state: StateTrie }> {
  const kv = new MemoryKv();
  const state = await StateTrie.open(kv, null);
  await applyGenesis(state, genesis);
  return { kv, state };
}

/** Commits `state` to `kv` as the producer does after a block; returns the root. */
export async function commitState(kv: MemoryKv, state: StateTrie): Promise<Hex> {
  const b = kv.batch();
  const root = await state.flush(b);
  await kv.write(b);
  state.settle();
  return root;
}

/** Σ (balance + staked) over `accounts`: the supply, when they are every account holding coins. */
export async function heldBy(state: ExecState, accounts: readonly Address[]): Promise<bigint> {
  let total = 0n;
  for (const a of accounts) {
    const acc = await state.getAccount(a);
    if (acc) total += acc.balance + acc.staked;
  }
  return total;
}

/**
 * A chain over an in-memory store, for the model tests (modelRunner.ts): one producer, block
 * `h` at timestamp h × 1000, every block committed and its root kept for the replay. A block
 * is made either transaction by transaction (`apply` / `include`, then `seal`) or whole from
 * per-sender queues (`build`, as the producer does), or imported (`importBlock`, as a replay does).
 */
export class MemChain {
  height = 0;
  /** The root at genesis, then after each block. */
  readonly roots: Hex[];
  /** The blocks made by `build` or imported, in order (what a replay re-imports). */
  readonly blocks: Block[] = [];
  private burned = 0n;
  private events: ChainEvent[] = [];

  private constructor(
    readonly kv: MemoryKv,
    readonly state: StateTrie,
    readonly producer: Address,
    genesisRoot: Hex,
  ) {
    this.roots = [genesisRoot];
  }

  static async open(genesis: GenesisSpec, producer: Address): Promise<MemChain> {
    const { kv, state } = await freshChainState(genesis);
    return new MemChain(kv, state, producer, await commitState(kv, state));
  }

  /** The context of the block being made (height + 1). */
  private context(): BlockContext {
    const height = this.height + 1;
    return { height, timestamp: height * 1000, producer: this.producer, network: DEV_NETWORK };
  }

  /** Runs `tx` in the block being made; a skipped one leaves the state untouched and is not in the block. */
  async apply(tx: SignedTx): Promise<TxVerdict> {
    const v = await applyTx(this.state, tx, this.context());
    if (v.kind === 'applied') {
      this.burned += v.burned;
      this.events.push(...(v.result.events ?? []));
    }
    return v;
  }

  /** Runs `tx`, which must be included (as a success or a failure), in the block being made. */
  async include(tx: SignedTx): Promise<TxResult> {
    const v = await this.apply(tx);
    if (v.kind !== 'applied') throw new Error(`${tx.type} not applied: ${v.refusal.reason}`);
    return v.result;
  }

  /**
   * Ends the block being made (finishBlock) and commits it; returns its events, the transactions' then the end of
   * block's.
   */
  async seal(): Promise<ChainEvent[]> {
    const height = ++this.height;
    const events = [
      ...this.events,
      ...(await finishBlock(this.state, { height, producer: this.producer, burned: this.burned })),
    ];
    this.burned = 0n;
    this.events = [];
    this.roots.push(await commitState(this.kv, this.state));
    return events;
  }

  /** Builds the next block from per-sender queues (buildBlock over the mempool's order) and commits it. */
  async build(queues: Iterable<SignedTx[]>): Promise<{ built: BuildResult; block: Block }> {
    const { height, timestamp, producer } = this.context();
    const built = await buildBlock(this.state, orderedCandidates(queues), {
      height,
      timestamp,
      producer,
      network: DEV_NETWORK,
      maxTxs: 500,
    });
    const block: Block = {
      header: { height, timestamp, producer, txCount: built.txs.length } as Block['header'],
      txs: built.txs,
      results: built.results,
      ...(built.events.length > 0 ? { events: built.events } : {}),
    };
    this.height = height;
    this.blocks.push(block);
    this.roots.push(await commitState(this.kv, this.state));
    return { built, block };
  }

  /**
   * Builds the next block from `offered` where admission refuses exactly `refused` (id → its
   * refusal; such a transaction keeps its place in its sender's queue): block building must drop
   * those, with the refusal as the reason, and include every other one.
   */
  async buildAdmitted(
    offered: readonly SignedTx[],
    refused: ReadonlyMap<Hex, string>,
  ): Promise<{ built: BuildResult; block: Block }> {
    const out = await this.build(bySender(offered));
    expect(
      new Map(out.built.dropped.map((d) => [d.id, d.reason])),
      'block building drops exactly the refused transactions, with the refusal as the reason',
    ).toEqual(refused);
    expect(out.built.txs.length, 'every other transaction is included').toBe(offered.length - refused.size);
    return out;
  }

  /** Imports `block` (applyBlock, as import and replay do) and commits it; returns applyBlock's verdict. */
  async importBlock(block: Block): Promise<string | undefined> {
    const refused = await applyBlock(this.state, block, DEV_NETWORK);
    this.height = block.header.height;
    this.blocks.push(block);
    this.roots.push(await commitState(this.kv, this.state));
    return refused;
  }
}

/**
 * The per-sender queues of `txs` (mempool candidates), each in the order given, senders in order of first appearance.
 */
export function bySender(txs: readonly SignedTx[]): SignedTx[][] {
  const queues = new Map<Address, SignedTx[]>();
  for (const tx of txs) queues.set(tx.from, [...(queues.get(tx.from) ?? []), tx]);
  return [...queues.values()];
}

/**
 * Imports `blocks` on a fresh chain at `genesis`, each one cleanly; returns its roots (a replay for modelRunner.ts).
 */
export async function replayBlocks(genesis: GenesisSpec, blocks: readonly Block[]): Promise<Hex[]> {
  const c = await MemChain.open(genesis, blocks[0]?.header.producer ?? ('0x' as Address));
  for (const b of blocks) expect(await c.importBlock(b), `import of block ${b.header.height}`).toBeUndefined();
  return c.roots;
}
