/**
 * Fuzzing the native HTTP API of a real node (in-process, real HTTP on loopback): generated
 * paths, path parameters, query strings, headers and bodies for every route.
 *
 * Properties, for every request: an answer within the timeout (no hang), no 5xx except the
 * documented 503 (unavailable) and 502 (the compiler service, on contract verification),
 * every error in the spec's shape `{error: string}`, JSON wherever JSON is served, and no
 * fuzz input ever accepted (every POST /tx and /vm/tx verdict is a refusal). After the run
 * the node still serves, its actors all run, and neither its mempool nor its chain holds a
 * transaction: the state moved only by block rewards.
 *
 * FUZZ_RUNS cases per property (default 150; `npm run fuzz` runs 10,000).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../helpers/testNode';
import {
  anyJson,
  encoded,
  FUZZ_RUNS,
  headers,
  junkString,
  mutatedEnvelope,
  mutatedRaw,
  parseJson,
  queryString,
  rawRequest,
  signedSamples,
  testTimeoutMs,
  type RawReply,
  type Signed,
} from './kit';

const ADMIN = 'fuzz-admin-token';
let t: TestNode;
let port: number;
let dev: { address: string; native: string; secret: string; secp256k1PrivateKey: string }[];
let signed: Signed;
let blockHash = '';
const stats = { requests: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  t = await startTestNode({ adminToken: ADMIN, slotMs: 100, idleBlockMs: 500 });
  port = t.node.config.httpPort;
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  signed = await signedSamples(dev, t.network);
  blockHash = ((await t.get('/blocks/0')).body as { hash: string }).hash;
});

afterAll(async () => {
  await t?.cleanup();
  const by = [...stats.byStatus]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  console.info(`http fuzz: ${stats.requests} requests (${FUZZ_RUNS} runs per property); statuses ${by}`);
});

/** Checks one answer against the spec; returns the parsed JSON body when there is one. */
function check(method: string, path: string, r: RawReply, body?: string): unknown {
  stats.requests++;
  stats.byStatus.set(r.status, (stats.byStatus.get(r.status) ?? 0) + 1);
  const where =
    `${method} ${path.slice(0, 300)} ${body === undefined ? '' : `body ${JSON.stringify(body.slice(0, 300))}`} ` +
    `→ ${r.status} ${r.text.slice(0, 300)}`;
  const verify = method === 'POST' && /^\/contract\/[^/?]*\/verify/.test(path);
  const allowed5xx = r.status === 503 || (r.status === 502 && verify);
  if (r.status >= 500 && !allowed5xx) throw new Error(`server error: ${where}`);
  // HEAD: the status and headers only, never a body (one would corrupt the next answer on the kept-alive socket).
  if (method === 'HEAD') {
    if (r.text !== '') throw new Error(`HEAD answered with a body: ${where}`);
    if (r.status === 429 || r.status === 503) {
      if (!r.headers['retry-after']) throw new Error(`${r.status} without Retry-After: ${where}`);
    }
    return undefined;
  }
  const ct = String(r.headers['content-type'] ?? '');
  const isHtml = path === '/' || path.startsWith('/?') ? !/json/.test(ct) : false;
  const isMetrics = path === '/metrics' || path.startsWith('/metrics?');
  if (r.status >= 400) {
    const p = parseJson(r.text);
    if (
      !p.ok ||
      typeof p.value !== 'object' ||
      p.value === null ||
      typeof (p.value as { error?: unknown }).error !== 'string'
    ) {
      throw new Error(`error not in the {error: string} shape: ${where}`);
    }
    if ((r.status === 429 || r.status === 503) && !r.headers['retry-after'])
      throw new Error(`${r.status} without Retry-After: ${where}`);
    return p.value;
  }
  if (isHtml || (isMetrics && r.status === 200)) return undefined;
  // A CORS preflight: 204 without a body, whatever the path.
  if (method === 'OPTIONS' && r.status === 204 && r.text === '') return undefined;
  const p = parseJson(r.text);
  if (!p.ok) throw new Error(`non-JSON ${r.status} answer: ${where}`);
  return p.value;
}

