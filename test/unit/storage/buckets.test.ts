import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ZERO_HASH } from '../../../src/chain/block';
import { MemoryKv } from '../../../src/state/kv';
import { nodeKey } from '../../../src/state/trieNodes';
import { bucketKey, bucketOf, BUCKETS, type BucketName } from '../../../src/storage/buckets';
import { ChainStore } from '../../../src/storage/chainStore';
import { RecordingBatch } from '../../../src/storage/undo';
import { commitSynthetic, materialize, type BlockSpec } from '../../helpers/syntheticBlocks';

const names = Object.keys(BUCKETS) as BucketName[];

describe('bucket registry', () => {
  it('no prefix is a prefix of another, so no two buckets share a key', () => {
    for (const a of names) {
      for (const b of names) {
        if (a === b) continue;
        expect(
          BUCKETS[b].prefix.startsWith(BUCKETS[a].prefix),
          `${a} (${BUCKETS[a].prefix}) is a prefix of ${b} (${BUCKETS[b].prefix})`,
        ).toBe(false);
      }
    }
  });

  it('classifies every key by its bucket, exact keys only when whole', () => {
    for (const n of names) if (!('exact' in BUCKETS[n])) expect(bucketOf(bucketKey(n, Buffer.of(1, 2, 3)))).toBe(n);
    expect(bucketOf(bucketKey('head'))).toBe('head');
    expect(bucketOf(Buffer.concat([bucketKey('head'), Buffer.of(0)]))).toBeUndefined();
    expect(bucketOf(nodeKey('ab'.repeat(32)))).toBe('trieNodes');
    expect(bucketOf(Buffer.from('Zzz'))).toBeUndefined();
  });

  it('a block write to a key of no bucket is refused, not silently kept out of the undo record', () => {
    const rec = new RecordingBatch(new MemoryKv().batch());
    expect(() => rec.put(Buffer.from('Zoops'), Buffer.of(1))).toThrow(/no bucket/);
  });

  it('the stores build their keys from the registry: no bucket letter is spelled elsewhere in storage/', () => {
    const dir = new URL('../../../src/storage/', import.meta.url);
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'buckets.ts')) {
      const src = readFileSync(new URL(f, dir), 'utf8');
      expect(src, f).not.toMatch(/enc\.encode\('[A-Z][a-z]*'\)|key\('[A-Za-z]'/);
    }
  });
});

describe('undo records and histories', () => {
  const spec = (events: BlockSpec['txs'][number]['events'], tick: BlockSpec['tick'] = []): BlockSpec => ({
    salt: 1,
    tick,
    txs: [{ from: 0, to: 1, amount: 5, ok: true, events, logs: 1, internal: true }],
  });

  it(
    'an undo restores the previous head; only the head, ' +
      'and only while not final, can be undone; final blocks lose their record',
    async () => {
      const store = new ChainStore(new MemoryKv());
      const b1 = materialize(spec([{ k: 'nameRegister', n: 0, owner: 1 }]), 1, ZERO_HASH);
      const h1 = await commitSynthetic(store, b1);
      const b2 = materialize(spec([{ k: 'nameRelease', n: 0, registeredAt: 1 }]), 2, b1.header.hash);
      await commitSynthetic(store, b2);
      await expect(store.undoBlock(store.kv.batch(), 1)).rejects.toThrow(/only the head block/);
      const batch = store.kv.batch();
      expect(await store.undoBlock(batch, 2)).toEqual(h1);
      await store.kv.write(batch);
      expect(await store.head()).toEqual(h1);
      expect(await store.block(2)).toBeUndefined();
      expect(await store.txLocation(b2.txs[0].id)).toBeUndefined();
      expect(await store.undoneTx(b2.txs[0].id)).toEqual(b2.txs[0]);
      expect(await store.txLifecycleEvents(b2.txs[0].id)).toEqual([
        { type: 'INCLUDED', height: 2, blockHash: b2.header.hash },
        { type: 'UNDONE' },
      ]);
      // A block that makes block 1 final prunes block 1's undo record; block 1 can no longer be undone.
      const b2b = materialize({ ...spec([]), salt: 2 }, 2, b1.header.hash);
      await commitSynthetic(store, b2b, 1);
      expect(await store.kv.get(bucketKey('undo', Buffer.from('0000000000000001', 'hex')))).toBeUndefined();
      expect(await store.kv.get(bucketKey('undo', Buffer.from('0000000000000002', 'hex')))).toBeDefined();
      const batch2 = store.kv.batch();
      const restored = await store.undoBlock(batch2, 2);
      await store.kv.write(batch2);
      // Finality never goes back: block 1 stays final after the block that finalized it is undone.
      expect(restored).toEqual({ ...h1, finalizedHeight: 1 });
      expect(await store.head()).toEqual(restored);
      await expect(store.undoBlock(store.kv.batch(), 1)).rejects.toThrow(/final/);
    },
  );

  it(
    "serves a machine instance's history with heights, from transactions and from the end-of-block tick, and " +
      'undoes it with its block',
    async () => {
      const store = new ChainStore(new MemoryKv());
      const b1 = materialize(spec([{ k: 'machine', id: 7, to: 'open' }]), 1, ZERO_HASH);
      await commitSynthetic(store, b1);
      const b2 = materialize(spec([], [{ id: 7, to: 'expired' }]), 2, b1.header.hash);
      await commitSynthetic(store, b2);
      const history = await store.machineHistory('test', '7');
      expect(history.map((e) => [e.height, e.to])).toEqual([
        [1, 'open'],
        [2, 'expired'],
      ]);
      expect(await store.machineHistory('test', '70')).toEqual([]);
      const batch = store.kv.batch();
      await store.undoBlock(batch, 2);
      await store.kv.write(batch);
      expect((await store.machineHistory('test', '7')).map((e) => e.to)).toEqual(['open']);
    },
  );
});
