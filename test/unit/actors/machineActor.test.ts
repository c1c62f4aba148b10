import pino from 'pino';
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { ActorRef, MailboxFullError, MessageRefusedError } from '../../../src/actors/actorRef';
import { machineBehavior } from '../../../src/actors/machineActor';
import { Supervisor } from '../../../src/actors/supervisor';

/**
 * A turnstile: coins add credit while locked, a push passes when unlocked; `jam` throws in an action; `peek` only
 * reads.
 */
type Msg = { type: 'coin'; cents: number } | { type: 'push' } | { type: 'jam' } | { type: 'peek' };
type Replies = { coin: number; push: string; jam: void; peek: { state: string; passed: number } };

const turnstile = setup({
  types: {
    context: {} as { credit: number; passed: number; log: string[] },
    events: {} as Msg,
    input: {} as { price: number },
  },
  actions: {
    explode: () => {
      throw new Error('jammed');
    },
  },
}).createMachine({
  id: 'turnstile',
  initial: 'locked',
  context: { credit: 0, passed: 0, log: [] },
  states: {
    locked: {
      on: {
        coin: [
          {
            guard: ({ context, event }) => context.credit + event.cents >= 50,
            target: 'unlocked',
            actions: assign({ credit: 0, log: ({ context, event }) => [...context.log, `coin ${event.cents}`] }),
          },
          {
            actions: assign({
              credit: ({ context, event }) => context.credit + event.cents,
              log: ({ context, event }) => [...context.log, `coin ${event.cents}`],
            }),
          },
        ],
        jam: { actions: 'explode' },
      },
    },
    unlocked: {
      on: {
        push: {
          target: 'locked',
          actions: assign({
            passed: ({ context }) => context.passed + 1,
            log: ({ context }) => [...context.log, 'push'],
          }),
        },
      },
    },
  },
});

const log = pino({ level: 'silent' });
const behavior = () =>
  machineBehavior<typeof turnstile, Msg, Replies>({
    name: 'turnstile',
    machine: turnstile,
    queries: ['peek'],
    replies: {
      coin: (s) => s.context.credit,
      push: (s) => String(s.value),
      jam: () => undefined,
      peek: (s) => ({ state: String(s.value), passed: s.context.passed }),
    },
  });

describe('machineBehavior: an XState machine as an actor behaviour', () => {
  it('takes events in mailbox order and answers each with its typed reply', async () => {
    const ref = new ActorRef<Msg, Replies>('turnstile');
    const b = behavior();
    ref.attach(b);
    // Sent together: the mailbox serialises them in order.
    const replies = await Promise.all([
      ref.ask({ type: 'coin', cents: 20 }),
      ref.ask({ type: 'coin', cents: 20 }),
      ref.ask({ type: 'coin', cents: 10 }),
      ref.ask({ type: 'push' }),
    ]);
    expect(replies).toEqual([20, 40, 0, 'locked']);
    expect(b.snapshot().context.log).toEqual(['coin 20', 'coin 20', 'coin 10', 'push']);
    const peek: { state: string; passed: number } = await ref.ask({ type: 'peek' });
    expect(peek).toEqual({ state: 'locked', passed: 1 });
    await ref.stop();
  });

  it('refuses an event the state does not take, and keeps running', async () => {
    const ref = new ActorRef<Msg, Replies>('turnstile');
    ref.attach(behavior());
    const refused = await ref.ask({ type: 'push' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MessageRefusedError);
    expect((refused as Error).message).toBe('turnstile refused push: not accepted in state "locked"');
    expect(ref.running).toBe(true);
    expect(await ref.ask({ type: 'coin', cents: 5 })).toBe(5);
    await ref.stop();
  });

  it('an action that throws is a crash: the supervisor restarts the actor with a fresh machine', async () => {
    const ref = new ActorRef<Msg, Replies>('turnstile');
    let starts = 0;
    const sup = new Supervisor(
      log,
      () => {
        throw new Error('should not escalate');
      },
      { maxRestarts: 3, windowMs: 10_000, backoffMs: 1, maxBackoffMs: 5 },
    );
    await sup.startChild({ ref, start: async () => (starts++, behavior()) });
    expect(await ref.ask({ type: 'coin', cents: 30 })).toBe(30);
    await expect(ref.ask({ type: 'jam' })).rejects.toThrow('jammed');
    // Queued while the actor restarts: delivered to the fresh machine (credit starts at 0 again).
    expect(await ref.ask({ type: 'coin', cents: 10 })).toBe(10);
    expect(starts).toBe(2);
    expect(sup.status()[0].restarts).toBe(1);
    await sup.stop();
    await expect(ref.ask({ type: 'peek' })).rejects.toThrow(/stopped/);
  });

  it('stays inside the bounded mailbox', async () => {
    const ref = new ActorRef<Msg, Replies>('turnstile', 2);
    // no behaviour yet: they wait
    const queued = [ref.ask({ type: 'coin', cents: 1 }), ref.ask({ type: 'coin', cents: 2 })];
    await expect(ref.ask({ type: 'coin', cents: 3 })).rejects.toBeInstanceOf(MailboxFullError);
    ref.attach(behavior());
    expect(await Promise.all(queued)).toEqual([1, 3]);
    await ref.stop();
  });
});
