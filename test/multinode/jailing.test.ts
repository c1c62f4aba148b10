import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { startDevnet, until, type Devnet } from '../helpers/devnet';

/**
 * Downtime jailing across four validator processes (JAIL_MISSED_ROUNDS = 5: 20 blocks with
 * n = 4; idle blocks go round the set in order (consensus/slots.ts idleTurn), so a live
 * validator produces every 3 blocks while one is down; the margin is for the nodes' staggered
 * start, when the first ones produce before the last is up). A killed validator is jailed; the set without it takes
 * effect once the jailing
 * block is final, and blocks and finality go on with 3 of 3. Restarted, the node follows;
 * it asks back in with STAKE candidate, is elected at the next epoch (EPOCH_BLOCKS = 10)
 * and, once that is final, produces again.
 */
let net: Devnet;
const status = (i: number) => net.get(i, '/status');

async function send(i: number, secret: string, tx: (nonce: number) => Parameters<typeof signTx>[1]): Promise<Hex> {
  const keys = deriveKeys(fromHex(secret));
  const acc = await net.get(i, `/address/${keys.address}`);
  const signed = signTx(keys, tx(acc.nextNonce), await net.get(i, '/status'));
  expect(await net.post(i, '/tx', signed)).toEqual({ accepted: true, id: signed.id });
  await until(
    async () => (await net.get(i, `/tx/${signed.id}`)).status === 'finalized',
    30_000,
    `tx ${signed.id} final`,
  );
  return signed.id;
}

beforeAll(async () => {
  net = await startDevnet(4, { params: 'JAIL_MISSED_ROUNDS=5' });
}, 90_000);
afterAll(async () => net?.stop());

describe('downtime jailing on a network of four', () => {
  it('jails a validator that is down, goes on with 3 of 3, and takes it back once it asks', async () => {
    const validators: { address: Hex; secret: string }[] = JSON.parse(
      await readFile(join(net.dir, 'dev-validators.json'), 'utf8'),
    );
    const down = validators[3].address;
    await until(async () => (await status(0)).finalizedHeight >= 3, 30_000, 'a first final block');
    // Coins for the STAKE it will send later (validators hold stake, no balance).
    await send(0, net.accounts[0].secret, (nonce) => ({
      type: 'TRANSFER',
      to: down,
      amount: 10n * COIN,
      nonce,
      fee: String(COIN),
    }));

    await net.kill(3);
    const jailed = await until(
      async () => {
        const v = await net.get(0, '/validators');
        return !v.inForce.includes(down) && v;
      },
      90_000,
      'the set without the downed validator in force',
    );
    const me = [...jailed.active, ...jailed.bank, ...jailed.candidates].find(
      (x: { address: Hex }) => x.address === down,
    );
    expect(me.jailed).toMatchObject({ reason: 'downtime' });
    expect(me.performance.status).toBe('jailed');
    expect(jailed.inForce).toHaveLength(3);
    expect(jailed.jailAfterBlocks).toBe(15);
    // 3 of 3 finalize: finality keeps moving without the jailed validator.
    const f = (await status(0)).finalizedHeight;
    await until(async () => (await status(0)).finalizedHeight >= f + 3, 45_000, 'finality with 3 of 3');

    await net.restart(3);
    await until(
      async () => (await status(3)).height >= (await status(0)).height - 1,
      60_000,
      'the restarted node catches up',
    );
    // It asks back in; elected at the next epoch boundary, in force once that is final.
    await send(3, validators[3].secret, (nonce) => ({
      type: 'STAKE',
      amount: 1n,
      nonce,
      fee: String(COIN),
      data: { candidate: true },
    }));
    const back = await until(
      async () => {
        const v = await net.get(0, '/validators');
        return v.inForce.includes(down) && v;
      },
      60_000,
      'the validator back in force',
    );
    const since = back.inForceSince;
    await until(
      async () => {
        const v = await net.get(0, '/validators');
        const m = v.active.find((x: { address: Hex }) => x.address === down);
        return m && m.jailed === null && m.lastProduced !== null && m.lastProduced >= since;
      },
      30_000,
      'the validator produces again',
    );
    // Every node agrees on the final chain it went through.
    const h = (await status(0)).finalizedHeight;
    const hashes = await Promise.all([0, 1, 2, 3].map((i) => net.get(i, `/blocks/${h}`).then((b) => b.hash)));
    expect(new Set(hashes).size).toBe(1);
  }, 240_000);
});
