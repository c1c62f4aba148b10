import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchChoice, prefers } from '../../../src/consensus/forkChoice';
import type { Address } from '../../../src/protocol/types';
import {
  arrivedLate,
  CLOCK_TOLERANCE_MS,
  clockToleranceMs,
  idleTurn,
  ownsSlot,
  scheduleRefusal,
  slotOf,
  slotProducer,
  slotsOf,
} from '../../../src/consensus/slots';

const A = '0x00000000000000000000000000000000000000aa' as const;
const B = '0x00000000000000000000000000000000000000bb' as const;
const C = '0x00000000000000000000000000000000000000cc' as const;

describe('slot schedule', () => {
  it(
    'rotates the active set by slot; refuses the wrong producer, ' +
      'a slot not after the parent, a block from the future',
    () => {
      const active = [A, B, C];
      expect([0, 1, 2, 3, 4].map((s) => slotProducer(active, s))).toEqual([A, B, C, A, B]);
      expect(slotOf(1_049, 50)).toBe(20);
      expect(scheduleRefusal({ timestamp: 1_050, producer: B }, 1_000, active, 50, 2_000)).toBe(
        'wrong producer for slot 21: expected 0x00000000000000000000000000000000000000aa, got ' +
          '0x00000000000000000000000000000000000000bb',
      );
      expect(scheduleRefusal({ timestamp: 1_050, producer: A }, 1_000, active, 50, 2_000)).toBeUndefined();
      expect(scheduleRefusal({ timestamp: 1_049, producer: C }, 1_001, active, 50, 2_000)).toBe(
        "block slot 20 is not after its parent's slot 20",
      );
      expect(
        scheduleRefusal({ timestamp: 2_000 + CLOCK_TOLERANCE_MS + 50, producer: B }, 1_000, active, 50, 2_000),
      ).toMatch(/^block from a future slot/);
      // The skip rule: a missed slot leaves a gap, the next producer builds on the last block.
      expect(scheduleRefusal({ timestamp: 1_100, producer: B }, 1_000, active, 50, 2_000)).toBeUndefined();
    },
  );

  it('a block may be ahead of the local clock by half a slot, at most a second', () => {
    expect(clockToleranceMs(500)).toBe(250);
    expect(clockToleranceMs(5_000)).toBe(CLOCK_TOLERANCE_MS);
    const [A, B] = ['0x' + 'aa'.padStart(40, '0'), '0x' + 'bb'.padStart(40, '0')] as `0x${string}`[];
    const now = 1_000_000; // slot 2000 of 500 ms
    // 500 ms ahead of this node's clock: refused (before, anything within a second was taken); 200 ms ahead: taken.
    expect(scheduleRefusal({ timestamp: now + 300, producer: B }, now - 500, [A, B], 500, now - 200)).toBe(
      "block from a future slot: timestamp 1000300 is 500 ms ahead of this node's clock (tolerance 250 ms: half a " +
        'slot, at most 1000)',
    );
    expect(scheduleRefusal({ timestamp: now + 500, producer: B }, now - 500, [A, B], 500, now + 300)).toBeUndefined();
  });

  it("counts a position's slots in a range like a loop would", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.nat(6), fc.nat(200), fc.nat(60), (n, i, from, len) => {
        const index = i % n;
        let loop = 0;
        for (let s = from; s < from + len; s++) if (s % n === index) loop++;
        expect(slotsOf(index, n, from, from + len)).toBe(loop);
      }),
    );
  });

  it('fork choice: higher wins, equal heights go to the lower hash, the same on every node', () => {
    expect(prefers({ height: 5, hash: '0x02' }, { height: 4, hash: '0x01' })).toBe(true);
    expect(prefers({ height: 5, hash: '0x01' }, { height: 5, hash: '0x02' })).toBe(true);
    expect(prefers({ height: 5, hash: '0x02' }, { height: 5, hash: '0x01' })).toBe(false);
    expect(prefers({ height: 5, hash: '0x01' }, { height: 5, hash: '0x01' })).toBe(false);
  });

  it('fork choice: at equal heights a block that came in its slot beats one that came late, whatever the hashes', () => {
    // A withheld block published after the next producer filled its place (seed 6089) loses, even with the lower hash.
    expect(prefers({ height: 5, hash: '0x01', late: true }, { height: 5, hash: '0x02', late: false })).toBe(false);
    expect(prefers({ height: 5, hash: '0x02', late: false }, { height: 5, hash: '0x01', late: true })).toBe(true);
    // Both late, or both in time: the hash, as on every node.
    expect(prefers({ height: 5, hash: '0x01', late: true }, { height: 5, hash: '0x02', late: true })).toBe(true);
    // Height and the justified checkpoint come first: a late block that is higher wins.
    expect(prefers({ height: 6, hash: '0x09', late: true }, { height: 5, hash: '0x01', late: false })).toBe(true);
    expect(arrivedLate(1_499, 1_499, 500)).toBe(false);
    expect(arrivedLate(1_000, 1_499, 500)).toBe(false);
    expect(arrivedLate(1_000, 1_500, 500)).toBe(true);
  });

  it('fork choice weighs the justified checkpoint first: a shorter chain with a later one wins', () => {
    expect(
      prefers({ justifiedHeight: 9, height: 10, hash: '0x09' }, { justifiedHeight: 5, height: 14, hash: '0x01' }),
    ).toBe(true);
    expect(
      prefers({ justifiedHeight: 5, height: 14, hash: '0x01' }, { justifiedHeight: 9, height: 10, hash: '0x09' }),
    ).toBe(false);
    // A head stored before checkpoints weighs 0.
    expect(prefers({ height: 20, hash: '0x01' }, { justifiedHeight: 1, height: 2, hash: '0x02' })).toBe(false);
    const head = { justifiedHeight: 9, height: 12, hash: '0x05' as const, finalizedHeight: 5 };
    expect(branchChoice({ justifiedHeight: 5, height: 13, hash: '0x01' }, 6, head)).toBe('stale');
    expect(branchChoice({ justifiedHeight: 10, height: 11, hash: '0x09' }, 6, head)).toBe('take');
  });

  it('a branch is taken when preferred, stale when not, refused when it forks below the finalized height', () => {
    const head = { height: 10, hash: '0x05' as const, finalizedHeight: 8 };
    expect(branchChoice({ height: 11, hash: '0x09' }, 9, head)).toBe('take');
    expect(branchChoice({ height: 10, hash: '0x04' }, 8, head)).toBe('take');
    expect(branchChoice({ height: 10, hash: '0x06' }, 9, head)).toBe('stale');
    expect(branchChoice({ height: 12, hash: '0x01' }, 7, head)).toEqual({
      refused: 'branch forks at 7, below the finalized height 8',
    });
  });

  it("a validator produces in its own slot after the head's, never twice in a slot", () => {
    const active = [A, B, C];
    // Slot 21 (1 050–1 099 ms) is A's (21 mod 3 = 0); the head was made in slot 20.
    expect(ownsSlot(active, A, 1_000, 1_060, 50)).toBe(true);
    expect(ownsSlot(active, B, 1_000, 1_060, 50)).toBe(false);
    // The head is already in slot 21: no second block there.
    expect(ownsSlot(active, A, 1_055, 1_060, 50)).toBe(false);
    // A clock behind the head's time counts from the head's time + 1 ms.
    expect(ownsSlot(active, A, 1_049, 900, 50)).toBe(true);
    expect(ownsSlot([], A, 1_000, 1_060, 50)).toBe(false);
  });
});

