/**
 * Block production in process: a 500-transfer block built (execution + end-of-block work:
 * machine tick, rewards, unbonding, elections) and its trie flushed, on an in-memory store.
 * Prints the median, min and max of `--rounds` blocks. Usage: npx tsx bench/block.ts [--rounds 15]
 */
import { buildBlock } from '../src/chain/buildBlock';
import { applyGenesis } from '../src/chain/genesis';
import { orderedCandidates } from '../src/mempool/senderHeap';
import { CHAIN_ID } from '../src/protocol/params';
import type { Address, SignedTx } from '../src/protocol/types';
import { MemoryKv } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const ROUNDS = arg('rounds', 15);
const N = 500;
const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const senders = Array.from({ length: N }, (_, i) => addr(0x10000 + i));
const PRODUCER = addr(0x99);

async function main() {
  const kv = new MemoryKv();
  const state = await StateTrie.open(kv, null);
  await applyGenesis(state, {
    chainId: CHAIN_ID, timestamp: 1,
    accounts: [...senders.map((address) => ({ address, balance: '1000000000000' })), { address: PRODUCER, balance: '0', staked: '2000000000', isValidator: true }],
  });
  let b = kv.batch();
  let root = await state.flush(b);
  await kv.write(b);
  state.settle();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const s = await StateTrie.open(kv, root);
    const txs: SignedTx[] = senders.map((from, i) => ({
      chainId: CHAIN_ID, type: 'TRANSFER', from, to: senders[(i + 1) % N], amount: '1', nonce: r, timestamp: r * N + i + 1, fee: '1000000', data: null,
      id: `0x${(r * N + i).toString(16).padStart(64, '0')}`, publicKeys: { secp256k1: '0x', mldsa44: '0x00' }, signatures: { secp256k1: '0x', mldsa44: '0x' },
    } as SignedTx));
    const t0 = performance.now();
    const built = await buildBlock(s, orderedCandidates(txs.map((t) => [t])), { height: r + 1, timestamp: (r + 1) * 1000, producer: PRODUCER, maxTxs: N });
    b = kv.batch();
    root = await s.flush(b);
    const ms = performance.now() - t0;
    await kv.write(b);
    s.settle();
    if (built.txs.length !== N) throw new Error(`only ${built.txs.length} included: ${built.dropped[0]?.reason}`);
    if (r >= 3) times.push(ms); // warm-up rounds left out
  }
  times.sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(1);
  console.log(`500-transfer block (build + trie flush, MemoryKv): median ${f(times[times.length >> 1])} ms, min ${f(times[0])}, max ${f(times[times.length - 1])} over ${times.length} blocks`);
}
void main();
