import { describe, expect, it } from 'vitest';
import { countingMembers } from '../../../../src/consensus/finality';
import { getCandidate, getSchedule, getValidatorSet, JOINING_ROUNDS } from '../../../../src/modules/staking';
import { COIN } from '../../../../src/primitives/amount';
import { EconWorld, U1, U2, V0 } from '../../../helpers/econWorld';

const c = (n: number) => String(BigInt(n) * COIN);

describe('the set in force changes only from final state', () => {
  it('an election waits until its block is final, then schedules from the next block', async () => {
    const w = await EconWorld.create();
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
    await w.ok('VOTE', U1, { data: { votes: { [U1]: c(1500) } } });
    await w.until(5); // epoch boundary: U1 outweighs V0
    expect((await getValidatorSet(w.state)).active).toContain(U1);
    const sch5 = await getSchedule(w.state);
    expect(sch5.active).toEqual([V0]); // decided at 5, block 5 not final yet
    expect(sch5.pending).toEqual([{ active: (await getValidatorSet(w.state)).active, decidedAt: 5 }]);
    expect(sch5.finalizedHeight).toBe(4);
    await w.block(); // block 6 finalizes 5: the elected set comes into force from 7
    const sch6 = await getSchedule(w.state);
    expect(sch6.active).toEqual((await getValidatorSet(w.state)).active);
    expect(sch6).toMatchObject({ since: 7, finalizedHeight: 5, pending: [] });
    expect(w.events.find((e) => e.kind === 'validators.schedule')).toEqual({
      kind: 'validators.schedule',
      height: 7,
      decidedAt: 5,
      active: sch6.active,
      previous: [V0],
    });
  });

  it('without finality (a partition side, or too many down), no election or jailing ever takes effect', async () => {
    const w = await EconWorld.create({ MAX_VALIDATORS: '2', JAIL_MISSED_ROUNDS: '2' });
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
    await w.until(6); // elected at 5, in force from 7: {U1, V0}, U1 joining
    expect((await getSchedule(w.state)).active.sort()).toEqual([U1, V0].sort());
    await w.block([], U1); // 7: U1's first block, the checkpoint of an epoch of 2 blocks (7, 8)
    await w.block([], V0); // 8: V0's vote justifies 7 (U1 does not count yet)
    await w.block([], V0); // 9: justifies 9 from 7, so 7 is final: U1 counts from here
    expect((await getSchedule(w.state)).joining).toBeUndefined();
    // Now only V0 produces: 2 of 2 are needed, so nothing more is final.
    await w.until(30);
    const s = await getSchedule(w.state);
    expect(s.finalizedHeight).toBe(7);
    // 2 rounds × 2 = 4 blocks after 7
    expect((await getCandidate(w.state, U1))!.jailed).toEqual({ at: 11, reason: 'downtime' });
    expect((await getValidatorSet(w.state)).active).toEqual([V0]); // decided: U1 out
    expect(s.active.sort()).toEqual([U1, V0].sort()); // but not in force
    expect(s.pending.map((p) => p.decidedAt)).toEqual([11]);
  });
});

describe('downtime jailing', () => {
  it(
    'jails a member that produced nothing for JAIL_MISSED_ROUNDS rounds; ' +
      'in force once final; it asks back in with STAKE candidate',
    async () => {
      const w = await EconWorld.create({ MAX_VALIDATORS: '3', JAIL_MISSED_ROUNDS: '2' });
      await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
      await w.ok('STAKE', U2, { amount: c(1500), data: { candidate: true } });
      await w.until(6); // elected at 5 and in force from 7: {U1, U2, V0}, U1 and U2 joining
      expect((await getSchedule(w.state)).active).toHaveLength(3);
      await w.block([], U1); // 7: epochs of 3 blocks from here (7, 10, 13, …)
      await w.block([], U2); // 8
      await w.block([], V0); // 9: V0 alone counts: it justifies 7 (6 final)
      await w.block([], V0); // 10: justifies 10 from 7: 7 is final, U1 counts
      expect(countingMembers(await getSchedule(w.state)).sort()).toEqual([U1, V0].sort());
      // U1 and V0 take turns, U2 is down: 13 is justified (2 of 2) from 10, so 10 is final and U2 counts too
      for (let h = 11; h <= 14; h++) await w.block([], h % 2 ? U1 : V0);
      expect((await getSchedule(w.state)).joining).toBeUndefined();
      // 2 rounds × 3 blocks after 8
      expect((await getCandidate(w.state, U2))!.jailed).toEqual({ at: 14, reason: 'downtime' });
      expect(w.events).toContainEqual({
        kind: 'validators.jail',
        address: U2,
        height: 14,
        reason: 'downtime',
        active: expect.not.arrayContaining([U2]),
      });
      expect((await getSchedule(w.state)).active).toContain(U2);
      // U2 comes back: 3 of 3 vote in the epochs from 16 and 19, 16 becomes final, the set without U2 is in force
      for (let h = 15; h <= 21; h++) await w.block([], [U2, U1, V0][(h - 15) % 3]);
      const s = await getSchedule(w.state);
      expect(s.finalizedHeight).toBeGreaterThanOrEqual(14);
      expect(s.active).not.toContain(U2);
      // U2 stays out of elections until it asks back in
      await w.until(25, V0);
      expect((await getValidatorSet(w.state)).active).not.toContain(U2);
      await w.ok('STAKE', U2, { amount: c(1), data: { candidate: true } });
      expect((await getCandidate(w.state, U2))!.jailed).toBeNull();
      await w.until(30, V0);
      expect((await getValidatorSet(w.state)).active).toContain(U2);
    },
  );

  it('never jails the only member', async () => {
    const w = await EconWorld.create({ JAIL_MISSED_ROUNDS: '2' });
    await w.until(20, U1); // blocks "by" a non-member: V0 produced nothing, but n = 1
    expect((await getCandidate(w.state, V0))!.jailed ?? null).toBeNull();
  });
});

