import { refusals } from '../protocol/refusal';

/** The kit's own refusals of a transaction (a machine's rules give their own codes first). */
export const MACHINE = refusals('machines', {
  MACHINE_INSTANCE_EXISTS: (m: { machine: string; id: string }) => `${m.machine} ${m.id} already exists`,
  MACHINE_INSTANCE_MISSING: (m: { machine: string; id: string }) => `${m.machine} ${m.id} does not exist`,
  /** No rule of the event refused it: the state itself does not take it. */
  MACHINE_EVENT_REFUSED: (m: { machine: string; id: string; status: string; event: string }) =>
    `${m.machine} ${m.id} in state ${m.status} does not take ${m.event}`,
  MACHINE_DEADLINE_PAST: (m: { machine: string; id: string; status: string; deadline: number; earliest: number }) =>
    `${m.machine} ${m.id} in state ${m.status} sets a deadline at ${m.deadline}, before height ${m.earliest}`,
});
