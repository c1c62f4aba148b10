import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeChainPage } from '../../src/chain/chainPage';
import { signTx } from '../../src/chain/envelope';
import { CHAIN_PAGE_MEDIA } from '../../src/protocol/peers';
import type { HybridTx } from '../../src/protocol/types';
import { runCli } from '../../src/cli/main';
import { deriveKeys, generateSecret } from '../../src/crypto/keys';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { verifyAccountProof } from '../../src/sdk';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

interface DevAccount {
  address: Hex;
  native: string;
  secret: string;
  secp256k1PrivateKey: string;
}

let t: TestNode;
let dev: DevAccount[];
const keysOf = (i: number) => deriveKeys(fromHex(dev[i].secret));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s: string) => (out += s), err: (s: string) => (err += s), env: {} } as never);
  return { code, out, err };
}

async function nextNonce(addr: string): Promise<number> {
  const r = await t.get(`/address/${addr}`);
  return r.status === 404 ? 0 : r.body.nextNonce;
}

async function waitStatus(id: string, status: 'included' | 'finalized') {
  return waitUntil(async () => {
    const r = await t.get(`/tx/${id}`);
    return r.status === 200 && (r.body.status === status || (status === 'included' && r.body.status === 'finalized'))
      ? r.body
      : undefined;
  });
}

/** Sends `amount` from dev[from] to dev[to] at the sender's next nonce and waits until it is included. */
async function transfer(from: number, to: number, amount: string) {
  const tx = signTx(
    keysOf(from),
    { type: 'TRANSFER', to: dev[to].address, amount, nonce: await nextNonce(dev[from].address) },
    t.network,
  );
  expect((await t.post('/tx', tx)).body).toEqual({ accepted: true, id: tx.id });
  return waitStatus(tx.id, 'included');
}

// One node for the file; each test makes the transactions and blocks it looks at, so none
// depends on another having run first (vitest --sequence.shuffle).
beforeAll(async () => {
  t = await startTestNode();
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
});
afterAll(async () => t?.cleanup());

