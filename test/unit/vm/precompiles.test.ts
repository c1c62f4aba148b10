import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { createCairnEvm } from '../../../src/vm/common';
import { PRECOMPILE_FAILED, PRECOMPILE_PRICE_FACTOR } from '../../../src/vm/precompiles';
import { ecrecoverInput } from '../../adversarial/attacks/evmCode';

const at = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const;

describe("Cairn's precompile prices (src/vm/precompiles.ts)", async () => {
  const evm = await createCairnEvm(undefined as never); // the library's in-memory state: precompiles read none
  // runPrecompile is protected in the library's types; it is what a CALL to the address runs.
  const runPrecompile = (
    evm as unknown as {
      runPrecompile(
        fn: unknown,
        data: Uint8Array,
        gasLimit: bigint,
      ): Promise<{ executionGasUsed: bigint; returnValue: Uint8Array; exceptionError?: { error: string } }>;
    }
  ).runPrecompile.bind(evm);
  const run = (n: number, data: Uint8Array, gasLimit: bigint) =>
    runPrecompile(evm.getPrecompile(at(n))!, data, gasLimit);

  it('charges the Ethereum price times the factor, formula and all', async () => {
    const ok = await run(0x01, ecrecoverInput(), 1_000_000n);
    expect(ok.exceptionError).toBeUndefined();
    expect(ok.returnValue.length).toBe(32);
    expect(ok.executionGasUsed).toBe(3_000n * PRECOMPILE_PRICE_FACTOR[0x01]);
    const sha = await run(0x02, new Uint8Array(100), 1_000_000n); // 60 + 12 per word, 4 words
    expect(sha.executionGasUsed).toBe((60n + 12n * 4n) * PRECOMPILE_PRICE_FACTOR[0x02]);
    expect(Buffer.from(sha.returnValue).toString('hex')).toBe(
      Buffer.from(nobleSha256(new Uint8Array(100))).toString('hex'),
    ); // Node's SHA-256 (customCrypto) answers what the library's would
  });

  it('runs out of gas exactly one unit below its price, and then consumes what it was given', async () => {
    const price = 3_000n * PRECOMPILE_PRICE_FACTOR[0x01];
    expect((await run(0x01, ecrecoverInput(), price)).exceptionError).toBeUndefined();
    const short = await run(0x01, ecrecoverInput(), price - 1n);
    expect(short.exceptionError?.error).toBe('out of gas');
    expect(short.executionGasUsed).toBe(price - 1n);
  });

  it('a precompile the library throws from (0x0a: no KZG setup) halts its call instead', async () => {
    const r = await run(0x0a, new Uint8Array(192), 70_000n);
    expect(r.exceptionError?.error).toBe(PRECOMPILE_FAILED);
    expect(r.executionGasUsed).toBe(70_000n);
  });

  it('a failing input (a point not on the curve) consumes the gas it was given, as on Ethereum', async () => {
    const r = await run(0x06, new Uint8Array(128).fill(1), 1_000_000n);
    expect(r.exceptionError).toBeDefined();
    expect(r.executionGasUsed).toBe(1_000_000n);
  });
});
