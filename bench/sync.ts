/**
 * Sync speed: a fresh node pulls a chain of `--blocks` blocks (each with `--txs` hybrid-signed
 * transfers) from a peer and must reach the same state root. The chain is built in process
 * into a RocksDB data directory (real signatures, the development validator sealing each
 * block one slot apart, in the past); node A serves it; node B, a follower with its own
 * key, starts empty with `--peers A`. Measured: from B's first answer to B's head = A's head.
 * Usage: npx tsx bench/sync.ts [--blocks 5000] [--txs 4] [--senders 200] [--runs 1] [--chain-dir <dir>] [--state [--replay]]
 * [--tiny] [--results-dir
 * <dir>] [--as disk]
 * (--results-dir: the sync row, as the bench `sync`; with --as disk only the row of the follower's disk per transfer,
 * as the bench `disk`.)
 * (--state: B joins by state sync instead (--sync state --checkpoint A's newest snapshot, at A's finalized height),
 * then follows the blocks above it; measured from B's start, as the bench `join`. --replay: then one more follower
 * replays the same chain from genesis, the row's reference.)
 * (--chain-dir keeps node A's built chain and reuses it when the shape matches; a build cut
 * short resumes from its last block; A's node only reads it: its idle pace is an hour.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sealBlock } from '../src/chain/block';
import { buildBlock } from '../src/chain/buildBlock';
import { decodeEnvelope } from '../src/chain/envelope';
import { devGenesis } from '../src/chain/devnet';
import { applyGenesis } from '../src/chain/genesis';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { orderedCandidates } from '../src/mempool/senderHeap';
import { COIN } from '../src/primitives/amount';
import type { Head } from '../src/protocol/chain';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../src/protocol/params';
import type { SignedTx } from '../src/protocol/types';
import { StateTrie } from '../src/state/stateTrie';
import { ChainStore } from '../src/storage/chainStore';
import { MemoryKv } from '../src/state/kv';
import { openStore } from '../src/storage/rocks';
import {
  fmt,
  groupCpu,
  posInt,
  printTable,
  sleep,
  spawnNode,
  summarizeProfile,
  threadRows,
  type CpuSample,
  type SpawnedNode,
} from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';
import { bucketsPerTx, storeDisk, type StoreDisk } from './lib/disk';
import { signDevTxs, type DevTxItem } from './lib/sign';
import { networkOfSpec } from '../src/chain/genesis';

const arg = (name: string, def: number, max: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? posInt(process.argv[i + 1], name, max) : def;
};
// --tiny: a few blocks, so that the suite's test keeps this benchmark working (bench.test.ts).
const TINY = process.argv.includes('--tiny');
const STATE = process.argv.includes('--state');
/** With --state: one more follower replays the same chain from genesis, the join row's reference. */
const REPLAY = STATE && process.argv.includes('--replay');
const BLOCKS = TINY ? 3 : arg('blocks', 5_000, 100_000);
const TXS = TINY ? 10 : arg('txs', 4, MAX_TXS_PER_BLOCK);
const SENDERS = TINY ? 20 : arg('senders', 200, 1_000);
/** Followers run one after another against the same peer (--runs): the rows give their median and range. */
const RUNS = TINY ? 1 : arg('runs', 1, 20);
/** The target for a fresh node syncing full blocks from a peer (issue 27: 3,000 verified tx/s). */
const TARGET_TX_S = 3_000;
/** Disk per hybrid transfer in a node's store (blocks, indexes, state). */
const TARGET_DISK_PER_TX = 3_000;
const SLOT_MS = 50;

/** Blocks signed and built at a time: a chunk's envelopes only are in memory (500-tx blocks: ~380 MB). */
const CHUNK_BLOCKS = 100;

