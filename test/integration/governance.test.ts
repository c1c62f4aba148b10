import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import type { TxType } from '../../src/protocol/types';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * Governance and staking over HTTP against a real node (RocksDB, real ports, real signatures),
 * from an empty store and the development genesis (short windows: voting 10 blocks, timelock 5,
 * epoch 10, unbonding 10). Blocks come every 100 ms here.
 */
let t: TestNode;
let users: HybridKeys[];
let validator: HybridKeys;

const keysOf = async (file: string) =>
  (JSON.parse(await readFile(join(t.dataDir, file), 'utf8')) as { secret: string }[]).map((a) =>
    deriveKeys(fromHex(a.secret)),
  );

async function send(k: HybridKeys, type: TxType, data: unknown = null, amount = '0', fee = String(COIN)): Promise<Hex> {
  const r0 = await t.get(`/address/${k.address}`);
  const tx = signTx(k, { type, data, amount, fee, nonce: r0.status === 404 ? 0 : r0.body.nextNonce }, t.network);
  const r = await t.post('/tx', tx);
  expect(r.body, `${type} ${JSON.stringify(data)}`).toEqual({ accepted: true, id: tx.id });
  const rec = await waitUntil(async () => {
    const x = await t.get(`/tx/${tx.id}`);
    return x.status === 200 && x.body.blockHeight !== undefined ? x.body : undefined;
  });
  expect(rec.result, `${type}: ${JSON.stringify(rec.result)}`).toMatchObject({ status: 'success' });
  return tx.id;
}

const untilHeight = (h: number) => waitUntil(async () => (await t.get('/status')).body.height >= h, 30_000);

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 3, idleBlockMs: 100 });
  users = await keysOf('dev-accounts.json');
  [validator] = await keysOf('dev-validators.json');
});
afterAll(async () => t?.cleanup());

