/**
 * Issue 23 rows 2 and 12, against a real node process on its ports.
 *
 * Row 2: two clients flood the JSON-RPC port with batches of 50 eth_calls that loop until
 * they run out of gas (5,190,000 gas each). The calls run in the VM call pool's worker
 * threads, so the node keeps serving and producing: an honest client's GET /status stays
 * fast and blocks keep coming. The attackers here are EXEMPT from the rate limit (so the
 * flood is at full strength and what is measured is the isolation of VM work); a second test
 * shows the JSON-RPC port is rate-limited like the HTTP API, with the same counters.
 * An eth_estimateGas of a 4 M-gas loop costs a few runs, not 8–15.
 *
 * Row 12: an unknown method name of 100,000 characters is not echoed back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { honestClient, HONEST, requestFrom, rpcFrom, spawnTarget, waitFor, type Target } from './lib';
import { countedLoopCode, LOOP_GAS, startVmCallFlood } from './attacks/vmCalls';

const FLOODERS = ['127.0.0.66', '127.0.0.67'];
const LIMITED = '127.0.0.70';
const PROBE = '127.0.0.12';
const QUIET = '127.0.0.11';

let node: Target;

beforeAll(async () => {
  // A block every 500 ms slot even when idle, so "blocks keep their slots" is observable.
  node = await spawnTarget(['--slot-ms', '500', '--idle-block-ms', '500', '--rate-limit-exempt', FLOODERS.join(',')]);
});
afterAll(async () => {
  await node?.cleanup();
});

const height = async (): Promise<number> => (await requestFrom(PROBE, `${node.url}/status`)).json.height;

describe('VM work never freezes the node (issue 23 row 2)', () => {
  it('two clients flooding looping eth_call batches leave /status fast and blocks on their slots', async () => {
    // Let the call workers start and the chain get going.
    const h0 = await waitFor('a first block', async () => ((await height()) >= 1 ? height() : undefined), 30_000);
    // The same honest load without the flood first: on a loaded machine the bound follows it.
    const quietClient = honestClient(node.url, QUIET);
    await new Promise((r) => setTimeout(r, 4_000));
    const quiet = await quietClient.stop();
    const flood = startVmCallFlood(node.rpcUrl, FLOODERS);
    const honest = honestClient(node.url, HONEST);
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 1_000));
    const t = performance.now();
    const answer = await rpcFrom(PROBE, node.rpcUrl, 'eth_call', [{ data: '0x600160005260206000f3' }, 'latest']);
    const callMs = performance.now() - t;
    while (Date.now() - started < 6_000) await new Promise((r) => setTimeout(r, 100));
    const report = await honest.stop();
    const hits = await flood.stop();
    const h1 = await height();

    console.log(
      `flood: ${JSON.stringify(hits)}; quiet /status: ${JSON.stringify(quiet)}; honest ` +
        `/status: ${JSON.stringify(report)}; honest eth_call ${callMs.toFixed(0)} ms: ${JSON.stringify(answer)}`,
    );
    expect(hits.errors['out of gas'] ?? 0).toBeGreaterThan(0); // the loops did run
    expect(report.failures).toBe(0);
    expect(report.requests).toBeGreaterThan(20);
    // bench/vmCalls.ts holds it to 100 ms; here headroom for a busy machine (before the fix: no answer for 25 s and
    // more).
    expect(report.p99).toBeLessThanOrEqual(Math.max(250, 2 * quiet.p99));
    expect(h1 - h0).toBeGreaterThanOrEqual(6); // ~12 slots passed
    expect(report.maxBlockGapMs).toBeLessThanOrEqual(2_000);
    // Served in its turn (test/unit/vm/vmCallPool.test.ts pins the order), or, on a machine too busy
    // for even that, refused clearly within the budget: never a hang.
    if (answer.error)
      expect(answer.error).toMatchObject({
        code: -32000,
        message: expect.stringMatching(/^VM call not started within 5000 ms/),
      });
    else expect(answer.result).toBe(`0x${'00'.repeat(31)}01`);
    expect(callMs).toBeLessThan(12_000);
    // The flooders' excess is refused at once with a clear -32000, not held.
    expect(hits.errors['VM call queue is full (16 calls waiting from this client): retry later']).toBeGreaterThan(0);
  });

  it('the JSON-RPC port is rate-limited like the HTTP API, on the same per-client counters', async () => {
    let r = await requestFrom(LIMITED, node.rpcUrl, {
      body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    });
    expect(r.status).toBe(200);
    // 240 requests per 10 s: the first one above, the rest split over both ports.
    for (let i = 1; i < 240; i++) {
      const url = i % 2 ? `${node.url}/status` : node.rpcUrl;
      r = await requestFrom(
        LIMITED,
        url,
        i % 2 ? {} : { body: { jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] } },
      );
      if (r.status !== 200) break;
    }
    expect(r.status).toBe(200);
    const refused = await requestFrom(LIMITED, node.rpcUrl, {
      body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^rate limit exceeded: 240 requests per 10000 ms/) },
    });
    expect((await requestFrom(LIMITED, `${node.url}/status`)).status).toBe(429);
    // Another client is served.
    expect((await rpcFrom(PROBE, node.rpcUrl, 'eth_blockNumber')).result).toMatch(/^0x/);
  });

  it('eth_estimateGas of a 4 M-gas loop costs a few runs of the call, and is exact', async () => {
    const code = countedLoopCode(150_000); // 26 gas an iteration: ~3.9 M gas
    const call = (gas?: bigint) =>
      rpcFrom(PROBE, node.rpcUrl, 'eth_call', [
        { data: code, ...(gas ? { gas: `0x${gas.toString(16)}` } : {}) },
        'latest',
      ]);
    // One run of the call alone (the first also warms the worker), then the estimate.
    await call();
    let t = performance.now();
    expect((await call(BigInt(LOOP_GAS) - 1n)).result).toBe('0x');
    const oneCallMs = performance.now() - t;
    t = performance.now();
    const est = await rpcFrom(PROBE, node.rpcUrl, 'eth_estimateGas', [{ data: code }]);
    const estimateMs = performance.now() - t;
    console.log(
      `one call ${oneCallMs.toFixed(0)} ms, estimate ${estimateMs.toFixed(0)} ms ` +
        `(${(estimateMs / oneCallMs).toFixed(1)} calls): ${JSON.stringify(est)}`,
    );
    const gas = BigInt(est.result);
    expect(gas).toBeGreaterThan(3_900_000n);
    expect(gas).toBeLessThan(4_100_000n);
    expect(estimateMs).toBeLessThan(4 * oneCallMs + 500);
    expect((await call(gas)).result).toBe('0x');
    expect((await call(gas - 1n)).error).toMatchObject({ code: -32000, message: 'out of gas' });
  });
});

describe('JSON-RPC errors quote at most 64 characters of a method name (issue 23 row 12)', () => {
  it('an unknown method of 100,000 characters is not echoed back', async () => {
    const method = `eth_${'x'.repeat(99_996)}`;
    const r = await requestFrom(PROBE, node.rpcUrl, { body: { jsonrpc: '2.0', id: 7, method, params: [] } });
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(400);
    expect(r.json).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(r.json.error.message).toContain(method.slice(0, 64));
    expect(r.json.error.message).not.toContain(method.slice(0, 65));
    expect(r.json.error.message).toContain('100000 characters');
  });
});
