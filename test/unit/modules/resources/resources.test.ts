import { describe, expect, it } from 'vitest';
import { powerOf } from '../../../../src/modules/governance';
import { delegationKey, getDelegation } from '../../../../src/modules/resources';
import { getCandidate, getVoter } from '../../../../src/modules/staking';
import { maxEnergy } from '../../../../src/protocol/energy';
import { loadSupply } from '../../../../src/protocol/execState';
import {
  FREE_ENERGY,
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
  VESTING_ESCROW_ADDRESS,
} from '../../../../src/protocol/params';
import type { Address } from '../../../../src/protocol/types';
import { COIN } from '../../../../src/primitives/amount';
import { encodeAccount } from '../../../../src/state/account';
import { ALICE, BOB, refusal } from '../../../helpers/assetHarness';
import { addr, EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
const FRESH = addr(0xbeef); // an address with no account until it receives
const SYSTEM = [REWARD_POOL_ADDRESS, TREASURY_ADDRESS, UNBONDING_ADDRESS, GOV_ESCROW_ADDRESS, VESTING_ESCROW_ADDRESS];
const ALL = [U1, U2, U3, U4, V0, FRESH, ...SYSTEM];
const lend = (to: Address, amount: string) => ({ to, data: { amount } });

/** Every coin is on some account (Σ balance + staked = the supply counter), and the staked counter is Σ staked. */
async function expectSupplyConserved(w: EconWorld) {
  const s = await loadSupply(w.state);
  expect(await w.total(ALL)).toBe(s.supply);
  let staked = 0n;
  for (const a of ALL) staked += (await w.state.getAccount(a))?.staked ?? 0n;
  expect(staked).toBe(s.staked);
}

const stored = async (w: EconWorld, a: Address) => Buffer.from(encodeAccount(await w.account(a))).toString();

describe('DELEGATE_RESOURCE / UNDELEGATE_RESOURCE stateless rules', () => {
  it('need a receiver other than the sender, a zero envelope amount and a positive data.amount', () => {
    expect(refusal('DELEGATE_RESOURCE', lend(BOB, '1'))).toBeUndefined();
    expect(refusal('DELEGATE_RESOURCE', { data: { amount: '1' } })).toBe(
      'DELEGATE_RESOURCE needs the receiver address in to',
    );
    expect(refusal('DELEGATE_RESOURCE', lend(ALICE, '1'))).toBe(
      'DELEGATE_RESOURCE cannot delegate to the sender itself',
    );
    expect(refusal('DELEGATE_RESOURCE', { ...lend(BOB, '1'), amount: '1' })).toBe(
      'DELEGATE_RESOURCE moves no native coins: amount must be "0"',
    );
    expect(refusal('DELEGATE_RESOURCE', lend(BOB, '0'))).toBe(
      'DELEGATE_RESOURCE data.amount must be an integer string from 1 to 2^256 − 1',
    );
    expect(refusal('UNDELEGATE_RESOURCE', lend(ALICE, '1'))).toBe(
      'UNDELEGATE_RESOURCE cannot take back from the sender itself',
    );
    expect(refusal('UNDELEGATE_RESOURCE', { data: { amount: '1' } })).toBe(
      'UNDELEGATE_RESOURCE needs the receiver address in to',
    );
  });
});

describe('DELEGATE_RESOURCE', () => {
  it(
    "moves energy capacity: the receiver's cap grows by what the lender's shrinks; both energies settled at " +
      'the height',
    async () => {
      const w = await EconWorld.create();
      await w.ok('STAKE', U1, { amount: c(90_000) }); // height 1: cap 910,000, energy 9,700 left
      await w.until(21);
      const before = await w.account(U2);
      await w.ok('DELEGATE_RESOURCE', U1, lend(U2, c(90_000))); // height 22
      const h = w.height;
      const [u1, u2] = [await w.account(U1), await w.account(U2)];
      expect([u1.staked, u1.delegatedOut, u1.delegatedIn]).toEqual([90_000n * COIN, 90_000n * COIN, 0n]);
      expect([u2.staked, u2.delegatedOut, u2.delegatedIn]).toEqual([0n, 0n, 90_000n * COIN]);
      expect(maxEnergy(u1)).toBe(FREE_ENERGY);
      expect(maxEnergy(u2)).toBe(FREE_ENERGY + 900_000n);
      // The lender had regenerated 9,700 + 21 × 910,000 / 28,800 = 10,363 under its old cap: capped at its
      // new cap, then charged 300. The receiver keeps what it had (full at 10,000): no retroactive regeneration.
      expect([u1.energy, u1.energyHeight]).toEqual([FREE_ENERGY - 300n, h]);
      expect(before.energy).toBe(FREE_ENERGY);
      expect([u2.energy, u2.energyHeight]).toEqual([FREE_ENERGY, h]);
      expect(await getDelegation(w.state, U1, U2)).toBe(90_000n * COIN);
      expect(await w.state.getRecord(delegationKey(U1, U2))).toBe(c(90_000));
      await expectSupplyConserved(w);
    },
  );

  it('lets the receiver send transactions on lent energy without burning', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(90_000) });
    // U2 and U3 spend their whole 10,000 energy: 100 TRANSFERs of 100 each.
    const txs = [];
    for (const from of [U2, U3])
      for (let n = 0; n < 100; n++) txs.push(await w.tx('TRANSFER', from, { to: U4, amount: '1', nonce: n }));
    const drained = await w.block(txs);
    expect(drained.every((r) => r.status === 'success' && r.burned === '0')).toBe(true);
    expect((await w.account(U2)).energy).toBe(0n);
    await w.ok('DELEGATE_RESOURCE', U1, lend(U2, c(90_000)));
    await w.until(w.height + 4); // U2 regenerates 910,000 / 28,800 per block (≈ 31), U3 10,000 / 28,800
    const [r2, r3] = await w.block([
      await w.tx('TRANSFER', U2, { to: U4, amount: '1' }),
      await w.tx('TRANSFER', U3, { to: U4, amount: '1' }),
    ]);
    expect(r2).toMatchObject({ status: 'success', energyUsed: '100', burned: '0' });
    // 6 blocks × 10,000 / 28,800 = 2 energy without the loan
    expect(r3).toMatchObject({ status: 'success', energyUsed: '2', burned: '98' });
    await expectSupplyConserved(w);
  });

  it('creates an absent receiver', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(100) });
    await w.ok('DELEGATE_RESOURCE', U1, lend(FRESH, c(40)));
    expect(await w.account(FRESH)).toMatchObject({
      balance: 0n,
      staked: 0n,
      nonce: 0,
      delegatedIn: 40n * COIN,
      energy: FREE_ENERGY,
      energyHeight: w.height,
    });
    expect(maxEnergy(await w.account(FRESH))).toBe(FREE_ENERGY + 400n);
    await expectSupplyConserved(w);
  });

  it(
    "never lends voting power: VOTE, candidates' weight and governance power still count the lender's " + 'whole stake',
    async () => {
      const w = await EconWorld.create();
      await w.ok('STAKE', U2, { amount: c(300) });
      await w.ok('DELEGATE_RESOURCE', U2, lend(U3, c(300)));
      await w.ok('VOTE', U2, { data: { votes: { [V0]: c(300) } } }); // VOTE checks staked, lent or not
      expect((await getCandidate(w.state, V0))!.received).toBe(c(300));
      expect((await getVoter(w.state, U2)).total).toBe(c(300));
      const supply = await loadSupply(w.state);
      expect(supply.staked).toBe(2_300n * COIN); // V0's 2,000 and U2's 300: nothing moved
      const propose = await w.tx('GOV_PROPOSE', U4, { amount: c(10), data: { param: 'MAX_VALIDATORS', value: '3' } });
      await w.block([propose]);
      await w.ok('GOV_VOTE', U2, { data: { proposalId: propose.id, vote: 'yes' } });
      expect(await powerOf(w.state, U2, new Map([[U2, (await getVoter(w.state, U2)).votes]]))).toBe(300n * COIN);
      await w.fails(
        'GOV_VOTE',
        U3,
        { data: { proposalId: propose.id, vote: 'yes' } },
        'GOV_VOTE needs voting power: stake coins first (STAKE)',
      );
    },
  );

  it('refuses more than the stake not yet lent', async () => {
    const w = await EconWorld.create();
    await w.fails(
      'DELEGATE_RESOURCE',
      U4,
      lend(U3, '1'),
      "DELEGATE_RESOURCE lends 1 base units but only 0 of the sender's stake are not lent (0 staked, 0 lent)",
    );
    await w.ok('STAKE', U2, { amount: c(100) });
    await w.ok('DELEGATE_RESOURCE', U2, lend(U3, c(60)));
    await w.fails(
      'DELEGATE_RESOURCE',
      U2,
      lend(U4, c(41)),
      `DELEGATE_RESOURCE lends ${c(41)} base units but only ${c(40)} of the sender's stake are not lent ` +
        `(${c(100)} staked, ${c(60)} lent)`,
    );
    // the failure changed nothing: counters and records as before
    expect((await w.account(U2)).delegatedOut).toBe(60n * COIN);
    expect(await w.state.getAccount(U4)).toMatchObject({ delegatedIn: 0n });
    expect(await w.state.getRecord(delegationKey(U2, U4))).toBeUndefined();
    await w.ok('DELEGATE_RESOURCE', U2, lend(U3, c(40))); // the rest, to the same receiver: the pair adds up
    expect(await getDelegation(w.state, U2, U3)).toBe(100n * COIN);
    expect((await w.account(U3)).delegatedIn).toBe(100n * COIN);
  });
});

