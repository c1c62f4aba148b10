import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import type { Params } from '../../protocol/governable';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import { sameList } from './election';
import { jailCandidate } from './jail';
import { getCandidate, getValidatorSet } from './records';

/**
 * The schedule: the validator set in force for slots, finality and liveness, kept in
 * consensus state apart from the elected set (records.ts `consensus/validators`).
 *
 * - Finality is part of state: `finalizedHeight` advances when ⌊2n/3⌋+1 distinct members of
 *   the scheduled set (n members) have produced above a block; it never goes back. With
 *   each member's last produced height, the final height is the (⌊2n/3⌋+1)-th highest of
 *   them, minus one.
 * - Every change of the elected set (an election, a jailing) waits in `pending` with the
 *   height that decided it, and schedules slots only once that height is final. Two sides of
 *   a partition can each elect or jail, but neither finalizes alone, so neither side's change
 *   ever takes effect on a chain of its own.
 * - Downtime: a scheduled member that produced nothing for JAIL_MISSED_ROUNDS rounds
 *   (rounds × n blocks, counted from when it entered the schedule) is jailed. Never with n = 1.
 */
export interface ScheduleRecord {
  /** The set in force: slot producer of slot s = active[s mod n]. */
  active: Address[];
  /** Height of the first block this set scheduled. */
  since: number;
  finalizedHeight: number;
  /** Members' last produced height (members of earlier schedules stay until they leave). */
  lastProduced: Record<Address, number>;
  /** Elected sets waiting for finality, oldest first. */
  pending: { active: Address[]; decidedAt: number }[];
}

export const SCHEDULE_KEY = recordKey('schedule');

/** ⌊2n/3⌋+1 distinct members must have produced above a block for it to be final. */
export const finalityThreshold = (n: number): number => Math.floor((2 * n) / 3) + 1;

/** The schedule in this state; a state written before the schedule existed reads its elected set as scheduled since genesis. */
export async function getSchedule(s: ExecState): Promise<ScheduleRecord> {
  const r = await s.getRecord<ScheduleRecord>(SCHEDULE_KEY);
  if (r) return r;
  return { active: (await getValidatorSet(s)).active, since: 1, finalizedHeight: 0, lastProduced: {}, pending: [] };
}

/** Final height under `active` given the members' last produced heights; never below `previous`. */
export function finalizedFrom(active: readonly Address[], lastProduced: Readonly<Record<Address, number>>, previous: number): number {
  const need = finalityThreshold(active.length);
  const heights = active.map((a) => lastProduced[a] ?? 0).sort((x, y) => y - x);
  const h = heights[need - 1] ?? 0;
  return Math.max(previous, h - 1);
}

/**
 * End of block `height` by `producer`, after its transactions and the election: records the
 * producer, advances finality, jails members down for too long, queues a changed elected
 * set, and brings into force the newest queued set whose deciding height is now final.
 */
export async function advanceSchedule(s: ExecState, p: Params, height: number, producer: Address, elected: () => Promise<ChainEvent[]>): Promise<ChainEvent[]> {
  const sch = await getSchedule(s);
  const events: ChainEvent[] = [];
  const lastProduced: Record<Address, number> = { ...sch.lastProduced, [producer]: height };
  const finalizedHeight = finalizedFrom(sch.active, lastProduced, sch.finalizedHeight);

  const n = sch.active.length;
  if (n > 1) {
    const window = Number(p.JAIL_MISSED_ROUNDS) * n;
    for (const v of sch.active) {
      const seen = Math.max(lastProduced[v] ?? 0, sch.since - 1);
      if (height - seen < window) continue;
      const c = await getCandidate(s, v);
      if (c && !c.jailed) events.push(...(await jailCandidate(s, v, height, 'downtime')));
    }
  }
  events.push(...(await elected()));

  const decided = (await getValidatorSet(s)).active;
  const pending = [...sch.pending];
  const latest = pending.at(-1)?.active ?? sch.active;
  if (!sameList(latest, decided)) pending.push({ active: decided, decidedAt: height });

  let next: ScheduleRecord = { ...sch, lastProduced, finalizedHeight, pending };
  const ready = pending.filter((x) => x.decidedAt <= finalizedHeight);
  if (ready.length > 0) {
    const chosen = ready[ready.length - 1];
    next = { ...next, pending: pending.filter((x) => x.decidedAt > finalizedHeight) };
    if (!sameList(chosen.active, sch.active)) {
      const keep = new Set(chosen.active);
      // Only members keep a last-produced height: the record stays the size of the set.
      const kept = Object.fromEntries(Object.entries(lastProduced).filter(([a]) => keep.has(a as Address))) as Record<Address, number>;
      next = { ...next, active: chosen.active, since: height + 1, lastProduced: kept };
      events.push({ kind: 'validators.schedule', height: height + 1, decidedAt: chosen.decidedAt, active: chosen.active, previous: sch.active });
    }
  }
  await s.putRecord(SCHEDULE_KEY, next);
  return events;
}
