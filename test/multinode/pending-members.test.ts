import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { startDevnet, until, type Devnet } from '../helpers/devnet';

/**
 * Issue 24 on four validator processes (MAX_VALIDATORS = 4): two accounts with no node stand
 * as candidates with more stake than the validators, and the election puts them in the set in
 * force in place of two live validators. Before, four members needed three producers and only
 * two had nodes: finality stopped for good. Now they join as pending and finality is decided
 * by the two members that count; after JOINING_ROUNDS rounds without a block they are jailed
 * and leave the set in force at once, and the two displaced validators come back from the bank.
 */
let net: Devnet;
const status = (i: number) => net.get(i, '/status');

beforeAll(async () => {
  net = await startDevnet(4, { params: 'MAX_VALIDATORS=4' });
}, 90_000);
afterAll(async () => net?.stop());

describe('elected members with no node (issue 24)', () => {
  it('do not stop finality; they leave the set in force and the bank comes back', async () => {
    await until(async () => (await status(0)).finalizedHeight >= 3, 30_000, 'a first final block');
    const absent = net.accounts.slice(0, 2).map((a) => ({ ...a, keys: deriveKeys(fromHex(a.secret)) }));
    const network = await status(0);
    for (const a of absent) {
      const acc = await net.get(0, `/address/${a.keys.address}`);
      const tx = signTx(
        a.keys,
        {
          type: 'STAKE',
          amount: String(2_000_000n * COIN),
          nonce: acc.nextNonce,
          fee: String(COIN),
          data: { candidate: true },
        },
        network,
      );
      expect(await net.post(0, '/tx', tx)).toEqual({ accepted: true, id: tx.id });
    }
    const addresses = absent.map((a) => a.keys.address as Hex);
    // Elected at the next epoch boundary, in force once that is final: both pending.
    const joined = await until(
      async () => {
        const v = await net.get(0, '/validators');
        const pending = v.members.filter(
          (m: { address: Hex; state: string }) => addresses.includes(m.address) && m.state === 'pending',
        );
        return pending.length === 2 && v;
      },
      60_000,
      'the two candidates in force, pending',
    );
    expect(joined.inForce).toHaveLength(4);
    expect(joined.members.filter((m: { countsForFinality: boolean }) => m.countsForFinality)).toHaveLength(2);

    // Finality goes on with the two members that count.
    const f = (await status(0)).finalizedHeight;
    await until(
      async () => (await status(0)).finalizedHeight >= f + 6,
      60_000,
      'finality with two absent members in force',
    );

    // They leave the set in force (jailed for downtime), and the displaced validators come back.
    const after = await until(
      async () => {
        const v = await net.get(0, '/validators');
        return !v.inForce.some((a: Hex) => addresses.includes(a)) && v.inForce.length === 4 && v;
      },
      90_000,
      'the absent members out, the bank back in force',
    );
    for (const a of addresses)
      expect(
        [...after.active, ...after.bank, ...after.candidates].find((x: { address: Hex }) => x.address === a)?.jailed,
      ).toMatchObject({ reason: 'downtime' });
    const g = (await status(0)).finalizedHeight;
    await until(
      async () => (await status(0)).finalizedHeight >= g + 4,
      60_000,
      'finality with the four validators again',
    );
    // Every node agrees on the final chain (net.finalized throws on a disagreement).
    const h = (await status(0)).finalizedHeight;
    const hashes = await Promise.all([0, 1, 2, 3].map((i) => net.get(i, `/blocks/${h}`).then((b) => b.hash)));
    expect(new Set(hashes).size).toBe(1);
  }, 300_000);
});