describe('single-node chain over HTTP', () => {
  it('writes 10 funded dev accounts and serves /status', async () => {
    expect(dev).toHaveLength(10);
    for (const a of dev) {
      expect(a.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(a.native).toMatch(/^cairn1/);
      expect(a.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(deriveKeys(fromHex(a.secret)).address).toBe(a.address);
      const acc = (await t.get(`/address/${a.native}`)).body;
      expect(BigInt(acc.balance)).toBeGreaterThanOrEqual(1_000_000n * 1_000_000n);
    }
    const s = (await t.get('/status')).body;
    expect(s).toMatchObject({ chainId: 72020 });
    for (const k of ['height', 'finalizedHeight', 'headHash', 'supply', 'treasury', 'validators', 'blockReward'])
      expect(s).toHaveProperty(k);
    expect(typeof s.supply).toBe('string');
  });

  it('accepts a CLI-signed transfer, includes and finalizes it, and shows it on both accounts', async () => {
    const before = BigInt((await t.get(`/address/${dev[1].address}`)).body.balance);
    const signed = await cli([
      'tx',
      'sign',
      '--secret',
      dev[0].secret,
      '--type',
      'TRANSFER',
      '--to',
      dev[1].native,
      '--amount',
      '1234567',
      '--nonce',
      String(await nextNonce(dev[0].address)),
      '--node',
      t.url,
    ]); // the node names its chain (the signature covers its genesis hash)
    expect(signed.code).toBe(0);
    const envelope = JSON.parse(signed.out);
    const r = await t.post('/tx', envelope);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ accepted: true, id: envelope.id });
    const rec = await waitStatus(envelope.id, 'finalized');
    expect(rec.blockHeight).toBeGreaterThan(0);
    expect(rec.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(rec.result.status).toBe('success');
    const after = BigInt((await t.get(`/address/${dev[1].address}`)).body.balance);
    expect(after - before).toBe(1234567n);
    // Sent again once in a block (no longer pending): already known, as the spec's retry advice expects.
    expect((await t.post('/tx', envelope)).body).toEqual({
      accepted: false,
      id: envelope.id,
      reason: 'transaction already known',
      code: 'TX_KNOWN',
    });
    for (const a of [dev[0].address, dev[1].native]) {
      const feed = (await t.get(`/address/${a}/txs?limit=5`)).body;
      expect(feed.txs.map((x: { id: string }) => x.id)).toContain(envelope.id);
    }
    const block = (await t.get(`/blocks/${rec.blockHeight}`)).body;
    expect(block.hash).toBe(rec.blockHash);
    expect(block.size).toBeGreaterThan(0);
    expect((await t.get(`/blocks/${rec.blockHash}`)).body.height).toBe(rec.blockHeight);
    const analysis = (await t.get(`/address/${dev[0].address}/analysis`)).body;
    expect(analysis.counts.sent).toBeGreaterThanOrEqual(1);
    // GET /address/:end is sent as text built once per head with the next nonce spliced in: the same bytes as the view.
    const sent = await fetch(`${t.url}/address/${dev[0].address}`);
    expect(sent.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await sent.text()).toBe(JSON.stringify(await t.node.reader.account(dev[0].address)));
  });

  it('produces each refusal reason through HTTP', async () => {
    const k = keysOf(2);
    const n = await nextNonce(k.address);
    const good = signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '10', nonce: n }, t.network);
    expect((await t.post('/tx', good)).body.accepted).toBe(true);
    // transaction already known: the same envelope again
    expect((await t.post('/tx', good)).body).toEqual({
      accepted: false,
      id: good.id,
      reason: 'transaction already known',
      code: 'TX_KNOWN',
    });
    // nonce already used: another payload on the same nonce
    const rival = signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '11', nonce: n }, t.network);
    expect((await t.post('/tx', rival)).body).toMatchObject({ reason: 'nonce already used', code: 'TX_NONCE_USED' });
    // nonce too far ahead: more than 64 beyond the next nonce
    const ahead = signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '1', nonce: n + 1 + 65 }, t.network);
    expect((await t.post('/tx', ahead)).body.reason).toBe('nonce too far ahead');
    // invalid signature: payload changed after signing
    const tampered = {
      ...signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '5', nonce: n + 1 }, t.network),
      amount: '5000',
    } as HybridTx;
    delete (tampered as Partial<HybridTx>).id;
    expect((await t.post('/tx', tampered)).body.reason).toBe('invalid signature');
    // invalid signature: a signature missing
    const unsigned = {
      ...signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '5', nonce: n + 1 }, t.network),
    } as Partial<HybridTx>;
    delete unsigned.signatures;
    expect((await t.post('/tx', unsigned)).body.reason).toBe('invalid signature');
    // insufficient balance: a never-funded sender, and an amount above the balance
    const stranger = deriveKeys(generateSecret());
    expect(
      (
        await t.post(
          '/tx',
          signTx(stranger, { type: 'TRANSFER', to: dev[3].address, amount: '1', nonce: 0 }, t.network),
        )
      ).body.reason,
    ).toBe('insufficient balance');
    const huge = signTx(
      keysOf(4),
      { type: 'TRANSFER', to: dev[3].address, amount: (10n ** 30n).toString(), nonce: await nextNonce(dev[4].address) },
      t.network,
    );
    expect((await t.post('/tx', huge)).body.reason).toBe('insufficient balance');
    // malformed: 400 {error, code}
    const malformed = await t.post('/tx', {
      ...signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '5', nonce: n + 1 }, t.network),
      nonce: -1,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'nonce must be a non-negative integer', code: 'TX_MALFORMED' });
  });

  it('drops a transaction that became permanently invalid, and /tx shows why', async () => {
    // A fresh account whose ML-DSA key is not bound yet: two transactions signed with two
    // different ML-DSA keys both pass admission; the first to execute binds its key.
    const owner = deriveKeys(generateSecret());
    const fund = signTx(
      keysOf(9),
      { type: 'TRANSFER', to: owner.address, amount: '100000000', nonce: await nextNonce(dev[9].address) },
      t.network,
    );
    expect((await t.post('/tx', fund)).body.accepted).toBe(true);
    await waitStatus(fund.id, 'included');
    const otherPq = deriveKeys(generateSecret()).mldsa44;
    const first = signTx(owner, { type: 'TRANSFER', to: dev[0].address, amount: '1', nonce: 0 }, t.network);
    const second = signTx(
      { ...owner, mldsa44: otherPq },
      { type: 'TRANSFER', to: dev[0].address, amount: '1', nonce: 1 },
      t.network,
    );
    const [a, b] = await Promise.all([t.post('/tx', first), t.post('/tx', second)]);
    expect(a.body.accepted && b.body.accepted).toBe(true);
    await waitStatus(first.id, 'included');
    const dropped = await waitUntil(async () => {
      const r = await t.get(`/tx/${second.id}`);
      return r.body.status === 'dropped' ? r.body : undefined;
    });
    expect(dropped).toMatchObject({ status: 'dropped', reason: 'invalid signature' });
    // and the bound key now refuses the other ML-DSA key at admission
    const third = signTx(
      { ...owner, mldsa44: otherPq },
      { type: 'TRANSFER', to: dev[0].address, amount: '1', nonce: 1 },
      t.network,
    );
    expect((await t.post('/tx', third)).body.reason).toBe('invalid signature');
  });

  it('refuses with mempool full when the pool is at its cap', async () => {
    const small = await startTestNode({ mempoolCap: 3 });
    try {
      const k = deriveKeys(fromHex(dev[5].secret));
      // Future nonces wait for the gap, so they stay resident.
      for (const nonce of [10, 11, 12]) {
        expect(
          (await small.post('/tx', signTx(k, { type: 'TRANSFER', to: dev[6].address, amount: '1', nonce }, t.network)))
            .body.accepted,
        ).toBe(true);
      }
      const r = await small.post(
        '/tx',
        signTx(k, { type: 'TRANSFER', to: dev[6].address, amount: '1', nonce: 13 }, t.network),
      );
      expect(r.body).toMatchObject({ accepted: false, reason: 'mempool full' });
      expect((await small.get('/mempool')).body.count).toBe(3);
    } finally {
      await small.cleanup();
    }
  });

  it('answers malformed bodies with 400 {error}', async () => {
    const cases: unknown[] = ['not json', '[]', '{}', { type: 'NOPE' }, '{"__proto__":{"x":1}}'];
    const k = keysOf(2);
    const ok = signTx(k, { type: 'TRANSFER', to: dev[3].address, amount: '1', nonce: 0 }, t.network);
    cases.push(
      { ...ok, chainId: 1 },
      { ...ok, amount: 5 },
      { ...ok, to: 'cairn1bad' },
      { ...ok, data: 'x'.repeat(70_000) },
    );
    for (const c of cases) {
      const r = await t.post('/tx', c);
      expect(r.status, JSON.stringify(c).slice(0, 60)).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it('refuses an oversized body with 413 {error} before parsing it', async () => {
    const r = await t.post('/tx', 'x'.repeat(600 * 1024));
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/exceeds/);
    expect((await t.get('/status')).status).toBe(200); // and keeps serving
  });

  it('answers 404 for unknown things and 400 for bad parameters', async () => {
    expect((await t.get('/address/%E0%A4%A')).status).toBe(400);
    const stranger = deriveKeys(generateSecret());
    expect((await t.get(`/address/${stranger.address}`)).status).toBe(404);
    expect((await t.get(`/tx/0x${'00'.repeat(32)}`)).status).toBe(404);
    expect((await t.get('/blocks/999999999')).status).toBe(404);
    expect((await t.get('/address/nope')).status).toBe(400);
    expect((await t.get('/blocks?limit=0')).status).toBe(400);
    expect((await t.get('/blocks?limit=abc')).status).toBe(400);
    expect((await t.get('/chain?limit=0')).status).toBe(400); // above MAX_CHAIN_PAGE is capped (see the index test)
    expect((await t.get('/nowhere')).body.error).toMatch(/not found/);
  });

  it('pages an address feed with `before` without losing transactions of a block split across pages', async () => {
    // 6 transfers from one sender, posted together, land in one or two blocks.
    const k = keysOf(6);
    let n = await nextNonce(k.address);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const tx = signTx(k, { type: 'TRANSFER', to: dev[7].address, amount: String(100 + i), nonce: n++ }, t.network);
      expect((await t.post('/tx', tx)).body.accepted).toBe(true);
      ids.push(tx.id);
    }
    await waitStatus(ids[5], 'included');
    const seen: string[] = [];
    let before: number | null | undefined;
    for (let page = 0; page < 20; page++) {
      const q = before === undefined ? '' : `&before=${before}`;
      const r = (await t.get(`/address/${k.address}/txs?limit=2${q}`)).body;
      seen.push(...r.txs.map((x: { id: string }) => x.id));
      const heights = r.txs.map((x: { blockHeight: number }) => x.blockHeight);
      expect([...heights].sort((a, b) => b - a)).toEqual(heights); // newest first
      before = r.nextBefore;
      if (before === null) break;
    }
    for (const id of ids) expect(seen).toContain(id);
    expect(new Set(seen).size).toBe(seen.length); // no duplicates across pages
  });

  it('serves the read endpoints', async () => {
    await transfer(0, 2, '3'); // a transaction to list, and history for the address search
    await waitUntil(async () => t.node.view.head.height >= 2); // three blocks to list
    const html = await fetch(t.url + '/');
    expect(html.headers.get('content-type')).toMatch(/html/);
    expect((await t.get('/', { accept: 'application/json' })).body.endpoints.length).toBeGreaterThan(5);
    const latest = (await t.get('/blocks/latest')).body;
    expect(latest.height).toBeGreaterThan(0);
    const list = (await t.get('/blocks?limit=3')).body.blocks;
    expect(list).toHaveLength(3);
    expect(list[0].height).toBeGreaterThan(list[1].height);
    const chain = (await t.get('/chain?from=0&limit=3')).body;
    expect(chain.blocks.map((b: { header: { height: number } }) => b.header.height)).toEqual([0, 1, 2]);
    expect(chain.blocks[1].header.parentHash).toBe(chain.blocks[0].header.hash);
    // Served from the stored lines as they are: the same page the parsed reader gives.
    expect(chain).toEqual(JSON.parse(JSON.stringify(await t.node.reader.chain(0, 3))));
    expect(chain.blocks[1].size).toBe((await t.get('/blocks/1')).body.size);
    // A peer that asks for it gets the same page in binary (above genesis, as a sync asks): the same blocks and next.
    const bin = await fetch(`${t.url}/chain?from=1&limit=2`, { headers: { accept: CHAIN_PAGE_MEDIA } });
    expect(bin.headers.get('content-type')).toBe(CHAIN_PAGE_MEDIA);
    const decoded = decodeChainPage(new Uint8Array(await bin.arrayBuffer()));
    const page12 = (await t.get('/chain?from=1&limit=2')).body;
    expect(JSON.parse(JSON.stringify(decoded.blocks))).toEqual(
      page12.blocks.map(({ height: _h, hash: _x, size: _s, ...b }: Record<string, unknown>) => b),
    );
    expect(decoded.next).toBe(page12.next);
    // One block shape: height, hash and size at the top level, as /blocks/:ref has them.
    const b1 = (await t.get('/blocks/1')).body;
    expect(chain.blocks[1]).toMatchObject({ height: 1, hash: b1.hash, size: b1.size });
    expect(chain.limit).toBe(3);
    // Above MAX_CHAIN_PAGE the page is capped, not refused, and the answer says so.
    const big = (await t.get('/chain?from=0&limit=5000')).body;
    expect(big).toMatchObject({
      limit: 2000,
      capped: 'limit 5000 is above MAX_CHAIN_PAGE: at most 2000 blocks are served',
    });
    expect(big.blocks.length).toBeGreaterThan(0);
    expect((await t.get('/txs?limit=2')).body.txs.length).toBeGreaterThan(0);
    const stats = (await t.get('/stats')).body;
    for (const k of ['accounts', 'stake', 'volume24h', 'tps', 'series']) expect(stats).toHaveProperty(k);
    const q = dev[0].address.slice(0, 8);
    expect((await t.get(`/search?q=${q}`)).body.results.some((x: { id: string }) => x.id === dev[0].address)).toBe(
      true,
    );
    expect(
      (await t.get(`/search?q=${latest.hash.slice(0, 10)}`)).body.results.some(
        (x: { kind: string }) => x.kind === 'block',
      ),
    ).toBe(true);
  });

  it('exposes Prometheus metrics with block production and verification timings', async () => {
    await transfer(3, 4, '5'); // a hybrid transaction verified, in a block produced
    const r = await fetch(t.url + '/metrics');
    expect(r.status).toBe(200);
    const text = await r.text();
    const count = (name: string) => Number(new RegExp(`^${name}_count (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    expect(count('cairn_block_production_seconds')).toBeGreaterThan(0);
    expect(count('cairn_verify_seconds')).toBeGreaterThan(0);
    expect(text).toMatch(/^cairn_height \d+/m);
    expect(text).toMatch(/^cairn_mempool_size \d+/m);
    // The state trie's node cache holds the nodes of the blocks made, within its budget; the process's memory by kind.
    expect(Number(/^cairn_state_cache_bytes (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^cairn_state_cache_bytes (\d+)/m.exec(text)?.[1])).toBeLessThanOrEqual(128 * 2 ** 20);
    for (const m of ['nodejs_heap_total_bytes', 'nodejs_external_memory_bytes', 'nodejs_array_buffers_bytes'])
      expect(text).toMatch(new RegExp(`^${m} \\d+`, 'm'));
    // The supervised actors, each with its mailbox, drops and restarts.
    for (const actor of ['txLifecycle', 'blockLifecycle', 'mempool', 'producer', 'importer', 'consensus', 'sentinel']) {
      for (const m of ['cairn_actor_mailbox', 'cairn_actor_dropped_total', 'cairn_actor_restarts_total'])
        expect(text).toMatch(new RegExp(`^${m}\\{actor="${actor}"\\} \\d+`, 'm'));
    }
    expect(text).toMatch(/^cairn_actor_processed_total\{actor="consensus"\} [1-9]\d*/m);
    // The lifecycle actors: the transfer's block was reported to both.
    expect(text).toMatch(/^cairn_actor_processed_total\{actor="txLifecycle"\} [1-9]\d*/m);
    expect(text).toMatch(/^cairn_actor_processed_total\{actor="blockLifecycle"\} [1-9]\d*/m);
    expect(text).toMatch(/^cairn_lifecycle_finished\{machine="txLifecycle"\} \d+/m);
  });

  it('serves a proof the SDK verifies against the block stateRoot, and rejects a tampered one', async () => {
    const p = (await t.get(`/proof/${dev[0].native}`)).body;
    const block = (await t.get(`/blocks/${p.height}`)).body;
    expect(p.stateRoot).toBe(block.stateRoot);
    const acc = await verifyAccountProof(block.stateRoot, dev[0].address, p.proof);
    expect(acc?.balance.toString()).toBe(p.account.balance);
    const bad = [...p.proof];
    const last = bad.length - 1;
    bad[last] = bad[last].slice(0, -2) + (bad[last].endsWith('00') ? '01' : '00');
    await expect(verifyAccountProof(block.stateRoot, dev[0].address, bad)).rejects.toThrow();
    const absent = deriveKeys(generateSecret()).address;
    const pa = (await t.get(`/proof/${absent}`)).body;
    expect(await verifyAccountProof(pa.stateRoot, absent, pa.proof)).toBeNull();
  });

  it('restarts a crashed actor and keeps producing and serving', async () => {
    await expect(t.node.actors.mempool.injectFault()).rejects.toThrow(/injected fault/);
    const h0 = t.node.view.head.height;
    await transfer(7, 8, '77');
    expect(t.node.view.head.height).toBeGreaterThan(h0);
    expect(t.node.supervisor.status().find((c) => c.name === 'mempool')?.restarts).toBe(1);
  });

  it(
    'runs the chain as producer, importer and consensus actors; ' +
      'a crashed producer is restarted and the next slot produces',
    async () => {
      expect(t.node.supervisor.status().map((c) => c.name)).toEqual(
        expect.arrayContaining(['producer', 'importer', 'consensus']),
      );
      await expect(t.node.actors.producer.injectFault()).rejects.toThrow(/injected fault/);
      await expect
        .poll(() => t.node.supervisor.status().find((c) => c.name === 'producer')?.running, { timeout: 5_000 })
        .toBe(true);
      const h0 = t.node.view.head.height;
      await transfer(7, 8, '78');
      expect(t.node.view.head.height).toBeGreaterThan(h0);
      expect(t.node.supervisor.status().find((c) => c.name === 'producer')?.restarts).toBe(1);
      expect(t.node.supervisor.status().find((c) => c.name === 'consensus')?.restarts).toBe(0);
    },
  );
});

describe('restart', () => {
  it('resumes the same chain at the same head and state root', async () => {
    const a = await startTestNode();
    const head = { ...a.node.view.head };
    await a.stop();
    const b = await startTestNode({ dataDir: a.dataDir });
    try {
      expect(b.node.view.head.hash).toBe(head.hash);
      expect(b.node.view.head.stateRoot).toBe(head.stateRoot);
      expect(b.node.view.head.height).toBe(head.height);
    } finally {
      await b.cleanup();
    }
  });
});