async function buildChain(dir: string): Promise<{ head: Head; txs: number }> {
  const dev = devGenesis(SENDERS);
  const validator = dev.validator;
  const network = await networkOfSpec(dev.spec);
  const nonces = new Array<number>(SENDERS).fill(0);
  // Key derivation (ML-DSA keygen) once per sender, not once per transaction.
  const addresses = Array.from({ length: SENDERS }, (_, i) => deriveKeys(devSecret(i)).address);
  /** The envelopes of blocks [from, to), signed on worker threads (cached in the temp dir for small runs). */
  const signChunk = async (from: number, to: number) => {
    const items: DevTxItem[] = [];
    for (let b = from; b < to; b++) {
      for (let k = 0; k < TXS; k++) {
        const sender = (b * TXS + k) % SENDERS;
        items.push({
          dev: sender,
          fields: {
            type: 'TRANSFER',
            to: addresses[(sender + 1) % SENDERS],
            amount: '1000',
            nonce: nonces[sender]++,
            fee: String(COIN),
            timestamp: 1_767_225_600_000 + b * TXS + k,
          },
        });
      }
    }
    return signDevTxs(items, { cache: BLOCKS * TXS <= 100_000, label: 'sync', network });
  };

  const kv = await openStore(join(dir, 'chain'));
  const store = new ChainStore(kv);
  let batch = kv.batch();
  // A build cut short (a session ends during hours of signing) resumes from its last stored block.
  let head = await store.head();
  if (head) {
    for (let i = 0; i < head.height * TXS; i++) nonces[i % SENDERS]++;
    console.error(`resuming the build at block ${head.height + 1}`);
  } else {
    const genesisState = await StateTrie.open(kv, null);
    const g = await applyGenesis(genesisState, dev.spec);
    const root0 = await genesisState.flush(batch);
    head = { height: 0, hash: g.header.hash, stateRoot: root0, finalizedHeight: 0, timestamp: g.header.timestamp };
    store.putBlock(batch, g, head, [...dev.spec.accounts.map((a) => a.address), TREASURY_ADDRESS]);
    store.putGenesisSpec(batch, dev.spec);
    await kv.write(batch);
    genesisState.settle();
  }
  const resumeAt = head.height;

  // Block b is stamped start + b slots: in the past once built, and after a resumed build's parent (start only grows).
  const start = Math.max(
    Math.floor((Date.now() - (BLOCKS + 20) * SLOT_MS) / SLOT_MS) * SLOT_MS,
    head.timestamp - resumeAt * SLOT_MS,
  );
  let txs = resumeAt * TXS;
  let signSecs = 0;
  const t1 = performance.now();
  for (let c = resumeAt; c < BLOCKS; c += CHUNK_BLOCKS) {
    const t0 = performance.now();
    const signed = await signChunk(c, Math.min(BLOCKS, c + CHUNK_BLOCKS));
    signSecs += (performance.now() - t0) / 1000;
    for (let b = c + 1; b <= Math.min(BLOCKS, c + CHUNK_BLOCKS); b++) {
      const body = signed.slice((b - 1 - c) * TXS, (b - c) * TXS).map((e) => {
        const d = decodeEnvelope(JSON.parse(e.body), network);
        if (!d.ok) throw new Error(d.error);
        return d.tx as SignedTx;
      });
      const state = await StateTrie.open(kv, head.stateRoot);
      const timestamp = start + b * SLOT_MS;
      const built = await buildBlock(state, orderedCandidates(body.map((t) => [t])), {
        height: b,
        timestamp,
        producer: validator.address,
        network,
        maxTxs: MAX_TXS_PER_BLOCK,
      });
      if (built.txs.length !== body.length)
        throw new Error(
          `block ${b}: ${body.length - built.txs.length} transactions left out ` +
            `(${built.dropped.map((x) => x.reason).join(', ')})`,
        );
      batch = kv.batch();
      const stateRoot = await state.flush(batch);
      const block = sealBlock(validator, {
        parent: head,
        timestamp,
        producer: validator.address,
        stateRoot,
        txs: built.txs,
        results: built.results,
        events: built.events,
      });
      const next: Head = { height: b, hash: block.header.hash, stateRoot, finalizedHeight: b - 1, timestamp };
      await store.putUndoableBlock(
        batch,
        block,
        next,
        await store.unseen(body.flatMap((t) => [t.from, t.to!])),
        await store.counters(),
      );
      await kv.write(batch);
      state.settle();
      head = next;
      txs += built.txs.length;
    }
    console.error(
      `built ${Math.min(BLOCKS, c + CHUNK_BLOCKS)} / ${BLOCKS} blocks ` +
        `(${txs} transactions; signing ${signSecs.toFixed(0)} s of ${((performance.now() - t1) / 1000).toFixed(0)} s)`,
    );
  }
  await kv.close();
  return { head, txs };
}

/**
 * Node A's chain: built into `--chain-dir` (kept, with `built.json`) or a temp dir. A kept
 * chain of the same shape is reused: a 5,000 × 500 chain takes hours to sign on 2 cores.
 */
