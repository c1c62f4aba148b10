import { describe, expect, it } from 'vitest';
import type { Refusal } from '../../../src/protocol/refusal';
import { initialTransition, type EventObject } from 'xstate';
import type { AnyMachineDef } from '../../../src/machines/registry';
import { proposalDef } from '../../../src/modules/governance/machine';
import { transferDef } from '../../../src/modules/bridge/machine';
import { createInstance, refusalOf, sendEvent } from '../../../src/machines/instance';
import { stateName } from '../../../src/machines/record';
import { taskDef, taskMachine, type TaskEvent, type TaskInput } from '../../../src/modules/ai/machine';
import { walkMachine } from '../../helpers/machineWalk';
import { permissionChangeDef } from '../../../src/modules/permissions/machine';
import { TxFailure } from '../../../src/protocol/handler';
import type { Address } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';

/**
 * A machine's rules (machines/define.ts `Rule`) are both its guards and its refusals: when the
 * machine does not take an event, the kit's refusal is the reason of the first rule that
 * refuses it, and the generic "does not take" only when no rule does.
 */
const addr = (b: string) => `0x${b.repeat(20)}` as Address;
const [A, B, C] = [addr('a1'), addr('b2'), addr('c3')];

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TxFailure) return e.reason;
    throw e;
  }
  return 'accepted';
}

