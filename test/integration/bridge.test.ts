import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Relayer, standInPayout } from '../../examples/relayer';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { CairnClient, inboundDigest, memberOf, signAsMember, type TxInput } from '../../src/sdk';
import type { BridgeTransferView } from '../../src/views';
import { scratchDirs } from '../helpers/scratch';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * The bridge over HTTP on a real node from the development genesis (100 ms blocks, breaker
 * windows of 20 blocks, 10 % of the pool each): a committee of three dev accounts created by
 * a governance proposal; coins bridged out and settled by the example relayer; deposits
 * released on two of three hybrid signatures, a replay refused, a release over the breaker
 * DELAYED with its countdown, then RELEASED; the transfer feed covers every transition once.
 */
let t: TestNode;
let client: CairnClient;
let accounts: HybridKeys[];
let validator: HybridKeys;
const dir = scratchDirs()('cairn-relayer-');
const keysOf = async (file: string) =>
  (JSON.parse(await readFile(join(t.dataDir, file), 'utf8')) as { secret: string }[]).map((a) =>
    deriveKeys(fromHex(a.secret)),
  );
const ok = async (k: HybridKeys, input: TxInput) => {
  const r = await client.sendTx(k, input, { wait: 'included', timeoutMs: 20_000, pollMs: 50 });
  expect(r.verdict, input.type).toMatchObject({ accepted: true });
  expect(r.wait?.record?.result, input.type).toMatchObject({ status: 'success' });
  return r.tx.id as Hex;
};
const until = (id: string, status: string, ms = 20_000) =>
  waitUntil(
    async () =>
      (await client.bridgeTransfer(id))?.status === status
        ? ((await client.bridgeTransfer(id)) as BridgeTransferView)
        : undefined,
    ms,
    50,
  );

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 6, idleBlockMs: 100 });
  client = new CairnClient(t.url);
  accounts = await keysOf('dev-accounts.json');
  [validator] = await keysOf('dev-validators.json');
}, 60_000);
afterAll(async () => t?.cleanup());

