import { describe, expect, it } from 'vitest';
import { assign, createMachine, initialTransition, setup } from 'xstate';
import { finishBlock } from '../../../src/chain/finishBlock';
import { defineMachine, effect, type DeadlineEvent } from '../../../src/machines/define';
import { dueKey, moveDeadline, readDue } from '../../../src/machines/dueIndex';
import { MachineError } from '../../../src/machines/errors';
import { createInstance, loadInstance, sendEvent } from '../../../src/machines/instance';
import { machineKey, stateName, type MachineRecord } from '../../../src/machines/record';
import { machineRegistry } from '../../../src/machines/registry';
import { MACHINES } from '../../../src/modules/machines';
import { tickMachines } from '../../../src/machines/tick';
import { TxFailure } from '../../../src/protocol/handler';
import type { ExecState } from '../../../src/protocol/execState';
import type { Address } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { walkMachine } from '../../helpers/machineWalk';
import {
  AUCTION_STATES,
  BLOCKED_SELLER,
  CLAIM_WINDOW,
  auctionDef,
  auctionMachine,
  type AuctionEvent,
} from '../../helpers/testMachine';

const addr = (b: string) => `0x${b.repeat(20)}` as Address;
const SELLER = addr('5e');
const ALICE = addr('a1');
const BOB = addr('b0');
const registry = machineRegistry([auctionDef]);

const freshState = () => StateTrie.open(new MemoryKv(), null);
const balanceOf = async (s: ExecState, a: Address) => (await s.getAccount(a))?.balance ?? 0n;
const bid = (bidder: Address, amount: number): AuctionEvent => ({ type: 'BID', bidder, amount: String(amount) });

async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a refusal');
}

/** An auction `a1` by SELLER, reserve 100, ending at height 10, created at height 1. */
async function withAuction(seller = SELLER) {
  const state = await freshState();
  await createInstance(state, auctionDef, 'a1', { seller, reserve: '100', endsAt: 10 }, 1);
  return state;
}

describe('on-chain machine helper: records', () => {
  it('stores {machine, version, value, context} under mach/<name>/<id> and reports the creation', async () => {
    const state = await freshState();
    const step = await createInstance(state, auctionDef, 'a1', { seller: SELLER, reserve: '100', endsAt: 10 }, 1);
    expect(step.events).toEqual([
      {
        kind: 'machine.transition',
        machine: 'auction',
        id: 'a1',
        from: '',
        to: 'open.waiting',
        event: 'xstate.init',
        height: 1,
      },
    ]);
    const rec = await state.getRecord<MachineRecord>(machineKey('auction', 'a1'));
    expect(machineKey('auction', 'a1')).toBe('mach/auction/a1');
    expect(rec).toEqual({
      machine: 'auction',
      version: 1,
      value: { open: 'waiting' },
      context: { seller: SELLER, reserve: '100', endsAt: 10, claimBy: null, winner: null, bid: '0', failure: null },
    });
    expect(await readDue(state, 10)).toEqual([{ machine: 'auction', id: 'a1' }]);
  });

  it('restores with resolveState: the loaded snapshot takes the same events', async () => {
    const state = await withAuction();
    const s = (await loadInstance(state, auctionDef, 'a1'))!;
    expect(stateName(s.value)).toBe('open.waiting');
    expect(s.can(bid(ALICE, 100))).toBe(true);
    expect(s.can(bid(ALICE, 99))).toBe(false);
    expect(await loadInstance(state, auctionDef, 'nope')).toBeUndefined();
  });

  it('refuses a second instance with the same id, and events for one that does not exist', async () => {
    const state = await withAuction();
    expect(
      await refusal(createInstance(state, auctionDef, 'a1', { seller: SELLER, reserve: '1', endsAt: 5 }, 2)),
    ).toMatchObject({ reason: 'auction a1 already exists' });
    expect(await refusal(sendEvent(state, auctionDef, 'a2', bid(ALICE, 100), 2))).toMatchObject({
      reason: 'auction a2 does not exist',
    });
  });

  it('halts on a record of another version instead of reloading it', async () => {
    const state = await withAuction();
    const v2 = { ...auctionDef, version: 2 };
    for (const p of [
      loadInstance(state, v2, 'a1'),
      sendEvent(state, v2, 'a1', bid(ALICE, 100), 2),
      tickMachines(state, machineRegistry([v2]), 10),
    ]) {
      const e = await refusal(p);
      expect(e).toBeInstanceOf(MachineError);
      expect(e).not.toBeInstanceOf(TxFailure);
      expect((e as MachineError).code).toBe('MACHINE_UNKNOWN_VERSION');
    }
  });

  it('halts on a stored state the definition does not have', async () => {
    const state = await freshState();
    await state.putRecord(machineKey('auction', 'x'), { machine: 'auction', version: 1, value: 'gone', context: {} });
    expect(((await refusal(loadInstance(state, auctionDef, 'x'))) as MachineError).code).toBe('MACHINE_BAD_RECORD');
  });
});

