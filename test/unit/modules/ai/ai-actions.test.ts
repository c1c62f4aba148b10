import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { taskActions } from '../../../../src/modules/ai/actions';
import { taskMachine, type TaskEvent, type TaskInput } from '../../../../src/modules/ai/machine';
import type { Address } from '../../../../src/protocol/types';

/**
 * GET /ai/tasks/:id?for=<address> answers `actions` from the task's own rules
 * (modules/ai/actions.ts): what that address may send from the next block, with its window.
 */
const addr = (b: string) => `0x${b.repeat(20)}` as Address;
const [U, O1, O2, O3, J] = [addr('01'), addr('0a'), addr('0b'), addr('0c'), addr('0d')];
const INPUT: TaskInput = {
  requester: U,
  prompt: 'p',
  mode: 'quorum',
  aggregate: 'exact',
  reward: '90',
  quorum: 2,
  oracle: null,
  createdAt: 10,
  windows: { commit: 5, reveal: 5, bid: 5, expiry: 5, challenge: 5, verdict: 5 },
  maxCommitters: 2,
  maxJurors: 3,
};
const run = (input: TaskInput, events: TaskEvent[]) =>
  events.reduce((s, e) => transition(taskMachine, s, e)[0], initialTransition(taskMachine, input)[0]);
const types = (s: ReturnType<typeof run>, who: Address, height: number) =>
  taskActions('t', s, who, height).map((a) => a.type);

describe('task actions (?for=)', () => {
  it(
    'quorum: a seat while the commit window is open, ' + 'the reveal for committers, then challenge and claim windows',
    () => {
      const open = run(INPUT, []);
      expect(taskActions('t', open, O1, 11)).toEqual([{ type: 'AI_COMMIT', from: 11, until: 15 }]);
      expect(types(open, U, 11)).toEqual([]); // the requester cannot answer its own task
      const committed = run(INPUT, [{ type: 'COMMIT', oracle: O1, commit: '0x01', height: 11 }]);
      expect(types(committed, O1, 12)).toEqual([]); // already committed; the reveal waits for the window
      expect(types(committed, O2, 12)).toEqual(['AI_COMMIT']);
      const full = run(INPUT, [
        { type: 'COMMIT', oracle: O1, commit: '0x01', height: 11 },
        { type: 'COMMIT', oracle: O2, commit: '0x02', height: 11 },
      ]);
      expect(types(full, O3, 12)).toEqual([]); // every seat taken
      const reveal = run(INPUT, [
        { type: 'COMMIT', oracle: O1, commit: '0x01', height: 11 },
        { type: 'COMMIT', oracle: O2, commit: '0x02', height: 11 },
        { type: 'DEADLINE', height: 11 },
      ]);
      expect(taskActions('t', reveal, O1, 12)).toEqual([{ type: 'AI_REVEAL', from: 12, until: 16 }]);
      expect(types(reveal, O3, 12)).toEqual([]);
      const decided = transition(
        taskMachine,
        transition(
          taskMachine,
          transition(taskMachine, reveal, { type: 'REVEAL', oracle: O1, output: '7', height: 12 })[0],
          { type: 'REVEAL', oracle: O2, output: '7', height: 12 },
        )[0],
        { type: 'DEADLINE', height: 12 },
      )[0];
      expect(decided.value).toBe('CHALLENGE');
      // A winner may not challenge its own answer and claims once the window (until 17) closed.
      expect(taskActions('t', decided, O1, 13)).toEqual([{ type: 'AI_CLAIM', from: 18, until: null }]);
      expect(taskActions('t', decided, J, 13)).toEqual([
        { type: 'AI_CHALLENGE', from: 13, until: 17 },
        { type: 'AI_CLAIM', from: 18, until: null },
      ]);
      expect(taskActions('t', decided, J, 18)).toEqual([{ type: 'AI_CLAIM', from: 18, until: null }]);
    },
  );

  it(
    "designated and auction: the result is the designated oracle's; bids are for others, the award for " +
      'the requester',
    () => {
      const designated = run({ ...INPUT, mode: 'designated', oracle: O1, quorum: null }, []);
      expect(taskActions('t', designated, O1, 11)).toEqual([{ type: 'AI_RESULT', from: 11, until: 15 }]);
      expect(types(designated, O2, 11)).toEqual([]);
      const auction = run({ ...INPUT, mode: 'auction', quorum: null }, [
        { type: 'BID', oracle: O1, price: '50', height: 11 },
      ]);
      expect(taskActions('t', auction, O2, 12)).toEqual([{ type: 'AI_BID', from: 12, until: 15 }]);
      expect(taskActions('t', auction, U, 12)).toEqual([{ type: 'AI_AWARD', from: 12, until: 15 }]);
      const expired = run({ ...INPUT, mode: 'auction', quorum: null }, [{ type: 'DEADLINE', height: 15 }]);
      expect(expired.value).toBe('EXPIRED');
      expect(taskActions('t', expired, J, 16)).toEqual([{ type: 'AI_REFUND', from: 16, until: null }]);
    },
  );
});