describe('the bridge over HTTP', () => {
  it('a proposal creates the committee; the relayer settles a transfer out; ' +
    'deposits are released, replays refused, a large one delayed with its countdown', async () => {
    const committee = accounts.slice(0, 3);
    expect((await client.bridge()).committee).toBeNull();
    const early = { sourceChain: 'ethereum', sourceTx: '0xd0', asset: 'native', to: accounts[5].address, amount: '1' };
    const none = await client.sendTx(accounts[3], {
      type: 'BRIDGE_IN',
      ...early,
      signatures: committee.slice(1).map((k) => signAsMember(k, inboundDigest(early))),
    } as TxInput);
    // Refused at admission (never in the mempool or a block): there is no committee to check against.
    expect(none.verdict).toMatchObject({
      accepted: false,
      reason: 'there is no bridge committee yet: a governance proposal creates it (GOV_PROPOSE data.committee)',
    });
    const proposal = await ok(accounts[3], {
      type: 'GOV_PROPOSE',
      deposit: 100n * COIN,
      committee: { members: committee.map(memberOf), threshold: 2 },
    } as TxInput);
    // ?for=: the proposal offers GOV_VOTE, until the end of its vote, to a staker; nothing to an address without voting
    // power.
    const open = (await client.proposal(proposal, { for: validator.address }))!;
    expect(open.actions).toEqual([{ type: 'GOV_VOTE', from: open.actionsAt! + 1, until: open.votingEnds }]);
    expect((await client.proposal(proposal, { for: accounts[5].address }))?.actions).toEqual([]);
    expect((await t.get(`/governance/proposals/${proposal}?for=0x1234`)).status).toBe(400);
    // Its view actor lists it as due at the end of its vote.
    expect((await client.machineDue('proposal')).due).toContainEqual({
      id: proposal,
      status: 'VOTING',
      at: open.votingEnds,
    });
    await ok(validator, { type: 'GOV_VOTE', proposalId: proposal, vote: 'yes' } as TxInput);
    const c = await waitUntil(async () => (await client.bridge()).committee ?? undefined, 30_000);
    expect(c).toMatchObject({ epoch: 1, threshold: 2 });
    // decided: nothing to send
    expect((await client.proposal(proposal, { for: validator.address }))?.actions).toEqual([]);
    expect(c.members.map((m) => m.address)).toEqual(committee.map((k) => k.address).sort());

    // Out: 1,000 coins locked; every member runs the example relayer, the one whose turn it is pays and settles it,
    // once.
    const payouts: string[] = [];
    const relayers = committee.map(
      (k, i) =>
        new Relayer({
          node: t.url,
          keys: k,
          stateFile: join(dir, `relayer-${i}.json`),
          pollMs: 100,
          fallbackBlocks: 20,
          log: () => {},
          payout: async (x) => (payouts.push(k.address), standInPayout(x)),
        }),
    );
    const running = relayers.map((r) => r.run());
    const out = await ok(accounts[4], {
      type: 'BRIDGE_OUT',
      chain: 'ethereum',
      recipient: '0xabc0000000000000000000000000000000000001',
      amount: 1_000n * COIN,
    } as TxInput);
    const paid = await until(out, 'PAID');
    // The node shows PAID as soon as the settle is in a block; the relayer records it when its wait returns.
    await waitUntil(async () => relayers.some((r) => r.settled.includes(out)));
    for (const r of relayers) r.stop();
    await Promise.all(running);
    const first = c.members[Number(BigInt(out) % 3n)].address; // members sorted by address, as the relayers count them
    expect(paid).toMatchObject({
      direction: 'out',
      amount: String(1_000n * COIN),
      settledBy: first,
      chain: 'ethereum',
      targetTx: await standInPayout(paid),
    });
    expect(paid.history.map((h) => h.to)).toEqual(['LOCKED', 'PAID']);
    expect(payouts).toEqual([first]);
    expect(relayers.flatMap((r) => r.settled)).toEqual([out]);
    const pools = (await client.bridge()).pools;
    expect(pools).toEqual([
      expect.objectContaining({
        asset: 'native',
        locked: String(1_000n * COIN),
        reserved: '0',
        available: String(1_000n * COIN),
      }),
    ]);

    // In: 50 coins on two of three signatures.
    const to = accounts[5];
    const before = BigInt((await client.account(to.address))?.balance ?? 0);
    const dep = (sourceTx: string, amount: bigint) => ({
      sourceChain: 'ethereum',
      sourceTx,
      asset: 'native',
      to: to.address,
      amount: amount.toString(),
    });
    const attested = (m: ReturnType<typeof dep>) =>
      ({
        type: 'BRIDGE_IN',
        ...m,
        signatures: committee.slice(1).map((k) => signAsMember(k, inboundDigest(m))),
      }) as TxInput;
    const inn = await ok(accounts[3], attested(dep('0xd1', 50n * COIN)));
    const released = await until(inn, 'RELEASED');
    expect(released).toMatchObject({
      direction: 'in',
      to: to.address,
      epoch: 1,
      releaseAt: null,
      releaseInBlocks: null,
    });
    expect(BigInt((await client.account(to.address))!.balance) - before).toBe(50n * COIN);
    // Too few valid signatures: refused at admission, checked in the verify workers.
    const forged = dep('0xd9', 1n * COIN);
    const one = await client.sendTx(accounts[3], {
      type: 'BRIDGE_IN',
      ...forged,
      signatures: [
        signAsMember(committee[1], inboundDigest(forged)),
        signAsMember(committee[1], inboundDigest(forged)),
      ],
    } as TxInput);
    expect(one.verdict).toMatchObject({
      accepted: false,
      reason:
        'BRIDGE_IN: 1 valid member signatures of 2 needed ' +
        '(committee epoch 1; both secp256k1 and ML-DSA-44 halves of each)',
    });
    // The same deposit again: refused, whoever relays it.
    const replay = await client.sendTx(accounts[4], attested(dep('0xd1', 50n * COIN)), {
      wait: 'included',
      timeoutMs: 20_000,
      pollMs: 50,
    });
    expect(replay.wait?.record?.result).toMatchObject({
      status: 'failed',
      error: `deposit ethereum:0xd1 was already attested (transfer ${inn})`,
    });

    // Over the breaker (10 % of the pool per 20-block window; 50 already used this window or the next is fresh):
    // DELAYED with a countdown.
    const big = await ok(accounts[3], attested(dep('0xd2', 200n * COIN)));
    const delayed = await until(big, 'DELAYED');
    expect(delayed.releaseAt! % 20).toBe(0);
    expect(delayed.releaseInBlocks).toBeGreaterThan(0);
    expect(delayed.reason).toMatch(/circuit breaker of native/);
    // The transfer machine's view actor: the delayed transfer moves by itself at its release height.
    expect((await client.machineDue('bridgeTransfer', { limit: 100 })).due).toContainEqual({
      id: big,
      status: 'DELAYED',
      at: delayed.releaseAt,
    });
    const later = await waitUntil(async () => {
      const x = await client.bridgeTransfer(big);
      return x && x.status === 'DELAYED' && x.releaseInBlocks! < delayed.releaseInBlocks! ? x : undefined;
    });
    expect(later.releaseAt).toBe(delayed.releaseAt);
    const done = await until(big, 'RELEASED', 30_000);
    expect(done.closedAt).toBe(delayed.releaseAt);
    expect(done).toMatchObject({ releaseAt: null, releaseInBlocks: null });
    expect(done.history.map((h) => h.to)).toEqual(['ATTESTED', 'DELAYED', 'RELEASED']);
    await waitUntil(async () =>
      (await client.machineDue('bridgeTransfer', { limit: 100 })).due.some((x) => x.id === big) ? undefined : true,
    ); // released: no longer open
    expect((await t.get('/machines/txLifecycle/due')).status).toBe(404);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^cairn_machine_transitions\{machine="bridgeTransfer"\} [1-9]\d*/m);
    expect(metrics).toMatch(/^cairn_actor_mailbox\{actor="view:bridgeTransfer"\} \d+/m);
    expect(BigInt((await client.account(to.address))!.balance) - before).toBe(250n * COIN);
    // GET /bridge: the pool after 250 coins left, and the breaker of the window the head is in.
    const view = await client.bridge();
    expect(view.params).toEqual({ windowBlocks: 20, breakerBps: 1000 });
    const [pool] = view.pools;
    expect(pool).toMatchObject({
      asset: 'native',
      locked: String(750n * COIN),
      reserved: '0',
      available: String(750n * COIN),
      lockedTotal: String(1_000n * COIN),
      releasedTotal: String(250n * COIN),
    });
    const b = pool.breaker;
    expect(b.windowEnd - b.windowStart + 1).toBe(20);
    expect(view.height).toBeGreaterThanOrEqual(b.windowStart);
    expect(view.height).toBeLessThanOrEqual(b.windowEnd);
    expect(BigInt(b.cap)).toBe((BigInt(b.base) * 1000n) / 10_000n);
    expect(BigInt(b.remaining)).toBe(BigInt(b.cap) > BigInt(b.used) ? BigInt(b.cap) - BigInt(b.used) : 0n);

    // The feed: paging with the cursor covers every transition once.
    const all = await client.bridgeTransfers({ since: 0, limit: 100 });
    const seen: string[] = [];
    let cursor = 0;
    for (let i = 0; i < 50 && cursor < all.cursor; i++) {
      const page = await client.bridgeTransfers({ since: cursor, limit: 2 });
      seen.push(...page.transitions!.map((x) => `${x.id}:${x.height}:${x.to}`));
      cursor = page.cursor;
    }
    expect(seen).toEqual(all.transitions!.map((x) => `${x.id}:${x.height}:${x.to}`));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((s) => s.startsWith(big))).toHaveLength(3);
    const above = await t.get(`/bridge/transfers?since=${all.height + 1000}`);
    expect(above.status).toBe(400);
    expect((await t.get('/bridge/transfers?status=NOPE')).status).toBe(400);
    expect((await t.get(`/bridge/transfers/0x${'0'.repeat(64)}`)).status).toBe(404);

    // ?for=: with no relayer running, a new lock is offered to each member as BRIDGE_SETTLE, to no one else;
    // a settled or inbound transfer to no one.
    const locked = await ok(accounts[4], {
      type: 'BRIDGE_OUT',
      chain: 'ethereum',
      recipient: '0xabc0000000000000000000000000000000000002',
      amount: 1n * COIN,
    } as TxInput);
    for (const k of committee) {
      const v = (await client.bridgeTransfer(locked, { for: k.address }))!;
      expect(v.actions).toEqual([{ type: 'BRIDGE_SETTLE', from: v.actionsAt! + 1, until: null }]);
    }
    expect((await client.bridgeTransfer(locked, { for: accounts[4].address }))?.actions).toEqual([]);
    expect((await client.bridgeTransfer(out, { for: committee[0].address }))?.actions).toEqual([]);
    expect((await client.bridgeTransfer(inn, { for: committee[0].address }))?.actions).toEqual([]);
    expect((await client.bridgeTransfer(locked))?.actions).toBeUndefined();
    expect((await t.get(`/bridge/transfers/${locked}?for=nope`)).status).toBe(400);
  }, 120_000);
});
