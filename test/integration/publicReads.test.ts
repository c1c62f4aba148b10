import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlock } from '../../src/chain/blockShape';
import { headerHash } from '../../src/crypto/blockHeader';
import { fetchChain } from '../../src/network/peerClient';
import { MAX_CHAIN_PAGE } from '../../src/protocol/params';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * What a user holds from the public reads, on real nodes over HTTP: one block shape for
 * /chain and /blocks/:ref, a /chain page capped (not refused) at MAX_CHAIN_PAGE, /name
 * answering 404 for what cannot be a name, eth_getLogs refusing a span wider than 5,000
 * blocks as asked, and CORS (with HEAD) on the native API and JSON-RPC from --cors-origins.
 */
const TOKEN = 'reads-admin-token';
let t: TestNode;
let rpcUrl: string;

const rpc = async (method: string, params: unknown[], headers: Record<string, string> = {}) => {
  const r = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: r.status,
    headers: r.headers,
    body: (await r.json()) as { result?: unknown; error?: { code: number; message: string } },
  };
};

beforeAll(async () => {
  // --dev: POST /dev/mine makes more than MAX_CHAIN_PAGE blocks in seconds; no idle blocks meanwhile.
  t = await startTestNode({ devAccounts: 1, dev: true, adminToken: TOKEN, idleBlockMs: 3_600_000 });
  rpcUrl = `http://127.0.0.1:${t.node.config.rpcPort}`;
  for (let mined = 0; mined < MAX_CHAIN_PAGE + 100; mined += 1_000) {
    const r = await fetch(`${t.url}/dev/mine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': TOKEN },
      body: JSON.stringify({ blocks: 1_000 }),
    });
    expect(r.status).toBe(200);
  }
  // 2,100 blocks: ~70 s alone, ~180 s beside two CPU burners and two other test files (scripts/test-under-load.sh).
}, 360_000);
afterAll(async () => t?.cleanup());

describe('GET /chain: one block shape, capped at MAX_CHAIN_PAGE', () => {
  it(
    'an item is the /blocks/:ref record (height, hash, ' +
      'size at the top level) with the stored block a peer verifies and imports',
    async () => {
      const page = (await t.get('/chain?from=1&limit=3')).body;
      expect(page).toMatchObject({ from: 1, limit: 3, next: 4 });
      expect(page).not.toHaveProperty('capped');
      expect(page.blocks).toHaveLength(3);
      for (const item of page.blocks) {
        const rec = (await t.get(`/blocks/${item.height}`)).body;
        expect(item.height).toBe(rec.height);
        expect(item.hash).toBe(rec.hash);
        expect(item.size).toBe(rec.size);
        // The header as signed: the same fields /blocks/:ref has at its top level, hashing to `hash`.
        for (const k of [
          'height',
          'parentHash',
          'timestamp',
          'producer',
          'txRoot',
          'stateRoot',
          'txCount',
          'hash',
          'signatures',
        ])
          expect(item.header[k], k).toEqual(rec[k]);
        expect(headerHash(item.header)).toBe(item.hash);
        const { height: _h, hash: _x, size: _s, ...stored } = item;
        expect(parseBlock(stored).ok).toBe(true);
      }
      // What p2p sync reads: the same blocks, checked against the top-level height and hash.
      const synced = await fetchChain(t.url, 1, 3);
      expect(synced.next).toBe(4);
      expect(synced.blocks.map((b) => b.header.hash)).toEqual(page.blocks.map((b: { hash: string }) => b.hash));
    },
  );

  it(`a limit above MAX_CHAIN_PAGE (${MAX_CHAIN_PAGE}) is served capped, and the answer says so; 0 or not a ` +
    `number is a 400`, async () => {
    expect((await t.get('/status')).body.height).toBeGreaterThan(MAX_CHAIN_PAGE);
    const r = await t.get('/chain?from=0&limit=5000');
    expect(r.status).toBe(200);
    expect(r.body.limit).toBe(MAX_CHAIN_PAGE);
    expect(r.body.capped).toBe(`limit 5000 is above MAX_CHAIN_PAGE: at most ${MAX_CHAIN_PAGE} blocks are served`);
    // As JSON the page also stops at 2 MiB of blocks (here before 2,000 of them): `next` says where.
    const n = r.body.blocks.length;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(MAX_CHAIN_PAGE);
    expect(r.body.blocks[n - 1].height).toBe(n - 1);
    expect(r.body.next).toBe(n);
    // The binary page peers sync with (16 MiB bound; from 1: a peer never imports genesis) carries all
    // MAX_CHAIN_PAGE of them.
    const synced = await fetchChain(t.url, 1, 5000);
    expect(synced.blocks).toHaveLength(MAX_CHAIN_PAGE);
    expect(synced.blocks[MAX_CHAIN_PAGE - 1].header.height).toBe(MAX_CHAIN_PAGE);
    expect(synced.next).toBe(MAX_CHAIN_PAGE + 1);
    const exact = (await t.get(`/chain?from=0&limit=${MAX_CHAIN_PAGE}`)).body;
    expect(exact.limit).toBe(MAX_CHAIN_PAGE);
    expect(exact).not.toHaveProperty('capped');
    for (const bad of ['0', '-1', 'abc']) {
      const x = await t.get(`/chain?limit=${bad}`);
      expect(x.status, bad).toBe(400);
      expect(typeof x.body.error).toBe('string');
    }
  }, 60_000);
});

describe('GET /name/:name resolves the name or answers 404', () => {
  it('404 with {error} for a valid but unregistered name and for anything that cannot be a name', async () => {
    for (const n of ['nobody-here', 'ab', '-abc', 'abc-', 'a_b', 'x'.repeat(33), 'a%20b', '%ZZ', '%E2%9C%93ok']) {
      const r = await t.get(`/name/${n}`);
      expect(r.status, n).toBe(404);
      expect(Object.keys(r.body)).toEqual(['error']);
      expect(r.body.error, n).toMatch(/^name not registered: /);
    }
    expect((await t.get('/name/%ZZ')).body.error).toMatch(/^name not registered: %ZZ \(names are 3–32 characters/);
  });
});

describe('eth_getLogs over JSON-RPC: the 5,000-block span applies to the range asked for', () => {
  it(
    'a range wider than 5,000 blocks is refused with -32602 naming the limit, ' +
      'even beyond the head of a short chain',
    async () => {
      const head = Number((await rpc('eth_blockNumber', [])).body.result);
      expect(head).toBeLessThan(100_000);
      for (const [fromBlock, toBlock] of [
        ['0x0', '0x1388'],
        ['0x0', '0x186a0'],
        [`0x${(head + 10).toString(16)}`, `0x${(head + 10 + 5_000).toString(16)}`],
      ]) {
        const r = await rpc('eth_getLogs', [{ fromBlock, toBlock }]);
        expect(r.status).toBe(200);
        expect(r.body.result).toBeUndefined();
        expect(r.body.error?.code).toBe(-32602);
        expect(r.body.error?.message).toMatch(/block range exceeds 5000 blocks/);
      }
      // Exactly 5,000 blocks is within the limit (here mostly above the head: nothing there, no error).
      expect((await rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1387' }])).body.result).toEqual([]);
      expect(
        (
          await rpc('eth_getLogs', [
            { fromBlock: `0x${(head + 1).toString(16)}`, toBlock: `0x${(head + 5_000).toString(16)}` },
          ])
        ).body.result,
      ).toEqual([]);
    },
  );
});

/** One request on `agent` (one kept-alive socket): status, headers, body bytes, and whether the socket was reused. */
function raw(
  agent: Agent,
  url: string,
  method: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { origin: 'https://wallet.example' } });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, reused: req.reusedSocket }));
    });
    req.end();
  });
}

describe('CORS and HEAD on the native API (--cors-origins, default *)', () => {
  it(
    'default *: reads and POST /tx carry Access-Control-Allow-Origin: ' +
      '*; the preflight allows GET, HEAD, POST with content-type only',
    async () => {
      const r = await t.get('/blocks/1', { origin: 'https://any.example' });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('vary')).toBeNull();
      const post = await fetch(`${t.url}/tx`, {
        method: 'POST',
        headers: { origin: 'https://any.example', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(post.headers.get('access-control-allow-origin')).toBe('*');
      const pre = await fetch(`${t.url}/peers`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://any.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-admin-token',
        },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
      expect(pre.headers.get('access-control-allow-headers')).toBe('content-type'); // never x-admin-token
      const rp = await fetch(rpcUrl, {
        method: 'OPTIONS',
        headers: { origin: 'https://any.example', 'access-control-request-method': 'POST' },
      });
      expect(rp.status).toBe(204);
      expect(rp.headers.get('access-control-allow-origin')).toBe('*');
      expect(rp.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    },
  );

  it('HEAD answers every read with the GET status and headers, the body length and no body', async () => {
    const get = await fetch(`${t.url}/blocks/1`);
    const text = await get.text();
    // HEAD then GET on one kept-alive socket: a HEAD answer carrying a body would corrupt the GET after it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const head = await raw(agent, `${t.url}/blocks/1`, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-type']).toBe(get.headers.get('content-type'));
      expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(text));
      expect(head.headers['access-control-allow-origin']).toBe('*');
      const after = await raw(agent, `${t.url}/blocks/1`, 'GET');
      expect(after.reused).toBe(true);
      expect({ status: after.status, body: after.body }).toEqual({ status: 200, body: text });
    } finally {
      agent.destroy();
    }
    for (const [path, status] of [
      ['/status', 200],
      ['/chain?from=0&limit=2', 200],
      ['/blocks/99999999', 404],
      ['/nowhere', 404],
      ['/chain?limit=0', 400],
      ['/peers', 401],
    ] as const) {
      const r = await fetch(`${t.url}${path}`, { method: 'HEAD' });
      expect(r.status, path).toBe(status);
      expect(await r.text(), path).toBe('');
    }
  });

  it('a list of origins: only those are named (with Vary: ' +
    'Origin on every answer); an empty list: no CORS headers; on both ports', async () => {
    const listed = await startTestNode({
      devAccounts: 0,
      corsOrigins: ['https://wallet.example', 'http://localhost:3000'],
    });
    const off = await startTestNode({ devAccounts: 0, corsOrigins: [] });
    try {
      const rpcOf = (n: TestNode) => `http://127.0.0.1:${n.node.config.rpcPort}`;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      for (const url of [listed.url + '/status', rpcOf(listed)]) {
        const method = url.endsWith('/status') ? 'GET' : 'POST';
        const ok = await fetch(url, {
          method,
          headers: { origin: 'https://wallet.example', 'content-type': 'application/json' },
          ...(method === 'POST' ? { body } : {}),
        });
        expect(ok.headers.get('access-control-allow-origin'), url).toBe('https://wallet.example');
        expect(ok.headers.get('vary'), url).toBe('Origin');
        const no = await fetch(url, {
          method,
          headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
          ...(method === 'POST' ? { body } : {}),
        });
        expect(no.status, url).toBe(200);
        expect(no.headers.get('access-control-allow-origin'), url).toBeNull();
        expect(no.headers.get('vary'), url).toBe('Origin');
        const pre = await fetch(url, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': method },
        });
        expect(pre.headers.get('access-control-allow-origin'), url).toBeNull();
        const preOk = await fetch(url, {
          method: 'OPTIONS',
          headers: { origin: 'http://localhost:3000', 'access-control-request-method': method },
        });
        expect(preOk.headers.get('access-control-allow-origin'), url).toBe('http://localhost:3000');
      }
      for (const url of [off.url + '/status', rpcOf(off)]) {
        const method = url.endsWith('/status') ? 'GET' : 'POST';
        const r = await fetch(url, {
          method,
          headers: { origin: 'https://wallet.example', 'content-type': 'application/json' },
          ...(method === 'POST' ? { body } : {}),
        });
        expect(r.status).toBe(200);
        expect(
          [...r.headers.keys()].filter((k) => k.startsWith('access-control-') || k === 'vary'),
          url,
        ).toEqual([]);
      }
    } finally {
      await listed.cleanup();
      await off.cleanup();
    }
  }, 60_000);
});