describe('joining members (an elected member counts for finality once it has produced)', () => {
  it(
    'an elected member with no node never stops finality; ' +
      'it leaves the set in force after JOINING_ROUNDS rounds and the bank is promoted',
    async () => {
      const w = await EconWorld.create({ MAX_VALIDATORS: '2', BANK_SIZE: '1', JAIL_MISSED_ROUNDS: '100' });
      await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
      await w.ok('STAKE', U2, { amount: c(1000), data: { candidate: true } });
      await w.until(6); // elected at 5: active {U1, V0} (V0 2,000 coins, U1 1,500), bank [U2]; in force from 7
      let s = await getSchedule(w.state);
      expect(s.active.sort()).toEqual([U1, V0].sort());
      expect(s.joining).toEqual({ [U1]: { since: 7, firstBlock: null } });
      expect(countingMembers(s)).toEqual([V0]);
      // U1 has no node: V0 alone produces, and finality keeps up (epochs of 2 blocks, each justified by V0).
      const dropAt = 6 + JOINING_ROUNDS * 2;
      for (let h = 7; h < dropAt; h++) {
        await w.block([], V0);
        expect((await getSchedule(w.state)).finalizedHeight).toBeGreaterThanOrEqual(h - 3);
      }
      expect((await getSchedule(w.state)).active).toContain(U1);
      await w.block([], V0); // JOINING_ROUNDS rounds without a block: U1 leaves now, no finality needed
      s = await getSchedule(w.state);
      expect(s.active).toEqual([V0]);
      expect(s.joining).toBeUndefined();
      expect((await getCandidate(w.state, U1))!.jailed).toEqual({ at: dropAt, reason: 'downtime' });
      expect((await getValidatorSet(w.state)).active.sort()).toEqual([U2, V0].sort()); // the bank is promoted
      await w.block([], V0); // a set of 1 again: each block justifies itself
      await w.block([], V0); // and finalizes its parent: the decision is final, U2 joins the set in force, as joining
      s = await getSchedule(w.state);
      expect(s.active.sort()).toEqual([U2, V0].sort());
      expect(s.joining).toEqual({ [U2]: { since: dropAt + 3, firstBlock: null } });
      expect(s.finalizedHeight).toBe(dropAt + 1);
    },
  );

  it('a joining member counts from the block where its first block is final', async () => {
    const w = await EconWorld.create({ MAX_VALIDATORS: '2' });
    await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } });
    await w.until(6);
    await w.block([], U1); // 7: its first block
    expect((await getSchedule(w.state)).joining).toEqual({ [U1]: { since: 7, firstBlock: 7 } });
    // U1's own block is no vote (V0's last, 6, finalized 5)
    expect((await getSchedule(w.state)).finalizedHeight).toBe(5);
    await w.block([], V0); // 8: V0 justifies 7 (the epoch's checkpoint) from 6: 6 is final
    expect((await getSchedule(w.state)).finalizedHeight).toBe(6);
    await w.block([], V0); // 9: V0 justifies 9 from 7: 7, U1's first block, is final: U1 counts
    let s = await getSchedule(w.state);
    expect(s.finalizedHeight).toBe(7);
    expect(s.joining).toBeUndefined();
    expect(countingMembers(s).sort()).toEqual([U1, V0].sort());
    await w.block([], V0); // 10
    await w.block([], U1); // 11: now 2 of 2 are needed; U1 alone justifies nothing
    s = await getSchedule(w.state);
    expect(s.finalizedHeight).toBe(7);
    await w.block([], V0); // 12: both voted for 11, justified from 9: 9 is final
    expect((await getSchedule(w.state)).finalizedHeight).toBe(9);
  });
});