/** A verdict of POST /tx or /vm/tx: a refusal, always (no fuzz input is a valid transaction). */
function refused(path: string, status: number, v: unknown, body: string): void {
  if (status !== 200) return;
  const verdict = v as { accepted?: unknown; reason?: unknown };
  if (verdict.accepted !== false)
    throw new Error(`fuzz input accepted by ${path}: ${body.slice(0, 500)} → ${JSON.stringify(v)}`);
  if (typeof verdict.reason !== 'string') throw new Error(`refusal without a reason: ${JSON.stringify(v)}`);
}

const height = fc.oneof(fc.nat({ max: 50 }).map(String), junkString);
const addressLike = () =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ...dev.flatMap((d) => [d.address, d.native, d.address.toUpperCase().replace('0X', '0x')]),
      ),
    },
    { weight: 2, arbitrary: junkString },
  );
const refLike = () => fc.oneof(fc.constantFrom('latest', '0', '1', blockHash, blockHash.toUpperCase()), height);
const idLike = () => fc.oneof(fc.stringMatching(/^0x[0-9a-f]{64}$/), fc.constant(signed.hybrid.id), junkString);
const assetLike = () =>
  fc.oneof(fc.stringMatching(/^0x[0-9a-f]{40}$/), fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,13}$/), junkString);
const nameLike = () => fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,40}$/), junkString);
const queryValue = fc.oneof(
  fc.nat({ max: 3_000 }).map(String),
  fc.constantFrom('0', '1', '100', '101', '2000', '2001', '-1', '1.5', '', '1e2', '0x10', ' 5'),
  junkString,
);
const QUERY_KEYS = ['limit', 'before', 'from', 'height', 'q', 'address', 'format'];

/** GET routes: [template, generator of the concrete path]. */
function getPaths(): fc.Arbitrary<string> {
  const q = queryString(QUERY_KEYS, queryValue);
  const seg = (a: fc.Arbitrary<string>) => encoded(a);
  const fixed = [
    '/',
    '/status',
    '/blocks/latest',
    '/blocks',
    '/chain',
    '/stats',
    '/search',
    '/txs',
    '/mempool',
    '/internal',
    '/logs',
    '/gateway',
    '/guard',
    '/metrics',
    '/peers',
    '/security/alerts',
    '/tokens',
    '/nfts',
    '/names',
  ];
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...fixed), q).map(([p, s]) => p + s) },
    { weight: 2, arbitrary: fc.tuple(seg(refLike()), q).map(([r, s]) => `/blocks/${r}${s}`) },
    { weight: 2, arbitrary: fc.tuple(seg(addressLike()), q).map(([a, s]) => `/address/${a}${s}`) },
    { weight: 3, arbitrary: fc.tuple(seg(addressLike()), q).map(([a, s]) => `/address/${a}/txs${s}`) },
    { weight: 1, arbitrary: fc.tuple(seg(addressLike()), q).map(([a, s]) => `/address/${a}/analysis${s}`) },
    { weight: 3, arbitrary: fc.tuple(seg(addressLike()), q).map(([a, s]) => `/proof/${a}${s}`) },
    { weight: 2, arbitrary: fc.tuple(seg(idLike()), q).map(([i, s]) => `/tx/${i}${s}`) },
    { weight: 1, arbitrary: fc.tuple(seg(addressLike()), q).map(([a, s]) => `/contract/${a}${s}`) },
    { weight: 2, arbitrary: seg(fc.oneof(junkString, addressLike(), refLike())).map((v) => `/search?q=${v}`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(seg(assetLike()), fc.constantFrom('', '/holders', '/transfers'), q)
        .map(([a, sub, s]) => `/tokens/${a}${sub}${s}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          seg(
            fc.oneof(
              assetLike(),
              fc.tuple(assetLike(), fc.oneof(fc.nat().map(String), junkString)).map(([a, n]) => `${a}:${n}`),
            ),
          ),
          q,
        )
        .map(([a, s]) => `/nfts/${a}${s}`),
    },
    { weight: 1, arbitrary: fc.tuple(seg(nameLike()), q).map(([n, s]) => `/name/${n}${s}`) },
    { weight: 1, arbitrary: fc.tuple(seg(junkString), seg(junkString), q).map(([a, b, s]) => `/${a}/${b}${s}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '//status',
        '/status/',
        '/STATUS',
        '/blocks//latest',
        '/address/',
        '/tx/',
        '/proof/',
        '/%2e%2e/status',
        '/blocks/latest/..',
        '/./status',
      ),
    },
  );
}

