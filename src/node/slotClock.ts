/**
 * The slot clock: a tick at the start of every slot, where slots are the wall clock's
 * multiples of `slotMs` (protocol/slots: slotOf), plus a small offset. Re-armed from the
 * clock at every tick, so it neither drifts nor depends on when the process started: every
 * validator ticks at the same point of a slot, and the previous slot's block has nearly a
 * whole slot to arrive before the next producer builds on it. (A free-running setInterval
 * ticked at each process's own phase: a producer late in its slot followed by one early in
 * the next left ~100 ms for build, gossip and import, and forks or missed slots followed;
 * bench/finality.ts.)
 */
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