describe('on-chain machine helper: events', () => {
  it('applies an accepted event: new record, a transition event, effects in order', async () => {
    const state = await withAuction();
    const first = await sendEvent(state, auctionDef, 'a1', bid(ALICE, 100), 2);
    expect(first.effects).toEqual([]);
    expect(first.events).toEqual([
      {
        kind: 'machine.transition',
        machine: 'auction',
        id: 'a1',
        from: 'open.waiting',
        to: 'open.leading',
        event: 'BID',
        height: 2,
      },
    ]);
    const second = await sendEvent(state, auctionDef, 'a1', bid(BOB, 150), 3);
    // a self-transition (context only) is reported too: from === to
    expect(second.events[0]).toMatchObject({ from: 'open.leading', to: 'open.leading', event: 'BID', height: 3 });
    expect(second.effects).toEqual([{ type: 'refund', params: { to: ALICE, amount: '100' } }]);
    expect(await balanceOf(state, ALICE)).toBe(100n);
    expect(second.snapshot.context).toMatchObject({ winner: BOB, bid: '150' });
  });

  it(
    'an event the state does not take is a TxFailure naming machine, ' + 'id, state and event, and writes nothing',
    async () => {
      const state = await withAuction();
      await sendEvent(state, auctionDef, 'a1', bid(ALICE, 100), 2);
      const root = state.root();
      // a guard refuses it
      expect(await refusal(sendEvent(state, auctionDef, 'a1', bid(BOB, 100), 3))).toMatchObject({
        reason: 'auction a1 in state open.leading does not take BID',
      });
      // no such transition in this state
      expect(await refusal(sendEvent(state, auctionDef, 'a1', { type: 'CANCEL', by: SELLER }, 3))).toMatchObject({
        reason: 'auction a1 in state open.leading does not take CANCEL',
      });
      expect(state.root()).toBe(root);
    },
  );

  it('a deadline before the current height is a TxFailure in a transaction', async () => {
    const state = await freshState();
    expect(
      await refusal(createInstance(state, auctionDef, 'a1', { seller: SELLER, reserve: '1', endsAt: 4 }, 5)),
    ).toMatchObject({ reason: 'auction a1 in state open.waiting sets a deadline at 4, before height 5' });
  });
});

