/**
 * The read path against its own HTTP server: GET /status, /address/:end, /blocks/latest and
 * /tx/:id on a real node, and the same bytes from a bare hyper-express server (the node's
 * HTTP library with nothing else), both loaded by wrk in the same run, runs interleaved.
 * Target: the node serves ≥ 70 % of the bare server's requests per second.
 *
 *   npx tsx bench/reads.ts [--seconds 5] [--runs 3] [--connections 64] [--threads 2] [--tiny]
 *                          [--only /tx] [--profile]   (--profile: the node's CPU profile, summarised)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import { CairnClient } from '../src/sdk';
import type { CannedAnswer } from './lib/bareServer';
import { groupCpu, posInt, spawnNode, startBareServer, stopProcessGroup, summarizeProfile } from './lib/harness';
import { showSpread, spread, writeResults, type ResultRow } from './lib/results';
import { ensureWrk, wrk } from './lib/wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const tiny = values.tiny;
const SECONDS = tiny ? 1 : posInt(values.seconds!, 'seconds', 600);
const RUNS = tiny ? 1 : posInt(values.runs!, 'runs', 50);
const CONNECTIONS = tiny ? 8 : posInt(values.connections!, 'connections', 10_000);
const THREADS = tiny ? 1 : posInt(values.threads!, 'threads', 64);
const TARGET = 0.7;

async function main(): Promise<void> {
  ensureWrk();
  const node = await spawnNode({
    devAccounts: 4,
    slotMs: 500,
    mempoolCap: 5000,
    logLevel: 'warn',
    cpuProf: values.profile,
  });
  let bare: { pgid: number } | null = null;
  const answersDir = mkdtempSync(join(tmpdir(), 'cairn-bare-'));
  try {
    await node.ready;
    const client = new CairnClient(node.httpUrl);
    const alice = deriveKeys(devSecret(0));
    const sent = await client.sendTx(
      alice,
      { type: 'TRANSFER', to: deriveKeys(devSecret(1)).address, amount: 5n * COIN },
      { wait: 'included', timeoutMs: 30_000 },
    );
    const paths = ['/status', `/address/${alice.address}`, '/blocks/latest', `/tx/${sent.tx.id}`];
    // The reference answers what the node answered: the same bytes, the same content type.
    const answers: CannedAnswer[] = [];
    for (const path of paths) {
      const r = await fetch(node.httpUrl + path);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
      answers.push({ path, contentType: r.headers.get('content-type') ?? 'application/json', body: await r.text() });
    }
    const bareUrl = (await startBareServer(answers, answersDir, (pgid) => (bare = { pgid }))).url;

    const rows: ResultRow[] = [];
    for (const a of answers.filter((x) => !values.only || x.path.startsWith(values.only))) {
      const label = a.path.replace(/0x[0-9a-f]{40,64}/, (m) => (m.length === 42 ? ':end' : ':id'));
      const cairn: number[] = [];
      const ref: number[] = [];
      // Server CPU per request: steadier than req/s when wrk and the server share 2 cores.
      const cairnUs: number[] = [];
      const refUs: number[] = [];
      let p99 = 0;
      let failures = 0;
      const load = (url: string, pgid: number, us: number[]) => {
        const c0 = groupCpu(pgid).total;
        const w = wrk(url, { threads: THREADS, connections: CONNECTIONS, seconds: SECONDS });
        us.push(((groupCpu(pgid).total - c0) * 1e6) / Math.max(1, w.requests));
        return w;
      };
      for (let i = 0; i < RUNS; i++) {
        // Interleaved: a slow spell of the machine hits both sides.
        const c = load(node.httpUrl + a.path, node.pgid, cairnUs);
        const b = load(bareUrl + a.path, bare!.pgid, refUs);
        cairn.push(c.rps);
        ref.push(b.rps);
        p99 = Math.max(p99, c.p99ms);
        failures += c.non2xx + c.errors;
      }
      const cs = spread(cairn);
      const rs = spread(ref);
      const ratio = cs.median / rs.median;
      rows.push({
        metric: `GET ${label} (req/s)`,
        unit: 'req/s',
        cairn: cs,
        reference: { name: 'bare hyper-express, same bytes', value: rs },
        target: `≥ ${TARGET * 100} % of the reference`,
        met: ratio >= TARGET && failures === 0,
        note:
          `${(ratio * 100).toFixed(0)} % of the reference; node p99 ${p99.toFixed(1)} ms; server CPU per ` +
          `request ${spread(cairnUs).median.toFixed(1)} µs vs ${spread(refUs).median.toFixed(1)} ` +
          `µs${failures ? `; ${failures} non-2xx or socket errors` : ''}`,
      });
      console.error(
        `GET ${label}: cairn ${showSpread(cs)} req/s, bare ${showSpread(rs)} req/s ` +
          `→ ${(ratio * 100).toFixed(0)} %; CPU/request ${spread(cairnUs).median.toFixed(1)} ` +
          `vs ${spread(refUs).median.toFixed(1)} µs`,
      );
    }
    const out = writeResults('reads', rows, values['results-dir']);
    console.log(JSON.stringify(out, null, 2));
  } finally {
    if (bare) await stopProcessGroup(bare.pgid, 5000);
    rmSync(answersDir, { recursive: true, force: true });
    await node.stop(false);
    if (node.cpuProfDir) summarizeProfile(node.cpuProfDir);
  }
}

await main();