describe('machine rules give the refusals', () => {
  it(
    'permissionChange: a second APPROVE by the same key is refused by notYetApproved, ' +
      'in PENDING, QUEUED and after',
    async () => {
      const state = await StateTrie.open(new MemoryKv(), null);
      const input = {
        account: A,
        change: null,
        proposer: A,
        threshold: 3,
        timelock: 5,
        baseVersion: 1,
        createdAt: 1,
        expiresAt: 100,
      };
      await createInstance(state, permissionChangeDef, 'c1', input, 1);
      expect(
        await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: A, weight: 1, height: 1 }, 1)),
      ).toBe('accepted');
      // PENDING: the rule refuses, with its own words.
      expect(
        await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: A, weight: 1, height: 2 }, 2)),
      ).toBe(`${A} already approved permission change c1`);
      // The threshold reached: QUEUED takes no APPROVE at all — a new key gets the state's refusal, an old one the
      // rule's.
      expect(
        await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: B, weight: 2, height: 3 }, 3)),
      ).toBe('accepted');
      expect(
        await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: C, weight: 1, height: 4 }, 4)),
      ).toBe('permissionChange c1 in state QUEUED does not take APPROVE');
      expect(
        await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: B, weight: 2, height: 4 }, 4)),
      ).toBe(`${B} already approved permission change c1`);
    },
  );

  it(
    'aiTask: wherever the walk goes, the task takes an event exactly when all its rules hold, and every refusal ' +
      "of a transaction event is a rule's",
    () => {
      const [U1, O1, O2, J] = [addr('01'), addr('0a'), addr('0b'), addr('0c')];
      const base: TaskInput = {
        requester: U1,
        prompt: 'p',
        mode: 'quorum',
        aggregate: 'exact',
        reward: '90',
        quorum: 2,
        oracle: null,
        createdAt: 1,
        windows: { commit: 2, reveal: 2, bid: 2, expiry: 2, challenge: 2, verdict: 2 },
        maxCommitters: 2,
        maxJurors: 2,
      };
      const rules = taskDef.rules as Record<
        string,
        readonly ((c: unknown, e: unknown, id: string, status: string) => Refusal | undefined)[]
      >;
      const problems: string[] = [];
      let refusals = 0;
      for (const input of [
        base,
        { ...base, mode: 'designated' as const, oracle: O1, quorum: null },
        { ...base, mode: 'auction' as const, quorum: null },
      ]) {
        const [start] = initialTransition(taskMachine, input);
        const alphabet = (): TaskEvent[] => [
          ...[U1, O1, O2].flatMap((o): TaskEvent[] => [
            { type: 'COMMIT', oracle: o, commit: '0x01', height: 2 },
            { type: 'REVEAL', oracle: o, output: '7', height: 3 },
            { type: 'BID', oracle: o, price: '10', height: 2 },
            { type: 'BID', oracle: o, price: '100', height: 2 },
            { type: 'AWARD', oracle: o, by: U1, height: 2 },
            { type: 'AWARD', oracle: o, by: O2, height: 2 },
            { type: 'RESULT', oracle: o, output: '7', height: 3 },
            { type: 'VERDICT', juror: o, verdict: 'overturn' },
            { type: 'CHALLENGE', challenger: o, bond: '5', height: 4 },
          ]),
          { type: 'VERDICT', juror: J, verdict: 'uphold' },
          { type: 'CHALLENGE', challenger: J, bond: '5', height: 9 },
          { type: 'CLAIM', height: 4 },
          { type: 'CLAIM', height: 9 },
          { type: 'REFUND' },
          { type: 'DEADLINE', height: 3 },
          { type: 'DEADLINE', height: 5 },
        ];
        walkMachine(taskMachine, start, alphabet, 6, (snapshot, event, can) => {
          const status = stateName(snapshot.value);
          const reasons = (rules[event.type] ?? [])
            .map((r) => r(snapshot.context, event, 't', status))
            .filter((r) => r !== undefined);
          const where = `${status} × ${JSON.stringify(event)}`;
          if (can && reasons.length > 0) problems.push(`${where}: taken, yet refused by a rule: ${reasons[0]!.reason}`);
          if (!can && event.type !== 'DEADLINE') {
            refusals++;
            const why = refusalOf(taskDef, 't', snapshot, event);
            if (why === undefined || why.code === 'MACHINE_EVENT_REFUSED')
              problems.push(`${where}: refused with no rule's reason (${why?.reason})`);
          }
        });
      }
      expect(problems).toEqual([]);
      expect(refusals).toBeGreaterThan(100); // the walk did meet refusals
    },
  );

  // Every on-chain machine: wherever a walk goes, an event a transaction sends is taken exactly
  // when all its rules hold, and each refusal of one is a rule's (never the kit's generic words),
  // so no handler needs to restate a guard to word a refusal.
  const walks: {
    name: string;
    def: AnyMachineDef;
    input: unknown;
    txEvents: string[];
    alphabet: () => EventObject[];
  }[] = [
    {
      name: 'proposal',
      def: proposalDef,
      txEvents: ['TALLY'],
      input: {
        proposer: A,
        deposit: '10',
        action: { kind: 'param', param: 'BLOCK_REWARD', value: '1' },
        createdAt: 1,
        votingEnds: 3,
        timelock: 2,
        stakeAtStart: '100',
        quorumBps: 3_000,
        thresholdBps: 5_000,
        vetoBps: 3_334,
      },
      alphabet: () =>
        [
          { type: 'TALLY', tally: { yes: '90', no: '0', abstain: '0', veto: '0' }, voters: 1 },
          { type: 'TALLY', tally: { yes: '0', no: '0', abstain: '0', veto: '90' }, voters: 1 },
          { type: 'DEADLINE', height: 3 },
          { type: 'DEADLINE', height: 5 },
          { type: 'EXECUTION_FAILED', reason: 'x' },
        ] as unknown as EventObject[],
    },
    {
      name: 'bridgeTransfer (outbound)',
      def: transferDef,
      txEvents: ['SETTLE'],
      input: {
        direction: 'out',
        asset: 'native',
        amount: '5',
        chain: 'ethereum',
        from: A,
        recipient: '0xabc',
        to: null,
        sourceTx: null,
        epoch: null,
        createdAt: 1,
      },
      alphabet: () =>
        [
          { type: 'SETTLE', by: B, targetTx: '0x01', height: 2 },
          { type: 'DEADLINE', height: 1 },
          { type: 'HOLD', until: 9, reason: 'x', height: 1 },
          { type: 'REFUSE', reason: 'x', height: 1 },
        ] as unknown as EventObject[],
    },
    {
      name: 'bridgeTransfer (inbound)',
      def: transferDef,
      txEvents: ['SETTLE'],
      input: {
        direction: 'in',
        asset: 'native',
        amount: '5',
        chain: 'ethereum',
        from: null,
        recipient: null,
        to: A,
        sourceTx: '0xd1',
        epoch: 1,
        createdAt: 1,
      },
      alphabet: () =>
        [
          { type: 'SETTLE', by: B, targetTx: '0x01', height: 2 },
          { type: 'DEADLINE', height: 1 },
          { type: 'HOLD', until: 9, reason: 'x', height: 1 },
          { type: 'REFUSE', reason: 'x', height: 1 },
        ] as unknown as EventObject[],
    },
    {
      name: 'permissionChange',
      def: permissionChangeDef,
      txEvents: ['APPROVE', 'VETO'],
      input: {
        account: A,
        change: null,
        proposer: A,
        threshold: 3,
        timelock: 5,
        baseVersion: 1,
        createdAt: 1,
        expiresAt: 100,
      },
      alphabet: () =>
        [
          { type: 'APPROVE', key: A, weight: 2, height: 2 },
          { type: 'APPROVE', key: B, weight: 2, height: 2 },
          { type: 'VETO', key: C },
          { type: 'DEADLINE', height: 7 },
          { type: 'DEADLINE', height: 100 },
        ] as unknown as EventObject[],
    },
  ];
  for (const w of walks) {
    it(`${w.name}: taken exactly when its rules hold; every refusal of a transaction's event is a rule's`, () => {
      const rules = (w.def.rules ?? {}) as Record<
        string,
        readonly ((c: unknown, e: unknown, id: string, status: string) => Refusal | undefined)[]
      >;
      const [start] = initialTransition(w.def.machine, w.input);
      const problems: string[] = [];
      let refused = 0;
      walkMachine(w.def.machine, start, w.alphabet, 6, (snapshot, event, can) => {
        const status = stateName(snapshot.value);
        const failing = (rules[event.type] ?? [])
          .map((r) => r(snapshot.context, event, 'x', status))
          .filter((r) => r !== undefined);
        if (can && failing.length > 0) problems.push(`${status} × ${event.type}: taken, yet refused by a rule`);
        if (!can && w.txEvents.includes(event.type)) {
          refused++;
          const why = refusalOf(w.def, 'x', snapshot, event);
          if (why === undefined || why.code === 'MACHINE_EVENT_REFUSED')
            problems.push(`${status} × ${event.type}: refused with no rule's reason`);
        }
      });
      expect(problems).toEqual([]);
      expect(refused).toBeGreaterThan(0);
    });
  }
});
