import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, Oracle } from '../../../examples/oracle';
import { deriveKeys } from '../../../src/crypto/keys';
import { expectStopsPromptly } from '../../helpers/stopPromptly';
import { useStubNode } from '../../helpers/stubNode';
import { scratchDirs } from '../../helpers/scratch';

const scratch = scratchDirs();

/** examples/oracle.ts against a stand-in node: how it handles 429 Retry-After and 503. */
describe('the example oracle', () => {
  const stub = useStubNode();
  const keys = deriveKeys(new Uint8Array(32).fill(9));

  it('waits out 429 with Retry-After and 503, then carries on', async () => {
    let calls = 0;
    const at: number[] = [];
    stub.handler = (req) => {
      if (req.url?.startsWith('/ai/oracles')) {
        calls++;
        at.push(Date.now());
        if (calls === 1) return { status: 429, body: { error: 'rate limited' }, headers: { 'retry-after': '1' } };
        if (calls === 2) return { status: 503, body: { error: 'syncing' } };
        return { status: 200, body: { minStake: '1', oracles: [{ address: keys.address, status: 'active' }] } };
      }
      return { status: 500, body: { error: 'unexpected' } };
    };
    const o = new Oracle({ node: stub.url, keys, stateFile: join(scratch('cairn-oracle-'), 's.json'), log: () => {} });
    await o.retrying(() => o.register());
    expect(calls).toBe(3);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(950); // Retry-After: 1 s
    expect(stub.seen.filter((s) => s.startsWith('POST'))).toEqual([]); // already registered: nothing sent
  }, 10_000);

  it('stop() ends run() while it waits out a node that is down (no retrying forever after SIGTERM)', async () => {
    stub.handler = () => ({ status: 503, body: { error: 'syncing' } });
    await expectStopsPromptly(
      new Oracle({ node: stub.url, keys, stateFile: join(scratch('cairn-oracle-'), 's.json'), log: () => {} }),
    );
  }, 10_000);

  it('answers sums and echoes anything else in upper case', () => {
    expect(answer('what is 2 + 3')).toBe('5');
    expect(answer('What is -4 + 10?')).toBe('6');
    expect(answer('hello')).toBe('HELLO');
  });
});
