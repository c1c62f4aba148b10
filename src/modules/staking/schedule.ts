import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import type { Params } from '../../protocol/governable';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import { epochStep, type Epochs } from '../../consensus/checkpoints';
import { countingMembers } from '../../consensus/finality';
import { sameList } from './election';
import { jailCandidate } from './jail';
import { getCandidate, getValidatorSet } from './records';

/**
 * The schedule: the validator set in force for slots, finality and liveness, kept in
 * consensus state apart from the elected set (records.ts `consensus/validators`).
 *
 * - Finality is part of state: `finalizedHeight` advances by checkpoints
 *   (consensus/checkpoints.ts): epochs of n blocks, each block its producer's vote, a checkpoint
 *   justified by ⌊2n/3⌋+1 distinct counting members voting in its epoch, and final once the
 *   next epoch's checkpoint is justified from it. It never goes back.
 * - Every change of the elected set (an election, a jailing) waits in `pending` with the
 *   height that decided it, and schedules slots only once that height is final. Two sides of
 *   a partition can each elect or jail, but neither finalizes alone, so neither side's change
 *   ever takes effect on a chain of its own.
 * - Downtime: a scheduled member that produced nothing for JAIL_MISSED_ROUNDS rounds
 *   (rounds × n blocks, counted from when it entered the schedule) is jailed. Never with n = 1.
 * - Joining (docs/PROTOCOL.md "Validators"): a member that enters the set in force gets slots
 *   at once but counts in the finality rule only once it has shown it is alive — from the
 *   block where its first block is final. Until then it is `joining`: finality is decided by
 *   the other members alone, so an elected member that never runs a node cannot stop it.
 *   A joining member that produces nothing for JOINING_ROUNDS rounds is jailed and leaves
 *   the set in force at once (it never counted, so its leaving needs no finality; the set that
 *   counts still changes only from final state). When no member of a new set counted before
 *   (a set replaced whole), all of it counts: there is no one else to vouch for it.
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
  /**
   * Members of `active` that do not count for finality yet: in force from `since`, and the
   * height of their first block (null until they produce). Absent when none (so states from
   * before the rule, and genesis, encode as they did).
   */
  joining?: Record<Address, Joining>;
  /** The checkpoints (absent until the first block that counts them). */
  epochs?: Epochs;
}

export interface Joining {
  since: number;
  firstBlock: number | null;
}

/**
 * Rounds of the set in force (rounds × n blocks) a joining member may go without producing before it is jailed and
 * leaves.
 */
export const JOINING_ROUNDS = 4;

export const SCHEDULE_KEY = recordKey('schedule');

/**
 * The schedule in this state; a state written before the schedule existed reads its elected set as scheduled since
 * genesis.
 */
export async function getSchedule(s: ExecState): Promise<ScheduleRecord> {
  const r = await s.getRecord<ScheduleRecord>(SCHEDULE_KEY);
  if (r) return r;
  return { active: (await getValidatorSet(s)).active, since: 1, finalizedHeight: 0, lastProduced: {}, pending: [] };
}

/**
 * End of block `height` by `producer`, after its transactions and the election: records the
 * producer, advances finality, jails members down for too long, queues a changed elected
 * set, and brings into force the newest queued set whose deciding height is now final.
 */
export async function advanceSchedule(
  s: ExecState,
  p: Params,
  block: { height: number; producer: Address; abstain?: boolean },
  elected: () => Promise<ChainEvent[]>,
): Promise<ChainEvent[]> {
  const { height, producer } = block;
  const sch = await getSchedule(s);
  const events: ChainEvent[] = [];
  const lastProduced: Record<Address, number> = { ...sch.lastProduced, [producer]: height };
  const joining: Record<Address, Joining> = { ...sch.joining };
  if (joining[producer]?.firstBlock === null) joining[producer] = { ...joining[producer], firstBlock: height };
  const step = epochStep(sch.epochs, block, countingMembers(sch), sch.active.length, sch.finalizedHeight);
  const finalizedHeight = Math.max(sch.finalizedHeight, step.finalized ?? 0);
  // A joining member counts from the block where its first block is final.
  for (const [a, j] of Object.entries(joining))
    if (j.firstBlock !== null && j.firstBlock <= finalizedHeight) delete joining[a as Address];

  let active = sch.active;
  const n = sch.active.length;
  if (n > 1) {
    const window = Number(p.JAIL_MISSED_ROUNDS) * n;
    for (const v of sch.active) {
      const seen = Math.max(lastProduced[v] ?? 0, (joining[v]?.since ?? sch.since) - 1);
      const c = () => getCandidate(s, v);
      if (joining[v]) {
        if (height - seen < JOINING_ROUNDS * n) continue;
        // Never counted: it leaves the set in force now, not once this block is final.
        active = active.filter((a) => a !== v);
        delete joining[v];
        delete lastProduced[v];
        const cand = await c();
        if (cand && !cand.jailed) events.push(...(await jailCandidate(s, v, height, 'downtime')));
        continue;
      }
      if (height - seen < window) continue;
      const cand = await c();
      if (cand && !cand.jailed) events.push(...(await jailCandidate(s, v, height, 'downtime')));
    }
  }
  if (active !== sch.active)
    events.push({ kind: 'validators.schedule', height: height + 1, decidedAt: height, active, previous: sch.active });
  events.push(...(await elected()));

  const decided = (await getValidatorSet(s)).active;
  const pending = [...sch.pending];
  const latest = pending.at(-1)?.active ?? active;
  if (!sameList(latest, decided)) pending.push({ active: decided, decidedAt: height });

  let next: ScheduleRecord = { ...sch, active, lastProduced, finalizedHeight, pending, joining, epochs: step.epochs };
  const ready = pending.filter((x) => x.decidedAt <= finalizedHeight);
  if (ready.length > 0) {
    const chosen = ready[ready.length - 1];
    next = { ...next, pending: pending.filter((x) => x.decidedAt > finalizedHeight) };
    if (!sameList(chosen.active, active)) {
      const keep = new Set(chosen.active);
      // Only members keep a last-produced height: the record stays the size of the set.
      const kept = Object.fromEntries(Object.entries(lastProduced).filter(([a]) => keep.has(a as Address))) as Record<
        Address,
        number
      >;
      next = {
        ...next,
        active: chosen.active,
        since: height + 1,
        lastProduced: kept,
        joining: joiningOf(chosen.active, { active, joining }, height + 1),
      };
      events.push({
        kind: 'validators.schedule',
        height: height + 1,
        decidedAt: chosen.decidedAt,
        active: chosen.active,
        previous: active,
      });
    }
  }
  if (Object.keys(next.joining ?? {}).length === 0) delete next.joining;
  await s.putRecord(SCHEDULE_KEY, next);
  return events;
}

/**
 * Who joins when `incoming` comes into force at `since`: every member that did not count in
 * the set it replaces (members still joining keep their progress); nobody when no member of
 * `incoming` counted (a set replaced whole counts at once).
 */
function joiningOf(
  incoming: readonly Address[],
  before: Pick<ScheduleRecord, 'active' | 'joining'>,
  since: number,
): Record<Address, Joining> {
  const counted = new Set(countingMembers(before));
  if (!incoming.some((a) => counted.has(a))) return {};
  const out: Record<Address, Joining> = {};
  for (const a of incoming) if (!counted.has(a)) out[a] = before.joining?.[a] ?? { since, firstBlock: null };
  return out;
}
