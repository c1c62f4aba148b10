/**
 * Issue 23 row 7: the mempool cannot be held for nothing. 80 accounts funded with 100 base
 * units each send nonces 1–64 with fee 0 (never nonce 0) from their own loopback addresses;
 * honest fee-paying transfers from another address must still be accepted and land within
 * 2 slots, and the squat's places must give way (evicted) and run out (gapped lifetime).
 *
 * The pool is 400 places here (`--mempool-cap`, to keep the test lean) so that the gapped
 * transactions the per-sender bound lets in (16 of each sender) fill it, as 80 × 64 filled the
 * default 5,000 before; the default sizes are pinned in test/unit/mempool/pool.test.ts ("row 7 of
 * issue 23 at the default sizes"). Each test is about 10 s on a busy 2-core machine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeTx, signTx } from '../../src/chain/envelope';
import { deriveKeys, devSecret } from '../../src/crypto/keys';
import { DROP, REFUSAL } from '../../src/protocol/txRefusals';
import { HONEST, requestFrom, spawnTarget, waitFor, type Target } from './lib';
import { prepareSquat } from './attacks/mempoolSquat';

let target: Target | undefined;
afterEach(async () => {
  await target?.cleanup();
  target = undefined;
});

/** Where the test reads the node's state from: the honest user's request budget stays its own. */
const OBSERVER = '127.0.0.11';
const read = async (url: string): Promise<any> => (await requestFrom(OBSERVER, url)).json;
const poolCount = async (url: string): Promise<number> => (await read(`${url}/mempool?limit=1`)).count;

describe('mempool squat (row 7)', () => {
  it('80 accounts sending gapped nonces 1-64 with fee 0 cannot keep an honest fee-paying transfer out: ' +
    'accepted and included within 2 slots', async () => {
    target = await spawnTarget(['--mempool-cap', '400']);
    const url = target.url;
    const squat = await prepareSquat(url);
    const flood = await squat.flood();
    // The squat fills the pool: every place is a transaction that can never run.
    expect(flood.accepted).toBe(400);
    expect(await poolCount(url)).toBe(400);

    // Three honest users (development accounts 1-3), each one fee-paying transfer.
    const honest = [1, 2, 3].map((i) => deriveKeys(devSecret(i)));
    const txs = await Promise.all(
      honest.map(async (k) => {
        const acc = await read(`${url}/address/${k.address}`);
        return signTx(
          k,
          { type: 'TRANSFER', to: honest[0].address, amount: '5', fee: '1000', nonce: acc.nextNonce },
          target!.network,
        );
      }),
    );
    const before: number = (await read(`${url}/status`)).height;
    const verdicts = await Promise.all(txs.map((tx) => requestFrom(HONEST, `${url}/tx`, { body: encodeTx(tx) })));
    for (const v of verdicts) expect(v.json).toEqual({ accepted: true, id: expect.any(String) });
    const heights = await Promise.all(
      txs.map((tx) =>
        waitFor(
          `honest ${tx.id} included`,
          async () => {
            const r = await read(`${url}/tx/${tx.id}`);
            return r?.status === 'included' || r?.status === 'finalized' ? (r.blockHeight as number) : undefined;
          },
          20_000,
          150,
        ),
      ),
    );
    // Within 2 slots: in one of the next two blocks after the head they were submitted at.
    for (const h of heights) expect(h).toBeLessThanOrEqual(before + 2);

    // Each made room by evicting one of the squatters' transactions gapped the longest (the
    // first admitted); their senders see why on /tx/:id.
    const first = await Promise.all(flood.acceptedIds.slice(0, 48).map((id) => read(`${url}/tx/${id}`)));
    const evicted = first.filter((r) => r.status === 'dropped');
    expect(evicted).toHaveLength(3);
    for (const r of evicted)
      expect(r).toMatchObject({ lifecycle: 'dropped', reason: DROP.evicted.reason, code: DROP.evicted.code });
    expect(first.filter((r) => r.status === 'pending')).toHaveLength(45);
    expect(await poolCount(url)).toBe(397);
  }, 120_000);

  it('gapped transactions leave after the gapped lifetime and say so on /tx/:id', async () => {
    // Long enough that none expires while the flood is still being sent (a busy machine took over 2 s to send it).
    target = await spawnTarget(['--mempool-gapped-lifetime-ms', '8000']);
    const url = target.url;
    const squat = await prepareSquat(url, { accounts: 4, nonces: 20 });
    const flood = await squat.flood();
    // 16 gapped transactions per sender at most; the rest are refused as too far ahead.
    expect(flood.accepted).toBe(4 * 16);
    expect(Object.keys(flood.refused)).toEqual([REFUSAL.nonceAhead.reason]);
    await waitFor('the gapped transactions expired', async () => (await poolCount(url)) === 0, 30_000, 200);
    const r = await read(`${url}/tx/${flood.acceptedIds[0]}`);
    expect(r).toMatchObject({ status: 'dropped', reason: DROP.gappedLifetime.reason });
  }, 60_000);
});