async function chainFor(): Promise<{ dir: string; head: Head; txs: number; kept: boolean }> {
  const i = process.argv.indexOf('--chain-dir');
  const kept = i > 0 ? process.argv[i + 1] : undefined;
  const shape = { blocks: BLOCKS, txs: TXS, senders: SENDERS };
  if (kept && existsSync(join(kept, 'chain'))) {
    // A kept chain is only worth keeping if this code makes the same genesis: blocks executed
    // by another version of the rules (its governable parameters grew, say) are another chain
    // to a follower running this one. Stale: rebuilt from scratch.
    const stored = await genesisHashOf(kept);
    const now = await currentGenesisHash();
    if (stored !== now) {
      console.error(`${kept} was built by another version (genesis ${stored} ≠ ${now}): rebuilding it`);
      rmSync(kept, { recursive: true, force: true });
    }
  }
  if (kept && existsSync(join(kept, 'built.json'))) {
    const b = JSON.parse(readFileSync(join(kept, 'built.json'), 'utf8')) as typeof shape & {
      head: Head;
      total: number;
    };
    if (b.blocks !== BLOCKS || b.txs !== TXS || b.senders !== SENDERS)
      throw new Error(
        `${kept} holds a chain of ${b.blocks} × ${b.txs} (${b.senders} senders): use another --chain-dir`,
      );
    console.error(`reusing the chain in ${kept} (${b.blocks} blocks, ${b.total} transactions)`);
    return { dir: kept, head: b.head, txs: b.total, kept: true };
  }
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'cairn-sync-a-'));
  const { head, txs } = await buildChain(dir);
  if (kept) writeFileSync(join(kept, 'built.json'), JSON.stringify({ ...shape, head, total: txs }));
  return { dir, head, txs, kept: kept !== undefined };
}

/** The genesis this code makes for the development chain of SENDERS accounts. */
async function currentGenesisHash(): Promise<string> {
  const state = await StateTrie.open(new MemoryKv(), null);
  return (await applyGenesis(state, devGenesis(SENDERS).spec)).header.hash;
}

/** The genesis block hash a kept chain starts from. */
async function genesisHashOf(dir: string): Promise<string | undefined> {
  const kv = await openStore(join(dir, 'chain'), { readOnly: true });
  try {
    return (await new ChainStore(kv).block(0))?.header.hash;
  } finally {
    await kv.close();
  }
}

/** The chain specification a data directory was created from (read before its node starts). */
async function specOf(dir: string): Promise<unknown> {
  const kv = await openStore(join(dir, 'chain'), { readOnly: true });
  try {
    const spec = await new ChainStore(kv).genesisSpec();
    if (!spec) throw new Error(`${dir} holds no chain specification`);
    return spec;
  } finally {
    await kv.close();
  }
}

async function main() {
  const { dir: dirA, head, txs, kept } = await chainFor();
  const quiet = ['--idle-block-ms', '3600000'];
  const a = await spawnNode({
    devAccounts: SENDERS,
    slotMs: SLOT_MS,
    mempoolCap: 5_000,
    logLevel: 'warn',
    // --state: A's newest snapshot is its finalized height (the head's parent).
    extra: [...quiet, ...(STATE ? ['--snapshot-interval', String(head.finalizedHeight)] : [])],
    dataDir: dirA,
  });
  await a.ready;
  const joinFlags: string[] = [];
  if (STATE) {
    const snaps = (await (await fetch(`${a.httpUrl}/snapshots`)).json()) as { snapshots: { hash: string }[] };
    if (snaps.snapshots.length === 0) throw new Error('A serves no snapshot');
    joinFlags.push('--sync', 'state', '--checkpoint', snaps.snapshots[0].hash);
  }
  const keyFile = join(mkdtempSync(join(tmpdir(), 'cairn-sync-key-')), 'follower.json');
  writeFileSync(keyFile, JSON.stringify({ secret: '7'.repeat(64) }), { mode: 0o600 });
  // B starts from the chain specification A's store was created from: a kept chain may have
  // been built under an older development genesis (its parameters grew since), and a node
  // never follows a chain of another genesis.
  const specFile = join(mkdtempSync(join(tmpdir(), 'cairn-sync-spec-')), 'genesis.json');
  writeFileSync(specFile, JSON.stringify(await specOf(dirA)));
  if (process.env.SYNC_DEBUG) process.env.CAIRN_BENCH_LOG = '/tmp/sync-b.log';
  const base = [
    ...quiet,
    ...['--peers', a.httpUrl, '--validator-key', keyFile, '--genesis', specFile, '--allow-dev-validator'],
  ];
  const flags = [...base, ...joinFlags];
  const runs: Follow[] = [];
  let replay: Follow | undefined;
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await followOnce(a, head, flags);
      runs.push(r);
      printTable(
        `${STATE ? 'join by state sync' : 'sync'} of ${head.height} blocks (${txs} hybrid-signed transfers) from one peer` +
          (RUNS > 1 ? `, run ${i + 1} of ${RUNS}` : ''),
        [
          ['wall', `${fmt(r.secs)} s`],
          // A state sync executes only the blocks above the snapshot: per-block figures would mean nothing.
          ...((STATE
            ? [['CPU', `follower ${fmt(r.cpu.follower, 1)} s, serving peer ${fmt(r.cpu.peer, 1)} s`]]
            : [
                ['blocks/s', fmt(head.height / r.secs, 2)],
                ['verified tx/s', fmt(txs / r.secs, 0)],
                ['CPU per block', cpuText(r.cpu, head.height)],
              ]) as [string, string][]),
          ['state root', `${r.stateRoot} (same on both)`],
          [
            'follower store',
            `${fmt(r.disk.compacted / 1e6, 1)} MB compacted (${fmt(r.disk.asLeft / 1e6, 1)} MB as left)`,
          ],
          ['disk per transfer', `${fmt(r.disk.compacted / txs, 0)} B: ${bucketsPerTx(r.disk, txs)}`],
        ],
      );
    }
    if (REPLAY) {
      replay = await followOnce(a, head, base, false);
      printTable(`the reference: replay of the same ${head.height} blocks from genesis`, [
        ['wall', `${fmt(replay.secs)} s after the node answered`],
        ['verified tx/s', fmt(txs / replay.secs, 0)],
        ['CPU per block', cpuText(replay.cpu, head.height)],
      ]);
    }
  } finally {
    await a.stop(kept); // a kept chain stays for the next run
    for (const f of [keyFile, specFile]) rmSync(dirname(f), { recursive: true, force: true });
  }
  const ri = process.argv.indexOf('--results-dir');
  if (ri > 0) writeResults(...rowsOf(runs, head, txs, replay), process.argv[ri + 1]);
}

