import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readU64be } from '../../src/primitives/height';
import { MemoryKv } from '../../src/state/kv';
import { bucketOf, BUCKETS, type BucketName } from '../../src/storage/buckets';
import { ChainStore } from '../../src/storage/chainStore';
import { applySpecs, blockSpec } from '../helpers/syntheticBlocks';

/** Every key of a store, as hex → hex. */
async function everything(kv: MemoryKv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [k, v] of kv.iterate({})) out.set(Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex'));
  return out;
}

/**
 * The height a key of a pruned bucket belongs to, read from the bucket's layout (independently
 * of the store's code): right after the prefix, after a 20-byte address or token, or, for a
 * transaction's location, the first bytes of its value.
 */
function heightOf(bucket: BucketName, key: Buffer, value: Buffer): number {
  const p = BUCKETS[bucket].prefix.length;
  switch (bucket) {
    case 'block':
    case 'logs':
    case 'internal':
      return readU64be(key, p);
    case 'addressFeed':
    case 'internalByAddress':
    case 'tokenTransfers':
      return readU64be(key, p + 20);
    case 'txLocation':
      return readU64be(value, 0);
    default:
      throw new Error(`no height layout for ${bucket}`);
  }
}

const pruned = (Object.keys(BUCKETS) as BucketName[]).filter((b) => (BUCKETS[b] as { prune?: true }).prune);

describe('history pruning (property)', () => {
  it('every bucket marked prune has a height layout here', () => {
    expect(pruned.sort()).toEqual(
      ['addressFeed', 'block', 'internal', 'internalByAddress', 'logs', 'tokenTransfers', 'txLocation'].sort(),
    );
  });

  it(
    'pruning blocks 1..k drops exactly their history — body, locations, feeds, logs, internal and token ' +
      'transfers — and nothing else: summaries, listings and balances stay as in the whole store',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(blockSpec, { minLength: 2, maxLength: 7 }), fc.nat(), async (specs, kRaw) => {
          const k = 1 + (kRaw % (specs.length - 1));
          const whole = new ChainStore(new MemoryKv());
          await applySpecs(whole, specs, specs.length);
          const store = new ChainStore(new MemoryKv());
          await applySpecs(store, specs, specs.length);
          for (let h = 1; h <= k; h++) {
            const batch = store.kv.batch();
            await store.pruneBlock(batch, h);
            await store.kv.write(batch);
          }
          const before = await everything(whole.kv as MemoryKv);
          const after = await everything(store.kv as MemoryKv);
          const historyFrom = BUCKETS.historyFrom.prefix;
          for (const [key, value] of after) {
            if (Buffer.from(key, 'hex').toString('latin1') === historyFrom) continue;
            expect(before.get(key), `kept ${key}`).toBe(value);
          }
          for (const [key, value] of before) {
            const kb = Buffer.from(key, 'hex');
            const bucket = bucketOf(kb)!;
            const isPruned = (BUCKETS[bucket] as { prune?: true }).prune === true;
            const old = isPruned && heightOf(bucket, kb, Buffer.from(value, 'hex')) <= k;
            expect(after.has(key), `${bucket} ${key}`).toBe(!old);
          }
          expect(await store.historyFrom()).toBe(k + 1);
          for (let h = 1; h <= specs.length; h++) {
            expect(await store.summary(h)).toEqual(await whole.summary(h));
            expect(await store.block(h)).toEqual(h <= k ? undefined : await whole.block(h));
          }
        }),
        { numRuns: 80 },
      );
    },
  );
});
