/**
 * Fuzzing the VM JSON-RPC surface of a real node: every method (the 21, the 8 that answer
 * -32601, and random names) with params of random types and arities, random ids and
 * envelopes, batches (empty, up to and beyond MAX_RPC_BATCH), junk bodies, and other HTTP
 * methods and paths.
 *
 * Properties: an answer within the timeout; HTTP 200 for every POST on `/` (413 for an
 * oversized body); each answer in the JSON-RPC 2.0 shape with the request's id and, for an
 * error, a code from the spec's table; -32603 (an internal failure) never, since no input
 * should make the node fail; batches answered element by element in order; and
 * eth_sendRawTransaction never returns a hash (no fuzz input is a valid transaction).
 * After the run the node still serves and holds no transaction.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../helpers/testNode';
import {
  anyJson,
  FUZZ_RUNS,
  headers,
  junkString,
  mutatedRaw,
  parseJson,
  rawRequest,
  signedSamples,
  testTimeoutMs,
  type Signed,
} from './kit';

const METHODS = [
  'web3_clientVersion',
  'net_version',
  'net_listening',
  'eth_chainId',
  'eth_syncing',
  'eth_accounts',
  'eth_blockNumber',
  'eth_getBalance',
  'eth_getCode',
  'eth_getTransactionCount',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_estimateGas',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getLogs',
  'eth_call',
  'eth_sendRawTransaction',
];
const UNIMPLEMENTED = [
  'eth_sendTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_getStorageAt',
  'eth_subscribe',
  'eth_unsubscribe',
  'eth_newFilter',
  'eth_getFilterChanges',
];
/** The spec's JSON-RPC codes, without -32603: an internal failure is a finding, not an answer. */
const EXPECTED_CODES = new Set([-32600, -32601, -32602, -32700, -32000]);

let t: TestNode;
let port: number;
let dev: { address: string; secp256k1PrivateKey: string; secret: string }[];
let signed: Signed;
let blockHash = '';
const stats = { requests: 0, calls: 0, byCode: new Map<string, number>() };

beforeAll(async () => {
  t = await startTestNode({ slotMs: 100, idleBlockMs: 500 });
  port = t.node.config.rpcPort;
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  signed = await signedSamples(dev as never, t.network);
  blockHash = ((await t.get('/blocks/0')).body as { hash: string }).hash;
});

afterAll(async () => {
  await t?.cleanup();
  const by = [...stats.byCode]
    .sort()
    .map(([c, n]) => `${c}:${n}`)
    .join(' ');
  console.info(
    `rpc fuzz: ${stats.requests} HTTP requests, ${stats.calls} calls (${FUZZ_RUNS} runs per property); outcomes ${by}`,
  );
});

// ---- generators -------------------------------------------------------------------------

const hexQuantity = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 80n }).map((n) => `0x${n.toString(16)}`),
  fc.constantFrom('0x', '0x0', '0x00', '0x1', '0xffffffffffffffff', '0x-1', '0xg', '1', '0X1'),
);
const blockTag = fc.oneof(
  fc.constantFrom('latest', 'earliest', 'pending', 'safe', 'finalized', 'LATEST', ''),
  hexQuantity,
);
const address = () =>
  fc.oneof(
    fc.constantFrom(...dev.map((d) => d.address)),
    fc.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    fc.stringMatching(/^0x[0-9a-fA-F]{0,45}$/),
    junkString,
  );
const hash = () =>
  fc.oneof(fc.constant(blockHash), fc.stringMatching(/^0x[0-9a-f]{64}$/), fc.stringMatching(/^0x[0-9a-fA-F]{0,70}$/));
const data = fc.oneof(
  fc.stringMatching(/^0x([0-9a-f]{2}){0,64}$/),
  fc.constantFrom('0x', '0x6000', '0x600160005260206000f3', '0x5b600056', '0xfe', '0x00'),
  junkString,
);
const callObject = () =>
  fc.record(
    {
      from: address(),
      to: fc.oneof(address(), fc.constant(null)),
      gas: hexQuantity,
      gasPrice: hexQuantity,
      maxFeePerGas: hexQuantity,
      maxPriorityFeePerGas: hexQuantity,
      value: hexQuantity,
      data,
      input: data,
      nonce: hexQuantity,
      type: hexQuantity,
      chainId: hexQuantity,
      accessList: fc.oneof(anyJson, fc.constant([])),
    },
    { requiredKeys: [] },
  );
const filter = () =>
  fc.record(
    {
      fromBlock: blockTag,
      toBlock: blockTag,
      blockHash: hash(),
      address: fc.oneof(address(), fc.array(address(), { maxLength: 3 })),
      topics: fc.oneof(
        fc.array(fc.oneof(hash(), fc.constant(null), fc.array(hash(), { maxLength: 2 })), { maxLength: 5 }),
        anyJson,
      ),
    },
    { requiredKeys: [] },
  );