interface Follow {
  secs: number;
  /** CPU seconds over the sync: the follower (all its threads), its main thread, the serving peer. */
  cpu: { follower: number; main: number; peer: number };
  disk: StoreDisk;
  stateRoot: string;
}

const cpuText = (c: Follow['cpu'], blocks: number): string => {
  const perBlock = (x: number) => `${fmt((1000 * x) / blocks, 0)} ms`;
  return `follower ${perBlock(c.follower)} (main thread ${perBlock(c.main)}), serving peer ${perBlock(c.peer)}`;
};

/** One follower: a fresh node B syncs A's chain (by blocks, or by state with --state) to A's head; stopped after. */
async function followOnce(a: SpawnedNode, head: Head, flags: string[], byState = STATE): Promise<Follow> {
  const spawned = performance.now();
  const b = await spawnNode({
    devAccounts: SENDERS,
    slotMs: SLOT_MS,
    mempoolCap: 5_000,
    logLevel: 'info',
    extra: flags,
    cpuProf: process.env.SYNC_PROF === '1',
  });
  let bStopped = false;
  try {
    await b.ready;
    // A state sync happens before B answers: its join is timed from B's start.
    const t0 = byState ? spawned : performance.now();
    // CPU of each node over the sync (all threads: the follower's verify workers count), a steadier measure than the
    // wall time on a machine whose speed varies from run to run.
    const cpu0 = [groupCpu(a.pgid, true), groupCpu(b.pgid, true)];
    let h = 0;
    let last = 0;
    while (h < head.height) {
      await sleep(200);
      const s = (await (await fetch(`${b.httpUrl}/status`)).json()) as { height?: number };
      h = s.height ?? h;
      if (performance.now() - last > 5_000) {
        last = performance.now();
        console.error(`B at ${h} / ${head.height}`);
      }
      if (performance.now() - t0 > 1_800_000) throw new Error('sync did not finish in 30 min');
    }
    const secs = (performance.now() - t0) / 1000;
    const cpu1 = [groupCpu(a.pgid, true), groupCpu(b.pgid, true)];
    const mainOf = (c: CpuSample) => [...c.threads.values()].find((t) => t.name.endsWith('(main)'))?.s ?? 0;
    const cpu = {
      follower: cpu1[1].total - cpu0[1].total,
      main: mainOf(cpu1[1]) - mainOf(cpu0[1]),
      peer: cpu1[0].total - cpu0[0].total,
    };
    if (process.env.SYNC_DEBUG) for (const [k, v] of threadRows(cpu0[1], cpu1[1], secs * 1000, 10)) console.error(k, v);
    if (process.env.SYNC_DEBUG) console.error(b.blocks.slice(0, 5), b.problems.slice(-10));
    const [ra, rb] = await Promise.all(
      [a, b].map(
        async (n) =>
          (await (await fetch(`${n.httpUrl}/blocks/${head.height}`)).json()) as { stateRoot: string; hash: string },
      ),
    );
    if (ra.stateRoot !== rb.stateRoot || ra.hash !== rb.hash || rb.stateRoot !== head.stateRoot)
      throw new Error(`divergence at ${head.height}: ${JSON.stringify({ ra, rb })}`);
    // What the follower's store takes: it wrote every block through the node's own import path.
    await b.stop(true);
    bStopped = true;
    const disk = await storeDisk(join(b.dataDir, 'chain'));
    rmSync(b.dataDir, { recursive: true, force: true });
    return { secs, cpu, disk, stateRoot: rb.stateRoot };
  } finally {
    if (!bStopped) await b.stop(false);
    if (b.cpuProfDir) summarizeProfile(b.cpuProfDir);
  }
}