describe('idle blocks go round the set', () => {
  const set = ['0x01', '0x02', '0x03', '0x04'] as Address[];
  it('the validator after the head producer takes the next idle block; others wait one round of slots', () => {
    expect(idleTurn(set, set[0], set[1], 1_000, 1_000, 250)).toBe(true);
    expect(idleTurn(set, set[0], set[2], 1_000, 1_000, 250)).toBe(false);
    expect(idleTurn(set, set[0], set[0], 1_999, 1_000, 250)).toBe(false);
    expect(idleTurn(set, set[0], set[2], 1_999, 1_000, 250)).toBe(false);
    // set[1] is down: the one after it, a round later
    expect(idleTurn(set, set[0], set[2], 2_000, 1_000, 250)).toBe(true);
    expect(idleTurn(set, set[0], set[3], 2_000, 1_000, 250)).toBe(false); // two rounds later
    // everyone else is down: the head's producer, last
    expect(idleTurn(set, set[0], set[0], 4_000, 1_000, 250)).toBe(true);
    expect(idleTurn(set, set[3], set[0], 1_000, 1_000, 250)).toBe(true); // wraps round
    expect(idleTurn(set, set[0], set[1], 999, 1_000, 250)).toBe(false); // not idle long enough
    expect(idleTurn([set[0]], set[0], set[0], 1_000, 1_000, 250)).toBe(true);
    // head by a validator no longer in the set
    expect(idleTurn(set, '0x09' as Address, set[2], 1_000, 1_000, 250)).toBe(true);
  });

  it(
    'every live validator produces within one round of idle blocks, ' +
      'even when the idle period is a multiple of the round, and with one down',
    () => {
      // Simulate an idle chain slot by slot: a block when the slot's producer's idleTurn says so.
      for (const [idleSlots, down] of [
        [4, -1],
        [8, -1],
        [5, -1],
        [3, -1],
        [4, 3],
        [8, 1],
      ]) {
        const slotMs = 250;
        let head = { slot: 0, producer: set[0] };
        const produced: Address[] = [];
        for (let slot = 1; slot < 400; slot++) {
          const p = set[slot % set.length];
          if (
            slot % set.length !== down &&
            idleTurn(set, head.producer, p, (slot - head.slot) * slotMs, idleSlots * slotMs, slotMs)
          ) {
            head = { slot, producer: p };
            produced.push(p);
          }
        }
        const live = down < 0 ? set.length : set.length - 1;
        expect(produced.length).toBeGreaterThan(20);
        for (let i = 0; i + live <= produced.length; i++)
          expect(new Set(produced.slice(i, i + live)).size, `idle ${idleSlots} slots, down ${down}`).toBe(live);
      }
    },
  );
});
