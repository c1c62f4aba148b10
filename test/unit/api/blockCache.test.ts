import { describe, expect, it, vi } from 'vitest';
import { BlockCache } from '../../../src/api/blockCache';
import { genesisHeader, headerHash, ZERO_HASH } from '../../../src/chain/block';
import { keccakHex } from '../../../src/crypto/hash';
import type { Address, Block, BlockHeader } from '../../../src/protocol/types';
import { utf8 } from '../../../src/primitives/hex';
import { MemoryKv } from '../../../src/state/kv';
import { ChainStore, type Head } from '../../../src/storage/chainStore';

const producer: Address = `0x${'0a'.padStart(40, '0')}`;

function block(height: number, salt = ''): Block {
  const h: BlockHeader = {
    height,
    parentHash: ZERO_HASH,
    timestamp: 1_000 + height,
    producer,
    txRoot: ZERO_HASH,
    stateRoot: keccakHex(utf8(`${height}/${salt}`)),
    txCount: 0,
  };
  const header =
    height === 0
      ? genesisHeader(h)
      : { ...h, hash: headerHash(h), signatures: { secp256k1: '0x', mldsa44: '0x' } as const };
  return { header, txs: [], results: [] };
}

/** A store holding `blocks`, with its block reads counted. */
async function storeWith(blocks: Block[]) {
  const store = new ChainStore(new MemoryKv());
  for (const b of blocks) {
    const head: Head = {
      height: b.header.height,
      hash: b.header.hash,
      stateRoot: b.header.stateRoot,
      finalizedHeight: 0,
      timestamp: b.header.timestamp,
    };
    const batch = store.kv.batch();
    store.putBlock(batch, b, head);
    await store.kv.write(batch);
  }
  const reads = vi.spyOn(store, 'block');
  return { store, reads };
}

describe('BlockCache', () => {
  it('decodes a stored block once and serves the same object afterwards', async () => {
    const b = block(1);
    const { store, reads } = await storeWith([block(0), b]);
    const cache = new BlockCache(store);
    const first = await cache.get(1);
    expect(first).toEqual(b);
    expect(await cache.get(1)).toBe(first);
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await cache.withSize(1))?.size).toBe(Buffer.byteLength(JSON.stringify(b)));
    expect(await cache.get(7)).toBeUndefined();
  });

  it('concurrent misses for one height share one read', async () => {
    const { store, reads } = await storeWith([block(0), block(1)]);
    const cache = new BlockCache(store);
    const got = await Promise.all(Array.from({ length: 20 }, () => cache.get(1)));
    expect(new Set(got).size).toBe(1);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a remembered block is served as handed in, with its size, without reading the store', async () => {
    const b = block(1);
    const { store, reads } = await storeWith([block(0), b]);
    const cache = new BlockCache(store);
    cache.remember(b, 1234);
    expect(await cache.get(1)).toBe(b);
    expect(await cache.withSize(1)).toEqual({ block: b, size: 1234 });
    expect(reads).not.toHaveBeenCalled();
  });

  it('a block replaced at its height is read again, never served from the cache', async () => {
    const old = block(1, 'old');
    const { store, reads } = await storeWith([block(0), old]);
    const cache = new BlockCache(store);
    cache.remember(old, 100);
    // The same height rewritten with another block (a replaced, not yet final block).
    const next = block(1, 'new');
    const batch = store.kv.batch();
    store.putBlock(batch, next, {
      height: 1,
      hash: next.header.hash,
      stateRoot: next.header.stateRoot,
      finalizedHeight: 0,
      timestamp: next.header.timestamp,
    });
    await store.kv.write(batch);
    const got = await cache.get(1);
    expect(got?.header.hash).toBe(next.header.hash);
    expect(got).not.toBe(old);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('keeps within its byte budget, evicting the least recently used first', async () => {
    const blocks = [0, 1, 2, 3].map((h) => block(h));
    const { store, reads } = await storeWith(blocks);
    const cache = new BlockCache(store);
    const third = Math.floor(BlockCache.BUDGET_BYTES / 3);
    cache.remember(blocks[1], third);
    cache.remember(blocks[2], third);
    expect(await cache.get(1)).toBe(blocks[1]); // 1 is now the most recently used
    cache.remember(blocks[3], third + 10); // over budget: 2 goes
    expect(await cache.get(1)).toBe(blocks[1]);
    expect(await cache.get(3)).toBe(blocks[3]);
    expect(reads).not.toHaveBeenCalled();
    const again = await cache.get(2);
    expect(again).toEqual(blocks[2]);
    expect(again).not.toBe(blocks[2]);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a block larger than the whole budget is still kept until the next one', async () => {
    const { store, reads } = await storeWith([block(0), block(1), block(2)]);
    const cache = new BlockCache(store);
    const big = (await store.block(1))!;
    reads.mockClear();
    cache.remember(big, BlockCache.BUDGET_BYTES * 2);
    expect(await cache.get(1)).toBe(big);
    await cache.get(2);
    expect(reads).toHaveBeenCalledTimes(1);
    await cache.get(1);
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
