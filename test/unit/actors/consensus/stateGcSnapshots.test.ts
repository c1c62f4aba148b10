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
 * Blocks over one store, block h setting account h mod 24 to h (so every root differs and an old root's leaves are
 * overwritten later), each with the summary the collector reads its root from; `extend` writes up to a height.
 */
async function chain() {
  const kv = new MemoryKv();
  const trie = await StateTrie.open(kv, null);
  const roots: Hex[] = [];
  const extend = async (to: number) => {
    for (let h = roots.length; h <= to; h++) {
      await trie.putAccount(addr(h % ACCOUNTS), { ...emptyAccount(), balance: BigInt(h + 1) });
      const batch = kv.batch();
      const stateRoot = await trie.flush(batch);
      batch.put(bucketKey('summary', u64be(h)), Buffer.from(JSON.stringify({ height: h, stateRoot })));
      await kv.write(batch);
      trie.settle();
      roots.push(stateRoot);
    }
  };
  return { kv, roots, extend };
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

/**
 * Two collection cycles with a window of 10 blocks (K = 10 roots kept; a cycle every 40 final blocks): at head 100,
 * then at head 140, when the older snapshot is below the first cycle's stateFrom.
 */
async function collect(c: Awaited<ReturnType<typeof chain>>, snapshotInterval: number): Promise<void> {
  const { kv, roots } = c;
  await c.extend(60);
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
  let done = 0;
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void (line.includes('state collection: done') && done++) },
  );
  const gc = createStateGc({ store: new ChainStore(kv), kv, view, history: { blocks: 10 }, log, snapshotInterval });
  await gc.step(); // the first step notes where cycles count from
  for (const [at, cycles] of [
    [100, 1],
    [140, 2],
  ]) {
    await c.extend(at); // the chain grows between cycles, as it does while a node runs
    head = { ...head, height: at, stateRoot: roots[at], finalizedHeight: at };
    // The sweep runs beside the steps, which delete what it found.
    for (let i = 0; i < 10_000 && done < cycles; i++) {
      await gc.step();
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(done).toBe(cycles);
  }
}

describe('state collection keeps the snapshots served to joining nodes', () => {
  it('keeps the roots of the newest two snapshot heights whole, however old; without them they go', async () => {
    const kept = await chain();
    await collect(kept, 60);
    // K = 10: roots 131..140 are kept, and the snapshots at 120 and 60 (below the first cycle's stateFrom, 91).
    expect(await new ChainStore(kept.kv).stateFrom()).toBe(131);
    for (const h of [60, 120]) expect(await whole(kept.kv, kept.roots[h])).toBe(true);
    for (let h = 131; h <= 140; h++) expect(await whole(kept.kv, kept.roots[h])).toBe(true);
    expect(await whole(kept.kv, kept.roots[100])).toBe(false);

    const none = await chain();
    await collect(none, 0);
    expect(await whole(none.kv, none.roots[60])).toBe(false);
    expect(await whole(none.kv, none.roots[120])).toBe(false);
  });
});