/** The result rows of the runs (bench/results/): the join row with --state, else the sync row and the disk row. */
function rowsOf(runs: Follow[], head: Head, txs: number, replay?: Follow): [string, ResultRow[]] {
  const each = (f: (r: Follow) => string, sep = ', ') => runs.map(f).join(sep);
  const blocks = head.height;
  if (STATE)
    return [
      'join',
      [
        {
          metric: `join by state sync: a chain of ${blocks} blocks × ${TXS} transfers, ${SENDERS} accounts (s)`,
          unit: 's',
          cairn: spread(runs.map((r) => r.secs)),
          reference: replay
            ? { name: 'replay of the same chain from genesis, same run', value: spread([replay.secs]) }
            : null,
          target: 'minutes, against replay from genesis',
          met: replay ? spread(runs.map((r) => r.secs)).median < replay.secs : true,
          note:
            `from the joining node's start to the peer's head, the state of block ${head.finalizedHeight} ` +
            `fetched and checked node by node, then ${blocks - head.finalizedHeight} block(s) executed; ` +
            `same state root; the joined node's store ${fmt(runs[runs.length - 1].disk.compacted / 1e6, 1)} MB` +
            (replay
              ? `; the replay (timed from the node's first answer): ${fmt(txs / replay.secs, 0)} verified tx/s, ` +
                `its store ${fmt(replay.disk.compacted / 1e6, 0)} MB (${fmt(replay.disk.compacted / txs, 0)} B per ` +
                `transfer: ${bucketsPerTx(replay.disk, txs)})`
              : ''),
        },
      ],
    ];
  const txS = runs.map((r) => txs / r.secs);
  const perTx = runs.map((r) => r.disk.compacted / txs);
  const last = runs[runs.length - 1];
  // --as disk: only the disk row, under its own name (a short chain measures it; the sync row wants 5,000 blocks).
  const as = process.argv.indexOf('--as') > 0 ? process.argv[process.argv.indexOf('--as') + 1] : 'sync';
  const rows = [
    {
      metric: `sync of ${blocks} blocks × ${TXS} hybrid transfers from a peer (verified tx/s)`,
      unit: 'tx/s',
      cairn: spread(txS),
      reference: null,
      target: `≥ ${TARGET_TX_S.toLocaleString('en')} verified tx/s`,
      met: spread(txS).median >= TARGET_TX_S,
      note:
        `${SENDERS} senders; ${runs.length} run(s): ${each((r) => fmt(txs / r.secs, 0))} verified tx/s ` +
        `(${each((r) => (blocks / r.secs).toFixed(2))} blocks/s); same state root on both; CPU per block: ` +
        each((r) => cpuText(r.cpu, blocks), '; '),
    },
    {
      metric: `disk per hybrid transfer: the follower's store after the sync (bytes, compacted)`,
      unit: 'B',
      cairn: spread(perTx),
      reference: null,
      target: `≤ ${TARGET_DISK_PER_TX.toLocaleString('en')} B per transfer`,
      met: spread(perTx).median <= TARGET_DISK_PER_TX,
      note:
        `${(last.disk.compacted / 1e6).toFixed(1)} MB for ${txs} transfers and ${blocks} blocks ` +
        `(${(last.disk.asLeft / 1e6).toFixed(1)} MB as the node left it, write-ahead log included); ` +
        `logical bytes per transfer: ${bucketsPerTx(last.disk, txs)}`,
    },
  ];
  // Each row in its own bench (a 40-block chain measures the disk row, bench/suite.ts; the sync row a long chain).
  return [as, as === 'disk' ? rows.slice(1) : rows.slice(0, 1)];
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
