/**
 * Cost of making a block undoable (storage/README.md): the same 500-transaction blocks
 * written with putBlock and with putUndoableBlock to RocksDB on disk, and the cost of
 * undoing one. Run: npx tsx bench/undo.ts [--blocks 40]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_HASH } from '../src/chain/block';
import type { Head } from '../src/protocol/chain';
import { ChainStore } from '../src/storage/chainStore';
import { openStore } from '../src/storage/rocks';
import { materialize, type BlockSpec } from '../test/helpers/syntheticBlocks';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const BLOCKS = arg('blocks', 40);
// Transfers with one VM log each and token balance moves: keys of block and mutable buckets.
const spec: BlockSpec = {
  salt: 1,
  tick: [],
  txs: Array.from({ length: 500 }, (_, i) => ({
    from: i % 4,
    to: (i + 1) % 4,
    amount: 1,
    ok: true,
    logs: 1,
    internal: false,
    events: [
      { k: 'tokenMove', t: i % 2, from: i % 4, to: (i + 1) % 4, amount: 1, previous: i % 5, balance: (i + 1) % 5 },
    ],
  })),
};

async function run(undoable: boolean): Promise<{ put: number; write: number; undo?: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-undo-'));
  const kv = await openStore(join(dir, 'chain'));
  const store = new ChainStore(kv);
  let parent = ZERO_HASH;
  let put = 0;
  let write = 0;
  try {
    for (let h = 1; h <= BLOCKS; h++) {
      const b = materialize(spec, h, parent);
      parent = b.header.hash;
      const head: Head = {
        height: h,
        hash: b.header.hash,
        stateRoot: b.header.stateRoot,
        finalizedHeight: Math.max(0, h - 2),
        timestamp: b.header.timestamp,
      };
      const batch = kv.batch();
      const counters = await store.counters();
      const t0 = performance.now();
      if (undoable) await store.putUndoableBlock(batch, b, head, [], counters);
      else store.putBlock(batch, b, head, [], counters);
      const t1 = performance.now();
      await kv.write(batch);
      put += t1 - t0;
      write += performance.now() - t1;
    }
    if (!undoable) return { put: put / BLOCKS, write: write / BLOCKS };
    const t0 = performance.now();
    const batch = kv.batch();
    await store.undoBlock(batch, BLOCKS);
    await kv.write(batch);
    return { put: put / BLOCKS, write: write / BLOCKS, undo: performance.now() - t0 };
  } finally {
    await kv.close();
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(
  `${BLOCKS} blocks of 500 transactions (one log and one token balance move each), RocksDB on disk, ms per block`,
);
for (let round = 1; round <= 3; round++) {
  const plain = await run(false);
  const undoable = await run(true);
  console.log(
    `round ${round}: putBlock ${plain.put.toFixed(2)} + write ${plain.write.toFixed(2)} | ` +
      `putUndoableBlock ${undoable.put.toFixed(2)} + write ${undoable.write.toFixed(2)} | ` +
      `undoBlock ${undoable.undo!.toFixed(2)}`,
  );
}
