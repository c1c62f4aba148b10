import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createStateGc } from '../../../../src/actors/consensus/stateGc';
import type { HeadSink } from '../../../../src/actors/protocol';
import type { Hex } from '../../../../src/primitives/hex';
import { u64be } from '../../../../src/primitives/height';
import type { Head } from '../../../../src/protocol/chain';
import type { Address } from '../../../../src/protocol/types';
import { emptyAccount } from '../../../../src/state/account';
import { MemoryKv, type KvReader } from '../../../../src/state/kv';
import { StateTrie } from '../../../../src/state/stateTrie';
import { bucketKey } from '../../../../src/storage/buckets';
import { ChainStore } from '../../../../src/storage/chainStore';

const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const ACCOUNTS = 24;

/**
 * 100 blocks over one store, block h setting account h mod 24 to h (so every root differs and an old root's leaves
 * are overwritten later), each with the summary the collector reads its root from.
 */
async function chain(): Promise<{ kv: MemoryKv; roots: Hex[] }> {
  const kv = new MemoryKv();
  const trie = await StateTrie.open(kv, null);
  const roots: Hex[] = [];
  for (let h = 0; h <= 100; h++) {
    await trie.putAccount(addr(h % ACCOUNTS), { ...emptyAccount(), balance: BigInt(h + 1) });
    const batch = kv.batch();
    const stateRoot = await trie.flush(batch);
    batch.put(bucketKey('summary', u64be(h)), Buffer.from(JSON.stringify({ height: h, stateRoot })));
    await kv.write(batch);
    trie.settle();
    roots.push(stateRoot);
  }
  return { kv, roots };
}

/** Whether every account reads at `root` from the store itself (no node cache). */
async function whole(kv: MemoryKv, root: Hex): Promise<boolean> {
  const fresh: KvReader = { get: (k) => kv.get(k) };
  try {
    const t = await StateTrie.open(fresh, root);
    for (let i = 0; i < ACCOUNTS; i++) await t.getAccount(addr(i));
    return true;
  } catch {
    return false;
  }
}

/** One collection cycle at head 100 with a window of 10 blocks (K = 10 roots kept). */
async function collect(kv: MemoryKv, roots: Hex[], snapshotInterval: number): Promise<void> {
  let head: Head = {
    height: 60,
    hash: `0x${'00'.repeat(32)}`,
    stateRoot: roots[60],
    finalizedHeight: 60,
    timestamp: 0,
  };
  const view = {
    get head() {
      return head;
    },
    pruned() {},
  } as unknown as HeadSink;
  let done = false;
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void (done ||= line.includes('state collection: done')) },
  );
  const gc = createStateGc({ store: new ChainStore(kv), kv, view, history: { blocks: 10 }, log, snapshotInterval });
  await gc.step(); // the first step notes where cycles count from
  head = { ...head, height: 100, stateRoot: roots[100], finalizedHeight: 100 };
  // The sweep runs beside the steps, which delete what it found.
  for (let i = 0; i < 10_000 && !done; i++) {
    await gc.step();
    await new Promise((r) => setTimeout(r, 1));
  }
  expect(done).toBe(true);
}

describe('state collection keeps the snapshots served to joining nodes', () => {
  it('keeps the roots of the newest two snapshot heights whole, older than the window; without them they go', async () => {
    const kept = await chain();
    await collect(kept.kv, kept.roots, 25);
    // K = 10: roots 91..100 are kept, and the snapshots at 100 and 75.
    expect(await new ChainStore(kept.kv).stateFrom()).toBe(91);
    expect(await whole(kept.kv, kept.roots[75])).toBe(true);
    for (let h = 91; h <= 100; h++) expect(await whole(kept.kv, kept.roots[h])).toBe(true);
    expect(await whole(kept.kv, kept.roots[50])).toBe(false); // an older snapshot's, no longer served: collected

    const none = await chain();
    await collect(none.kv, none.roots, 0);
    expect(await whole(none.kv, none.roots[75])).toBe(false);
  });
});
