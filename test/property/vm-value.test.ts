import fc from 'fast-check';
import { Interface } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../../src/protocol/accounts';
import type { Address } from '../../src/protocol/types';
import { type Hex, fromHex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { type VmBlockContext, executeVm } from '../../src/vm/execute';
import { WEI_PER_BASE, weiBalance, withWeiBalance } from '../../src/vm/units';
import { type Compiled, compileContracts } from '../helpers/vmContracts';

/**
 * docs/PROTOCOL.md "VM": scale conversion never creates or destroys value. Random wei transfers
 * (sub-base-unit amounts included, some above the sender's balance) between EOAs and through
 * a forwarding contract keep the total wei over every touched account constant, and every
 * account's weiRemainder below 10^12.
 */

const EOAS: Address[] = [1, 2, 3, 4].map((i) => `0x${(0xe0a0 + i).toString(16).padStart(40, '0')}` as Address);
const deployer: Address = '0x000000000000000000000000000000000000d3b1';
const ctx: VmBlockContext = {
  height: 3,
  timestamp: 1_700_000_000_000,
  producer: '0x00000000000000000000000000000000000000cc',
};

let Forwarder: Compiled;
let fwd: Interface;

beforeAll(() => {
  Forwarder = compileContracts().Forwarder;
  fwd = new Interface(Forwarder.abi as never);
});

type Op =
  | { kind: 'direct'; from: number; to: number; wei: bigint }
  | { kind: 'forward'; from: number; to: number; wei: bigint }
  | { kind: 'split'; from: number; a: number; b: number; wei: bigint; part: bigint }
  | { kind: 'forwardThenRevert'; from: number; to: number; wei: bigint };

const who = fc.integer({ min: 0, max: EOAS.length - 1 });
// Amounts around the base unit: tiny, sub-unit, a few units plus a remainder, occasionally more than anyone has.
const amount = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n }),
  fc.bigInt({ min: 0n, max: WEI_PER_BASE - 1n }),
  fc.bigInt({ min: 0n, max: 5n * WEI_PER_BASE + 999n }),
  fc.bigInt({ min: 0n, max: 50n * WEI_PER_BASE }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('direct' as const), from: who, to: who, wei: amount }),
  fc.record({ kind: fc.constant('forward' as const), from: who, to: who, wei: amount }),
  fc.record({ kind: fc.constant('split' as const), from: who, a: who, b: who, wei: amount, part: amount }),
  fc.record({ kind: fc.constant('forwardThenRevert' as const), from: who, to: who, wei: amount }),
);
const start = fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 20n }), fc.bigInt({ min: 0n, max: WEI_PER_BASE - 1n })), {
  minLength: EOAS.length,
  maxLength: EOAS.length,
});

describe('VM value conservation (property)', () => {
  it('total wei over all touched accounts is constant; every remainder < 10^12', async () => {
    await fc.assert(
      fc.asyncProperty(start, fc.array(op, { minLength: 1, maxLength: 8 }), async (balances, ops) => {
        const s = await StateTrie.open(new MemoryKv(), null);
        for (const [i, [base, rem]] of balances.entries())
          await s.putAccount(EOAS[i], withWeiBalance(newAccount(0), base * WEI_PER_BASE + rem));
        await s.putAccount(deployer, { ...newAccount(0), balance: 1n });
        const send = async (from: Address, to: Address | null, input: Hex | string, wei: bigint) => {
          const a = (await s.getAccount(from)) ?? newAccount(ctx.height);
          await s.putAccount(from, { ...a, nonce: a.nonce + 1 });
          return executeVm(
            s,
            { from, to, valueWei: wei, input: fromHex(input), gasLimit: 1_000_000n, gasPrice: 0n },
            ctx,
          );
        };
        const deployed = await send(deployer, null, Forwarder.bytecode, 0n);
        expect(deployed.status).toBe('success');
        const f = deployed.createdAddress as Address;
        const touched = [...EOAS, deployer, f];
        const total = async () => {
          let sum = 0n;
          for (const a of touched) {
            const acc = await s.getAccount(a);
            if (!acc) continue;
            expect(acc.weiRemainder >= 0n && acc.weiRemainder < WEI_PER_BASE).toBe(true);
            sum += weiBalance(acc);
          }
          return sum;
        };
        const before = await total();

        for (const o of ops) {
          const from = EOAS[o.from];
          let out: Awaited<ReturnType<typeof send>>;
          if (o.kind === 'direct') out = await send(from, EOAS[o.to], '0x', o.wei);
          else if (o.kind === 'forward')
            out = await send(from, f, fwd.encodeFunctionData('forward', [EOAS[o.to]]), o.wei);
          else if (o.kind === 'split')
            out = await send(from, f, fwd.encodeFunctionData('split', [EOAS[o.a], EOAS[o.b], o.part]), o.wei);
          else out = await send(from, f, fwd.encodeFunctionData('forwardThenRevert', [EOAS[o.to]]), o.wei);
          // Internal transfers only ever report value that actually moved.
          if (out.status !== 'success') expect(out.internal).toEqual([]);
          for (const t of out.internal) expect(t.valueWei > 0n).toBe(true);
          expect(await total()).toBe(before);
        }
        // The forwarder passes on all it receives or reverts: it ends holding nothing.
        expect(await s.getAccount(f).then((a) => (a ? weiBalance(a) : 0n))).toBe(0n);
      }),
      { numRuns: 50 },
    );
  });
});