/** Any param: plausible values of every kind the methods take, and arbitrary JSON. */
const param = () =>
  fc.oneof(
    { weight: 3, arbitrary: anyJson },
    { weight: 2, arbitrary: address() },
    { weight: 2, arbitrary: blockTag },
    { weight: 2, arbitrary: hash() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 2, arbitrary: callObject() },
    { weight: 2, arbitrary: filter() },
    { weight: 1, arbitrary: mutatedRaw(signed) },
    { weight: 1, arbitrary: junkString },
  );
const params = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.array(param(), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, {}, 'x', 1, true) },
    { weight: 1, arbitrary: fc.dictionary(junkString, param(), { maxKeys: 3 }) },
  );
const method = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 2, arbitrary: fc.constantFrom(...UNIMPLEMENTED) },
  { weight: 1, arbitrary: junkString },
  { weight: 1, arbitrary: anyJson },
);
const id = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(fc.nat(), fc.string({ maxLength: 12 }), fc.constant(null)) },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const jsonrpc = fc.oneof(
  { weight: 10, arbitrary: fc.constant('2.0') },
  { weight: 1, arbitrary: fc.constantFrom('1.0', '2', 2, undefined, null) },
);

/** Params of roughly the right types for each method, to get past arity checks into the handlers. */
const typedCall = () =>
  fc
    .oneof(
      fc.tuple(
        fc.constantFrom('eth_getBalance', 'eth_getCode', 'eth_getTransactionCount'),
        fc.tuple(address(), blockTag),
      ),
      fc.tuple(
        fc.constantFrom('eth_call', 'eth_estimateGas'),
        fc.oneof(fc.tuple(callObject()), fc.tuple(callObject(), blockTag)),
      ),
      fc.tuple(fc.constant('eth_getBlockByNumber'), fc.tuple(blockTag, fc.oneof(fc.boolean(), anyJson))),
      fc.tuple(fc.constant('eth_getBlockByHash'), fc.tuple(hash(), fc.boolean())),
      fc.tuple(fc.constantFrom('eth_getTransactionByHash', 'eth_getTransactionReceipt'), fc.tuple(hash())),
      fc.tuple(fc.constant('eth_getLogs'), fc.tuple(filter())),
      fc.tuple(
        fc.constant('eth_feeHistory'),
        fc.tuple(
          fc.oneof(hexQuantity, fc.integer({ min: -5, max: 2_000 })),
          blockTag,
          fc.array(fc.oneof(fc.double(), fc.integer()), { maxLength: 4 }),
        ),
      ),
      fc.tuple(fc.constant('eth_sendRawTransaction'), fc.tuple(mutatedRaw(signed))),
    )
    .map(([m, p]) => ({ method: m, params: p as unknown[] }));

/** One request object (sometimes not an object at all). */
const request = () =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .record({ jsonrpc, id, method, params: params() })
        .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))),
    },
    {
      weight: 10,
      arbitrary: fc
        .tuple(typedCall(), fc.oneof(fc.nat(), fc.string({ maxLength: 8 })))
        .map(([c, i]) => ({ jsonrpc: '2.0', id: i, ...c })),
    },
    { weight: 1, arbitrary: anyJson },
  );

// ---- checks -----------------------------------------------------------------------------

const validId = (v: unknown) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

