import { describe, expect, it } from 'vitest';
import { getCandidate, getValidatorSet, getVoter, unbondingOf } from '../../../../src/modules/staking';
import { loadSupply } from '../../../../src/protocol/execState';
import { maxEnergy } from '../../../../src/protocol/energy';
import { liquidCost } from '../../../../src/protocol/cost';
import {
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
  GOV_ESCROW_ADDRESS,
} from '../../../../src/protocol/params';
import { COIN } from '../../../../src/primitives/amount';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
const SYSTEM = [REWARD_POOL_ADDRESS, TREASURY_ADDRESS, UNBONDING_ADDRESS, GOV_ESCROW_ADDRESS];

/** Every coin is on some account: Σ balance + staked = the supply counter. */
async function expectSupplyConserved(w: EconWorld) {
  const s = await loadSupply(w.state);
  expect(await w.total([U1, U2, U3, U4, V0, ...SYSTEM])).toBe(s.supply);
  let staked = 0n;
  for (const a of [U1, U2, U3, U4, V0]) staked += (await w.account(a)).staked;
  expect(staked).toBe(s.staked);
}

describe('STAKE', () => {
  it('moves balance into stake and the staked counter; the energy cap grows; no candidacy', async () => {
    const w = await EconWorld.create();
    const before = await w.account(U1);
    const r = await w.ok('STAKE', U1, { amount: c(100) });
    const after = await w.account(U1);
    expect(after.staked).toBe(100n * COIN);
    expect(before.balance - after.balance - BigInt(r.burned)).toBe(100n * COIN);
    expect(maxEnergy(after)).toBeGreaterThan(maxEnergy(before));
    expect(await getCandidate(w.state, U1)).toBeUndefined();
    await expectSupplyConserved(w);
  });

  it('registers a candidate with MIN_CANDIDATE_STAKE of own stake, binding the signing keys', async () => {
    const w = await EconWorld.create();
    await w.fails(
      'STAKE',
      U1,
      { amount: c(500), data: { candidate: true } },
      `a validator candidate needs at least ${c(1000)} base units of own stake (MIN_CANDIDATE_STAKE); it ` +
        `would have ${c(500)}`,
    );
    expect((await w.account(U1)).staked).toBe(0n); // the failed STAKE locked nothing
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true, commission: 2500 } });
    const cand = (await getCandidate(w.state, U1))!;
    expect(cand).toMatchObject({ address: U1, commissionBps: 2500, received: '0', registeredAt: w.height });
    expect(cand.signingKeys.mldsa44).toMatch(/^0x/);
    await w.fails(
      'STAKE',
      U1,
      { amount: c(1), data: { candidate: true } },
      'the sender is already a validator candidate',
    );
  });
});

describe('VOTE', () => {
  it('allocates stake to candidates, replacing the previous allocation', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
    await w.ok('STAKE', U2, { amount: c(300) });
    await w.ok('VOTE', U2, { data: { votes: { [U1]: c(200), [V0]: c(100) } } });
    expect((await getCandidate(w.state, U1))!.received).toBe(c(200));
    expect((await getCandidate(w.state, V0))!.received).toBe(c(100));
    await w.ok('VOTE', U2, { data: { votes: { [V0]: c(300) } } });
    expect((await getCandidate(w.state, U1))!.received).toBe('0');
    expect((await getCandidate(w.state, V0))!.received).toBe(c(300));
    expect((await getVoter(w.state, U2)).total).toBe(c(300));
    await w.fails(
      'VOTE',
      U2,
      { data: { votes: { [V0]: c(301) } } },
      `VOTE allocates ${c(301)} base units but the sender has ${c(300)} staked`,
    );
    await w.fails('VOTE', U2, { data: { votes: { [U3]: c(1) } } }, `VOTE target ${U3} is not a validator candidate`);
    await w.ok('VOTE', U2, { data: { votes: {} } });
    expect((await getCandidate(w.state, V0))!.received).toBe('0');
  });
});

describe('elections', () => {
  it(
    'change the set only at epoch boundaries: by weight (own stake + votes), ' +
      'ties by address, MAX_VALIDATORS active, BANK_SIZE banked',
    async () => {
      const w = await EconWorld.create({ MAX_VALIDATORS: '1', BANK_SIZE: '1' });
      await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } }); // height 1
      await w.ok('STAKE', U3, { amount: c(1000), data: { candidate: true } });
      await w.until(5);
      expect(await getValidatorSet(w.state)).toEqual({ active: [V0], bank: [U1], epoch: 1, electedAt: 5 });
      await w.ok('STAKE', U2, { amount: c(1000) }); // 6
      await w.ok('VOTE', U2, { data: { votes: { [U1]: c(1000) } } }); // 7: U1 weighs 2500 > V0's 2000
      await w.until(9);
      expect((await getValidatorSet(w.state)).active).toEqual([V0]); // not before the boundary
      await w.block(); // 10
      expect(await getValidatorSet(w.state)).toEqual({ active: [U1], bank: [V0], epoch: 2, electedAt: 10 });
      expect(w.events).toEqual([
        { kind: 'validators.elect', epoch: 2, height: 10, active: [U1], bank: [V0], previous: [V0] },
      ]);
      expect((await w.account(U1)).isValidator).toBe(true);
      expect((await w.account(V0)).isValidator).toBe(false);
      // A tie (U1 2500 vs V0 2000 + 500): the lower address wins.
      await w.ok('STAKE', U4, { amount: c(500) });
      await w.ok('VOTE', U4, { data: { votes: { [V0]: c(500) } } });
      await w.until(15);
      expect((await getValidatorSet(w.state)).active).toEqual([U1 < V0 ? U1 : V0]);
    },
  );

  it('keep the previous set when no candidate is eligible', async () => {
    const w = await EconWorld.create({}, 10n); // the genesis validator is below MIN_CANDIDATE_STAKE
    await w.until(5);
    expect((await getValidatorSet(w.state)).active).toEqual([V0]);
  });
});

