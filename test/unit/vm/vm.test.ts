import fc from 'fast-check';
import { createEVM } from '@ethereumjs/evm';
import { createAccessList2930Tx, getCalldataFloorGas, getMinimumGasLimit } from '@ethereumjs/tx';
import { Account, bytesToHex, createAddressFromString } from '@ethereumjs/util';
import { Interface, getAddress, getCreateAddress } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../../../src/protocol/accounts';
import type { AccountState, Address } from '../../../src/protocol/types';
import { keccakHex } from '../../../src/crypto/hash';
import { type Hex, fromHex } from '../../../src/primitives/hex';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { VM_MAX_GAS, createCairnCommon } from '../../../src/vm/common';
import {
  type VmBlockContext,
  type VmMessage,
  type VmOutcome,
  callVm,
  decodeRevertReason,
  estimateGas,
  executeVm,
  prevRandao,
} from '../../../src/vm/execute';
import { intrinsicGas } from '../../../src/vm/intrinsic';
import { codeKey } from '../../../src/vm/stateAdapter';
import { WEI_PER_BASE, weiBalance, withWeiBalance } from '../../../src/vm/units';
import * as speedups from '../../../src/vm/speedups';
import { cairnEvmParams } from '../../../src/vm/opcodePrices';
import { type Compiled, compileContracts } from '../../helpers/vmContracts';

const alice: Address = '0x00000000000000000000000000000000000a11ce';
const bob: Address = '0x0000000000000000000000000000000000000b0b';
const carol: Address = '0x00000000000000000000000000000000000ca201';
const producer: Address = '0x00000000000000000000000000000000000000cc';
const ctx: VmBlockContext = { height: 42, timestamp: 1_700_000_123_999, producer };
const FUND = 1_000_000_000_000n; // base units (10^6 coins)

let C: Record<string, Compiled>;
let token: Interface;
let fwd: Interface;
let misc: Interface;

beforeAll(() => {
  C = compileContracts();
  token = new Interface(C.Token.abi as never);
  fwd = new Interface(C.Forwarder.abi as never);
  misc = new Interface(C.Misc.abi as never);
});

async function freshState(): Promise<StateTrie> {
  const s = await StateTrie.open(new MemoryKv(), null);
  for (const a of [alice, bob]) await s.putAccount(a, { ...newAccount(0), balance: FUND });
  return s;
}

/** What applyTx does around executeVm: advance the sender's nonce, then execute. */
async function send(
  s: StateTrie,
  from: Address,
  to: Address | null,
  input: Hex | string,
  valueWei = 0n,
  gasLimit = 3_000_000n,
): Promise<VmOutcome> {
  const a = (await s.getAccount(from)) ?? newAccount(ctx.height);
  await s.putAccount(from, { ...a, nonce: a.nonce + 1 });
  return executeVm(s, msg(from, to, input, valueWei, gasLimit), ctx);
}

function msg(from: Address, to: Address | null, input: Hex | string, valueWei = 0n, gasLimit = 3_000_000n): VmMessage {
  return { from, to, valueWei, input: fromHex(input), gasLimit, gasPrice: 7n };
}

async function deploy(s: StateTrie, c: Compiled, args: unknown[] = [], valueWei = 0n): Promise<Address> {
  const iface = new Interface(c.abi as never);
  const out = await send(s, alice, null, c.bytecode + iface.encodeDeploy(args).slice(2), valueWei, 5_000_000n);
  expect(out.status, out.error).toBe('success');
  return out.createdAddress as Address;
}

async function view(s: StateTrie, iface: Interface, to: Address, fn: string, args: unknown[] = []) {
  const out = await callVm(s, msg(carol, to, iface.encodeFunctionData(fn, args)), ctx);
  expect(out.status, out.error).toBe('success');
  return iface.decodeFunctionResult(fn, out.returnData);
}

const wei = async (s: StateTrie, a: Address): Promise<bigint> => {
  const acc = await s.getAccount(a);
  return acc ? weiBalance(acc) : 0n;
};

describe('units', () => {
  it('wei balance round-trips exactly and keeps the remainder below 10^12', () => {
    const a = newAccount(0);
    for (const w of [0n, 1n, WEI_PER_BASE - 1n, WEI_PER_BASE, WEI_PER_BASE + 1n, 123456789012345678901234n]) {
      const b = withWeiBalance(a, w);
      expect(weiBalance(b)).toBe(w);
      expect(b.weiRemainder < WEI_PER_BASE).toBe(true);
    }
    expect(() => withWeiBalance(a, -1n)).toThrow();
  });
});

