import { describe, expect, it } from 'vitest';
import { sendIncluded } from '../../../examples/support';
import { deriveKeys } from '../../../src/crypto/keys';
import type { CairnClient, SendResult } from '../../../src/sdk/client';

const keys = deriveKeys(new Uint8Array(32).fill(3));
/** A client whose sendTx answers `r` (the examples' helper only reads the verdict and the wait). */
const answering = (r: Pick<SendResult, 'verdict' | 'wait'>) => ({ sendTx: async () => r }) as unknown as CairnClient;
const record = (status: 'success' | 'failed', error?: string) =>
  ({ result: { status, ...(error ? { error } : {}) } }) as never;

describe('sendIncluded (the oracle and relayer examples)', () => {
  it(
    'counts a transaction seen first when already final as included ' + '(the wait can skip the included step)',
    async () => {
      const logs: string[] = [];
      for (const outcome of ['included', 'finalized'] as const) {
        expect(
          await sendIncluded(
            answering({
              verdict: { accepted: true, id: '0x01' } as never,
              wait: { outcome, record: record('success') },
            }),
            keys,
            { type: 'TRANSFER' } as never,
            'settle',
            (m) => logs.push(m),
          ),
        ).toBe(true);
      }
      expect(logs).toEqual(['settle: included', 'settle: included']);
    },
  );

  it('a refusal, a failed execution, a drop or a timeout is false, with what happened logged', async () => {
    const logs: string[] = [];
    const log = (m: string) => logs.push(m);
    expect(
      await sendIncluded(
        answering({ verdict: { accepted: false, id: '0x01', reason: 'nonce too low' } as never }),
        keys,
        {} as never,
        'a',
        log,
      ),
    ).toBe(false);
    expect(
      await sendIncluded(
        answering({
          verdict: { accepted: true, id: '0x01' } as never,
          wait: { outcome: 'finalized', record: record('failed', 'out of gas') },
        }),
        keys,
        {} as never,
        'b',
        log,
      ),
    ).toBe(false);
    expect(
      await sendIncluded(
        answering({ verdict: { accepted: true, id: '0x01' } as never, wait: { outcome: 'dropped', record: null } }),
        keys,
        {} as never,
        'c',
        log,
      ),
    ).toBe(false);
    expect(
      await sendIncluded(
        answering({ verdict: { accepted: true, id: '0x01' } as never, wait: { outcome: 'unknown', record: null } }),
        keys,
        {} as never,
        'd',
        log,
      ),
    ).toBe(false);
    expect(logs).toEqual(['a: refused: nonce too low', 'b: finalized out of gas', 'c: dropped ', 'd: unknown ']);
  });
});
