import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex } from '../../src/primitives/hex';
import { CairnClient, fileCursor, followAccount, followBlocks, followProposals, type TxInput } from '../../src/sdk';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

/**
 * The SDK followers against a real node: blocks in order and final; an account's
 * transactions once each, resumed from a cursor file after a "restart" (a new iterator);
 * a proposal's transitions to EXECUTED, final only.
 */
let t: TestNode;
let client: CairnClient;
let accounts: HybridKeys[];
let validator: HybridKeys;
const dir = scratch('cairn-follow-');
const keysOf = async (file: string) =>
  (JSON.parse(await readFile(join(t.dataDir, file), 'utf8')) as { secret: string }[]).map((a) =>
    deriveKeys(fromHex(a.secret)),
  );
const send = async (k: HybridKeys, input: TxInput) => {
  const r = await client.sendTx(k, input, { wait: 'included', timeoutMs: 20_000, pollMs: 50 });
  expect(r.wait?.record?.result, input.type).toMatchObject({ status: 'success' });
  return r.tx.id;
};
/** The first `n` items of a follower, then it is stopped. */
async function take<T>(it: AsyncGenerator<T>, n: number, stop: AbortController): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length >= n) break;
  }
  stop.abort();
  return out;
}

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 3, idleBlockMs: 100 });
  client = new CairnClient(t.url);
  accounts = await keysOf('dev-accounts.json');
  [validator] = await keysOf('dev-validators.json');
}, 60_000);
afterAll(async () => t?.cleanup());

describe('SDK followers', () => {
  it('followBlocks: final blocks from genesis, in height order', async () => {
    const stop = new AbortController();
    const blocks = await take(followBlocks(client, { pollMs: 50, signal: stop.signal }), 5, stop);
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3, 4, 5]);
    for (const b of blocks) expect(b.finalized).toBe(true);
  });

  it('followAccount: each transaction once, final, and a restarted follower goes on from its cursor file', async () => {
    const [a, b] = accounts;
    const cursor = fileCursor(join(dir, 'account.json'));
    const ids = [
      await send(a, { type: 'TRANSFER', to: b.address, amount: 1n * COIN } as TxInput),
      await send(a, { type: 'TRANSFER', to: b.address, amount: 2n * COIN } as TxInput),
    ];
    const s1 = new AbortController();
    const first = await take(followAccount(client, b.address, { cursor, pollMs: 50, signal: s1.signal }), 2, s1);
    expect(first.map((x) => x.id)).toEqual(ids);
    expect(first.every((x) => x.blockHeight !== undefined)).toBe(true);
    // The cursor was saved once the page was handed out (when the loop ended); a new follower starts after it.
    await waitUntil(
      async () => ((await cursor.load()) ?? -1) >= first[1].blockHeight!,
      5_000,
      20,
      'the cursor saved past the second transfer',
    );
    const third = await send(a, { type: 'TRANSFER', to: b.address, amount: 3n * COIN } as TxInput);
    const s2 = new AbortController();
    const next = await take(followAccount(client, b.address, { cursor, pollMs: 50, signal: s2.signal }), 1, s2);
    expect(next.map((x) => x.id)).toEqual([third]);
  });

  it('followProposals: a proposal from VOTING to EXECUTED, each transition once', async () => {
    const id = await send(accounts[2], {
      type: 'GOV_PROPOSE',
      deposit: 100n * COIN,
      param: 'BANK_SIZE',
      value: '4',
    } as TxInput);
    await send(validator, { type: 'GOV_VOTE', proposalId: id, vote: 'yes' } as TxInput);
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const x of followProposals(client, { pollMs: 50, signal: stop.signal })) {
      expect(x.id).toBe(id);
      seen.push(`${x.from}>${x.to}@${x.height}`);
      expect(x.height).toBeLessThanOrEqual((await client.status()).finalizedHeight);
      if (x.to === 'EXECUTED') break;
    }
    stop.abort();
    expect(seen.map((s) => s.split('@')[0])).toEqual(['>VOTING', 'VOTING>VOTING', 'VOTING>QUEUED', 'QUEUED>EXECUTED']);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);

  it(
    'CORS: a page on another origin may read the native API; ' + 'the preflight allows GET and POST with content-type',
    async () => {
      const r = await fetch(`${t.url}/status`, { headers: { origin: 'https://wallet.example' } });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-expose-headers')).toMatch(/retry-after/);
      const pre = await fetch(`${t.url}/tx`, {
        method: 'OPTIONS',
        headers: { origin: 'https://wallet.example', 'access-control-request-method': 'POST' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
      expect(pre.headers.get('access-control-allow-headers')).toBe('content-type');
    },
  );

  it('GET /machines: every machine as data; the proposal history it followed uses only legal moves', async () => {
    const r = await t.get('/machines');
    expect(r.status).toBe(200);
    const ms = r.body.machines as {
      name: string;
      onChain: boolean;
      initial: string;
      final: string[];
      states: string[];
      transitions: { from: string; event: string; to: string }[];
      invariants: string[];
    }[];
    expect(ms.map((m) => m.name)).toEqual([
      'txLifecycle',
      'blockLifecycle',
      'nodeModes',
      'proposal',
      'permissionChange',
      'aiTask',
      'bridgeTransfer',
    ]);
    const bridge = ms.find((m) => m.name === 'bridgeTransfer')!;
    expect(bridge).toMatchObject({ onChain: true, initial: 'OPEN', final: ['PAID', 'RELEASED', 'REFUSED'] });
    expect(bridge.transitions).toContainEqual({ from: 'DELAYED', event: 'DEADLINE', to: 'RELEASED' });
    for (const m of ms) expect(m.invariants.length).toBeGreaterThan(0);
    const proposal = ms.find((m) => m.name === 'proposal')!;
    const { proposals } = await client.proposals({});
    for (const p of proposals) {
      for (const h of p.history.filter((x) => x.from !== '')) {
        expect(
          proposal.transitions.some((x) => x.from === h.from && x.to === h.to && x.event === h.event),
          `${h.from} -${h.event}-> ${h.to}`,
        ).toBe(true);
      }
    }
  });
});