describe('intrinsic gas', () => {
  it('matches @ethereumjs/tx getIntrinsicGas / calldata floor / getMinimumGasLimit for Prague', () => {
    const common = createCairnCommon();
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 60; i++) {
      const len = [0, 1, 31, 32, 33, 100, 1000, 5000][i % 8];
      const data = Uint8Array.from({ length: len }, () => (rnd(3) === 0 ? 0 : rnd(256)));
      const create = i % 3 === 0;
      const accessList = Array.from({ length: rnd(3) }, (_, j) => ({
        address: `0x${(j + 1).toString(16).padStart(40, '0')}` as Address,
        storageKeys: Array.from({ length: rnd(4) }, (_, k) => `0x${k.toString(16).padStart(64, '0')}` as Hex),
      }));
      const tx = createAccessList2930Tx(
        { to: create ? undefined : bob, data, accessList, chainId: 72020n },
        { common },
      );
      const ours = intrinsicGas({ to: create ? null : bob, input: data, accessList });
      expect(ours.intrinsic).toBe(tx.getIntrinsicGas());
      expect(ours.floor).toBe(getCalldataFloorGas(tx));
      expect(ours.minimum).toBe(getMinimumGasLimit(tx));
    }
  });

  it('is 21000 for a plain transfer and 53000+ for an empty create', () => {
    expect(intrinsicGas({ to: bob, input: new Uint8Array() }).minimum).toBe(21_000n);
    expect(intrinsicGas({ to: null, input: new Uint8Array() }).intrinsic).toBe(53_000n);
  });
});

