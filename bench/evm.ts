/**
 * The VM's own ceiling: ERC-20 transfers per second through executeVm alone, over a
 * StateTrie on MemoryKv with 1,000 token holders. Fees, nonces and signatures are not part
 * of it (the sender's nonce is bumped outside the timed section, as applyTx would).
 * Blocks of 500 transfers are flushed to the store between blocks (not timed).
 *
 *   npx tsx bench/evm.ts [--holders 1000] [--blocks 10] [--per-block 500] [--profile out.cpuprofile]
 *
 * `--profile` writes a V8 CPU profile of the measured blocks only (no compile, deploy or
 * warm-up in it): open it in Chrome DevTools or summarize it with a script.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { Interface } from 'ethers';
import { newAccount } from '../src/protocol/accounts';
import type { Address } from '../src/protocol/types';
import { type Hex, fromHex } from '../src/primitives/hex';
import { MemoryKv } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { type VmBlockContext, executeVm } from '../src/vm/execute';
import { compileContracts } from '../test/helpers/vmContracts';

const { values } = parseArgs({
  options: {
    holders: { type: 'string', default: '1000' },
    blocks: { type: 'string', default: '10' },
    'per-block': { type: 'string', default: '500' },
    profile: { type: 'string' },
  },
});
const HOLDERS = Number(values.holders);
const BLOCKS = Number(values.blocks);
const PER_BLOCK = Number(values['per-block']);

const addr = (i: number): Address =>
  `0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(40, '0').slice(-40)}`;
const producer: Address = '0x00000000000000000000000000000000000000cc';

async function main(): Promise<void> {
  const { Token } = compileContracts();
  const token = new Interface(Token.abi as never);
  const kv = new MemoryKv();
  let state = await StateTrie.open(kv, null);
  const deployer = addr(HOLDERS);
  for (let i = 0; i <= HOLDERS; i++) await state.putAccount(addr(i), { ...newAccount(0), balance: 1_000_000n });

  let height = 1;
  const ctx = (): VmBlockContext => ({ height, timestamp: 1_700_000_000_000 + height * 1000, producer });
  const send = async (from: Address, to: Address | null, input: Hex) => {
    const a = await state.getAccount(from);
    if (!a) throw new Error('no sender');
    await state.putAccount(from, { ...a, nonce: a.nonce + 1 });
    const t0 = performance.now();
    const out = await executeVm(
      state,
      { from, to, valueWei: 0n, input: fromHex(input), gasLimit: 5_000_000n, gasPrice: 0n },
      ctx(),
    );
    const ms = performance.now() - t0;
    if (out.status !== 'success') throw new Error(`${out.status}: ${out.error} ${out.revertReason ?? ''}`);
    return { out, ms };
  };
  const endBlock = async () => {
    const batch = kv.batch();
    const root = await state.flush(batch);
    await kv.write(batch);
    state.settle();
    state = await StateTrie.open(kv, root);
    height++;
  };

  const { out: deployed } = await send(
    deployer,
    null,
    (Token.bytecode + token.encodeDeploy(['Bench', 'BEN', 10n ** 30n]).slice(2)) as Hex,
  );
  const tokenAddr = deployed.createdAddress as Address;
  for (let i = 0; i < HOLDERS; i++)
    await send(deployer, tokenAddr, token.encodeFunctionData('transfer', [addr(i), 10n ** 20n]) as Hex);
  await endBlock();

  // Deterministic pseudo-random pairs (LCG), same every run.
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % HOLDERS;
  };
  const calldata = new Map<number, Hex>();
  const transferTo = (j: number) => {
    let d = calldata.get(j);
    if (!d) calldata.set(j, (d = token.encodeFunctionData('transfer', [addr(j), 1n]) as Hex));
    return d;
  };

  let execMs = 0;
  let gas = 0n;
  let n = 0;
  const wall0 = performance.now();
  const profiler = values.profile ? new Session() : undefined;
  for (let b = 0; b < BLOCKS + 1; b++) {
    const warmup = b === 0;
    if (b === 1 && profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    for (let k = 0; k < PER_BLOCK; k++) {
      const i = next();
      let j = next();
      if (j === i) j = (j + 1) % HOLDERS;
      const { out, ms } = await send(addr(i), tokenAddr, transferTo(j));
      if (!warmup) {
        execMs += ms;
        gas += out.gasUsed;
        n++;
      }
    }
    await endBlock();
  }
  const wall = performance.now() - wall0;
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(values.profile!, JSON.stringify(profile));
    profiler.disconnect();
  }
  console.log(`holders ${HOLDERS}, ${n} ERC-20 transfers in ${BLOCKS} blocks of ${PER_BLOCK} (after 1 warm-up block)`);
  console.log(
    `executeVm alone: ${(n / (execMs / 1000)).toFixed(0)} transfers/s ` +
      `(${((execMs * 1000) / n).toFixed(0)} µs each, ${Number(gas) / n} gas avg)`,
  );
  console.log(
    `incl. nonce write + block flush: ${(((BLOCKS + 1) * PER_BLOCK) / (wall / 1000)).toFixed(0)} transfers/s`,
  );
}

await main();