describe('block rewards', () => {
  it('pay the commission to the producer and the rest to its voters, claimed with CLAIM_VOTER_REWARD', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true, commission: 1000 } }); // 10%
    await w.ok('STAKE', U2, { amount: c(300) });
    await w.ok('STAKE', U3, { amount: c(100) });
    await w.block([
      await w.tx('VOTE', U2, { data: { votes: { [U1]: c(300) } } }),
      await w.tx('VOTE', U3, { data: { votes: { [U1]: c(100) } } }),
    ]);
    const u1 = (await w.account(U1)).balance;
    for (let i = 0; i < 4; i++) await w.block([], U1); // 4 blocks of 1 coin: 0.4 to U1, 3.6 to voters (3:1)
    expect((await w.account(U1)).balance - u1).toBe(4n * (COIN / 10n));
    expect((await w.account(REWARD_POOL_ADDRESS)).balance).toBe(4n * (COIN - COIN / 10n));
    const r = await w.ok('CLAIM_VOTER_REWARD', U2);
    expect(r.events).toEqual([{ kind: 'reward.claim', voter: U2, amount: String((4n * 9n * COIN * 3n) / 40n) }]);
    await w.fails('CLAIM_VOTER_REWARD', U2, {}, 'no voter reward to claim');
    const r3 = await w.ok('CLAIM_VOTER_REWARD', U3);
    expect(r3.events![0]).toMatchObject({ amount: String((4n * 9n * COIN) / 40n) });
    await expectSupplyConserved(w);
  });

  it('SET_COMMISSION takes effect COMMISSION_DELAY_BLOCKS later', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true, commission: 1000 } });
    await w.ok('STAKE', U2, { amount: c(100) });
    await w.ok('VOTE', U2, { data: { votes: { [U1]: c(100) } } });
    await w.fails('SET_COMMISSION', U2, { data: { commission: 0 } }, 'the sender is not a validator candidate');
    await w.ok('SET_COMMISSION', U1, { data: { commission: 5000 } }); // at height h: effective from h + 3
    const h = w.height;
    expect((await getCandidate(w.state, U1))!.pendingCommission).toEqual({ bps: 5000, at: h + 3 });
    let bal = (await w.account(U1)).balance;
    await w.block([], U1);
    expect((await w.account(U1)).balance - bal).toBe(COIN / 10n);
    await w.until(h + 2);
    bal = (await w.account(U1)).balance;
    await w.block([], U1); // h + 3
    expect((await w.account(U1)).balance - bal).toBe(COIN / 2n);
    expect((await getCandidate(w.state, U1))!).toMatchObject({ commissionBps: 5000, pendingCommission: null });
  });
});

describe('UNSTAKE', () => {
  it('queues the coins and pays them back UNBONDING_BLOCKS later', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U2, { amount: c(300) });
    await w.ok('UNSTAKE', U2, { amount: c(100) });
    const h = w.height;
    expect((await w.account(U2)).staked).toBe(200n * COIN);
    expect(await unbondingOf(w.state, U2)).toEqual([{ amount: c(100), matures: h + 4 }]);
    expect((await w.account(UNBONDING_ADDRESS)).balance).toBe(100n * COIN);
    await w.until(h + 3);
    const bal = (await w.account(U2)).balance;
    await w.block();
    expect((await w.account(U2)).balance - bal).toBe(100n * COIN);
    expect(await unbondingOf(w.state, U2)).toEqual([]);
    await expectSupplyConserved(w);
    await w.fails('UNSTAKE', U2, { amount: c(201) }, `insufficient stake: ${c(200)} base units staked`);
  });

  it('needs no liquid balance for the amount: it comes out of stake (only the fee limit must be covered)', async () => {
    const w = await EconWorld.create();
    const all = (await w.account(U2)).balance - 2n * COIN; // keep 2 coins: one fee limit each
    await w.ok('STAKE', U2, { amount: String(all) });
    expect((await w.account(U2)).balance).toBeLessThan(100n * COIN);
    await w.ok('UNSTAKE', U2, { amount: c(5_000) });
    expect(liquidCost(await w.tx('UNSTAKE', U2, { amount: c(5_000) }))).toBe(COIN); // the fee limit alone
    expect(liquidCost(await w.tx('STAKE', U2, { amount: c(5) }))).toBe(6n * COIN);
  });

  it('cannot take stake that backs votes, nor leave the chain without an eligible validator', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U2, { amount: c(300) });
    await w.ok('VOTE', U2, { data: { votes: { [V0]: c(250) } } });
    await w.fails(
      'UNSTAKE',
      U2,
      { amount: c(51) },
      `stake backs votes: ${c(250)} base units are allocated by VOTE; reduce them first`,
    );
    await w.ok('UNSTAKE', U2, { amount: c(50) });
    await w.fails(
      'UNSTAKE',
      V0,
      { amount: c(1500) },
      'UNSTAKE would leave the chain without an eligible validator candidate',
    );
    await w.ok('STAKE', U1, { amount: c(1000), data: { candidate: true } });
    await w.ok('UNSTAKE', V0, { amount: c(1500) }); // U1 remains eligible
  });
});
