/**
 * A block of 500 META_TXs against a block of 500 TRANSFERs (issue 23 row 4): before, the inner
 * signatures were verified on the thread that executes blocks (3.6 s against 0.42 s); now they
 * are the META_TX's own, checked in the verify pool at admission and import. Target: a block of
 * 500 META_TXs within 1.5 × a block of 500 transfers, for the producer and for an importer.
 *
 *   npx tsx bench/metaTx.ts [--rounds 5] [--tiny] [--results-dir DIR]
 *
 * In process, on MemoryKv, over a development genesis of 1,000 accounts (no HTTP, no disk):
 * the same transactions (real hybrid signatures, liboqs-signed beforehand: the flood of
 * test/adversarial/attacks/metaTx.ts, relayers 0..499 relaying users 500..999; the transfers
 * are the users' own) executed on the same parent state, each round on a fresh view of it.
 *  - produce: buildBlock (nestedVerified: its candidates passed admission) + trie flush: the
 *    producer's main-thread work;
 *  - import: the block's signatures in the verify pool (2 workers: outer and inner) then
 *    applyBlock + trie flush; the main thread's share (execution) is shown apart;
 *  - before: applyBlock without the pool's verdict, so every inner signature is checked on the
 *    main thread by the reference verifier — what every node paid before the change.
 * Not on a node process: with slots of at most 1 s, admission (every signature in the pool,
 * 1,000 per META_TX block) cannot put 500 at once before a block on this 2-core machine, so a
 * node's blocks of the flood are partial; test/adversarial/attacks/metaTx.ts is the flood for
 * bench/attack.ts, which measures what it costs an honest client.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { buildBlock } from '../src/chain/buildBlock';
import { devNetworkGenesis } from '../src/chain/devnet';
import { verifyGroups, verifyJobsOf } from '../src/chain/envelope';
import { applyGenesis, networkOfSpec } from '../src/chain/genesis';
import { applyBlock } from '../src/chain/replay';
import { VerifyPool } from '../src/crypto/verifyPool';
import { orderedCandidates } from '../src/mempool/senderHeap';
import type { Block, HybridTx } from '../src/protocol/types';
import { MemoryKv } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { metaTxFlood, transferBlock } from '../test/adversarial/attacks/metaTx';
import { fmt, posInt } from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';
import { fastHybridSigner } from './lib/sign';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
  },
});
const ROUNDS = values.tiny ? 1 : posInt(values.rounds!, 'rounds', 100);
const N = values.tiny ? 50 : 500; // --tiny: blocks of 50, one round (numbers mean nothing)

async function main(): Promise<void> {
  const { spec, validators } = devNetworkGenesis(2 * N, 1);
  const producer = validators[0].address;
  const kv = new MemoryKv();
  const g = await StateTrie.open(kv, null);
  await applyGenesis(g, spec);
  const network = await networkOfSpec(spec);
  const b = kv.batch();
  const root = await g.flush(b);
  await kv.write(b);
  g.settle();

  const sign = await fastHybridSigner();
  const t0 = 1_767_225_600_000;
  const kinds: [string, HybridTx[]][] = [
    ['TRANSFER', transferBlock({ count: N, sign, timestamp0: t0, network })],
    ['META_TX', metaTxFlood({ count: N, sign, timestamp0: t0, network })],
  ];
  const pool = await VerifyPool.start({ workers: Math.max(1, availableParallelism()) });
  const at = { height: 1, timestamp: t0 + 1_000, producer };
  const time = async (f: () => Promise<unknown>) => {
    const s = performance.now();
    await f();
    return performance.now() - s;
  };
  type Times = { produce: number[]; importWall: number[]; importExec: number[]; before: number[] };
  const ms: Record<string, Times> = {};
  try {
    // Each kind's block, as its producer makes it.
    const blocks = new Map<string, Block>();
    for (const [kind, txs] of kinds) {
      const s0 = await StateTrie.open(kv, root);
      const built = await buildBlock(s0, orderedCandidates(txs.map((t) => [t])), {
        ...at,
        network,
        maxTxs: N,
        nestedVerified: true,
        admitted: true,
      });
      if (built.txs.length !== N || built.results.some((r) => r.status !== 'success'))
        throw new Error(
          `${kind}: ${built.txs.length} ` +
            `included, ${built.dropped[0]?.reason ?? built.results.find((r) => r.error)?.error}`,
        );
      blocks.set(kind, {
        header: { ...at, height: 1, txCount: N },
        txs: built.txs,
        results: built.results,
        ...(built.events.length ? { events: built.events } : {}),
      } as unknown as Block);
      ms[kind] = { produce: [], importWall: [], importExec: [], before: [] };
    }
    // The kinds alternate round by round, so that a busy machine's swings fall on both alike.
    for (let r = 0; r < ROUNDS + 1; r++) {
      for (const [kind, txs] of kinds) {
        const block = blocks.get(kind)!;
        const m = ms[kind];
        const produce = await time(async () => {
          const s = await StateTrie.open(kv, root);
          await buildBlock(s, orderedCandidates(txs.map((t) => [t])), {
            ...at,
            network,
            maxTxs: N,
            nestedVerified: true,
            admitted: true,
          });
          await s.flush(kv.batch());
        });
        let exec = 0;
        const importWall = await time(async () => {
          const ok = await verifyGroups(
            (jobs) => pool.verifyMany(jobs),
            block.txs.map((t) => verifyJobsOf(t as HybridTx, network)),
          );
          if (!ok.every(Boolean)) throw new Error(`${kind}: a signature failed`);
          exec = await time(async () => {
            const s = await StateTrie.open(kv, root);
            const err = await applyBlock(s, block, network, { nestedVerified: true });
            if (err) throw new Error(`${kind}: ${err}`);
            await s.flush(kv.batch());
          });
        });
        const before = await time(async () => {
          const s = await StateTrie.open(kv, root);
          const err = await applyBlock(s, block, network);
          if (err) throw new Error(`${kind}: ${err}`);
          await s.flush(kv.batch());
        });
        if (r === 0) continue; // warm-up
        m.produce.push(produce);
        m.importWall.push(importWall);
        m.importExec.push(exec);
        m.before.push(before);
      }
    }
  } finally {
    await pool.close();
  }
  const med = (xs: number[]) => spread(xs).median;
  for (const [kind, m] of Object.entries(ms)) {
    console.error(
      `${kind.padEnd(8)} produce ${fmt(med(m.produce), 0)} ms (min ${fmt(Math.min(...m.produce), 0)}) · ` +
        `import ${fmt(med(m.importWall), 0)} ms (execution ${fmt(med(m.importExec), 0)} ms on the main thread) · ` +
        `execution checking nested signatures itself ${fmt(med(m.before), 0)} ms`,
    );
  }
  const [t, x] = [ms.TRANSFER, ms.META_TX];
  const ratio = (a: number[], c: number[]) => med(a) / med(c);
  const rows: ResultRow[] = [
    {
      metric: `block of ${N} META_TXs, producer (build + trie), ms`,
      unit: 'ms',
      cairn: spread(x.produce),
      reference: { name: `${N} TRANSFERs`, value: spread(t.produce) },
      target: '≤ 1.5 × the transfers',
      met: ratio(x.produce, t.produce) <= 1.5,
      note:
        `×${fmt(ratio(x.produce, t.produce), 2)}; inner signatures checked at admission in the verify pool; in ` +
        `process (MemoryKv), ${ROUNDS} rounds`,
    },
    {
      metric: `block of ${N} META_TXs, importer (pool verification + execution + trie), ms`,
      unit: 'ms',
      cairn: spread(x.importWall),
      reference: { name: `${N} TRANSFERs`, value: spread(t.importWall) },
      target: '≤ 1.5 × the transfers',
      met: ratio(x.importWall, t.importWall) <= 1.5,
      note:
        `×${fmt(ratio(x.importWall, t.importWall), 2)}; main thread ${fmt(med(x.importExec), 0)} ` +
        `vs ${fmt(med(t.importExec), 0)} ms; before ` +
        `(inner signatures on the main thread): ${fmt(med(x.before), 0)} ms; ${availableParallelism()} verify ` +
        `workers, ${2 * N} vs ${N} signatures`,
    },
  ];
  const out = writeResults('metaTx', rows, values['results-dir']);
  console.log(JSON.stringify(out, null, 2));
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