describe('UNSTAKE of lent stake', () => {
  it('is refused until UNDELEGATE_RESOURCE takes it back', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U2, { amount: c(100) });
    await w.ok('DELEGATE_RESOURCE', U2, lend(U3, c(60)));
    await w.fails(
      'UNSTAKE',
      U2,
      { amount: c(50) },
      `stake backs resource delegations: ${c(60)} base units are lent by DELEGATE_RESOURCE; undelegate first`,
    );
    expect((await w.account(U2)).staked).toBe(100n * COIN);
    await w.ok('UNSTAKE', U2, { amount: c(40) }); // what is not lent can leave
    await w.ok('UNDELEGATE_RESOURCE', U2, lend(U3, c(60)));
    await w.ok('UNSTAKE', U2, { amount: c(60) });
    expect((await w.account(U2)).staked).toBe(0n);
    await expectSupplyConserved(w);
  });
});

describe('UNDELEGATE_RESOURCE', () => {
  it(
    "takes capacity back in parts, caps the receiver's " + 'energy at its lower cap, and deletes the pair at 0',
    async () => {
      const w = await EconWorld.create();
      await w.ok('STAKE', U1, { amount: c(90_000) });
      await w.ok('DELEGATE_RESOURCE', U1, lend(U2, c(60_000)));
      const lentAt = w.height;
      await w.ok('DELEGATE_RESOURCE', U1, lend(U3, c(30_000)));
      await w.until(w.height + 30); // U2 regenerates above 10,000 under its 610,000 cap
      expect((await w.account(U2)).energy).toBe(FREE_ENERGY); // stored at the delegation height, not yet settled
      await w.ok('UNDELEGATE_RESOURCE', U1, lend(U2, c(59_500)));
      let u2 = await w.account(U2);
      expect([u2.delegatedIn, maxEnergy(u2)]).toEqual([500n * COIN, FREE_ENERGY + 5_000n]);
      // settled under the old cap up to this height (10,677), below the new 15,000 cap: kept
      const regenerated = FREE_ENERGY + (BigInt(w.height - lentAt) * 610_000n) / 28_800n;
      expect(regenerated).toBe(10_677n);
      expect([u2.energy, u2.energyHeight]).toEqual([regenerated, w.height]);
      expect(await getDelegation(w.state, U1, U2)).toBe(500n * COIN);
      expect((await w.account(U1)).delegatedOut).toBe(30_500n * COIN);
      await w.until(w.height + 20);
      await w.ok('UNDELEGATE_RESOURCE', U1, lend(U2, c(500)));
      u2 = await w.account(U2);
      // capped at the free 10,000
      expect([u2.delegatedIn, u2.energy, u2.energyHeight]).toEqual([0n, FREE_ENERGY, w.height]);
      expect(await w.state.getRecord(delegationKey(U1, U2))).toBeUndefined();
      expect(await getDelegation(w.state, U1, U3)).toBe(30_000n * COIN);
      await expectSupplyConserved(w);
    },
  );

  it("refuses a pair with nothing lent and more than the pair's amount, changing nothing", async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U2, { amount: c(100) });
    await w.fails('UNDELEGATE_RESOURCE', U2, lend(U3, '1'), `no resources delegated to ${U3}`);
    await w.ok('DELEGATE_RESOURCE', U2, lend(U3, c(60)));
    // the receiver cannot undo it
    await w.fails('UNDELEGATE_RESOURCE', U3, lend(U2, '1'), `no resources delegated to ${U2}`);
    await w.fails(
      'UNDELEGATE_RESOURCE',
      U2,
      lend(U3, c(61)),
      `UNDELEGATE_RESOURCE takes back ${c(61)} base units but ${c(60)} are delegated to ${U3}`,
    );
    expect(await w.state.getRecord(delegationKey(U2, U3))).toBe(c(60));
    expect([(await w.account(U2)).delegatedOut, (await w.account(U3)).delegatedIn]).toEqual([60n * COIN, 60n * COIN]);
  });
});

describe('the stored account form', () => {
  it(
    'omits the delegation fields of an account that never delegated, ' + 'and again once everything is taken back',
    async () => {
      const w = await EconWorld.create();
      expect(await stored(w, U3)).not.toContain('delegated');
      await w.ok('STAKE', U1, { amount: c(100) });
      await w.ok('DELEGATE_RESOURCE', U1, lend(U2, c(100)));
      expect(await stored(w, U1)).toContain(`"delegatedOut":"${c(100)}"`);
      expect(await stored(w, U2)).toContain(`"delegatedIn":"${c(100)}"`);
      await w.ok('UNDELEGATE_RESOURCE', U1, lend(U2, c(100)));
      for (const a of [U1, U2, U3]) expect(await stored(w, a)).not.toContain('delegated');
    },
  );
});
