import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FALLBACK_BLOCKS, Relayer, standInPayout, turnOf } from '../../../examples/relayer';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { deriveKeys, type HybridKeys } from '../../../src/crypto/keys';
import { memberOf } from '../../../src/modules/bridge';
import type { BridgeTransferView } from '../../../src/views';
import { expectStopsPromptly } from '../../helpers/stopPromptly';
import { scratchDirs } from '../../helpers/scratch';
import { useStubNode, type StubNode } from '../../helpers/stubNode';
import { DEV_NETWORK } from '../../../src/chain/devnet';

/**
 * examples/relayer.ts against a stand-in node that keeps a few transfers and settles them as
 * the node would (BRIDGE_SETTLE of a LOCKED transfer → PAID, of anything else → a failed
 * result): turns between members, restart without paying twice, another member settling
 * first, a relayer outside the committee, 429 Retry-After and 503, stop().
 */
const KEYS = [1, 2, 3].map((b) => deriveKeys(new Uint8Array(32).fill(40 + b)));
const SORTED = [...KEYS].sort((a, b) => (a.address < b.address ? -1 : 1));
const OUTSIDER = deriveKeys(new Uint8Array(32).fill(77));
/** A transfer id whose first turn is member `first` (ids modulo 3). */
const idFor = (first: number, salt: number) =>
  `0x${(BigInt(salt) * 3n + BigInt(first)).toString(16).padStart(64, '0')}`;
const scratch = scratchDirs();
const stateFile = () => join(scratch('cairn-relayer-'), 'state.json');

interface Settle {
  id: string;
  transferId: string;
  targetTx: string;
  from: string;
  ok: boolean;
}

/** The node's side: transfers, the head, settles as the node judges them. */
class FakeBridge {
  height = 100;
  finalizedHeight = 100;
  transfers = new Map<string, BridgeTransferView>();
  committee: HybridKeys[] = KEYS;
  settles: Settle[] = [];
  /** Answers to hand out before the normal ones (429, 503), by path prefix. */
  faults: { path: string; status: number; headers?: Record<string, string> }[] = [];
  nonces = new Map<string, number>();
  /** Runs as a settle arrives, before it is judged (another member's settle landing first). */
  beforeSettle?: (transferId: string) => void;
  /** Each transfer's feed height: the transfers a page since `s` holds are those that moved after it. */
  movedAt = new Map<string, number>();

  lock(id: string, at = this.height) {
    this.transfers.set(id, {
      id,
      direction: 'out',
      asset: 'native',
      amount: '1000',
      chain: 'ethereum',
      from: OUTSIDER.address,
      recipient: '0xabc',
      to: null,
      sourceTx: null,
      epoch: null,
      createdAt: at,
      settledBy: null,
      targetTx: null,
      releaseAt: null,
      holds: 0,
      closedAt: null,
      reason: null,
      status: 'LOCKED',
      releaseInBlocks: null,
      history: [{ from: 'OPEN', to: 'LOCKED', event: 'xstate.init', height: at }],
      updatedAt: at,
    } as BridgeTransferView);
    this.movedAt.set(id, at);
  }

  /** Another member settles it (its own relayer). */
  paidBy(id: string, who: HybridKeys) {
    const t = this.transfers.get(id)!;
    Object.assign(t, { status: 'PAID', settledBy: who.address, targetTx: '0xother', closedAt: this.height });
    this.movedAt.set(id, this.height);
  }

