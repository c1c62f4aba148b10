import { describe, expect, it } from 'vitest';
import { createInstance, sendEvent } from '../../src/machines/instance';
import { permissionChangeDef } from '../../src/machines/permissionChange';
import { TxFailure } from '../../src/protocol/handler';
import type { Address } from '../../src/protocol/types';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';

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
  it('permissionChange: a second APPROVE by the same key is refused by notYetApproved, in PENDING, QUEUED and after', async () => {
    const state = await StateTrie.open(new MemoryKv(), null);
    const input = { account: A, change: null, proposer: A, threshold: 3, timelock: 5, baseVersion: 1, createdAt: 1, expiresAt: 100 };
    await createInstance(state, permissionChangeDef, 'c1', input, 1);
    expect(await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: A, weight: 1, height: 1 }, 1))).toBe('accepted');
    // PENDING: the rule refuses, with its own words.
    expect(await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: A, weight: 1, height: 2 }, 2))).toBe(`${A} already approved permission change c1`);
    // The threshold reached: QUEUED takes no APPROVE at all — a new key gets the state's refusal, an old one the rule's.
    expect(await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: B, weight: 2, height: 3 }, 3))).toBe('accepted');
    expect(await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: C, weight: 1, height: 4 }, 4))).toBe('permissionChange c1 in state QUEUED does not take APPROVE');
    expect(await reason(sendEvent(state, permissionChangeDef, 'c1', { type: 'APPROVE', key: B, weight: 2, height: 4 }, 4))).toBe(`${B} already approved permission change c1`);
  });
});
