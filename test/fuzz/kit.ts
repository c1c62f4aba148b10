/**
 * Shared pieces of the HTTP and JSON-RPC fuzzers: a raw HTTP client with a per-request
 * timeout (so a hang is a failure, not a stuck test), the sample size, and generators of
 * junk that looks enough like the real thing to get past the first checks.
 */
import http from 'node:http';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { signTx } from '../../src/chain/envelope';
import type { HybridTx } from '../../src/protocol/types';
import { deriveKeys } from '../../src/crypto/keys';
import { fromHex } from '../../src/primitives/hex';
import type { Network } from '../../src/protocol/network';

/** Cases per surface: small by default so `npm test` stays fast; `npm run fuzz` sets 10,000. */
export const FUZZ_RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 150) || 150);
/** A request that takes longer than this is a hang. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** Enough for FUZZ_RUNS requests at a few ms each, with a wide margin. */
export const testTimeoutMs = (runs = FUZZ_RUNS) => 120_000 + runs * 60;

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One request with exactly this path (no URL normalisation), headers and body. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: h, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${method} ${path.slice(0, 200)}`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

// ---------------------------------------------------------------------------------------
// Generators

const PRINTABLE = /^[\x21-\x7e]*$/;

/** Strings that break parsers: unicode, escapes, huge numbers, prototype names, near-valid hex. */
export const junkString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 80 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '.',
      '..',
      '%',
      '%zz',
      '%00',
      '%2F',
      '%E0%A4%A',
      '0',
      '-0',
      '-1',
      '1e3',
      '0x',
      '0X',
      '0x0',
      'NaN',
      'Infinity',
      'null',
      'true',
      'undefined',
      '__proto__',
      'constructor',
      'prototype',
      'latest',
      'earliest',
      'pending',
      'cairn1',
      '9'.repeat(16),
      '9'.repeat(80),
      '18446744073709551616',
      '9007199254740993',
      'x'.repeat(5_000),
      '\u0000',
      '\uffff',
      '\ud800',
      '😀',
      '<script>',
      "' OR 1=1 --",
    ),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^0x[0-9a-fA-F]{0,70}$/) },
  { weight: 2, arbitrary: fc.stringMatching(/^cairn1[02-9ac-hj-np-z]{0,70}$/) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
);

/** Percent-encoding of the UTF-8 bytes (lone surrogates included, which encodeURIComponent refuses). */
const pct = (v: string): string =>
  [...Buffer.from(v, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/**
 * A path segment or query component: percent-encoded, or raw when the request line allows it (malformed escapes
 * included).
 */
export const encoded = (s: fc.Arbitrary<string>) =>
  fc.tuple(s, fc.boolean()).map(([v, raw]) => (raw && PRINTABLE.test(v) && !/[/?#&=]/.test(v) ? v : pct(v)));

/** A query string from known and random keys, repeated keys included. */
export function queryString(keys: string[], values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: junkString });
  return fc
    .array(fc.tuple(encoded(key), fc.option(encoded(values), { nil: undefined })), { maxLength: 5 })
    .map((pairs) =>
      pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&'),
    );
}

const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
  fc.constantFrom('', ' ', '0', 'null'),
);
const headerName = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
  .filter(
    (n) =>
      !['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'te', 'trailer'].includes(n),
  );

/** Request headers: content types, accept, admin token, proxy headers, and random ones. */
export const headers = (adminToken: string) =>
  fc
    .record(
      {
        'content-type': fc.oneof(
          fc.constantFrom(
            'application/json',
            'text/plain',
            'application/json; charset=utf-16',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
          ),
          headerValue,
        ),
        accept: fc.oneof(
          fc.constantFrom('application/json', 'text/html', '*/*', 'application/json, text/html;q=0.5'),
          headerValue,
        ),
        'x-admin-token': fc.oneof(fc.constant(adminToken), headerValue),
        'x-forwarded-for': fc.oneof(fc.constantFrom('1.2.3.4', '::1', '127.0.0.1, 10.0.0.1', 'unknown'), headerValue),
        'x-request-id': headerValue,
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', '*'),
      },
      { requiredKeys: [] },
    )
    .chain((h) => fc.dictionary(headerName, headerValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...h })))
    .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => /^[\x20-\x7e]*$/.test(v))));

/** JSON values of any shape, including deep nesting and big numbers. */
export const anyJson = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -0, 2 ** 53 + 1, '', [], {}, null) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map((d) => JSON.parse('['.repeat(d) + ']'.repeat(d))) },
);

// ---------------------------------------------------------------------------------------
// Near-valid transactions that must still be refused

export interface Signed {
  /** A correctly signed hybrid envelope from a funded dev account: never sent unchanged. */
  hybrid: HybridTx;
  /** A correctly signed raw Ethereum transaction (0x hex) from a funded dev account: never sent unchanged. */
  raw: string;
}

export async function signedSamples(
  dev: { secret: string; secp256k1PrivateKey: string; address: string }[],
  network: Network,
): Promise<Signed> {
  const keys = deriveKeys(fromHex(dev[0].secret));
  const hybrid = signTx(
    keys,
    { type: 'TRANSFER', to: dev[1].address as `0x${string}`, amount: '1000', nonce: 0 },
    network,
  );
  const wallet = new Wallet(dev[0].secp256k1PrivateKey);
  const raw = await wallet.signTransaction({
    to: dev[1].address,
    value: 10n ** 12n,
    nonce: 0,
    gasLimit: 21_000n,
    gasPrice: 10n ** 12n,
    chainId: 72020n,
    type: 0,
  });
  return { hybrid, raw };
}

const TX_FIELDS = [
  'chainId',
  'type',
  'from',
  'to',
  'amount',
  'nonce',
  'timestamp',
  'fee',
  'data',
  'id',
  'publicKeys',
  'signatures',
] as const;

/** A signed envelope with at least one real change (a changed field, a dropped field, a swapped signature…). */
export function mutatedEnvelope(s: Signed): fc.Arbitrary<unknown> {
  const field = fc.constantFrom(...TX_FIELDS);
  const change = fc.oneof(
    fc.tuple(field, anyJson).map(([f, v]) => ({ ...s.hybrid, [f]: v })),
    field.map((f) => {
      const o: Record<string, unknown> = { ...s.hybrid };
      delete o[f];
      return o;
    }),
    fc.constantFrom<'secp256k1' | 'mldsa44'>('secp256k1', 'mldsa44').chain((k) =>
      fc.nat({ max: 4_000 }).map((i) => {
        const sig = s.hybrid.signatures[k];
        const at = 2 + (i % (sig.length - 2));
        const flipped = sig.slice(0, at) + (sig[at] === '0' ? '1' : '0') + sig.slice(at + 1);
        return { ...s.hybrid, signatures: { ...s.hybrid.signatures, [k]: flipped } };
      }),
    ),
    fc.constantFrom('amount', 'nonce', 'to', 'fee', 'timestamp').map((f) => {
      const alt: Record<string, unknown> = {
        amount: '1001',
        nonce: 1,
        to: s.hybrid.from,
        fee: '1',
        timestamp: s.hybrid.timestamp + 1,
      };
      return { ...s.hybrid, [f]: alt[f] };
    }),
    fc.tuple(junkString, anyJson).map(([k, v]) => ({ ...s.hybrid, [k]: v })),
  );
  // Anything that still serialises to the signed envelope would be a valid transaction.
  const same = JSON.stringify(s.hybrid);
  return change.filter(
    (v) =>
      JSON.stringify(v) !== same &&
      !(typeof v === 'object' && v !== null && sameTx(v as Record<string, unknown>, s.hybrid)),
  );
}

/**
 * The same transaction as `tx` once decoded: key order does not matter, `data` and `to` may
 * be absent (null), and `id` may be absent or in another case (the node recomputes it).
 */
function sameTx(v: Record<string, unknown>, tx: HybridTx): boolean {
  const norm = (f: string, x: unknown) =>
    f === 'id'
      ? ((typeof x === 'string' ? x.toLowerCase() : x) ?? tx.id)
      : (f === 'data' || f === 'to') && x === undefined
        ? null
        : x;
  return TX_FIELDS.every(
    (f) => JSON.stringify(norm(f, v[f])) === JSON.stringify(norm(f, (tx as unknown as Record<string, unknown>)[f])),
  );
}

/** A signed raw transaction with one hex digit changed, cut short, extended, or junk. */
export function mutatedRaw(s: Signed): fc.Arbitrary<string> {
  const raw = s.raw;
  return fc
    .oneof(
      fc.nat({ max: 10_000 }).map((i) => {
        const at = 2 + (i % (raw.length - 2));
        const c = raw[at] === 'f' ? '0' : (parseInt(raw[at], 16) + 1).toString(16);
        return raw.slice(0, at) + c + raw.slice(at + 1);
      }),
      fc.nat({ max: 10_000 }).map((i) => raw.slice(0, 2 + (i % (raw.length - 3)))),
      fc.stringMatching(/^[0-9a-f]{1,40}$/).map((t) => raw + t),
      fc.stringMatching(/^0x[0-9a-fA-F]{0,300}$/),
      junkString,
    )
    .filter((r) => r !== raw && r.toLowerCase() !== raw.toLowerCase());
}
