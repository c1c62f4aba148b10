import type { Address } from '../protocol/types';

/**
 * The slot schedule. Time is cut into slots of `slotMs` (every validator of a chain runs the
 * same slot length); the producer of a slot is the active set's member at slot mod n, the
 * set as it stands in the parent block's state. Slots advance with time, not with blocks:
 * a producer that misses its slot simply leaves it empty and the next slot's producer builds
 * on the last block — the skip rule. A block's slot must be later than its parent's (at most
 * one block per slot) and not beyond the local clock plus clockToleranceMs(slotMs).
 */
export const CLOCK_TOLERANCE_MS = 1_000;

/**
 * How far ahead of this node's clock a block may be: half a slot, at most CLOCK_TOLERANCE_MS. With 1,000 ms (two
 * 500 ms slots) a validator whose clock ran a second ahead made blocks two slots early, at the height of the blocks
 * honestly made in the slots before: a tie rule that favoured later blocks let them win and finality stalled (the
 * simulator's clock-skew scenario), and under the hash rule they still win half. Clocks kept by NTP differ by
 * milliseconds; a block that is early waits (the consensus actor's importBlocks), it is not refused.
 */
export const clockToleranceMs = (slotMs: number): number => Math.min(CLOCK_TOLERANCE_MS, Math.floor(slotMs / 2));

export const slotOf = (timestamp: number, slotMs: number): number => Math.floor(timestamp / slotMs);

export function slotProducer(active: readonly Address[], slot: number): Address | undefined {
  return active.length === 0 ? undefined : active[slot % active.length];
}

/** Why a block at `timestamp` is too early for a node whose clock reads `now` (clockToleranceMs), or undefined. */
export function aheadOfClock(timestamp: number, now: number, slotMs: number): string | undefined {
  const tolerance = clockToleranceMs(slotMs);
  if (timestamp <= now + tolerance) return undefined;
  return (
    `block from a future slot: timestamp ${timestamp} is ${timestamp - now} ms ahead of this node's clock ` +
    `(tolerance ${tolerance} ms: half a slot, at most ${CLOCK_TOLERANCE_MS})`
  );
}

/**
 * Whether a block made at `timestamp` reaches this node late: after its slot ended by this node's clock. A block is
 * made at its slot's start and gossiped at once; one that comes after the next slot began was withheld (or came by a
 * sync, from a node that was cut off). Fork choice gives an equal-height tie to the block that came in time.
 */
export const arrivedLate = (timestamp: number, now: number, slotMs: number): boolean =>
  now >= (slotOf(timestamp, slotMs) + 1) * slotMs;

/** Why a block at `timestamp` by `producer` does not fit the schedule after `parentTimestamp`, or undefined. */
export function scheduleRefusal(
  b: { timestamp: number; producer: Address },
  parentTimestamp: number,
  active: readonly Address[],
  slotMs: number,
  now: number,
): string | undefined {
  const early = aheadOfClock(b.timestamp, now, slotMs);
  if (early) return early;
  const slot = slotOf(b.timestamp, slotMs);
  const parentSlot = slotOf(parentTimestamp, slotMs);
  if (slot <= parentSlot) return `block slot ${slot} is not after its parent's slot ${parentSlot}`;
  const expected = slotProducer(active, slot);
  if (expected !== b.producer) return `wrong producer for slot ${slot}: expected ${expected}, got ${b.producer}`;
  return undefined;
}

/**
 * Whether `self` produces on a head made at `headTimestamp` now: the slot of `now` (a block's
 * time is at least its parent's + 1 ms) is `self`'s in `active` and comes after the head's slot.
 */
export function ownsSlot(
  active: readonly Address[],
  self: Address,
  headTimestamp: number,
  now: number,
  slotMs: number,
): boolean {
  const slot = slotOf(Math.max(now, headTimestamp + 1), slotMs);
  return slotProducer(active, slot) === self && slot > slotOf(headTimestamp, slotMs);
}

/** How many slots in [from, to) belong to schedule position `index` of `n` (slot mod n = index). */
export function slotsOf(index: number, n: number, from: number, to: number): number {
  if (to <= from || n <= 0 || index < 0) return 0;
  const upTo = (x: number) => Math.floor((x - index + n - 1) / n); // slots s < x with s ≡ index (mod n), s ≥ 0
  return upTo(to) - upTo(from);
}

/**
 * Whether an idle chain wants an empty block from `self` now. Idle blocks go round the set in
 * order: the validator after the head's producer takes the next one at its first slot once the
 * chain has been idle for `idleBlockMs`; the one after it, one round of slots later (its
 * predecessor is down); and so on. So every live validator keeps producing on a quiet chain
 * (downtime jailing counts blocks without one), whatever the ratio of the idle period to the
 * schedule's round, and a validator that is down costs one round of delay, never a stall.
 */
export function idleTurn(
  set: readonly Address[],
  headProducer: Address | null,
  self: Address,
  idleFor: number,
  idleBlockMs: number,
  slotMs: number,
): boolean {
  if (idleFor < idleBlockMs) return false;
  const n = set.length;
  const i = headProducer === null ? -1 : set.indexOf(headProducer);
  const me = set.indexOf(self);
  if (n <= 1 || i < 0 || me < 0) return true;
  const distance = (me - i + n) % n || n; // 1: the next in order; n: the head's producer itself
  return idleFor >= idleBlockMs + (distance - 1) * n * slotMs;
}