  handler: StubNode['handler'] = (req, body) => {
    const url = new URL(req.url!, 'http://x');
    const fault = this.faults.findIndex((f) => url.pathname.startsWith(f.path));
    if (fault >= 0) {
      const [f] = this.faults.splice(fault, 1);
      return { status: f.status, body: { error: `stand-in ${f.status}` }, headers: f.headers };
    }
    // The chain the relayer's client signs for (CairnClient.network()).
    if (req.method === 'GET' && url.pathname === '/status')
      return {
        status: 200,
        body: {
          chainId: DEV_NETWORK.chainId,
          genesisHash: DEV_NETWORK.genesisHash,
          height: this.height,
          finalizedHeight: this.finalizedHeight,
        },
      };
    if (req.method === 'GET' && url.pathname === '/bridge') {
      return {
        status: 200,
        body: {
          committee: {
            epoch: 1,
            threshold: 2,
            since: 1,
            members: this.committee.map(memberOf).sort((a, b) => (a.address < b.address ? -1 : 1)),
          },
          pools: [],
          height: this.height,
          finalizedHeight: this.finalizedHeight,
        },
      };
    }
    if (req.method === 'GET' && url.pathname === '/bridge/transfers') {
      const since = Number(url.searchParams.get('since'));
      expect(url.searchParams.get('final')).toBe('true');
      expect(url.searchParams.get('direction')).toBe('out');
      const moved = [...this.transfers.values()].filter(
        (t) => this.movedAt.get(t.id)! > since && this.movedAt.get(t.id)! <= this.finalizedHeight,
      );
      return {
        status: 200,
        body: {
          transfers: moved,
          transitions: [],
          cursor: Math.max(since, this.finalizedHeight),
          finalizedHeight: this.finalizedHeight,
          height: this.height,
        },
      };
    }
    const one = /^\/bridge\/transfers\/(0x[0-9a-f]{64})$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const t = this.transfers.get(one[1]);
      if (!t) return { status: 404, body: { error: `transfer not found: ${one[1]}` } };
      // ?for=: what the node's machine and BRIDGE_SETTLE's check offer (an outbound LOCKED transfer, a committee
      // member).
      const who = url.searchParams.get('for');
      if (who === null) return { status: 200, body: t };
      const settle = t.direction === 'out' && t.status === 'LOCKED' && this.committee.some((k) => k.address === who);
      return {
        status: 200,
        body: {
          ...t,
          actions: settle ? [{ type: 'BRIDGE_SETTLE', from: this.height + 1, until: null }] : [],
          actionsAt: this.height,
        },
      };
    }
    const addr = /^\/address\/(0x[0-9a-f]{40})$/.exec(url.pathname);
    if (req.method === 'GET' && addr)
      return {
        status: 200,
        body: { address: addr[1], balance: '0', nonce: 0, nextNonce: this.nonces.get(addr[1]) ?? 0 },
      };
    if (req.method === 'POST' && url.pathname === '/tx') {
      const d = decodeEnvelope(JSON.parse(body), DEV_NETWORK);
      if (!d.ok) return { status: 400, body: { error: d.error } };
      const { transferId, targetTx } = d.tx.data as { transferId: string; targetTx: string };
      this.nonces.set(d.tx.from, d.tx.nonce + 1);
      this.beforeSettle?.(transferId);
      const t = this.transfers.get(transferId);
      const ok = t?.status === 'LOCKED';
      if (ok) {
        Object.assign(t, { status: 'PAID', settledBy: d.tx.from, targetTx, closedAt: this.height });
        this.movedAt.set(transferId, this.height);
      }
      this.settles.push({ id: d.tx.id, transferId, targetTx, from: d.tx.from, ok });
      return { status: 200, body: { accepted: true, id: d.tx.id } };
    }
    const tx = /^\/tx\/(0x[0-9a-f]{64})$/.exec(url.pathname);
    if (req.method === 'GET' && tx) {
      const s = this.settles.find((x) => x.id === tx[1]);
      if (!s) return { status: 404, body: { error: 'unknown' } };
      const result = s.ok
        ? { status: 'success' }
        : { status: 'failed', error: `transfer ${s.transferId} is PAID, not LOCKED: it was settled by someone else` };
      return { status: 200, body: { id: s.id, status: 'included', blockHeight: this.height, result } };
    }
    return { status: 500, body: { error: `unexpected ${req.method} ${req.url}` } };
  };
}