describe('opcode speedups (src/vm/speedups.ts)', () => {
  it('MSTORE writes the same bytes and charges the same gas as the library handler', async () => {
    const plain = await createEVM({ common: createCairnCommon() });
    const fast = await createEVM({ common: createCairnCommon() });
    speedups.fastOpcodes(fast);
    const hex = (n: bigint, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.nat({ max: 4_000 }), async (word, offset) => {
        // PUSH32 word, PUSH2 offset, MSTORE, PUSH2 offset+32, PUSH1 0, RETURN
        const code = fromHex(`0x7f${hex(word, 32)}61${hex(BigInt(offset), 2)}5261${hex(BigInt(offset + 32), 2)}6000f3`);
        const a = await plain.runCode({ code, gasLimit: 1_000_000n });
        const b = await fast.runCode({ code, gasLimit: 1_000_000n });
        expect(b.exceptionError).toBeUndefined();
        expect(b.returnValue).toEqual(a.returnValue);
        expect(b.executionGasUsed).toBe(a.executionGasUsed);
        expect(BigInt(`0x${Buffer.from(b.returnValue.subarray(offset)).toString('hex')}`)).toBe(word);
      }),
      { numRuns: 300 },
    );
  });

  it("EXP gives the library handler's result and gas for any base and exponent", async () => {
    const plain = await createEVM({ common: createCairnCommon() });
    const fast = await createEVM({ common: createCairnCommon() });
    speedups.fastOpcodes(fast);
    const hex = (n: bigint) => n.toString(16).padStart(64, '0');
    const word = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      fc.constantFrom(0n, 1n, 2n, 3n, 16n, 96n, 160n, 224n, 255n, 256n, 2n ** 255n, 2n ** 256n - 1n),
      fc.bigInt({ min: 0n, max: 65_535n }),
    );
    await fc.assert(
      fc.asyncProperty(word, word, async (base, exponent) => {
        // PUSH32 exponent, PUSH32 base, EXP, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
        const code = fromHex(`0x7f${hex(exponent)}7f${hex(base)}0a60005260206000f3`);
        const a = await plain.runCode({ code, gasLimit: 1_000_000n });
        const b = await fast.runCode({ code, gasLimit: 1_000_000n });
        expect(b.exceptionError).toBeUndefined();
        expect(b.returnValue).toEqual(a.returnValue);
        expect(b.executionGasUsed).toBe(a.executionGasUsed);
        expect(speedups.powMod256(base, exponent)).toBe(BigInt(`0x${Buffer.from(a.returnValue).toString('hex')}`));
      }),
      { numRuns: 500 },
    );
  });

  it("the inline interpreter loop gives the library loop's outcome, gas and output on random code", async () => {
    await speedups.installEvmSpeedups();
    expect(speedups.fastLoopInstalled).toBe(true);
    const library = await createEVM({ common: createCairnCommon() });
    library.events.on('step', () => {}); // a step listener sends the interpreter down the library's own loop
    const inline = await createEVM({ common: createCairnCommon() });
    speedups.fastOpcodes(inline); // and the faster PUSH, JUMP, JUMPI handlers
    // Random bytes (invalid opcodes, stack underflows, bad jumps) and loops that run long enough
    // to yield, among them SHA3 within and beyond paid memory and EXP (priced without the library's handler).
    const loopy = fc.constantFrom(
      '5b600056',
      '5b5a5a0360005260206000f3',
      '5b5a50600056',
      '600456005b6001600357',
      '5b6000600157',
      '5b60016000575b600056',
      '5b6001600101600056',
      '60ff5b6001900380600257',
      '5b602060002050600056',
      '5b604060102050600056',
      '5b6000600020505a61fff01660002050600056',
      '5b60ff60030a50600056',
      `5b7f${'ff'.repeat(32)}60030a50600056`,
      '5b60005a0a50600056',
      // MLOAD, MSTORE, MSTORE8 within and beyond paid memory (priced without the library's handler)
      '5b60005150600056',
      '5b5a61fff0165150600056',
      '5b5a5a61fff01652600056',
      '5b5a5a610fff1653600056',
      // CALLDATACOPY, CODECOPY, EXTCODECOPY past the data's end (padded with zeros), looping and returned
      '5b60406000600037600056',
      '5b6110006000600039600056',
      '5b61200060006000303c600056',
      '6064600260003760646000f3',
      '6064600260003960646000f3',
      '606460026000303c60646000f3',
      // MSTORE then MLOAD of a word across 64-bit boundaries, returned
      `7f${'0123456789abcdef'.repeat(4)}601052601151605052608060 00f3`.replace(' ', ''),
      // ADDRESS, CALLER, ORIGIN, COINBASE, PREVRANDAO (words kept per byte array), looping and returned
      '5b30333241445050505050600056',
      '306000523360205232604052416060524460805260a06000f3',
      // MCOPY and RETURNDATACOPY (of identity's output) within and beyond paid memory and the return data
      '5b61002060006100005e617fe051505a61002052600056',
      '5b5a61fff01660206000 5e600056'.replace(' ', ''),
      '6040600060406000600060045afa505b6020601060003e5a61fff0166020 60003e600056'.replace(' ', ''),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b).toString('hex')),
          loopy,
        ),
        fc.nat({ max: 300_000 }),
        async (hex, gas) => {
          const code = fromHex(`0x${hex}`);
          // A library error that is not an EVM outcome (BASEFEE without a block) must be thrown by both.
          const outcome = (evm: typeof library) =>
            evm.runCode({ code, gasLimit: BigInt(gas) + 1n }).then(
              (r) => ({
                error: r.exceptionError?.error,
                gas: r.executionGasUsed,
                out: Buffer.from(r.returnValue).toString('hex'),
                pc: r.runState?.programCounter,
              }),
              (e: Error) => ({ thrown: e.message }),
            );
          expect(await outcome(inline)).toEqual(await outcome(library));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('executeVm: ERC-20', () => {
  it('deploys at the Ethereum address for sender + nonce, and reads back through eth_call', async () => {
    const s = await freshState();
    const nonceBefore = (await s.getAccount(alice))?.nonce ?? 0;
    const addr = await deploy(s, C.Token, ['Cairn Test', 'CTT', 1_000_000n]);
    expect(addr).toBe(getCreateAddress({ from: alice, nonce: nonceBefore }).toLowerCase());
    const acc = (await s.getAccount(addr)) as AccountState;
    expect(acc.nonce).toBe(1); // EIP-161
    expect(acc.codeHash).not.toBeNull();
    const code = await s.getRecord<Hex>(codeKey(acc.codeHash as Hex));
    expect(keccakHex(fromHex(code as Hex))).toBe(acc.codeHash);
    expect((await view(s, token, addr, 'name'))[0]).toBe('Cairn Test');
    expect((await view(s, token, addr, 'symbol'))[0]).toBe('CTT');
    expect((await view(s, token, addr, 'decimals'))[0]).toBe(18n);
    expect((await view(s, token, addr, 'totalSupply'))[0]).toBe(1_000_000n);
    expect((await view(s, token, addr, 'balanceOf', [alice]))[0]).toBe(1_000_000n);
  });

  it('transfers, emits Transfer with the right topics and data, and updates balances', async () => {
    const s = await freshState();
    const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
    const out = await send(s, alice, t, token.encodeFunctionData('transfer', [bob, 250n]));
    expect(out.status).toBe('success');
    expect(token.decodeFunctionResult('transfer', out.returnData)[0]).toBe(true);
    expect(out.logs).toHaveLength(1);
    const log = out.logs[0];
    expect(log.address).toBe(t);
    expect(log.topics).toEqual([
      token.getEvent('Transfer')?.topicHash,
      `0x${alice.slice(2).padStart(64, '0')}`,
      `0x${bob.slice(2).padStart(64, '0')}`,
    ]);
    expect(BigInt(log.data)).toBe(250n);
    expect(out.gasUsed).toBeGreaterThan(21_000n);
    expect(out.gasUsed).toBeLessThanOrEqual(out.gasPeak);
    expect((await view(s, token, t, 'balanceOf', [alice]))[0]).toBe(750n);
    expect((await view(s, token, t, 'balanceOf', [bob]))[0]).toBe(250n);
  });

  it('runs with the jump-analysis memo installed (src/vm/speedups.ts), and repeated calls agree', async () => {
    const s = await freshState();
    const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
    expect(speedups.jumpAnalysisCached).toBe(true);
    const input = token.encodeFunctionData('transfer', [bob, 1n]);
    const first = await callVm(s, msg(alice, t, input), ctx);
    const again = await callVm(s, msg(alice, t, input), ctx);
    expect(again).toEqual(first);
    expect(first.status).toBe('success');
  });

  it('checksummed addresses behave exactly like lower-case ones (same gas, same warm set)', async () => {
    const s = await freshState();
    const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
    const input = token.encodeFunctionData('transfer', [bob, 1n]);
    const lower = await callVm(s, msg(alice, t, input), ctx);
    const mixed = await callVm(s, msg(getAddress(alice) as Address, getAddress(t) as Address, input), {
      ...ctx,
      producer: getAddress(producer) as Address,
    });
    expect(mixed).toEqual(lower);
  });

  it('approve + transferFrom, with Approval logged and allowance enforced', async () => {
    const s = await freshState();
    const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
    const ap = await send(s, alice, t, token.encodeFunctionData('approve', [bob, 100n]));
    expect(ap.logs[0].topics[0]).toBe(token.getEvent('Approval')?.topicHash);
    const ok = await send(s, bob, t, token.encodeFunctionData('transferFrom', [alice, carol, 60n]));
    expect(ok.status).toBe('success');
    expect((await view(s, token, t, 'allowance', [alice, bob]))[0]).toBe(40n);
    const no = await send(s, bob, t, token.encodeFunctionData('transferFrom', [alice, carol, 41n]));
    expect(no.status).toBe('reverted');
    expect(no.revertReason).toBe('ERC20: insufficient allowance');
    expect((await view(s, token, t, 'balanceOf', [carol]))[0]).toBe(60n);
  });

  it('a revert reports the decoded reason and returnData, costs gas and changes nothing', async () => {
    const s = await freshState();
    const t = await deploy(s, C.Token, ['T', 'T', 10n]);
    const a = (await s.getAccount(alice)) as AccountState;
    await s.putAccount(alice, { ...a, nonce: a.nonce + 1 }); // applyTx's part
    const root = s.root();
    const out = await executeVm(s, msg(alice, t, token.encodeFunctionData('transfer', [bob, 11n])), ctx);
    expect(out.status).toBe('reverted');
    expect(out.error).toBe('execution reverted');
    expect(out.revertReason).toBe('ERC20: transfer amount exceeds balance');
    expect(out.returnData.startsWith('0x08c379a0')).toBe(true);
    expect(decodeRevertReason(fromHex(out.returnData))).toBe(out.revertReason);
    expect(out.gasUsed).toBeGreaterThan(21_000n);
    expect(out.logs).toEqual([]);
    expect(s.root()).toBe(root);
  });
});

describe('executeVm: limits and failures', () => {
  it('refuses gasLimit below intrinsic without touching state', async () => {
    const s = await freshState();
    const root = s.root();
    const out = await executeVm(s, msg(alice, bob, '0x0102', 5n, 21_000n), ctx);
    expect(out).toMatchObject({
      status: 'failed',
      error: 'intrinsic gas too low',
      gasUsed: 0n,
      gasPeak: 0n,
      internal: [],
      logs: [],
    });
    expect(s.root()).toBe(root);
  });

  it('refuses a gasLimit above VM_MAX_GAS without touching state, accepts exactly VM_MAX_GAS', async () => {
    const s = await freshState();
    const root = s.root();
    const out = await executeVm(s, msg(alice, bob, '0x', 1n, VM_MAX_GAS + 1n), ctx);
    expect(out).toMatchObject({ status: 'failed', error: 'gas limit above VM_MAX_GAS 5190000', gasUsed: 0n });
    expect(s.root()).toBe(root);
    expect((await executeVm(s, msg(alice, bob, '0x', 1n, VM_MAX_GAS), ctx)).status).toBe('success');
  });

  it('refuses a value above the sender balance without touching state', async () => {
    const s = await freshState();
    const root = s.root();
    const out = await executeVm(s, msg(alice, bob, '0x', FUND * WEI_PER_BASE + 1n), ctx);
    expect(out).toMatchObject({ status: 'failed', error: 'insufficient balance', gasUsed: 0n });
    expect(s.root()).toBe(root);
  });

  it('out of gas consumes the whole limit and reverts the value transfer', async () => {
    const s = await freshState();
    const m = await deploy(s, C.Misc);
    const root = s.root();
    const input = misc.encodeFunctionData('set', [5n]);
    const gasLimit = intrinsicGas({ to: m, input: fromHex(input) }).minimum + 2_000n;
    const out = await executeVm(s, msg(alice, m, input, 0n, gasLimit), ctx);
    expect(out).toMatchObject({ status: 'failed', error: 'out of gas', gasUsed: gasLimit });
    expect(s.root()).toBe(root);
  });

  it('exposes the block context: chain id, height, timestamp in seconds, coinbase, gas price, origin', async () => {
    const s = await freshState();
    const m = await deploy(s, C.Misc);
    const r = await view(s, misc, m, 'info');
    expect(r.toArray().map((x: unknown) => (typeof x === 'string' ? x.toLowerCase() : x))).toEqual([
      72020n,
      42n,
      1_700_000_123n,
      producer,
      7n,
      carol,
    ]);
  });

  it('refuses a sender with code (EIP-3607) but eth_call accepts it', async () => {
    const s = await freshState();
    const m = await deploy(s, C.Misc);
    const input = misc.encodeFunctionData('slot');
    expect(await executeVm(s, msg(m, m, input), ctx)).toMatchObject({
      status: 'failed',
      error: 'sender not an eoa',
      gasUsed: 0n,
    });
    expect(BigInt((await callVm(s, msg(m, m, input), ctx)).returnData)).toBe(7n);
  });

  it('a store failure inside the EVM propagates and leaves no checkpoint open', async () => {
    const s = await freshState();
    const broken: Address = '0x000000000000000000000000000000000000bad0';
    await s.putAccount(broken, { ...newAccount(0), codeHash: keccakHex(Uint8Array.of(0x60)) }); // code record missing
    const root = s.root();
    await expect(executeVm(s, msg(alice, broken, '0x'), ctx)).rejects.toThrow(/missing/);
    expect(s.root()).toBe(root);
    await expect(s.flush(new MemoryKv().batch())).resolves.toBe(root); // throws if a checkpoint were open
    expect((await executeVm(s, msg(alice, bob, '0x', 1n), ctx)).status).toBe('success');
  });

  it('a zero-value call to an unknown address does not create it', async () => {
    const s = await freshState();
    const nobody: Address = '0x00000000000000000000000000000000deadbeef';
    const out = await executeVm(s, msg(alice, nobody, '0x'), ctx);
    expect(out.status).toBe('success');
    expect(out.gasUsed).toBe(21_000n);
    expect(await s.getAccount(nobody)).toBeUndefined();
  });
});

describe('callVm and estimateGas', () => {
  it(
    'eth_call always reverts: ' + 'the root is unchanged even for a state-changing call, from an absent sender',
    async () => {
      const s = await freshState();
      const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
      const root = s.root();
      const out = await callVm(s, msg(alice, t, token.encodeFunctionData('transfer', [bob, 5n])), ctx);
      expect(out.status).toBe('success');
      expect(out.logs).toHaveLength(1);
      expect(s.root()).toBe(root);
      const ghost: Address = '0x000000000000000000000000000000000000f00d';
      const r2 = await callVm(s, msg(ghost, t, token.encodeFunctionData('balanceOf', [alice])), ctx);
      expect(BigInt(r2.returnData)).toBe(1_000n);
      expect(await s.getAccount(ghost)).toBeUndefined();
      expect(s.root()).toBe(root);
    },
  );

  it(
    'the estimate covers the peak: ' + 'a transaction that earns a refund succeeds with it, and fails one gas below',
    async () => {
      const s = await freshState();
      const m = await deploy(s, C.Misc);
      const input = misc.encodeFunctionData('clear');
      const root = s.root();
      const est = await estimateGas(s, { from: alice, to: m, valueWei: 0n, input: fromHex(input), gasPrice: 0n }, ctx);
      expect(s.root()).toBe(root);
      if (!('gas' in est)) throw new Error(est.error);
      const below = await callVm(s, msg(alice, m, input, 0n, est.gas - 1n), ctx);
      expect(below.status).toBe('failed');
      const out = await send(s, alice, m, input, 0n, est.gas);
      expect(out.status).toBe('success');
      expect(out.gasPeak).toBeLessThanOrEqual(est.gas);
      expect(out.gasUsed).toBeLessThan(out.gasPeak); // the refund applied
      expect(out.gasUsed).toBeLessThan(est.gas);
      expect((await view(s, misc, m, 'slot'))[0]).toBe(0n);
    },
  );

  it('estimate of a plain transfer is 21000; of a reverting call is the revert with its data', async () => {
    const s = await freshState();
    const m = await deploy(s, C.Misc);
    expect(
      await estimateGas(s, { from: alice, to: bob, valueWei: 1n, input: new Uint8Array(), gasPrice: 0n }, ctx),
    ).toEqual({ gas: 21_000n });
    const r = await estimateGas(
      s,
      { from: alice, to: m, valueWei: 0n, input: fromHex(misc.encodeFunctionData('fail')), gasPrice: 0n },
      ctx,
    );
    expect(r).toMatchObject({ error: 'execution reverted' });
    expect('returnData' in r && decodeRevertReason(fromHex(r.returnData as Hex))).toBe('Misc: this always fails');
    const r2 = await estimateGas(
      s,
      { from: alice, to: m, valueWei: 0n, input: fromHex(misc.encodeFunctionData('burn', [1_000_000n])), gasPrice: 0n },
      ctx,
    );
    expect(r2).toEqual({ error: 'gas required exceeds allowance (5190000)' });
  });

  it('revert() without a reason has no revertReason and empty returnData', async () => {
    const s = await freshState();
    const m = await deploy(s, C.Misc);
    const out = await callVm(s, msg(alice, m, misc.encodeFunctionData('failPlain')), ctx);
    expect(out).toMatchObject({ status: 'reverted', error: 'execution reverted', returnData: '0x' });
    expect(out.revertReason).toBeUndefined();
  });
});

describe('internal transfers and value', () => {
  it('records value forwarded by a contract, and moves it', async () => {
    const s = await freshState();
    const f = await deploy(s, C.Forwarder);
    const before = await wei(s, bob);
    const out = await send(s, alice, f, fwd.encodeFunctionData('forward', [carol]), 1_234_567n);
    expect(out.status).toBe('success');
    expect(out.internal).toEqual([{ kind: 'CALL', from: f, to: carol, valueWei: 1_234_567n }]);
    expect(await wei(s, carol)).toBe(1_234_567n);
    expect(await wei(s, f)).toBe(0n);
    expect(await wei(s, bob)).toBe(before);
    const split = await send(s, alice, f, fwd.encodeFunctionData('split', [bob, carol, 1n]), 10n);
    expect(split.internal).toEqual([
      { kind: 'CALL', from: f, to: bob, valueWei: 1n },
      { kind: 'CALL', from: f, to: carol, valueWei: 9n },
    ]);
  });

  it('discards the inner transfer when the outer call reverts, and when an inner frame fails', async () => {
    const s = await freshState();
    const f = await deploy(s, C.Forwarder);
    const a0 = await wei(s, alice);
    const out = await send(s, alice, f, fwd.encodeFunctionData('forwardThenRevert', [carol]), 5n);
    expect(out.status).toBe('reverted');
    expect(out.revertReason).toBe('reverted after forwarding');
    expect(out.internal).toEqual([]);
    expect(await wei(s, carol)).toBe(0n);
    expect(await wei(s, alice)).toBe(a0);

    const t = await send(s, alice, f, fwd.encodeFunctionData('tryForward', [carol]), 5n);
    expect(t.status).toBe('success');
    expect(t.internal).toEqual([]); // the self-call and its forward both failed
    expect(await wei(s, f)).toBe(5n);
    expect(await wei(s, carol)).toBe(0n);
  });

  it('CREATE + SELFDESTRUCT in one transaction: both recorded, the contract is gone, value conserved', async () => {
    const s = await freshState();
    const f = await deploy(s, C.Forwarder);
    const total0 = (await wei(s, alice)) + (await wei(s, carol)) + (await wei(s, f));
    const out = await send(s, alice, f, fwd.encodeFunctionData('bomb', [carol]), 77n);
    expect(out.status).toBe('success');
    const bomb = getCreateAddress({ from: f, nonce: 1 }).toLowerCase() as Address;
    expect(out.internal).toEqual([
      { kind: 'CREATE', from: f, to: bomb, valueWei: 77n },
      { kind: 'SELFDESTRUCT', from: bomb, to: carol, valueWei: 77n },
    ]);
    expect(await s.getAccount(bomb)).toBeUndefined();
    expect(await wei(s, carol)).toBe(77n);
    expect((await wei(s, alice)) + (await wei(s, carol)) + (await wei(s, f))).toBe(total0);
  });

  it('SELFDESTRUCT to itself during creation does not burn: the balance stays, the code goes', async () => {
    const s = await freshState();
    const a0 = await wei(s, alice);
    const out = await send(s, alice, null, C.SelfBomb.bytecode, 999n, 1_000_000n);
    expect(out.status).toBe('success');
    const addr = out.createdAddress as Address;
    const acc = (await s.getAccount(addr)) as AccountState;
    expect(weiBalance(acc)).toBe(999n);
    expect(acc.codeHash).toBeNull();
    expect(acc.nonce).toBe(0);
    expect((await wei(s, alice)) + weiBalance(acc)).toBe(a0);
    expect(out.internal).toEqual([]);
  });

  it('sending 1 wei keeps balance × 10^12 + remainder exact on both sides', async () => {
    const s = await freshState();
    const out = await send(s, alice, carol, '0x', 1n);
    expect(out.status).toBe('success');
    const a = (await s.getAccount(alice)) as AccountState;
    const c = (await s.getAccount(carol)) as AccountState;
    expect(a.balance).toBe(FUND - 1n);
    expect(a.weiRemainder).toBe(WEI_PER_BASE - 1n);
    expect(c.balance).toBe(0n);
    expect(c.weiRemainder).toBe(1n);
    expect(c.energyHeight).toBe(ctx.height); // created with newAccount(height)
    expect(weiBalance(a) + weiBalance(c)).toBe(FUND * WEI_PER_BASE);
    // and back: the remainders recombine into a whole base unit
    await send(s, carol, alice, '0x', 1n);
    const a2 = (await s.getAccount(alice)) as AccountState;
    expect([a2.balance, a2.weiRemainder]).toEqual([FUND, 0n]);
  });

  it('keeps the native fields of accounts the EVM writes', async () => {
    const s = await freshState();
    const b = (await s.getAccount(bob)) as AccountState;
    const mark: AccountState = {
      ...b,
      staked: 5n,
      energy: 3n,
      energyHeight: 9,
      feeExempt: true,
      isValidator: true,
      mldsaKeyHash: keccakHex(Uint8Array.of(1)),
    };
    await s.putAccount(bob, mark);
    await send(s, alice, bob, '0x', 3n * WEI_PER_BASE + 2n);
    expect(await s.getAccount(bob)).toEqual({ ...mark, balance: mark.balance + 3n, weiRemainder: 2n });
  });
});

describe('parity with @ethereumjs/evm on its own state manager', () => {
  it('same status, gas (incl. SSTORE refunds), return data and logs for a sequence of transactions', async () => {
    const s = await freshState();
    const common = createCairnCommon();
    const ref = await createEVM({ common, params: cairnEvmParams }); // SimpleStateManager, Cairn's opcode prices
    for (const a of [alice, bob])
      await ref.stateManager.putAccount(createAddressFromString(a), new Account(0n, FUND * WEI_PER_BASE));
    const refRun = async (from: Address, to: Address | null, input: Hex, value: bigint, gasLimit: bigint) => {
      // What @ethereumjs/vm runTx does around runCall, minus fees.
      const gas = intrinsicGas({ to, input: fromHex(input) });
      ref.journal.cleanJournal();
      ref.stateManager.originalStorageCache.clear();
      for (const [p] of ref.precompiles) ref.journal.addAlwaysWarmAddress(p);
      for (const a of [from, to ?? undefined, producer]) if (a) ref.journal.addAlwaysWarmAddress(a);
      const r = await ref.runCall({
        caller: createAddressFromString(from),
        origin: createAddressFromString(from),
        to: to === null ? undefined : createAddressFromString(to),
        data: fromHex(input),
        value,
        gasLimit: gasLimit - gas.intrinsic,
        gasPrice: 7n,
        block: {
          header: {
            number: 42n,
            coinbase: createAddressFromString(producer),
            timestamp: 1_700_000_123n,
            difficulty: 0n,
            prevRandao: prevRandao(42),
            gasLimit: 30_000_000n,
            baseFeePerGas: 0n,
            getBlobGasPrice: () => 1n,
          },
        },
      });
      const peak = gas.intrinsic + r.execResult.executionGasUsed;
      const refund = r.execResult.exceptionError ? 0n : (r.execResult.gasRefund ?? 0n);
      const used = peak - (refund < peak / 5n ? refund : peak / 5n);
      return {
        status: r.execResult.exceptionError ? r.execResult.exceptionError.error : 'success',
        gasUsed: used > gas.floor ? used : gas.floor,
        returnData: bytesToHex(r.execResult.returnValue),
        logs: (r.execResult.logs ?? []).map(([a, t, d]) => ({
          address: bytesToHex(a),
          topics: t.map((x) => bytesToHex(x)),
          data: bytesToHex(d),
        })),
        created: r.createdAddress?.toString(),
      };
    };
    const both = async (from: Address, to: Address | null, input: Hex | string, value = 0n, gasLimit = 3_000_000n) => {
      const r = await refRun(from, to, input as Hex, value, gasLimit);
      const o = await send(s, from, to, input, value, gasLimit);
      expect({
        status: o.status === 'success' ? 'success' : o.status === 'reverted' ? 'revert' : o.error,
        gasUsed: o.gasUsed,
        returnData: o.returnData,
        logs: o.logs,
      }).toEqual({
        status: r.status,
        gasUsed: r.gasUsed,
        returnData: r.returnData,
        logs: r.logs,
      });
      if (to === null) expect(o.createdAddress).toBe(r.created);
      return o;
    };
    const m = (await both(alice, null, C.Misc.bytecode, 0n, 1_000_000n)).createdAddress as Address;
    for (const v of [5n, 0n, 3n, 3n, 0n, 0n, 9n]) await both(alice, m, misc.encodeFunctionData('set', [v]));
    for (const vs of [
      [1n, 2n],
      [0n, 7n, 0n],
      [7n, 0n, 7n],
      [0n, 0n],
      [4n, 4n, 5n],
      [9n, 0n, 9n, 0n],
    ])
      await both(bob, m, misc.encodeFunctionData('churn', [vs]));
    await both(bob, m, misc.encodeFunctionData('clear'));
    await both(bob, m, misc.encodeFunctionData('fail'));
    await both(bob, m, misc.encodeFunctionData('set', [1n]), 0n, 23_000n); // out of gas
    const t = (
      await both(alice, null, C.Token.bytecode + token.encodeDeploy(['T', 'T', 1_000n]).slice(2), 0n, 2_000_000n)
    ).createdAddress as Address;
    await both(alice, t, token.encodeFunctionData('transfer', [bob, 10n]));
    await both(alice, t, token.encodeFunctionData('transfer', [bob, 990n])); // empties alice's slot: refund
    await both(bob, t, token.encodeFunctionData('transfer', [alice, 1_001n])); // revert
    await both(bob, t, token.encodeFunctionData('approve', [alice, 5n]));
    await both(alice, t, token.encodeFunctionData('transferFrom', [bob, carol, 5n]));
    const f = (await both(alice, null, C.Forwarder.bytecode, 0n, 2_000_000n)).createdAddress as Address;
    await both(alice, f, fwd.encodeFunctionData('split', [bob, carol, 3n]), 10n);
    await both(alice, f, fwd.encodeFunctionData('bomb', [carol]), 4n);
    await both(alice, f, fwd.encodeFunctionData('tryForward', [carol]), 4n);
    await both(alice, carol, '0x', 123n);
  });
});

describe('determinism', () => {
  it('the same transactions on two fresh states give the same roots', async () => {
    const roots: string[] = [];
    for (let run = 0; run < 2; run++) {
      const s = await freshState();
      const t = await deploy(s, C.Token, ['T', 'T', 1_000n]);
      const f = await deploy(s, C.Forwarder);
      await send(s, alice, t, token.encodeFunctionData('transfer', [bob, 1n]));
      await send(s, alice, f, fwd.encodeFunctionData('bomb', [carol]), 3n);
      await send(s, bob, carol, '0x', 5n);
      roots.push(s.root());
    }
    expect(roots[0]).toBe(roots[1]);
  });
});

describe('CHAINID follows the chain', () => {
  // CHAINID PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN, as init code: the creation returns the chain id.
  const code = '0x4660005260206000f3';
  it("answers the context's chain id (a chain specification's own), 72020 without one", async () => {
    const s = await freshState();
    const own = await callVm(s, msg(alice, null, code), { ...ctx, chainId: 4242 });
    expect(BigInt(own.returnData)).toBe(4242n);
    const dev = await callVm(s, msg(alice, null, code), ctx);
    expect(BigInt(dev.returnData)).toBe(72020n);
  });
});