describe('on-chain machine helper: deadlines and the tick', () => {
  it('ticks only the instances due at a height, moving their deadline', async () => {
    const state = await withAuction();
    await sendEvent(state, auctionDef, 'a1', bid(ALICE, 120), 2);
    for (let h = 2; h < 10; h++) expect(await tickMachines(state, registry, h)).toEqual({ events: [], ticked: 0 });

    const t = await tickMachines(state, registry, 10);
    expect(t.ticked).toBe(1);
    expect(t.events).toEqual([
      {
        kind: 'machine.transition',
        machine: 'auction',
        id: 'a1',
        from: 'open.leading',
        to: 'settling',
        event: 'DEADLINE',
        height: 10,
      },
    ]);
    expect(await state.getRecord(dueKey(10))).toBeUndefined();
    expect(await readDue(state, 10 + CLAIM_WINDOW)).toEqual([{ machine: 'auction', id: 'a1' }]);

    const end = await tickMachines(state, registry, 10 + CLAIM_WINDOW);
    expect(end.events[0]).toMatchObject({ from: 'settling', to: 'closed' });
    expect(await balanceOf(state, SELLER)).toBe(120n);
    expect(await readDue(state, 10 + CLAIM_WINDOW)).toBeUndefined();
  });

  it('an event that moves the state removes it from the index', async () => {
    const state = await withAuction();
    await sendEvent(state, auctionDef, 'a1', { type: 'CANCEL', by: SELLER }, 2);
    expect(await readDue(state, 10)).toBeUndefined();
    expect(stateName((await loadInstance(state, auctionDef, 'a1'))!.value)).toBe('cancelled');
  });

  it('visits due instances in (machine, id) order whatever order they were created in', async () => {
    const state = await freshState();
    for (const id of ['c', 'a', 'b'])
      await createInstance(state, auctionDef, id, { seller: SELLER, reserve: '1', endsAt: 7 }, 1);
    expect(await readDue(state, 7)).toEqual(['a', 'b', 'c'].map((id) => ({ machine: 'auction', id })));
    expect(
      (await tickMachines(state, registry, 7)).events.map((e) => (e.kind === 'machine.transition' ? e.id : '')),
    ).toEqual(['a', 'b', 'c']);
  });

  it('a failed effect in the tick is undone and replaced by onTickFailure’s event', async () => {
    const state = await withAuction(BLOCKED_SELLER);
    await sendEvent(state, auctionDef, 'a1', bid(ALICE, 130), 2);
    await tickMachines(state, registry, 10);
    const t = await tickMachines(state, registry, 10 + CLAIM_WINDOW);
    expect(t.events.map((e) => (e.kind === 'machine.transition' ? `${e.from}→${e.to} ${e.event}` : ''))).toEqual([
      'settling→defaulted PAYOUT_FAILED',
    ]);
    const s = (await loadInstance(state, auctionDef, 'a1'))!;
    expect(s.context.failure).toBe('seller is blocked');
    expect(await balanceOf(state, ALICE)).toBe(130n);
    expect(await balanceOf(state, BLOCKED_SELLER)).toBe(0n);
  });

  it('the same failure in a transaction fails the transaction', async () => {
    const state = await withAuction(BLOCKED_SELLER);
    await sendEvent(state, auctionDef, 'a1', bid(ALICE, 130), 2);
    await tickMachines(state, registry, 10);
    expect(await refusal(sendEvent(state, auctionDef, 'a1', { type: 'CLAIM', by: ALICE }, 11))).toMatchObject({
      reason: 'seller is blocked',
    });
  });

  it('halts when a due machine is not registered, or refuses its DEADLINE', async () => {
    const state = await withAuction();
    expect(((await refusal(tickMachines(state, machineRegistry([]), 10))) as MachineError).code).toBe(
      'MACHINE_NOT_REGISTERED',
    );

    // A definition whose deadline names a height its state does not take DEADLINE at.
    const stubborn = defineMachine({
      name: 'stubborn',
      version: 1,
      machine: setup({ types: { events: {} as DeadlineEvent | { type: 'GO' } } }).createMachine({
        initial: 'a',
        states: { a: { on: { GO: 'b' } }, b: {} },
      }),
      deadline: () => 3,
      effects: {},
    });
    const s2 = await freshState();
    await createInstance(s2, stubborn, 'x', undefined, 1);
    const e = (await refusal(tickMachines(s2, machineRegistry([stubborn]), 3))) as MachineError;
    expect(e.code).toBe('MACHINE_TICK_FAILED');
    expect(e.message).toBe('stubborn x in state a does not take DEADLINE');
  });

  it('halts when a tick would schedule at the height it is ticking', async () => {
    const again = defineMachine({
      name: 'again',
      version: 1,
      machine: setup({ types: { events: {} as DeadlineEvent, context: {} as { n: number } } }).createMachine({
        context: { n: 0 },
        initial: 'a',
        states: { a: { on: { DEADLINE: { actions: assign({ n: ({ context }) => context.n + 1 }) } } } },
      }),
      deadline: () => 3,
      effects: {},
    });
    const state = await freshState();
    await createInstance(state, again, 'x', undefined, 1);
    expect(((await refusal(tickMachines(state, machineRegistry([again]), 3))) as MachineError).code).toBe(
      'MACHINE_BAD_DEADLINE',
    );
  });

  it('keeps the due entries sorted and unique', async () => {
    const state = await freshState();
    await moveDeadline(state, { machine: 'm', id: 'b' }, null, 5);
    await moveDeadline(state, { machine: 'm', id: 'a' }, null, 5);
    await moveDeadline(state, { machine: 'm', id: 'a' }, null, 5);
    await moveDeadline(state, { machine: 'l', id: 'z' }, null, 5);
    expect(await readDue(state, 5)).toEqual([
      { machine: 'l', id: 'z' },
      { machine: 'm', id: 'a' },
      { machine: 'm', id: 'b' },
    ]);
    await moveDeadline(state, { machine: 'm', id: 'a' }, 5, 6);
    await moveDeadline(state, { machine: 'm', id: 'q' }, 5, null); // not there: no write
    expect(await readDue(state, 5)).toEqual([
      { machine: 'l', id: 'z' },
      { machine: 'm', id: 'b' },
    ]);
    expect(await readDue(state, 6)).toEqual([{ machine: 'm', id: 'a' }]);
    await moveDeadline(state, { machine: 'm', id: 'a' }, 6, null);
    expect(await state.getRecord(dueKey(6))).toBeUndefined();
  });
});

