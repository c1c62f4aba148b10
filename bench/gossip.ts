/**
 * What the libp2p layer (src/network/libp2p) costs to carry transactions, before it carries the node's: N hosts on
 * loopback in one process, each linked to every other, gossip transaction batches (TxBatcher: 64 envelopes or
 * 50 ms) of envelope-sized random bytes at a steady rate, and every host decodes every batch it receives once.
 *
 *   npm run bench -- --only gossip     (or: npx tsx bench/gossip.ts [--hosts 4] [--rate 300] [--seconds 20] [--tx-bytes 4700] [--tiny] [--results-dir DIR])
 *
 * Measured: the process's CPU over the window, less the same hosts idle for as long (heartbeats, pings), divided by
 * the transactions and the hosts: the transport's CPU per transaction per node (the HTTP gossip it replaces spent
 * ~4 ms per transaction per node at 60 tx/s, most of it in one POST of ~5 KB of JSON per transaction per peer and
 * parsing every copy: issue 50). Also the bytes per transaction on a link (the batch framing over the envelope),
 * and that every host received every transaction exactly once. Transactions are not verified here: that is
 * admission's cost (bench/admission.ts), paid once per node whatever carries them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startP2pHost, type P2pHost } from '../src/network/libp2p/host';
import { loadOrCreatePeerKey } from '../src/network/libp2p/peerKey';
import { BATCH_DELAY_MS, decodeTxBatch, TxBatcher } from '../src/network/libp2p/txBatch';
import type { Hex } from '../src/primitives/hex';
import { fmt, posInt, printTable, sleep } from './lib/harness';
import { spread, writeResults } from './lib/results';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '4' },
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '20' },
    'tx-bytes': { type: 'string', default: '4700' },
    'batch-ms': { type: 'string', default: String(BATCH_DELAY_MS) },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}
const TINY = values.tiny!;
const HOSTS = posInt(values.hosts!, 'hosts', 16, 2);
const RATE = TINY ? 100 : posInt(values.rate!, 'rate', 100_000);
const SECONDS = TINY ? 1 : posInt(values.seconds!, 'seconds', 3600);
const TX_BYTES = posInt(values['tx-bytes']!, 'tx-bytes', 128 * 1024, 100);
const BATCH_MS = posInt(values['batch-ms']!, 'batch-ms', 10_000);
const NET: Hex = `0x${'5a'.repeat(32)}`;
const log = pino({ level: 'silent' });

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-gossip-bench-'));
  const hosts: P2pHost[] = [];
  try {
    for (let i = 0; i < HOSTS; i++)
      hosts.push(
        await startP2pHost({
          privateKey: await loadOrCreatePeerKey(join(dir, `key${i}`)),
          listen: ['/ip4/127.0.0.1/tcp/0'],
          genesisHash: NET,
          log,
        }),
      );
    const received = hosts.map(() => new Map<string, number>());
    let batchBytes = 0;
    let batchTxs = 0;
    for (const [i, h] of hosts.entries())
      h.subscribe('txs', (data) => {
        for (const tx of decodeTxBatch(data)) {
          const key = Buffer.from(tx.subarray(0, 16)).toString('hex');
          received[i].set(key, (received[i].get(key) ?? 0) + 1);
        }
        return 'accept';
      });
    for (let i = 0; i < HOSTS; i++) for (let j = i + 1; j < HOSTS; j++) await hosts[i].dial(hosts[j].addresses()[0]);
    const meshed = Date.now() + 20_000;
    while (hosts.some((h) => h.peers().filter((p) => p.topics.length > 0).length < HOSTS - 1)) {
      if (Date.now() > meshed) throw new Error('the hosts did not all subscribe to each other within 20 s');
      await sleep(50);
    }

    // The idle cost of the same hosts for as long (gossipsub heartbeats, identify, ping).
    let c0 = cpuMs();
    await sleep(SECONDS * 1000);
    const idle = cpuMs() - c0;

    const batchers = hosts.map(
      (h) =>
        new TxBatcher(
          (batch) => {
            batchBytes += batch.length;
            batchTxs += decodeTxBatch(batch).length;
            void h.publish('txs', batch);
          },
          { delayMs: BATCH_MS },
        ),
    );
    const total = RATE * SECONDS;
    const sent: string[] = [];
    c0 = cpuMs();
    const t0 = performance.now();
    // Each 10 ms, the transactions due by then, round-robin over the hosts (as clients spread over the validators).
    for (let n = 0; n < total; ) {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * RATE));
      for (; n < due; n++) {
        const tx = randomBytes(TX_BYTES);
        sent.push(tx.subarray(0, 16).toString('hex'));
        batchers[n % HOSTS].add(tx);
      }
      await sleep(10);
    }
    for (const b of batchers) b.flush();
    const deadline = Date.now() + 30_000;
    // Each host receives what the others sent: all but its own share.
    const expected = (i: number) => sent.filter((_, n) => n % HOSTS !== i).length;
    while (received.some((r, i) => r.size < expected(i)) && Date.now() < deadline) await sleep(20);
    const busy = cpuMs() - c0;
    const wallS = (performance.now() - t0) / 1000;
    const missing = received.reduce((m, r, i) => m + expected(i) - r.size, 0);
    const twice = received.reduce((m, r) => m + [...r.values()].filter((v) => v > 1).length, 0);
    const perTxNode = (busy - idle * (wallS / SECONDS)) / total / HOSTS;

    printTable(`gossip: ${HOSTS} libp2p hosts, ${RATE} tx/s for ${SECONDS} s, ${TX_BYTES}-byte envelopes`, [
      [
        'CPU per transaction per node',
        `${fmt(perTxNode, 3)} ms (process CPU ${fmt(busy, 0)} ms, idle ${fmt(idle, 0)} ms)`,
      ],
      ['bytes per transaction per link', `${fmt(batchBytes / batchTxs, 0)} (envelope ${TX_BYTES})`],
      [
        'transactions per batch',
        fmt(
          batchTxs /
            Math.max(
              1,
              batchers.reduce((n, b) => n + b.batches, 0),
            ),
          1,
        ),
      ],
      ['missing / delivered twice', `${missing} / ${twice}`],
    ]);
    if (missing > 0 || twice > 0) throw new Error(`${missing} transactions missing, ${twice} delivered twice`);
    if (!TINY || values['results-dir'])
      writeResults(
        'gossip',
        [
          {
            metric: `libp2p transport: CPU per transaction per node (${HOSTS} hosts, ${RATE} tx/s, ${TX_BYTES}-byte envelopes)`,
            unit: 'ms',
            cairn: spread([perTxNode]),
            reference: null,
            // Issue 50 asks ≤ 1.5 ms per included transaction per node for the whole node; admission (~0.47 ms) and
            // execution (~0.18 ms) take their share whatever carries the transactions.
            target:
              '≤ 0.8 ms: what the ≤ 1.5 ms per transaction per node of issue 50 leaves after admission and execution',
            met: perTxNode <= 0.8,
            note:
              `the HTTP gossip it replaces: ~4 ms per transaction per node; batches of ${fmt(
                batchTxs /
                  Math.max(
                    1,
                    batchers.reduce((n, b) => n + b.batches, 0),
                  ),
                1,
              )} on average; ` +
              `${fmt(batchBytes / batchTxs, 0)} bytes per transaction on a link; all ${HOSTS} hosts in one process ` +
              '(the CPU is the sum over them); every transaction received once by every other host',
          },
        ],
        values['results-dir'],
      );
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
