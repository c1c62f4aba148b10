import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../src/primitives/hex';
import type { Address } from '../../src/protocol/types';
import { emptyAccount } from '../../src/state/account';
import { MemoryKv, opsOf, type KvReader } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { isNodeKey, ReachableNodes, storedNodeId, unreachableNodes } from '../../src/state/trieGc';

const ACCOUNTS = 24;
const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;

/** A block: accounts set to a balance (0n: deleted). Small balances make old content come back. */
const blockArb = fc.array(fc.tuple(fc.nat({ max: ACCOUNTS - 1 }), fc.nat({ max: 3 })), { minLength: 1, maxLength: 8 });

type Balances = Map<number, bigint>;

/** A chain of states over one store: each block flushed and written, its root and balances kept. */
class Chain {
  readonly kv = new MemoryKv();
  readonly roots: { root: Hex; balances: Balances }[] = [];
  /** When set, the state nodes each written block puts (what stateGc.noteWritten collects). */
  written: Set<string> | undefined;
  private trie!: StateTrie;
  private balances: Balances = new Map();

  async init(): Promise<void> {
    this.trie = await StateTrie.open(this.kv, null);
  }

  async apply(block: [number, number][]): Promise<void> {
    for (const [i, b] of block) {
      if (b === 0) {
        await this.trie.deleteAccount(addr(i));
        this.balances.delete(i);
      } else {
        await this.trie.putAccount(addr(i), { ...emptyAccount(), balance: BigInt(b) });
        this.balances.set(i, BigInt(b));
      }
    }
    const batch = this.kv.batch();
    const root = await this.trie.flush(batch);
    if (this.written)
      for (const op of opsOf(batch)) if (op.type === 'put' && isNodeKey(op.key)) this.written.add(storedNodeId(op.key));
    await this.kv.write(batch);
    this.trie.settle();
    this.roots.push({ root, balances: new Map(this.balances) });
  }

  async nodeCount(): Promise<number> {
    let n = 0;
    for await (const [k] of this.kv.iterate({})) if (isNodeKey(k)) n++;
    return n;
  }
}

/** Every account of `balances` at `root`, read from the store itself (a reader with no node cache). */
async function expectWhole(kv: MemoryKv, root: Hex, balances: Balances): Promise<void> {
  const fresh: KvReader = { get: (k) => kv.get(k) }; // another reader: its own, empty node cache
  const trie = await StateTrie.open(fresh, root);
  for (let i = 0; i < ACCOUNTS; i++) {
    const a = await trie.getAccount(addr(i));
    expect(a?.balance, `account ${i} at ${root}`).toBe(balances.get(i));
  }
}

describe('state node collection (property)', () => {
  it(
    'mark the last K roots, keep writing blocks while sweeping, delete what is unreachable and was not written ' +
      'since the mark: every kept root and every later one stays whole, and garbage goes',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(blockArb, { minLength: 3, maxLength: 12 }),
          fc.array(blockArb, { maxLength: 4 }),
          fc.array(blockArb, { maxLength: 4 }),
          fc.nat({ max: 4 }),
          async (before, duringMark, duringSweep, kRaw) => {
            const chain = new Chain();
            await chain.init();
            for (const b of before) await chain.apply(b);
            const k = 1 + (kRaw % before.length);
            const kept = chain.roots.slice(-k);
            const reachable = new ReachableNodes();
            chain.written = new Set();
            for (const { root } of kept) await reachable.markFrom(chain.kv, root);
            for (const b of duringMark) await chain.apply(b); // blocks committed after the mark, before the sweep
            const nodesBefore = await chain.nodeCount();
            const writtenBefore = chain.written.size;
            let deleted = 0;
            const pending = [...duringSweep];
            for await (const chunk of unreachableNodes(chain.kv, reachable, 3)) {
              const next = pending.shift();
              if (next) await chain.apply(next); // and while it sweeps
              const batch = chain.kv.batch();
              for (const key of chunk)
                if (!chain.written.has(storedNodeId(key))) {
                  batch.del(key);
                  deleted++;
                }
              await chain.kv.write(batch);
            }
            for (const b of pending) await chain.apply(b);
            for (const { root, balances } of [...kept, ...chain.roots.slice(before.length)])
              await expectWhole(chain.kv, root, balances);
            // The store never grows by more than what the blocks during the sweep wrote.
            expect(await chain.nodeCount()).toBeLessThanOrEqual(nodesBefore + chain.written.size - writtenBefore);
            // Nothing reachable from a kept root is ever deleted, and without later blocks everything else goes.
            if (duringMark.length === 0 && duringSweep.length === 0) {
              const again = new ReachableNodes();
              for (const { root } of kept) await again.markFrom(chain.kv, root);
              expect(await chain.nodeCount()).toBe(again.size);
              expect(deleted).toBe(nodesBefore - again.size);
            }
          },
        ),
        { numRuns: 80 },
      );
    },
  );
});
