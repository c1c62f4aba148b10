import { describe, expect, it } from 'vitest';
import { applyTx } from '../../../../src/chain/applyTx';
import { getVesting, vestedAt, vestingCreate, type VestingRecord } from '../../../../src/modules/vesting';
import { loadSupply } from '../../../../src/protocol/execState';
import {
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
  VESTING_ESCROW_ADDRESS,
} from '../../../../src/protocol/params';
import type { Address, SignedTx } from '../../../../src/protocol/types';
import type { Hex } from '../../../../src/primitives/hex';
import { refusal } from '../../../helpers/assetHarness';
import { EconWorld, FUNDS, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { DEV_NETWORK } from '../../../../src/chain/devnet';

const SYSTEM = [REWARD_POOL_ADDRESS, TREASURY_ADDRESS, UNBONDING_ADDRESS, GOV_ESCROW_ADDRESS, VESTING_ESCROW_ADDRESS];

async function expectSupplyConserved(w: EconWorld) {
  expect(await w.total([U1, U2, U3, U4, V0, ...SYSTEM])).toBe((await loadSupply(w.state)).supply);
}

/** Includes a VESTING_CREATE in its own block; returns the schedule's id. */
async function create(w: EconWorld, from: Address, to: Address, amount: string, data: unknown): Promise<Hex> {
  const tx = await w.tx('VESTING_CREATE', from, { to, amount, data });
  const [r] = await w.block([tx]);
  expect(r.error).toBeUndefined();
  return tx.id;
}

const claim = (vestingId: string) => ({ data: { vestingId } });
const escrow = async (w: EconWorld) => (await w.state.getAccount(VESTING_ESCROW_ADDRESS))?.balance ?? 0n;

/** Claims as U2 and returns what U2 received (its balance change plus any fee burned). */
async function claimed(w: EconWorld, id: Hex): Promise<bigint> {
  const before = (await w.account(U2)).balance;
  const r = await w.ok('VESTING_CLAIM', U2, claim(id));
  return (await w.account(U2)).balance - before + BigInt(r.burned);
}

describe('VESTING_CREATE / VESTING_CLAIM stateless rules', () => {
  it('refuse a schedule whose cliff is after its end, and a malformed id', () => {
    expect(
      refusal('VESTING_CREATE', { to: U2, amount: '10', data: { durationBlocks: 5, cliffBlocks: 5 } }),
    ).toBeUndefined();
    expect(refusal('VESTING_CREATE', { to: U2, amount: '10', data: { durationBlocks: 5, cliffBlocks: 6 } })).toBe(
      'VESTING_CREATE data.cliffBlocks must not exceed data.durationBlocks',
    );
    expect(refusal('VESTING_CREATE', { amount: '10', data: { durationBlocks: 5 } })).toBe(
      'VESTING_CREATE needs the beneficiary address in to',
    );
    expect(refusal('VESTING_CREATE', { to: U2, data: { durationBlocks: 5 } })).toBe(
      'VESTING_CREATE amount is the coins locked and must be positive',
    );
    expect(refusal('VESTING_CREATE', { to: U2, amount: '10', data: { durationBlocks: 0 } })).toBe(
      'VESTING_CREATE data.durationBlocks must be an integer from 1 to 1000000000 (blocks)',
    );
    expect(refusal('VESTING_CREATE', { to: U2, amount: '10', data: { durationBlocks: 5, cliffBlocks: -1 } })).toBe(
      'VESTING_CREATE data.cliffBlocks must be an integer from 0 to 1000000000 (blocks)',
    );
    expect(refusal('VESTING_CLAIM', claim('0x12'))).toBe(
      'VESTING_CLAIM data.vestingId must be a vesting id (0x + 64 hex digits: the VESTING_CREATE transaction id)',
    );
    expect(refusal('VESTING_CLAIM', { ...claim(`0x${'ab'.repeat(32)}`), to: U2 })).toBe(
      'VESTING_CLAIM takes no to address (to must be null)',
    );
  });
});

describe('vesting', () => {
  it(
    'locks the coins in escrow and releases them linearly after the cliff; ' + 'the claims sum to the total exactly',
    async () => {
      const w = await EconWorld.create();
      const u1 = (await w.account(U1)).balance;
      const id = await create(w, U1, U2, '1000', { durationBlocks: 7, cliffBlocks: 3 });
      const start = w.height;
      expect(await getVesting(w.state, id)).toEqual<VestingRecord>({
        id,
        from: U1,
        beneficiary: U2,
        total: '1000',
        claimed: '0',
        start,
        cliff: 3,
        duration: 7,
      });
      expect(await escrow(w)).toBe(1000n);
      expect(u1 - (await w.account(U1)).balance).toBe(1000n); // VESTING_CREATE's 500 energy came from the allowance
      await expectSupplyConserved(w);

      const cliff = `vesting ${id} has its cliff at height ${start + 3}: nothing is claimable before it`;
      await w.fails('VESTING_CLAIM', U2, claim(id), cliff); // start + 1
      await w.fails('VESTING_CLAIM', U2, claim(id), cliff); // start + 2
      expect(await claimed(w, id)).toBe(428n); // start + 3: the cliff's share, 1000 × 3 / 7
      await w.block(); // start + 4
      expect(await claimed(w, id)).toBe(714n - 428n); // start + 5: 1000 × 5 / 7 in all
      expect((await getVesting(w.state, id))!.claimed).toBe('714');
      await w.until(start + 10);
      expect(await claimed(w, id)).toBe(1000n - 714n); // after the end: the rest, rounding included
      expect(await getVesting(w.state, id)).toMatchObject({ claimed: '1000', total: '1000' }); // kept as history
      expect(await escrow(w)).toBe(0n);
      await w.fails('VESTING_CLAIM', U2, claim(id), `vesting ${id} is fully claimed`);
      await expectSupplyConserved(w);
    },
  );

  it('vests everything at once when the cliff is the duration, and nothing before', async () => {
    const w = await EconWorld.create();
    const id = await create(w, U1, U2, '10', { durationBlocks: 2, cliffBlocks: 2 });
    const v = (await getVesting(w.state, id))!;
    expect([vestedAt(v, v.start + 1), vestedAt(v, v.start + 2)]).toEqual([0n, 10n]);
    await w.fails(
      'VESTING_CLAIM',
      U2,
      claim(id),
      `vesting ${id} has its cliff at height ${v.start + 2}: nothing is claimable before it`,
    );
    expect(await claimed(w, id)).toBe(10n);
  });

  it('refuses a claim when nothing new has vested (no cliff: from the inclusion height)', async () => {
    const w = await EconWorld.create();
    const tx = await w.tx('VESTING_CREATE', U1, { to: U2, amount: '3', data: { durationBlocks: 10 } });
    // same block: height = start
    const [made, early] = await w.block([tx, await w.tx('VESTING_CLAIM', U2, claim(tx.id))]);
    expect(made.status).toBe('success');
    expect(early).toMatchObject({ status: 'failed', error: `nothing vested to claim yet for ${tx.id}` });
    await w.fails('VESTING_CLAIM', U2, claim(tx.id), `nothing vested to claim yet for ${tx.id}`); // 3 × 1 / 10 = 0
    await w.until(w.height + 2);
    expect(await claimed(w, tx.id)).toBe(1n); // start + 4: 3 × 4 / 10 = 1
    await w.fails('VESTING_CLAIM', U2, claim(tx.id), `nothing vested to claim yet for ${tx.id}`); // start + 5: still 1
    expect((await getVesting(w.state, tx.id))!.claimed).toBe('1');
  });

  it('pays only the beneficiary; an unknown id is refused; an upper-case id is the same id', async () => {
    const w = await EconWorld.create();
    const id = await create(w, U1, U2, '100', { durationBlocks: 1 });
    await w.fails('VESTING_CLAIM', U3, claim(id), `only the beneficiary ${U2} can claim vesting ${id}`);
    // not even its creator
    await w.fails('VESTING_CLAIM', U1, claim(id), `only the beneficiary ${U2} can claim vesting ${id}`);
    const unknown = `0x${'ab'.repeat(32)}`;
    await w.fails('VESTING_CLAIM', U2, claim(unknown), `unknown vesting ${unknown}`);
    await w.fails('VESTING_CLAIM', U2, claim(unknown.toUpperCase().replace('0X', '0x')), `unknown vesting ${unknown}`);
    const before = (await w.account(U2)).balance;
    const r = await w.ok('VESTING_CLAIM', U2, claim(`0x${id.slice(2).toUpperCase()}`));
    expect((await w.account(U2)).balance - before + BigInt(r.burned)).toBe(100n);
    await expectSupplyConserved(w);
  });

  it('a VESTING_CREATE the sender cannot pay locks nothing', async () => {
    const w = await EconWorld.create();
    // Admission and block building: the balance must cover amount + fee, else it is skipped with state untouched.
    const tx = await w.tx('VESTING_CREATE', U4, { to: U2, amount: String(FUNDS + 1n), data: { durationBlocks: 10 } });
    const root = w.state.root();
    expect(await applyTx(w.state, tx, { height: 1, timestamp: 1000, producer: V0, network: DEV_NETWORK })).toEqual({
      kind: 'skip',
      refusal: { code: 'TX_INSUFFICIENT_BALANCE', reason: 'insufficient balance', meta: {} },
      permanent: false,
      gap: false,
    });
    expect(w.state.root()).toBe(root);
    // Execution itself refuses it too, before any coin moves (applyTx reverts a failure).
    const ctx = {
      state: w.state,
      height: 1,
      timestamp: 1000,
      producer: V0,
      sender: U4,
      network: DEV_NETWORK,
      tx: tx as SignedTx,
      vm: undefined as never,
    };
    w.state.checkpoint();
    await expect(vestingCreate.handler.execute(ctx)).rejects.toMatchObject({ reason: 'insufficient balance' });
    await w.state.revert();
    expect(await getVesting(w.state, tx.id)).toBeUndefined();
    expect(await escrow(w)).toBe(0n);
    expect(w.state.root()).toBe(root);
  });
});
