import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSupply } from '../../src/protocol/execState';
import type { GenesisSpec } from '../../src/chain/genesis';
import { CHAIN_ID, TREASURY_ADDRESS } from '../../src/protocol/params';
import type { Address, SignedTx } from '../../src/protocol/types';
import { keccakHex } from '../../src/crypto/hash';
import { toHex, utf8, type Hex } from '../../src/primitives/hex';
import { bySender, commitState, freshChainState, heldBy, MemChain, replayBlocks } from '../helpers/memChain';
import { runModel, type Outcomes } from '../helpers/modelRunner';
import { DEV_NETWORK } from '../../src/chain/devnet';

// Execution does not verify signatures (admission does), so these properties use unsigned
// envelopes with a fixed ML-DSA key per sender: thousands of cases stay fast.
const N = 5;
const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const mldsaKey = (i: number): Hex => toHex(utf8(`key-${i}`));
const PRODUCER = addr(99);
const ALL = [...Array.from({ length: N }, (_, i) => addr(i)), addr(50), PRODUCER, TREASURY_ADDRESS];

const genesis: GenesisSpec = {
  chainId: CHAIN_ID,
  timestamp: 1,
  accounts: [
    ...Array.from({ length: N }, (_, i) => ({ address: addr(i), balance: String(1_000_000 * (i + 1)) })),
    { address: PRODUCER, balance: '0', staked: '5000000', isValidator: true },
  ],
};

interface Op {
  from: number;
  to: number;
  amount: bigint;
  fee: bigint;
  nonceSkew: number;
}
const op = fc.record({
  from: fc.nat(N - 1),
  to: fc.nat(N),
  amount: fc.bigInt({ min: 0n, max: 3_000_000n }),
  fee: fc.bigInt({ min: 0n, max: 500n }),
  nonceSkew: fc.oneof(
    { weight: 8, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: -1, max: 2 }) },
  ),
});

function makeTx(o: Op, nonce: number, ts: number): SignedTx {
  const to = o.to === N ? addr(50) : addr(o.to);
  const payload = {
    chainId: CHAIN_ID,
    type: 'TRANSFER' as const,
    from: addr(o.from),
    to,
    amount: o.amount.toString(),
    nonce,
    timestamp: ts,
    fee: o.fee.toString(),
    data: null,
  };
  return {
    ...payload,
    id: keccakHex(utf8(JSON.stringify(payload))),
    publicKeys: { secp256k1: '0x', mldsa44: mldsaKey(o.from) },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  };
}

const fresh = () => freshChainState(genesis);
const commit = commitState;

/** Runs blocks of ops and checks the invariants after each; counts the included and left-out transactions. */
async function runChain(blocksOps: Op[][], outcomes: Outcomes): Promise<MemChain> {
  const c = await MemChain.open(genesis, PRODUCER);
  const state = c.state;
  const nonces = new Array<number>(N).fill(0);
  let ts = 1;
  for (let h = 1; h <= blocksOps.length; h++) {
    const offered: SignedTx[] = [];
    for (const o of blocksOps[h - 1]) {
      const nonce = Math.max(0, nonces[o.from] + o.nonceSkew);
      if (o.nonceSkew === 0) nonces[o.from]++;
      offered.push(makeTx(o, nonce, ts++));
    }
    const pending = bySender(offered).map((q) => q.sort((a, b) => a.nonce - b.nonce));
    const nonceBefore = await Promise.all(
      Array.from({ length: N }, async (_, i) => (await state.getAccount(addr(i)))?.nonce ?? 0),
    );
    const { built } = await c.build(pending);
    outcomes.count('included', built.txs.length);
    outcomes.count('left out', blocksOps[h - 1].length - built.txs.length);
    // supply conserved: every balance and stake adds up to the supply record
    const supply = await loadSupply(state);
    expect(await heldBy(state, ALL)).toBe(supply.supply);
    expect(supply.supply).toBe(supply.minted - supply.burned + 15_000_000n + 5_000_000n);
    // nonces monotonic, advancing by exactly the sender's included transactions
    for (let i = 0; i < N; i++) {
      const after = (await state.getAccount(addr(i)))?.nonce ?? 0;
      expect(after - nonceBefore[i]).toBe(built.txs.filter((t) => t.from === addr(i)).length);
    }
    // re-sync the generator with what actually got in (skipped txs never will)
    for (let i = 0; i < N; i++) nonces[i] = (await state.getAccount(addr(i)))?.nonce ?? 0;
  }
  return c;
}

describe('execution properties', () => {
  it('conserves supply, keeps nonces monotonic, and the same blocks give the same roots', async () => {
    await runModel({
      inputs: fc.array(fc.array(op, { maxLength: 12 }), { minLength: 1, maxLength: 5 }),
      run: runChain,
      // Replaying the produced blocks on an independent state reproduces every root.
      replays: [{ name: 'the blocks imported on a fresh state', roots: (_, c) => replayBlocks(genesis, c.blocks) }],
      numRuns: 60,
      // Some transactions get in, and some (nonce gaps, fees or amounts beyond the balance) are left out.
      reach: ['included', 'left out'],
    });
  }, 120_000);

  it('a transaction the sender cannot pay for is left out and changes nothing', async () => {
    const { kv, state } = await fresh();
    await commit(kv, state);
    const rootBefore = state.root();
    const tx = makeTx({ from: 0, to: 1, amount: 10n ** 12n, fee: 10n, nonceSkew: 0 }, 0, 1);
    state.checkpoint();
    const { applyTx } = await import('../../src/chain/applyTx');
    const v = await applyTx(state, tx, { height: 1, timestamp: 1000, producer: PRODUCER, network: DEV_NETWORK });
    expect(v).toMatchObject({ kind: 'skip', refusal: { reason: 'insufficient balance' }, permanent: false });
    expect(state.root()).toBe(rootBefore);
    await state.revert();
  });
});
