import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefers } from '../../src/consensus/forkChoice';
import { pqKeyHashOf } from '../../src/crypto/txSigning';
import { signTx } from '../../src/chain/envelope';
import { DEV_NETWORK } from '../../src/chain/devnet';
import { HeadAccounts } from '../../src/api/headAccounts';
import { COIN } from '../../src/primitives/amount';
import { toHex, type Hex } from '../../src/primitives/hex';
import type { SignedTx } from '../../src/protocol/types';
import type { MemoryKv } from '../../src/state/kv';
import { BUCKETS, bucketOf } from '../../src/storage/buckets';
import { blocksOf, consensusNode, produce, SLOT, users, type ConsensusNode as Node } from '../helpers/consensusPair';
import { runModel, type Outcomes } from '../helpers/modelRunner';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();
const node = (index: number) => consensusNode(index, scratch);

/**
 * Reorganizations through the real consensus actors: two validators each build their own branch
 * from one genesis (each produces only in its own slots), with transfers and token creations
 * from shared senders; random runs of production and imports one way or the other. After any
 * sequence, each node's indexes (every block and mutable bucket: feeds, token indexes, stats,
 * summaries…) must equal those of a fresh node that imported only the final chain, and every
 * transaction of an undone block must be in the final chain or back in the mempool.
 */

/** Index buckets as one sorted list of entries (undo records, history, trie nodes and node-local ones left out). */
async function indexes(kv: MemoryKv): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of kv.iterate({})) {
    const b = bucketOf(k);
    if (!b || (BUCKETS[b].kind !== 'block' && BUCKETS[b].kind !== 'mutable') || b === 'head') continue;
    out.push(`${b} ${toHex(k)} ${toHex(v)}`);
  }
  return out.sort();
}

type Op = { kind: 'produce'; node: 0 | 1; txs: { sender: number; token: boolean }[] } | { kind: 'sync'; from: 0 | 1 };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('produce' as const),
    node: fc.constantFrom(0 as const, 1 as const),
    txs: fc.array(fc.record({ sender: fc.nat(2), token: fc.boolean() }), { maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('sync' as const), from: fc.constantFrom(0 as const, 1 as const) }),
);

/**
 * Runs `ops` on two fresh validators; counts the reorganizations. Every transaction either node accepted is in its
 * chain or still pending.
 */
async function runOps(ops: Op[], outcomes: Outcomes): Promise<{ nodes: Node[]; roots: Hex[] }> {
  const nodes = [await node(0), await node(1)];
  const sent = new Map<Hex, SignedTx>();
  let seq = 0;
  for (const o of ops) {
    if (o.kind === 'produce') {
      const n = nodes[o.node];
      for (const t of o.txs) {
        const keys = users[t.sender];
        const nonce = await n.mempool.ask({
          type: 'nextNonce',
          address: keys.address,
          accountNonce: (await new HeadAccounts(n.kv, n.view).read(keys.address))?.nonce ?? 0,
        });
        const tx = t.token
          ? signTx(
              keys,
              {
                type: 'TOKEN_CREATE',
                nonce,
                fee: String(COIN),
                timestamp: ++seq,
                data: { name: `T${seq}`, symbol: `T${seq}`, decimals: 0, supply: '100' },
              },
              DEV_NETWORK,
            )
          : signTx(
              keys,
              {
                type: 'TRANSFER',
                to: users[(t.sender + 1) % 3].address,
                amount: BigInt(seq + 1),
                nonce,
                fee: String(COIN),
                timestamp: ++seq,
              },
              DEV_NETWORK,
            );
        const v = await n.mempool.ask({ type: 'admit', tx, keyHash: pqKeyHashOf(tx) });
        if (v.accepted) sent.set(tx.id, tx);
      }
      if (!(await produce(n))) outcomes.count('abstained', 1);
    } else {
      const [from, to] = [nodes[o.from], nodes[1 - o.from]];
      to.clock.now = Math.max(to.clock.now, from.clock.now);
      const r = await to.chain.ask({ type: 'importBlocks', blocks: await blocksOf(from), now: to.clock.now + SLOT });
      expect(r.rejected).toBeUndefined();
      outcomes.count('reorganized', r.reorganized ?? 0);
      // Fork choice: the importer now has the preferred of the two heads (the later justified checkpoint, then height);
      // an equal-height tie also weighs when each block came (test/unit/consensus/slots.test.ts), so either may stand.
      const [a, b] = [to.view.head, from.view.head];
      const tie = a.height === b.height && (a.justifiedHeight ?? 0) === (b.justifiedHeight ?? 0);
      expect(a.hash === b.hash || tie || prefers(a, b)).toBe(true);
    }
  }
  for (const n of nodes) {
    // Every accepted transaction is in this node's chain or still pending in its pool (or it was never sent to this
    // node).
    for (const [id, tx] of sent) {
      const located = await n.store.txLocation(id);
      const lifecycle = await n.store.txLifecycleEvents(id);
      if (lifecycle.length === 0 && !n.pool.get(id)) continue; // admitted at the other node only
      if (!located)
        expect(
          n.pool.get(id)?.tx.id ?? (await n.mempool.ask({ type: 'lookup', id }))?.tx.id,
          `tx ${id} (${tx.type}) lost`,
        ).toBe(id);
      const included = lifecycle.filter((e) => e.type === 'INCLUDED').length;
      const undone = lifecycle.filter((e) => e.type === 'UNDONE').length;
      expect(included - undone).toBe(located ? 1 : 0);
    }
  }
  return { nodes, roots: nodes.map((n) => n.view.head.stateRoot) };
}

/**
 * Each node's final chain imported by a fresh node: the same head, and the same indexes. Returns the fresh nodes' state
 * roots.
 */
async function freshImports({ nodes }: { nodes: Node[] }): Promise<Hex[]> {
  const roots: Hex[] = [];
  for (const n of nodes) {
    const fresh = await node(n.index);
    fresh.clock.now = n.clock.now;
    const r = await fresh.chain.ask({ type: 'importBlocks', blocks: await blocksOf(n), now: n.clock.now + SLOT });
    expect(r.rejected).toBeUndefined();
    expect(fresh.view.head.hash).toBe(n.view.head.hash);
    const idx = await indexes(n.kv);
    // The comparison is about real entries: a chain holding transactions has their feed entries.
    if ((await blocksOf(n)).some((b) => b.txs.length > 0))
      expect(idx.some((e) => e.startsWith('addressFeed '))).toBe(true);
    expect(idx).toEqual(await indexes(fresh.kv));
    roots.push(fresh.view.head.stateRoot);
  }
  return roots;
}

describe('reorganizations (two validators, real consensus actors)', () => {
  it('indexes after any sequence of imports and reorganizations equal a fresh import of the final chain; ' +
    'undone transactions are re-included or pending', async () => {
    const outcomes = await runModel({
      inputs: fc.array(op, { minLength: 3, maxLength: 14 }),
      run: runOps,
      replays: [{ name: 'a fresh import of each final chain', roots: (_, run) => freshImports(run) }],
      numRuns: Number(process.env.REORG_RUNS ?? 40),
      reach: ['reorganized'],
    });
    if (process.env.REORG_DEBUG) console.log(outcomes.toJSON());
  }, 120_000);
});
