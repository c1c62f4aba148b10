import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ActorRef, behaviorOf, MailboxFullError } from '../../../src/actors/actorRef';
import { Supervisor } from '../../../src/actors/supervisor';

type Msg = { type: 'add'; n: number } | { type: 'get' };
type Replies = { add: number; get: number };
const log = pino({ level: 'silent' });
const fast = { maxRestarts: 3, windowMs: 10_000, backoffMs: 1, maxBackoffMs: 5 };

function counter(starts: { n: number }) {
  starts.n++;
  let total = 0;
  return behaviorOf<Msg, Replies>({ add: (m) => (total += m.n), get: () => total });
}

describe('supervisor', () => {
  it('restarts a crashed permanent child and keeps queued messages', async () => {
    const starts = { n: 0 };
    const ref = new ActorRef<Msg, Replies>('counter');
    const sup = new Supervisor(
      log,
      () => {
        throw new Error('should not escalate');
      },
      fast,
    );
    await sup.startChild({ ref, start: async () => counter(starts) });
    expect(await ref.ask({ type: 'add', n: 2 })).toBe(2);
    await expect(ref.injectFault()).rejects.toThrow(/injected fault/);
    expect(await ref.ask({ type: 'add', n: 5 })).toBe(5); // waited in the mailbox; fresh behaviour
    expect(starts.n).toBe(2);
    expect(sup.status()[0].restarts).toBe(1);
    await sup.stop();
  });
  it('escalates a crash of a critical child without restarting it', async () => {
    const ref = new ActorRef<Msg, Replies>('critical');
    let escalated = '';
    const sup = new Supervisor(
      log,
      (r) => {
        escalated = r;
      },
      fast,
    );
    await sup.startChild({ ref, start: async () => counter({ n: 0 }), critical: true });
    await expect(ref.injectFault()).rejects.toThrow();
    expect(escalated).toMatch(/critical actor critical crashed/);
    expect(ref.running).toBe(false);
    await sup.stop();
  });
  it('escalates when a child keeps crashing', async () => {
    const ref = new ActorRef<Msg, Replies>('flaky');
    let escalated = '';
    const sup = new Supervisor(
      log,
      (r) => {
        escalated = r;
      },
      fast,
    );
    await sup.startChild({ ref, start: async () => counter({ n: 0 }) });
    for (let i = 0; i < 4; i++) {
      await expect(ref.injectFault()).rejects.toThrow();
      expect(ref.running).toBe(false); // the crash detached the behaviour at once
      // Wait for the restart itself (not for a guessed time); the fourth crash escalates instead.
      if (i < 3) await expect.poll(() => sup.status()[0].restarts, { interval: 1 }).toBe(i + 1);
    }
    expect(escalated).toMatch(/crashed 4 times/);
    await sup.stop();
  });
  it('bounds the mailbox', async () => {
    const ref = new ActorRef<Msg, Replies>('small', 1); // no behaviour attached: messages stay queued
    ref.send({ type: 'get' });
    await expect(ref.ask({ type: 'get' })).rejects.toBeInstanceOf(MailboxFullError);
    expect(ref.dropped).toBe(1);
    await ref.stop();
  });
});