describe('on-chain machine helper: finishBlock', () => {
  const block = (height: number) => ({ height, producer: addr('99'), burned: 0n });

  it('ticks the registry at the end of the block and returns its events', async () => {
    const state = await withAuction();
    expect(await finishBlock(state, block(9), registry)).toEqual([]);
    expect((await finishBlock(state, block(10), registry)).map((e) => e.kind)).toEqual(['machine.transition']);
  });

  it('the production registry holds every on-chain machine; a block with nothing due ticks nothing', async () => {
    expect([...MACHINES.keys()]).toEqual(expect.arrayContaining(['proposal', 'permissionChange', 'aiTask']));
    expect(await finishBlock(await freshState(), block(1))).toEqual([]);
  });

  it('costs one read per block when nothing is due (timing printed, not asserted)', async () => {
    const state = await freshState();
    // a state with some machines due elsewhere
    for (let i = 0; i < 200; i++)
      await createInstance(state, auctionDef, `a${i}`, { seller: SELLER, reserve: '1', endsAt: 100_000 + i }, 1);
    let reads = 0;
    const counting: ExecState = new Proxy(state, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (p === 'getRecord') return (k: string) => (reads++, (v as ExecState['getRecord']).call(t, k));
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    expect(await tickMachines(counting, registry, 50)).toEqual({ events: [], ticked: 0 });
    expect(reads).toBe(1);

    const N = 20_000;
    for (let h = 1; h <= 1000; h++) await tickMachines(state, registry, h); // warm up
    const t0 = process.hrtime.bigint();
    for (let h = 1; h <= N; h++) await tickMachines(state, registry, h);
    const tick = Number(process.hrtime.bigint() - t0) / 1000 / N;
    const t1 = process.hrtime.bigint();
    for (let h = 1; h <= N; h++) await finishBlock(state, block(h), registry);
    const finish = Number(process.hrtime.bigint() - t1) / 1000 / N;
    console.log(
      `machine tick with nothing due: ${tick.toFixed(2)} µs/block; whole finishBlock: ${finish.toFixed(2)} µs/block`,
    );
  });
});

describe('on-chain machine helper: definitions', () => {
  it('refuses what cannot run on-chain', () => {
    const plain = createMachine({ initial: 'a', states: { a: {} } });
    const bad = (def: object) => {
      try {
        defineMachine({ name: 'm', version: 1, effects: {}, machine: plain, ...def } as never);
      } catch (e) {
        return (e as MachineError).code;
      }
      return 'accepted';
    };
    expect(bad({})).toBe('accepted');
    expect(bad({ name: 'a/b' })).toBe('MACHINE_BAD_DEFINITION');
    expect(bad({ version: 0 })).toBe('MACHINE_BAD_DEFINITION');
    expect(bad({ machine: createMachine({ initial: 'a', states: { a: { after: { 1000: 'b' } }, b: {} } }) })).toBe(
      'MACHINE_BAD_DEFINITION',
    );
    expect(
      bad({ machine: createMachine({ initial: 'a', states: { a: { invoke: { src: createMachine({}) } } } }) }),
    ).toBe('MACHINE_BAD_DEFINITION');
    expect(
      bad({
        machine: createMachine({
          initial: 'a',
          states: { a: { initial: 'x', states: { x: {}, h: { type: 'history' } } } },
        }),
      }),
    ).toBe('MACHINE_BAD_DEFINITION');
    expect(() => machineRegistry([auctionDef, auctionDef])).toThrow(MachineError);
  });

  it('types: an applier per named action, params as declared, deadlines only with DEADLINE events', () => {
    const m = setup({
      types: { events: {} as { type: 'GO' } },
      actions: { pay: effect<{ amount: string }>() },
    }).createMachine({
      initial: 'a',
      states: { a: { on: { GO: { actions: { type: 'pay', params: { amount: '1' } } } } } },
    });
    // @ts-expect-error the applier of `pay` is missing
    defineMachine({ name: 'm', version: 1, machine: m, effects: {} });
    // @ts-expect-error `amount` is a string
    defineMachine({ name: 'm', version: 1, machine: m, effects: { pay: async (_c, p: { amount: number }) => void p } });
    // @ts-expect-error this machine takes no DEADLINE, so it cannot have a deadline
    defineMachine({ name: 'm', version: 1, machine: m, effects: { pay: async () => {} }, deadline: () => 1 });
    expect(defineMachine({ name: 'm', version: 1, machine: m, effects: { pay: async () => {} } }).name).toBe('m');
  });

  it('names nested and parallel states with dots and commas', () => {
    expect(stateName('a')).toBe('a');
    expect(stateName({ open: 'leading' })).toBe('open.leading');
    expect(stateName({ p: { x: 'one', y: { deep: 'two' } } })).toBe('p.x.one,p.y.deep.two');
  });
});

describe('the test auction machine', () => {
  it('reaches every state through transition, and can() agrees with transition on every step', () => {
    const [start] = initialTransition(auctionMachine, { seller: SELLER, reserve: '100', endsAt: 10 });
    const alphabet = (): AuctionEvent[] => [
      bid(ALICE, 99),
      bid(ALICE, 100),
      bid(BOB, 150),
      { type: 'CANCEL', by: SELLER },
      { type: 'CANCEL', by: ALICE },
      { type: 'CLAIM', by: ALICE },
      { type: 'CLAIM', by: BOB },
      { type: 'DEADLINE', height: 10 },
      { type: 'PAYOUT_FAILED', reason: 'x' },
    ];
    const walk = walkMachine(auctionMachine, start, alphabet, 6);
    expect([...walk.states].sort()).toEqual([...AUCTION_STATES].sort());
    expect(walk.disagreements).toEqual([]);
  });
});