describe('the example relayer', () => {
  const stub = useStubNode();
  const setup = () => {
    const node = new FakeBridge();
    stub.handler = node.handler;
    return node;
  };
  const relayer = (keys: HybridKeys, file: string, extra: Partial<ConstructorParameters<typeof Relayer>[0]> = {}) => {
    const logs: string[] = [];
    const paid: string[] = [];
    const r = new Relayer({
      node: stub.url,
      keys,
      stateFile: file,
      fallbackBlocks: 10,
      log: (m) => logs.push(m),
      payout: async (t) => (paid.push(t.id), standInPayout(t)),
      ...extra,
    });
    return { r, logs, paid };
  };

  it('turns: the transfer id names the first member, each next one waits fallbackBlocks more, wrapping', () => {
    const id = idFor(1, 7);
    expect([0, 1, 2].map((me) => turnOf(id, 50, me, 3, 10))).toEqual([70, 50, 60]);
    expect(turnOf(id, 50, 0, 1, 10)).toBe(50); // alone in the committee: always its turn
    expect(turnOf(id, 50, 2, 3, 0)).toBe(50); // fallbackBlocks 0: everyone at once
    expect(DEFAULT_FALLBACK_BLOCKS).toBeGreaterThan(0);
  });

  it(
    'pays and settles the LOCKED transfers of its turn at once, ' +
      'the others fallbackBlocks later if still LOCKED; skips PAID ones',
    async () => {
      const node = setup();
      const me = SORTED.indexOf(KEYS[0]);
      const mine = idFor(me, 1);
      const next = idFor((me + 2) % 3, 2); // I am its second member: my turn 10 blocks after seeing it
      const third = idFor((me + 1) % 3, 3); // I am its third: 20 blocks
      const done = idFor(me, 4);
      for (const id of [mine, next, third, done]) node.lock(id, 95);
      node.paidBy(done, KEYS[1]);
      const { r, paid } = relayer(KEYS[0], stateFile());
      await r.poll();
      expect(paid).toEqual([mine]);
      expect(node.transfers.get(mine)).toMatchObject({
        status: 'PAID',
        settledBy: KEYS[0].address,
        targetTx: await standInPayout(node.transfers.get(mine)!),
      });
      expect(r.settled).toEqual([mine]);
      expect([...r.waiting].sort()).toEqual([next, third].sort());

      node.height = node.finalizedHeight = 109;
      await r.poll();
      expect(paid).toEqual([mine]); // 9 blocks: not yet
      node.height = node.finalizedHeight = 110;
      await r.poll();
      expect(paid).toEqual([mine, next]);
      // Meanwhile the member whose turn came first settled the third one: it is forgotten, never paid.
      node.paidBy(third, KEYS[2]);
      node.height = node.finalizedHeight = 125;
      await r.poll();
      expect(paid).toEqual([mine, next]);
      expect(r.waiting).toEqual([]);
      expect(r.settled).toEqual([mine, next]);
      expect(node.settles.map((s) => s.ok)).toEqual([true, true]);
    },
  );

  it('only final locks: a transfer locked above the finalized height waits for finality', async () => {
    const node = setup();
    const me = SORTED.indexOf(KEYS[0]);
    node.height = 105;
    const id = idFor(me, 5);
    node.lock(id, 103); // finalized height still 100
    const { r, paid } = relayer(KEYS[0], stateFile());
    await r.poll();
    expect(paid).toEqual([]);
    node.finalizedHeight = 103;
    await r.poll();
    expect(paid).toEqual([id]);
  });

  it('a restart settles the payout made before the crash, without paying again', async () => {
    const node = setup();
    const me = SORTED.indexOf(KEYS[0]);
    const id = idFor(me, 6);
    node.lock(id, 99);
    const file = stateFile();
    const first = relayer(KEYS[0], file);
    node.faults.push({ path: '/tx', status: 503 }); // the settle never reaches the node
    await expect(first.r.poll()).rejects.toMatchObject({ code: 'HTTP_503' });
    expect(first.paid).toEqual([id]);
    expect(JSON.parse(readFileSync(file, 'utf8')).paid).toEqual({ [id]: await standInPayout(node.transfers.get(id)!) });

    const second = relayer(KEYS[0], file); // a new process, the same state file
    await second.r.poll();
    expect(second.paid).toEqual([]); // not paid again
    expect(node.settles).toEqual([
      expect.objectContaining({ transferId: id, ok: true, targetTx: await standInPayout(node.transfers.get(id)!) }),
    ]);
    expect(node.transfers.get(id)!.status).toBe('PAID');
    expect(second.r.settled).toEqual([id]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ paid: {}, waiting: {}, settled: [id] });
  });

  it('another member settling first is logged, not fatal: the transfer is forgotten on the next round', async () => {
    const node = setup();
    const me = SORTED.indexOf(KEYS[0]);
    const id = idFor(me, 7);
    node.lock(id, 99);
    // Another member's settle lands between our last read of the transfer and our own settle.
    node.beforeSettle = (tid) => node.paidBy(tid, KEYS[1]);
    const { r, logs, paid } = relayer(KEYS[0], stateFile());
    await r.poll();
    expect(paid).toEqual([id]);
    expect(node.settles).toEqual([expect.objectContaining({ transferId: id, ok: false })]);
    expect(logs.join('\n')).toMatch(/settle 0x00000000: failed transfer 0x0+[0-9a-f]+ is PAID, not LOCKED/);
    expect(r.settled).toEqual([]);
    await r.poll(); // sees it PAID: nothing more is sent
    expect(node.settles).toHaveLength(1);
    expect(r.waiting).toEqual([]);
  });

  it(
    'a relayer outside the committee pays nothing (it could not settle), ' +
      'says so once, and starts once it is a member',
    async () => {
      const node = setup();
      node.committee = KEYS.slice(1);
      const id = idFor(0, 8);
      node.lock(id, 99);
      const { r, logs, paid } = relayer(KEYS[0], stateFile(), { fallbackBlocks: 0 });
      await r.poll();
      await r.poll();
      expect(paid).toEqual([]);
      expect(r.waiting).toEqual([id]);
      expect(
        logs.filter((l) => /not a member of the bridge committee \(epoch 1\): paying nothing/.test(l)),
      ).toHaveLength(1);
      node.committee = KEYS;
      await r.poll();
      expect(paid).toEqual([id]);
      expect(node.transfers.get(id)!.status).toBe('PAID');
    },
  );

  it('run() waits out 429 with Retry-After and 503, then carries on; stop() ends it', async () => {
    const node = setup();
    const me = SORTED.indexOf(KEYS[0]);
    const id = idFor(me, 9);
    node.lock(id, 99);
    node.faults.push(
      { path: '/bridge', status: 429, headers: { 'retry-after': '1' } },
      { path: '/bridge', status: 503 },
    );
    const { r, logs } = relayer(KEYS[0], stateFile(), { pollMs: 20 });
    const t0 = Date.now();
    const running = r.run();
    while (r.settled.length === 0 && Date.now() - t0 < 8_000) await new Promise((res) => setTimeout(res, 20));
    r.stop();
    await running;
    expect(r.settled).toEqual([id]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_950); // Retry-After 1 s, then the default 1 s for a 503
    expect(logs.slice(0, 2)).toEqual(['HTTP_429: waiting 1000 ms', 'HTTP_503: waiting 1000 ms']);
  }, 10_000);

  it('stop() ends run() while it waits out a node that is down', async () => {
    stub.handler = () => ({ status: 503, body: { error: 'syncing' } });
    const file = stateFile();
    await expectStopsPromptly(relayer(KEYS[0], file).r);
    expect(existsSync(file)).toBe(false); // nothing learnt, nothing written
  }, 10_000);
});
