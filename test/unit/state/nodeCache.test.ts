import { describe, expect, it } from 'vitest';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { sharedNodesOf, sizeSharedNodes } from '../../../src/state/trieNodes';
import { emptyAccount } from '../../../src/state/account';
import type { Address } from '../../../src/protocol/types';

const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Address;

describe('the trie node cache', () => {
  it('holds at most its budget in bytes, and a trie reads through it what it dropped', async () => {
    // A budget of 1 MiB: two generations of 512 KiB. Before, the cache counted nodes (2 × 262,144 of them, ~550 B each
    // with their objects): a validator's RSS grew for the two hours they took to fill (the soak).
    const kv = new MemoryKv();
    const shared = sizeSharedNodes(kv, 2 ** 20);
    expect(sharedNodesOf(kv)).toBe(shared);
    let root: `0x${string}` | null = null;
    for (let round = 0; round < 20; round++) {
      const trie = await StateTrie.open(kv, root);
      for (let i = 0; i < 250; i++)
        await trie.putAccount(addr(round * 250 + i), { ...emptyAccount(), nonce: round + 1 });
      const batch = kv.batch();
      root = await trie.flush(batch);
      await kv.write(batch);
      trie.settle();
      const { bytes, nodes } = shared.cache.size();
      expect(bytes).toBeLessThanOrEqual(2 ** 20 + 4096);
      expect(nodes).toBeGreaterThan(0);
    }
    // 5,000 accounts' nodes (well over 1 MiB) were written; the early ones left the cache and come from the store.
    const trie = await StateTrie.open(kv, root);
    expect((await trie.getAccount(addr(0)))?.nonce).toBe(1);
    expect((await trie.getAccount(addr(4_999)))?.nonce).toBe(20);
  });
});