describe(`HTTP API fuzz (${FUZZ_RUNS} runs per property)`, () => {
  it('GET: every route with generated path parameters, query strings and headers', {
    timeout: testTimeoutMs(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(getPaths(), headers(ADMIN), async (path, h) => {
        const r = await rawRequest(port, 'GET', path, h);
        check('GET', path, r);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('POST /tx and /vm/tx: junk and near-valid transactions are all refused, never accepted', {
    timeout: testTimeoutMs(),
  }, async () => {
    const txBody = fc.oneof(
      { weight: 4, arbitrary: mutatedEnvelope(signed).map((v) => JSON.stringify(v)) },
      { weight: 2, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
      { weight: 2, arbitrary: junkString },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          '{',
          '{}',
          '[]',
          'null',
          '"x"',
          '{"__proto__":{"x":1}}',
          '{"constructor":{"prototype":{}}}',
        ),
      },
    );
    const vmBody = fc.oneof(
      { weight: 4, arbitrary: mutatedRaw(signed).map((raw) => JSON.stringify({ raw })) },
      { weight: 1, arbitrary: mutatedRaw(signed).map((raw) => JSON.stringify(raw)) },
      { weight: 2, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: anyJson.map((raw) => JSON.stringify({ raw })) },
      { weight: 1, arbitrary: junkString },
    );
    const req = fc.oneof(fc.tuple(fc.constant('/tx'), txBody), fc.tuple(fc.constant('/vm/tx'), vmBody));
    await fc.assert(
      fc.asyncProperty(req, headers(ADMIN), queryString(QUERY_KEYS, queryValue), async ([route, body], h, q) => {
        const path = route + q;
        const r = await rawRequest(port, 'POST', path, h, body);
        const v = check('POST', path, r, body);
        refused(route, r.status, v, body);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('POST /contract/:addr/verify, other methods and unknown routes', { timeout: testTimeoutMs() }, async () => {
    const verifyBody = fc.oneof(
      fc
        .record(
          {
            source: fc.oneof(junkString, fc.constant('pragma solidity 0.8.30; contract A {}')),
            sources: fc.dictionary(junkString, fc.oneof(junkString, anyJson), { maxKeys: 3 }),
            contractName: fc.oneof(junkString, fc.constant('A')),
            compilerVersion: fc.oneof(junkString, fc.constant('0.8.30'), anyJson),
            optimizer: fc.oneof(anyJson, fc.record({ enabled: fc.boolean(), runs: fc.oneof(fc.integer(), anyJson) })),
            evmVersion: fc.oneof(junkString, fc.constantFrom('cancun', 'prague'), anyJson),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      anyJson.map((v) => JSON.stringify(v)),
      junkString,
    );
    const req = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.tuple(
          fc.constant('POST'),
          encoded(addressLike()).map((a) => `/contract/${a}/verify`),
          verifyBody,
        ),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST', 'HEAD'),
          getPaths(),
          fc.option(junkString, { nil: undefined }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constant('POST'),
          fc.constantFrom('/blocks', '/status', '/tx/0x00'),
          fc.option(
            anyJson.map((v) => JSON.stringify(v)),
            { nil: undefined },
          ),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(req, headers(ADMIN), async ([method, path, body], h) => {
        const r = await rawRequest(port, method, path, h, body);
        check(method, path, r, body);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('oversized bodies get 413 {error}, not a crash', async () => {
    for (const [path, size] of [
      ['/tx', 600 * 1024],
      ['/vm/tx', 600 * 1024],
      ['/contract/0x' + '1'.repeat(40) + '/verify', 2.5 * 1024 * 1024],
    ] as const) {
      const body = JSON.stringify({ raw: '0x' + 'ab'.repeat(size / 2) });
      const r = await rawRequest(port, 'POST', path, { 'content-type': 'application/json' }, body);
      check('POST', path, r, body.slice(0, 100));
      expect(r.status).toBe(413);
    }
  });

  it('after the fuzzing: the node serves, its actors run, and no transaction got in', async () => {
    const s = await t.get('/status');
    expect(s.status).toBe(200);
    expect(t.node.supervisor.status().every((c) => c.running)).toBe(true);
    expect((await t.get('/mempool')).body).toMatchObject({ count: 0 });
    expect((await t.get('/txs')).body).toEqual({ txs: [] });
    expect(t.node.failure).toBeNull();
  });
});