function checkResponse(req: unknown, res: unknown, where: string): void {
  stats.calls++;
  if (typeof res !== 'object' || res === null || Array.isArray(res)) throw new Error(`not a response object: ${where}`);
  const r = res as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (r.jsonrpc !== '2.0') throw new Error(`jsonrpc is not "2.0": ${where}`);
  if (!('id' in r) || !validId(r.id)) throw new Error(`missing or invalid id: ${where}`);
  const q = req as { id?: unknown; method?: unknown } | null;
  const hasError = 'error' in r;
  if (hasError === 'result' in r) throw new Error(`exactly one of result and error: ${where}`);
  if (hasError) {
    const e = r.error!;
    if (typeof e !== 'object' || e === null || typeof e.code !== 'number' || typeof e.message !== 'string')
      throw new Error(`error not {code, message}: ${where}`);
    if (!EXPECTED_CODES.has(e.code)) throw new Error(`error code ${e.code} (${e.message}): ${where}`);
    stats.byCode.set(String(e.code), (stats.byCode.get(String(e.code)) ?? 0) + 1);
  } else {
    stats.byCode.set('result', (stats.byCode.get('result') ?? 0) + 1);
    if (q && typeof q === 'object' && q.method === 'eth_sendRawTransaction')
      throw new Error(`fuzz transaction accepted: ${where}`);
  }
  // A well-formed request gets its own id back.
  if (
    q &&
    typeof q === 'object' &&
    !Array.isArray(q) &&
    validId(q.id) &&
    (q as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    typeof q.method === 'string'
  ) {
    if (JSON.stringify(r.id) !== JSON.stringify(q.id))
      throw new Error(`id ${JSON.stringify(r.id)} for request id ${JSON.stringify(q.id)}: ${where}`);
  }
}

/** The node refuses prototype-pollution keys anywhere in a body as a parse error (-32700, id null). */
const FORBIDDEN_KEY = /"(__proto__|constructor|prototype)"\s*:/;
const isForbiddenParse = (body: string, v: unknown) =>
  FORBIDDEN_KEY.test(body) &&
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  (v as { error?: { code?: unknown } }).error?.code === -32700;

async function post(body: string, h: Record<string, string> = { 'content-type': 'application/json' }) {
  stats.requests++;
  const r = await rawRequest(port, 'POST', '/', h, body);
  const where = `${body.slice(0, 400)} → ${r.status} ${r.text.slice(0, 400)}`;
  if (r.status === 413) return { r, where, value: undefined };
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${where}`);
  const p = parseJson(r.text);
  if (!p.ok) throw new Error(`non-JSON answer: ${where}`);
  return { r, where, value: p.value };
}

describe(`JSON-RPC fuzz (${FUZZ_RUNS} runs per property)`, () => {
  it('single calls: every method with random params, ids and envelopes', { timeout: testTimeoutMs() }, async () => {
    await fc.assert(
      fc.asyncProperty(request(), async (req) => {
        const body = JSON.stringify(req);
        const { value, where } = await post(body);
        if (isForbiddenParse(body, value)) return checkResponse(null, value, where);
        if (Array.isArray(req)) {
          // An array body is a batch (checked by the batch property); here it must still answer in shape.
          if (Array.isArray(value)) {
            for (const [i, v] of value.entries()) checkResponse(req[i], v, where);
          } else checkResponse(null, value, where);
          return;
        }
        checkResponse(req, value, where);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('batches: empty, mixed, up to and beyond MAX_RPC_BATCH, answered in order', {
    timeout: testTimeoutMs(),
  }, async () => {
    const batch = fc.oneof(
      { weight: 6, arbitrary: fc.array(request(), { minLength: 1, maxLength: 8 }) },
      { weight: 1, arbitrary: fc.array(request(), { minLength: 45, maxLength: 60 }) },
      { weight: 1, arbitrary: fc.constant([]) },
    );
    await fc.assert(
      fc.asyncProperty(batch, async (reqs) => {
        const body = JSON.stringify(reqs);
        const { value, where } = await post(body);
        if (isForbiddenParse(body, value)) return checkResponse(null, value, where);
        if (reqs.length === 0 || reqs.length > 50) {
          checkResponse(null, value, where);
          expect((value as { error: { code: number } }).error.code).toBe(-32600);
          return;
        }
        if (!Array.isArray(value) || value.length !== reqs.length)
          throw new Error(`batch of ${reqs.length} answered with ${JSON.stringify(value).slice(0, 200)}`);
        for (const [i, v] of value.entries()) checkResponse(reqs[i], v, `[${i}] ${where}`);
      }),
      { numRuns: Math.max(1, Math.ceil(FUZZ_RUNS / 5)) }, // each case is up to 60 calls
    );
  });

  it('junk bodies, headers, HTTP methods and paths', { timeout: testTimeoutMs() }, async () => {
    const junkBody = fc.oneof(
      junkString,
      fc.constantFrom(
        '',
        '{',
        '[',
        '[{}',
        '{"jsonrpc":"2.0"',
        'null',
        'true',
        '1',
        '"x"',
        '{"__proto__":{}}',
        '[{"constructor":1}]',
        '\u0000',
        '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}{}',
      ),
      anyJson.map((v) => JSON.stringify(v)),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    const req = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.constant('POST'), fc.constant('/'), junkBody) },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
          fc.constant('/'),
          fc.option(junkBody, { nil: undefined }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom('GET', 'POST'),
          fc.constantFrom('/rpc', '//', '/?x=1', '/%zz', '/eth'),
          fc.option(junkBody, { nil: undefined }),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(req, headers(''), async ([m, path, body], h) => {
        stats.requests++;
        const r = await rawRequest(port, m, path, h, body);
        const where = `${m} ${path} ${JSON.stringify(body ?? '').slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
        if (r.status >= 500) throw new Error(`server error: ${where}`);
        if (m === 'OPTIONS' && path === '/') return; // CORS preflight: 204, no body
        if (r.status === 413) return;
        const p = parseJson(r.text);
        if (!p.ok) throw new Error(`non-JSON answer: ${where}`);
        if (m === 'POST' && path.startsWith('/') && (path === '/' || path.startsWith('/?'))) {
          if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${where}`);
          const v = p.value;
          if (Array.isArray(v)) {
            for (const x of v) checkResponse(null, x, where);
          } else checkResponse(null, v, where);
        } else if (r.status === 405) checkResponse(null, p.value, where);
        else if (
          typeof (p.value as { error?: unknown })?.error !== 'string' &&
          typeof (p.value as { error?: unknown })?.error !== 'object'
        ) {
          throw new Error(`error not in shape: ${where}`);
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('after the fuzzing: the node serves and holds no transaction', async () => {
    const { value } = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }));
    expect(value).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^0x[0-9a-f]+$/) });
    expect((await t.get('/mempool')).body).toMatchObject({ count: 0 });
    expect((await t.get('/txs')).body).toEqual({ txs: [] });
    expect(t.node.supervisor.status().every((c) => c.running)).toBe(true);
  });
});
