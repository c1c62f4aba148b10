/**
 * The slot clock: a tick at the start of every slot, where slots are the wall clock's
 * multiples of `slotMs` (consensus/slots.ts slotOf), plus a small offset. Re-armed from the
 * clock at every tick, so it neither drifts nor depends on when the process started: every
 * validator ticks at the same point of a slot, and the previous slot's block has nearly a
 * whole slot to arrive before the next producer builds on it. (A free-running setInterval
 * ticked at each process's own phase: a producer late in its slot followed by one early in
 * the next left ~100 ms for build, gossip and import, and forks or missed slots followed;
 * bench/finality.ts.)
 */
import type { Logger } from 'pino';
import type { ActorRef } from '../actorRef';
import type { ConsensusMsg, ConsensusReplies, HeadSink } from '../protocol';
import { slotOf, slotsOf } from '../../consensus/slots';
import type { Head } from '../../protocol/chain';
import type { Address } from '../../protocol/types';

export interface SlotClock {
  stop(): void;
}

/** How far into a slot the tick fires: past the boundary, so that the slot is the new one on every clock reading. */
export const SLOT_TICK_OFFSET_MS = 5;

export function startSlotClock(slotMs: number, tick: (now: number) => void, now: () => number = Date.now): SlotClock {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const arm = () => {
    const t = now();
    const next = (Math.floor(t / slotMs) + 1) * slotMs + SLOT_TICK_OFFSET_MS;
    timer = setTimeout(fire, next - t);
  };
  const fire = () => {
    if (stopped) return;
    arm(); // first: a tick that throws does not stop the clock
    tick(now());
  };
  arm();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The slot clock's tick handed to the consensus actor: a tick waits behind imports in its
 * mailbox rather than being dropped (its `now` keeps it in its slot); one is outstanding at a
 * time, and a tick that comes while one is still being handled (a long block) is given once
 * that one is done, for the slot current then.
 */
export function slotTicks(
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>,
  stopping: () => boolean,
  log: Logger,
  now: () => number = Date.now,
) {
  let pending = false;
  let deferred = false;
  const tick = (at: number): void => {
    if (pending) {
      deferred = true;
      return;
    }
    pending = true;
    consensus
      .ask({ type: 'slotTick', now: at })
      .catch((err) => log.debug({ err }, 'slot tick not handled'))
      .finally(() => {
        pending = false;
        if (deferred && !stopping()) {
          deferred = false;
          tick(now());
        }
      });
  };
  return tick;
}

/** The slot clock driving the consensus actor (slotTicks above), on the clock `now`. */
export function startConsensusClock(
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>,
  slotMs: number,
  stopping: () => boolean,
  log: Logger,
  now: () => number = Date.now,
): SlotClock {
  return startSlotClock(slotMs, slotTicks(consensus, stopping, log, now), now);
}

/** Missed slots since the node started (metrics): all of them, and this validator's. */
export interface SlotStats {
  missed: number;
  ownMissed: number;
}

/**
 * Counts the empty slots between each new head and its parent, and which of them were
 * `self`'s — from the second block on: the gap after genesis (or a restart) is not missed.
 * Returns the counts, kept up to date.
 */
export function countMissedSlots(
  view: Pick<HeadSink, 'head' | 'validators'> & { onHead(l: (h: Readonly<Head>) => void): unknown },
  slotMs: number,
  self: Address,
): Readonly<SlotStats> {
  const stats: SlotStats = { missed: 0, ownMissed: 0 };
  let last = view.head;
  view.onHead((h) => {
    if (h.height === last.height + 1 && last.height > 0) {
      const from = slotOf(last.timestamp, slotMs) + 1;
      const to = slotOf(h.timestamp, slotMs);
      stats.missed += Math.max(0, to - from);
      stats.ownMissed += slotsOf(view.validators.indexOf(self), view.validators.length, from, to);
    }
    last = h;
  });
  return stats;
}