describe('governance over HTTP', () => {
  it('answers /governance, /validators and /treasury from genesis', async () => {
    const g = await t.get('/governance');
    expect(g.status).toBe(200);
    const mv = g.body.params.find((p: { name: string }) => p.name === 'MAX_VALIDATORS');
    expect(mv).toMatchObject({ value: '21', default: '21', min: '1', max: '101', changedAt: null, unit: 'count' });
    expect(g.body.params.find((p: { name: string }) => p.name === 'GOV_VOTING_BLOCKS').value).toBe('10');
    const v = await t.get('/validators');
    expect(v.body).toMatchObject({
      maxValidators: 21,
      bankSize: 6,
      epochBlocks: 10,
      slotProducer: validator.address,
      bank: [],
    });
    expect(v.body.active).toHaveLength(1);
    expect(v.body.active[0]).toMatchObject({
      address: validator.address,
      eligible: true,
      performance: { status: 'active' },
    });
    const tr = await t.get('/treasury');
    expect(tr.status).toBe(200);
    expect(BigInt(tr.body.income)).toBe(BigInt(tr.body.balance));
    expect((await t.get(`/address/${validator.address}`)).body).toMatchObject({ isValidator: true, feeExempt: true });
  });

  it(
    'drives a proposal from a dev account through voting and timelock to EXECUTED; ' +
      'the value shows in /governance and takes effect',
    async () => {
      const id = await send(users[0], 'GOV_PROPOSE', { param: 'BANK_SIZE', value: '3' }, String(100n * COIN));
      const p0 = await t.get(`/governance/proposals/${id}`);
      expect(p0.body).toMatchObject({
        id,
        status: 'VOTING',
        proposer: users[0].address,
        action: { kind: 'param', param: 'BANK_SIZE', value: '3' },
      });
      // The validator (fee-exempt by stake) votes with its 1,000,000 staked coins.
      await send(validator, 'GOV_VOTE', { proposalId: id, vote: 'yes' }, '0', '0');
      const live = await t.get(`/governance/proposals/${id}`);
      expect(live.body.tally).toMatchObject({
        yes: String(1_000_000n * COIN),
        no: '0',
        voters: 1,
        quorumReached: true,
      });
      const voting = await t.get('/governance/proposals?status=VOTING');
      expect(voting.body.proposals.map((p: { id: string }) => p.id)).toContain(id);
      const since = (await t.get('/status')).body.height;
      await untilHeight(p0.body.votingEnds + 5 + 1);
      const done = await t.get(`/governance/proposals/${id}`);
      expect(done.body.status).toBe('EXECUTED');
      expect(done.body.history.map((h: { to: string }) => h.to)).toEqual(['VOTING', 'VOTING', 'QUEUED', 'EXECUTED']);
      expect(done.body.tallyHistory.length).toBeGreaterThanOrEqual(2);
      const changed = await t.get(`/governance/proposals?since=${since}`);
      expect(changed.body.proposals.map((p: { id: string }) => p.id)).toEqual([id]);
      expect(changed.body).toHaveProperty('finalizedHeight');
      expect(changed.body.cursor).toBeGreaterThanOrEqual(done.body.updatedAt);
      const g = await t.get('/governance');
      expect(g.body.params.find((p: { name: string }) => p.name === 'BANK_SIZE')).toMatchObject({
        value: '3',
        changedAt: done.body.executeAt,
      });
      expect((await t.get('/validators')).body.bankSize).toBe(3);
      expect((await t.get('/governance/proposals?since=999999999')).status).toBe(400);
      expect((await t.get('/governance/proposals?status=NOPE')).status).toBe(400);
      expect((await t.get(`/governance/proposals/0x${'00'.repeat(32)}`)).status).toBe(404);
    },
  );

  it('drives stake → candidacy → vote → epoch → election → rewards → claim → unstake → mature', async () => {
    const [cand, voter] = users;
    const stood = (await t.get('/status')).body.height;
    await send(cand, 'STAKE', { candidate: true, commission: 2000 }, String(1_000n * COIN));
    await send(voter, 'STAKE', null, String(500n * COIN));
    // Part of the votes back the candidate, part the genesis validator, which produces the blocks here.
    await send(voter, 'VOTE', {
      votes: { [cand.address]: String(300n * COIN), [validator.address]: String(200n * COIN) },
    });
    const h = (await t.get('/status')).body.height;
    const epoch = (Math.floor(h / 10) + 1) * 10;
    await untilHeight(epoch);
    const v = await t.get('/validators');
    // The candidate is elected into the active set behind the validator (weight 1,300 coins vs 1,000,200).
    // No node signs with its key here: it enters the set in force pending and, after JOINING_ROUNDS
    // rounds without a block (a few hundred ms at this pace), is jailed and leaves it — a busy
    // machine may read /validators after that.
    const all = [...v.body.active, ...v.body.bank, ...v.body.candidates] as {
      address: string;
      jailed: { at: number; reason: string } | null;
    }[];
    const c = all.find((x) => x.address === cand.address)!;
    expect(c).toMatchObject({ stake: String(1_000n * COIN), votes: String(300n * COIN), commissionBps: 2000 });
    if (c.jailed) expect(c.jailed).toMatchObject({ reason: 'downtime', at: expect.any(Number) });
    else expect(v.body.active.map((x: { address: string }) => x.address)).toEqual([validator.address, cand.address]);
    // only a member of the set in force is jailed: it was elected
    if (c.jailed) expect(c.jailed.at).toBeGreaterThan(stood);
    // This node holds only the genesis validator's key and produces every block: the voter earns
    // from the validator's blocks (its 90% voters' share, pro rata), none from the candidate's slots.
    const claim = signTx(
      voter,
      {
        type: 'CLAIM_VOTER_REWARD',
        nonce: (await t.get(`/address/${voter.address}`)).body.nextNonce,
        fee: String(COIN),
      },
      t.network,
    );
    expect((await t.post('/tx', claim)).body.accepted).toBe(true);
    const rec = await waitUntil(async () =>
      (await t.get(`/tx/${claim.id}`)).body.blockHeight !== undefined
        ? (await t.get(`/tx/${claim.id}`)).body
        : undefined,
    );
    expect(rec.result.status).toBe('success');
    const paid = rec.result.events.find((e: { kind: string }) => e.kind === 'reward.claim');
    expect(paid).toMatchObject({ voter: voter.address });
    expect(BigInt(paid.amount)).toBeGreaterThan(0n);
    await send(voter, 'VOTE', { votes: {} });
    await send(voter, 'UNSTAKE', null, String(200n * COIN));
    const a = (await t.get(`/address/${voter.address}`)).body;
    expect(a.staked).toBe(String(300n * COIN));
    const bal = BigInt(a.balance);
    const at = (await t.get('/status')).body.height;
    await untilHeight(at + 11);
    expect(BigInt((await t.get(`/address/${voter.address}`)).body.balance) - bal).toBe(200n * COIN);
  });
});
