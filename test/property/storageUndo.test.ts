import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryKv } from '../../src/state/kv';
import { bucketOf, BUCKETS } from '../../src/storage/buckets';
import { ChainStore } from '../../src/storage/chainStore';
import type { Hex } from '../../src/primitives/hex';
import { applySpecs as apply, blockSpec } from '../helpers/syntheticBlocks';

/**
 * Every key of the store a block can affect, as hex → hex: history aside (it records the undo), and
 * content-addressed records (an undone block's signer records stay, unreferenced).
 */
async function indexes(kv: MemoryKv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [k, v] of kv.iterate({})) {
    const b = bucketOf(k);
    if (!b) throw new Error(`key of no bucket: ${Buffer.from(k).toString('hex')}`);
    if (BUCKETS[b].kind === 'history' || BUCKETS[b].kind === 'content') continue;
    out.set(Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex'));
  }
  return out;
}

async function undo(store: ChainStore, k: number): Promise<void> {
  for (let i = 0; i < k; i++) {
    const head = (await store.head())!;
    const batch = store.kv.batch();
    await store.undoBlock(batch, head.height);
    await store.kv.write(batch);
  }
}

describe('storage undo (property)', () => {
  it(
    'applying blocks, undoing the last k and applying others leaves every index as building the resulting chain ' +
      'from scratch',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          blockSpec,
          fc.array(blockSpec, { minLength: 1, maxLength: 6 }),
          fc.nat(),
          fc.array(blockSpec, { maxLength: 4 }),
          async (base, first, kRaw, second) => {
            const k = kRaw % (first.length + 1);
            // A: base + first, undo k, then second.
            const a = new ChainStore(new MemoryKv());
            await apply(a, [base, ...first]);
            const top = first.length + 1;
            const undoneTxs: Hex[] = [];
            for (let h = top - k + 1; h <= top; h++) undoneTxs.push(...(await a.block(h))!.txs.map((t) => t.id));
            await undo(a, k);
            await apply(a, second);
            // B: the resulting chain, from scratch.
            const b = new ChainStore(new MemoryKv());
            await apply(b, [base, ...first.slice(0, first.length - k), ...second]);
            expect(await indexes(a.kv as MemoryKv)).toEqual(await indexes(b.kv as MemoryKv));
            // The lifecycle history of a transaction of an undone block says so (unless the same block came back).
            if (k > 0) {
              for (const id of undoneTxs) {
                const events = await a.txLifecycleEvents(id);
                expect(events[0]).toMatchObject({ type: 'INCLUDED' });
                expect(events[1]).toEqual({ type: 'UNDONE' });
              }
            }
          },
        ),
        { numRuns: 200 },
      );
    },
  );
});
