/**
 * The kit's declarations (issue 25 item 2): status words checked against the machine, deadlines
 * declared per state as data, and the before-deadline hook (the governance recount) run for
 * every due instance before any DEADLINE of that height.
 */
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { defineMachine, statusesOf, type DeadlineEvent } from '../../../src/machines/define';
import { MachineError } from '../../../src/machines/errors';
import { createInstance, loadInstance } from '../../../src/machines/instance';
import { stateName } from '../../../src/machines/record';
import { machineRegistry } from '../../../src/machines/registry';
import { tickMachines } from '../../../src/machines/tick';
import { MACHINE_LIST, MACHINES } from '../../../src/modules/machines';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';

type Ev = { type: 'BUMP'; by: number } | DeadlineEvent;
interface Ctx {
  opensUntil: number;
  closesAt: number | null;
  bumps: number;
  seenAtDeadline: number | null;
}

/** OPEN (transient) → WAITING until opensUntil → CLOSING until closesAt → DONE; BUMP adds to a counter. */
const counter = setup({
  types: { context: {} as Ctx, events: {} as Ev, input: {} as { until: number } },
}).createMachine({
  id: 'counter',
  initial: 'OPEN',
  context: ({ input }) => ({ opensUntil: input.until, closesAt: null, bumps: 0, seenAtDeadline: null }),
  states: {
    OPEN: { always: { target: 'WAITING' } },
    WAITING: {
      on: {
        BUMP: {
          actions: assign({
            bumps: ({ context, event }) => context.bumps + (event as Extract<Ev, { type: 'BUMP' }>).by,
          }),
        },
        DEADLINE: {
          target: 'CLOSING',
          actions: assign({
            seenAtDeadline: ({ context }) => context.bumps,
            closesAt: ({ event }) => (event as DeadlineEvent).height + 2,
          }),
        },
      },
    },
    CLOSING: { on: { DEADLINE: 'DONE' } },
    DONE: { type: 'final' },
  },
});

describe('the machine kit: declarations', () => {
  it("status words must be exactly the machine's states, transient ones left out", () => {
    expect(statusesOf(counter, ['WAITING', 'CLOSING', 'DONE'], ['OPEN'])).toEqual(['WAITING', 'CLOSING', 'DONE']);
    expect(() => statusesOf(counter, ['WAITING', 'DONE'], ['OPEN'])).toThrow(
      /status words DONE, WAITING are not its states CLOSING, DONE, WAITING/,
    );
    // OPEN is a state: it must be named transient
    expect(() => statusesOf(counter, ['WAITING', 'CLOSING', 'DONE'])).toThrow(MachineError);
    expect(() => statusesOf(counter, ['OPEN', 'CLOSING', 'DONE'], ['WAITING'])).toThrow(
      /WAITING is not a transient state/,
    );
    // Every on-chain machine of the list carries its checked words and its deadline table.
    for (const m of MACHINE_LIST.filter((e) => e.onChain)) {
      expect(m.statuses?.length, m.name).toBeGreaterThan(2);
      expect(
        Object.keys(m.deadlines ?? {}).every((s) => m.statuses!.includes(s)),
        m.name,
      ).toBe(true);
    }
    expect([...MACHINES.keys()]).toEqual(MACHINE_LIST.filter((e) => e.onChain).map((e) => e.name));
  });

  it(
    'deadlines declared per state: the table is the deadline; ' +
      'a state it does not name has none; a bad state name is refused',
    async () => {
      const def = defineMachine({
        name: 'counter',
        version: 1,
        machine: counter,
        deadlines: { WAITING: 'opensUntil', CLOSING: 'closesAt' },
        effects: {},
      });
      const s = await StateTrie.open(new MemoryKv(), null);
      await createInstance(s, def, 'c', { until: 5 }, 1);
      expect(def.deadline!((await loadInstance(s, def, 'c'))!)).toBe(5);
      const reg = machineRegistry([def]);
      await tickMachines(s, reg, 5);
      const closing = (await loadInstance(s, def, 'c'))!;
      expect([stateName(closing.value), def.deadline!(closing)]).toEqual(['CLOSING', 7]);
      await tickMachines(s, reg, 7);
      const done = (await loadInstance(s, def, 'c'))!;
      expect([stateName(done.value), def.deadline!(done)]).toEqual(['DONE', null]);
      expect(() =>
        defineMachine({
          name: 'x',
          version: 1,
          machine: counter,
          deadlines: { NOPE: 'opensUntil' } as never,
          effects: {},
        }),
      ).toThrow(/deadlines names state NOPE/);
    },
  );

  it(
    "beforeDeadline: each due instance takes its hook's event before any DEADLINE of the height " +
      '(the recount a decision must see)',
    async () => {
      const order: string[] = [];
      const def = defineMachine({
        name: 'counter',
        version: 1,
        machine: counter,
        deadlines: { WAITING: 'opensUntil', CLOSING: 'closesAt' },
        effects: {},
        beforeDeadline: async ({ id }, snap) => {
          order.push(`before ${id} ${stateName(snap.value)}`);
          return snap.matches('WAITING') ? { type: 'BUMP', by: 10 } : undefined;
        },
      });
      const s = await StateTrie.open(new MemoryKv(), null);
      for (const id of ['a', 'b']) await createInstance(s, def, id, { until: 3 }, 1);
      const { events } = await tickMachines(s, machineRegistry([def]), 3);
      expect(order).toEqual(['before a WAITING', 'before b WAITING']);
      // Both BUMPs (context steps) come before both DEADLINEs, and each DEADLINE saw its bump.
      expect(events.map((e) => (e.kind === 'machine.transition' ? `${e.id} ${e.event}` : e.kind))).toEqual([
        'a BUMP',
        'b BUMP',
        'a DEADLINE',
        'b DEADLINE',
      ]);
      for (const id of ['a', 'b']) expect((await loadInstance(s, def, id))!.context.seenAtDeadline).toBe(10);
    },
  );
});
