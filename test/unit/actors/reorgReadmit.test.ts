import { describe, expect, it } from 'vitest';
import { signTx } from '../../../src/chain/envelope';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { pqKeyHashOf } from '../../../src/crypto/txSigning';
import { COIN } from '../../../src/primitives/amount';
import type { Hex } from '../../../src/primitives/hex';
import type { SignedTx } from '../../../src/protocol/types';
import { blocksOf, consensusNode, produce, SLOT, users, type ConsensusNode as Node } from '../../helpers/consensusPair';
import { scratchDirs } from '../../helpers/scratch';

/**
 * Issue 50 §3: no accepted transaction is lost to a reorganization. The transactions of undone blocks went back to
 * the mempool newest block first: the higher nonces came first and were refused as gapped (16 a sender at most), the
 * lower ones were taken, and the sender was left with a hole nothing filled: accepted, included transactions vanished
 * and every later one of their senders waited for ever (the 200 tx/s soak's empty blocks beside 3,775 pending).
 * Now they come back in chain order, exempt from the per-sender caps, and one that can no longer be valid on the new
 * chain is dropped with its reason.
 */
const scratch = scratchDirs();
const SENDER = users[0];
let seq = 0;

const transfer = (nonce: number, amount = 1n + BigInt(nonce)): SignedTx =>
  signTx(
    SENDER,
    { type: 'TRANSFER', to: users[1].address, amount, nonce, fee: String(COIN), timestamp: ++seq },
    DEV_NETWORK,
  );

async function admit(n: Node, tx: SignedTx): Promise<void> {
  const v = await n.mempool.ask({ type: 'admit', tx, keyHash: pqKeyHashOf(tx) });
  expect(v, JSON.stringify(v)).toMatchObject({ accepted: true });
}

/** `to` imports `from`'s chain; the mempool has handled what the import sent it once this returns. */
async function sync(from: Node, to: Node): Promise<number> {
  to.clock.now = Math.max(to.clock.now, from.clock.now);
  const r = await to.chain.ask({ type: 'importBlocks', blocks: await blocksOf(from), now: to.clock.now + SLOT });
  expect(r.rejected).toBeUndefined();
  await to.mempool.ask({ type: 'stats' }); // the mailbox is in order: the readmission is done
  return r.reorganized ?? 0;
}

/** Heights of `ids` in `n`'s chain (undefined: not in it). */
const heights = async (n: Node, ids: Hex[]) =>
  Promise.all(ids.map(async (id) => (await n.store.txLocation(id))?.height));

/** Both validators take turns and share their blocks until every id is final on both, or `rounds` run out. */
async function untilFinal(nodes: Node[], ids: Hex[], rounds = 40): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    const [a, b] = r % 2 ? [nodes[1], nodes[0]] : [nodes[0], nodes[1]];
    await produce(a);
    await sync(a, b);
    let done = true;
    for (const n of nodes) {
      const hs = await heights(n, ids);
      if (hs.some((h) => h === undefined || h > n.view.head.finalizedHeight)) done = false;
    }
    if (done) return;
  }
  const hs = await heights(nodes[0], ids);
  throw new Error(
    `not final after ${rounds} rounds: ${hs.filter((h) => h === undefined).length} missing, finalized ` +
      `${nodes[0].view.head.finalizedHeight}, heights ${hs.join(',')}`,
  );
}

describe('a reorganization loses no accepted transaction', () => {
  it('a branch holding 50 consecutive nonces of one sender loses to another: all 50 end final on the new chain', async () => {
    const nodes = [await consensusNode(0, scratch), await consensusNode(1, scratch)];
    const txs = Array.from({ length: 50 }, (_, i) => transfer(i));
    // Validator 0's branch: five blocks of ten nonces each.
    for (let b = 0; b < 5; b++) {
      for (const tx of txs.slice(b * 10, b * 10 + 10)) await admit(nodes[0], tx);
      await produce(nodes[0]);
    }
    expect(
      (
        await heights(
          nodes[0],
          txs.map((t) => t.id),
        )
      ).every((h) => h !== undefined),
    ).toBe(true);
    // Validator 1's branch, longer: it wins the fork choice.
    for (let b = 0; b < 7; b++) await produce(nodes[1]);
    expect(await sync(nodes[1], nodes[0])).toBe(1); // one reorganization, five blocks deep
    expect(nodes[0].view.head.hash).toBe(nodes[1].view.head.hash);

    // Every one of the 50 is pending again on validator 0, none dropped, and none is gapped.
    expect(nodes[0].pool.size).toBe(50);
    expect(txs.every((t) => nodes[0].pool.has(t.id) && !nodes[0].pool.isGapped(t.id))).toBe(true);
    expect(nodes[0].txReports.filter((m) => m.type === 'dropped')).toEqual([]);

    await untilFinal(
      nodes,
      txs.map((t) => t.id),
    );
  });

  it('one that can no longer be valid (its nonce used on the new chain) is dropped with its reason; the rest end final', async () => {
    const nodes = [await consensusNode(0, scratch), await consensusNode(1, scratch)];
    const txs = Array.from({ length: 20 }, (_, i) => transfer(i));
    for (let b = 0; b < 2; b++) {
      for (const tx of txs.slice(b * 10, b * 10 + 10)) await admit(nodes[0], tx);
      await produce(nodes[0]);
    }
    // The winning branch spends nonce 0 with another transaction.
    const rival = transfer(0, 999n);
    await admit(nodes[1], rival);
    for (let b = 0; b < 4; b++) await produce(nodes[1]);
    expect(await nodes[1].store.txLocation(rival.id)).toBeDefined();
    expect(await sync(nodes[1], nodes[0])).toBe(1);

    await untilFinal(nodes, [rival.id, ...txs.slice(1).map((t) => t.id)]);
    expect(await nodes[0].store.txLocation(txs[0].id)).toBeUndefined();
    const drops = nodes[0].txReports.flatMap((m) => (m.type === 'dropped' ? m.drops : []));
    expect(drops).toEqual([{ id: txs[0].id, reason: 'nonce already used', code: expect.any(String) }]);
  });
});
