/**
 * Issue 23 row 2: what a flood of looping eth_call batches costs an honest client, and what
 * running VM calls off the main thread costs an honest eth_call on an idle node.
 *
 *   npx tsx bench/vmCalls.ts [--seconds 8] [--results-dir bench/results] [--idle-only]
 *
 * A real node (`--dev`, 500 ms slots, a block every slot; the two flooders exempt from the
 * rate limit so the flood is at full strength, and the /status poller, which asks 50 times
 * a second). Phases:
 * 1. idle: 40 honest eth_calls one after another (each with distinct data, so none is a
 *    memoized answer) → p50/p99;
 * 2. quiet: the honest client polls GET /status for --seconds → p50/p99, largest block gap;
 * 3. flood: the same while two clients send batches of 50 looping eth_calls (5,190,000 gas)
 *    back to back (test/adversarial/attacks/vmCalls.ts), plus 5 honest eth_calls during it.
 * Target (issue 23): /status p99 ≤ 100 ms under the flood and blocks on their slots.
 */
import { parseArgs } from 'node:util';
import { honestClient, HONEST, percentile, spawnTarget, waitFor, requestFrom } from '../test/adversarial/lib';
import { startVmCallFlood } from '../test/adversarial/attacks/vmCalls';
import { spread, writeResults, type ResultRow } from './lib/results';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    'results-dir': { type: 'string' },
    tiny: { type: 'boolean' },
    'idle-only': { type: 'boolean' },
  },
});
const seconds = values.tiny ? 3 : Number(values.seconds);
const FLOODERS = ['127.0.0.66', '127.0.0.67'];
const PROBE = '127.0.0.12';

// The honest poller is exempt too: at 50 requests a second it would otherwise be rate-limited itself.
class IdleOnly extends Error {}

const node = await spawnTarget([
  '--slot-ms',
  '500',
  '--idle-block-ms',
  '500',
  '--rate-limit-exempt',
  [...FLOODERS, HONEST].join(','),
]);
try {
  await waitFor('block 2', async () => (await requestFrom(PROBE, `${node.url}/status`)).json.height >= 2, 60_000);
  let seq = 0;
  // Returns 1 (PUSH1 1 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN), padded with bytes never run.
  const honestCall = async () => {
    const t = performance.now();
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ data: `0x600160005260206000f3${(seq++).toString(16).padStart(8, '0')}` }, 'latest'],
    };
    const r = await requestFrom(PROBE, node.rpcUrl, { body, timeoutMs: 60_000 }).catch(() => undefined);
    return { ms: performance.now() - t, ok: r?.json?.result !== undefined };
  };
  await waitFor('a call worker', async () => (await honestCall()).ok, 60_000);

  const idle: number[] = [];
  for (let i = 0; i < 40; i++) idle.push((await honestCall()).ms);
  if (values['idle-only'])
    throw new IdleOnly(
      `honest eth_call, idle node: p50 ${percentile(idle, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(idle, 99).toFixed(1)} ms (n=${idle.length})`,
    );

  const measure = async (flood: boolean) => {
    const attack = flood ? startVmCallFlood(node.rpcUrl, FLOODERS) : undefined;
    const honest = honestClient(node.url, HONEST);
    const calls: { ms: number; ok: boolean }[] = [];
    const end = Date.now() + seconds * 1000;
    if (flood) for (let i = 0; i < 5 && Date.now() < end; i++) calls.push(await honestCall());
    while (Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    const report = await honest.stop();
    return { report, calls, hits: await attack?.stop() };
  };
  const quiet = await measure(false);
  const flood = await measure(true);

  const f = (x: number) => x.toFixed(1);
  console.log(
    `honest eth_call, idle node: p50 ${f(percentile(idle, 50))} ms, p99 ${f(percentile(idle, 99))} ms ` +
      `(n=${idle.length})`,
  );
  for (const [name, m] of [
    ['quiet', quiet],
    ['flood', flood],
  ] as const) {
    console.log(
      `${name}: GET /status p50 ${f(m.report.p50)} ms, p99 ${f(m.report.p99)} ms, max ${f(m.report.max)} ms ` +
        `(n=${m.report.requests}, failures ${m.report.failures}); blocks ${m.report.blocks}, largest ` +
        `gap ${m.report.maxBlockGapMs} ms`,
    );
  }
  console.log(
    `honest eth_calls during the ` +
      `flood: ${flood.calls.map((c) => `${c.ms.toFixed(0)} ms${c.ok ? '' : ' (refused)'}`).join(', ')}`,
  );
  console.log(`flood: ${JSON.stringify(flood.hits)}`);

  const rows: ResultRow[] = [
    {
      metric: 'GET /status p99 under a looping eth_call flood (2 clients × 50-call batches)',
      unit: 'ms',
      cairn: spread([flood.report.p99]),
      reference: { name: 'same honest load, no flood', value: spread([quiet.report.p99]) },
      target: '≤ 100 ms',
      met: flood.report.p99 <= 100,
      note:
        `p50 ${f(flood.report.p50)} ms (quiet ${f(quiet.report.p50)} ms); largest block ` +
        `gap ${flood.report.maxBlockGapMs} ms (quiet ${quiet.report.maxBlockGapMs} ms), 500 ms slots`,
    },
    {
      metric: 'largest gap between blocks under the flood',
      unit: 'ms',
      cairn: spread([flood.report.maxBlockGapMs]),
      reference: { name: 'no flood', value: spread([quiet.report.maxBlockGapMs]) },
      target: 'blocks keep their slots (≤ 2 slots = 1000 ms)',
      met: flood.report.maxBlockGapMs <= 1000,
    },
    {
      metric: 'honest eth_call on an idle node (worker thread, p50)',
      unit: 'ms',
      cairn: spread([percentile(idle, 50)]),
      reference: null,
      target: 'report',
      met: true,
      note: `p99 ${f(percentile(idle, 99))} ms over ${idle.length} distinct calls`,
    },
  ];
  writeResults('vmCalls', rows, values['results-dir']);
} catch (e) {
  if (!(e instanceof IdleOnly)) throw e;
  console.log(e.message);
} finally {
  await node.cleanup();
}
