/**
 * Issue 23 rows 5 and 6: a permission governs every path that moves the account's value.
 * A victim account installs a 2-of-2 permission governing TRANSFER and TOKEN_TRANSFER; then
 * its own key (as a thief holding it would) tries to move its coins and tokens around the
 * multisig:
 *  - row 5: it signs a TRANSFER / TOKEN_TRANSFER with fee "0" and a stranger relays it in a
 *    META_TX (today: the coins and tokens move, while the same transfer sent directly fails);
 *  - row 6: it sends value with eth_sendRawTransaction and POST /vm/tx, signed by its
 *    secp256k1 key alone (today: the coins move).
 * Against a real node process; the attacker on its own loopback address.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTx, signTx, type TxFields } from '../../src/chain/envelope';
import { deriveKeys, devSecret, type HybridKeys } from '../../src/crypto/keys';
import { assetId } from '../../src/modules/assets/common';
import { COIN } from '../../src/primitives/amount';
import { toHex, type Hex } from '../../src/primitives/hex';
import { CHAIN_ID, GAS_PRICE_WEI } from '../../src/protocol/params';
import { ATTACKER, HONEST, requestFrom, rpcFrom, spawnTarget, waitFor, type Target } from './lib';

const VICTIM = deriveKeys(devSecret(1));
const RELAYER = deriveKeys(devSecret(2)); // the attacker's own funded account
const KEYS = [deriveKeys(devSecret(3)), deriveKeys(devSecret(4))]; // the permission's key holders
const THIEF = deriveKeys(devSecret(5)).address; // where the attacker wants the value
const TIMEOUT = 60_000;

let node: Target;

const post = (from: string, body: string) => requestFrom(from, `${node.url}/tx`, { body });
const account = async (a: string) => (await requestFrom(HONEST, `${node.url}/address/${a}`)).json;
const nonceOf = async (keys: HybridKeys): Promise<number> => (await account(keys.address)).nextNonce;
const tokenBalance = async (a: string, token: Hex): Promise<string> =>
  (await account(a)).tokens?.find((t: { token: string }) => t.token === token)?.balance ?? '0';

/** Submits `fields` signed by `keys` (from the honest address) and waits for its successful inclusion. */
async function included(keys: HybridKeys, fields: Omit<TxFields, 'nonce'>): Promise<Hex> {
  const tx = signTx(keys, { ...fields, nonce: await nonceOf(keys) }, node.network);
  const r = await post(HONEST, encodeTx(tx));
  expect(r.json, JSON.stringify(r.json)).toMatchObject({ accepted: true });
  const rec = await waitFor(
    `${fields.type} included`,
    async () => {
      const t = (await requestFrom(HONEST, `${node.url}/tx/${tx.id}`)).json;
      return t?.blockHeight !== undefined ? t : undefined;
    },
    TIMEOUT,
  );
  expect(rec.result, JSON.stringify(rec.result)).toMatchObject({ status: 'success' });
  return tx.id;
}

/** What the victim holds: its coins and the thief's. */
const holdings = async (token: Hex) => ({
  victim: (await account(VICTIM.address)).balance as string,
  victimTokens: await tokenBalance(VICTIM.address, token),
  thiefTokens: await tokenBalance(THIEF, token),
  thief: (await account(THIEF)).balance as string,
});

/**
 * Waits until whatever was admitted before now has had its block: an honest transfer sent
 * after it is included (the producer takes ready transactions in arrival order).
 */
const settled = () => included(KEYS[0], { type: 'TRANSFER', to: KEYS[1].address, amount: 1n });

let token: Hex;

describe("a permission governs every path that moves the account's value (issue 23 rows 5, 6)", () => {
  beforeAll(async () => {
    node = await spawnTarget();
    const create = await included(VICTIM, {
      type: 'TOKEN_CREATE',
      data: { name: 'Vault', symbol: 'VLT', decimals: 0, supply: '1000' },
    });
    token = assetId(create);
    const permission = {
      keys: { [KEYS[0].address]: 1, [KEYS[1].address]: 1 },
      threshold: 2,
      operations: ['TRANSFER', 'TOKEN_TRANSFER'],
      timelockBlocks: 10,
    };
    await included(VICTIM, { type: 'PERMISSION_UPDATE', data: { permission } });
    expect((await account(VICTIM.address)).permissioned).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await node?.cleanup();
  });

  const governed = (type: string) => `${type} from ${VICTIM.address} needs its multisig permission (MULTISIG_PROPOSE)`;

  it(
    'row 5: a relayed TRANSFER or TOKEN_TRANSFER is judged as if the victim had sent it: refused, nothing moves',
    async () => {
      const before = await holdings(token);
      const nonce = await nonceOf(VICTIM);
      const inners = [
        signTx(VICTIM, { type: 'TRANSFER', to: THIEF, amount: 50n * COIN, fee: '0', nonce }, node.network),
        signTx(
          VICTIM,
          { type: 'TOKEN_TRANSFER', to: THIEF, fee: '0', nonce, data: { token, amount: '400' } },
          node.network,
        ),
      ];
      let relayerNonce = await nonceOf(RELAYER);
      for (const inner of inners) {
        // Relayed by a stranger: judged as if the victim had sent it.
        const meta = signTx(
          RELAYER,
          { type: 'META_TX', nonce: relayerNonce, data: { tx: JSON.parse(encodeTx(inner)) } },
          node.network,
        );
        const r = await post(ATTACKER, encodeTx(meta));
        if (r.json.accepted) relayerNonce++;
        expect(r.json).toEqual({
          accepted: false,
          id: meta.id,
          reason: governed(inner.type),
          code: 'PERMISSION_GOVERNED',
        });
        // Sent directly by the victim's key: the same refusal.
        const direct = await post(ATTACKER, encodeTx(inner));
        expect(direct.json).toEqual({
          accepted: false,
          id: inner.id,
          reason: governed(inner.type),
          code: 'PERMISSION_GOVERNED',
        });
      }
      await settled();
      expect(await holdings(token)).toEqual(before);
      expect(before.victimTokens).toBe('1000');
    },
    TIMEOUT * 3,
  );

  it(
    "row 6: the victim's secp256k1 key alone cannot send value through an Ethereum envelope",
    async () => {
      const before = await holdings(token);
      const wallet = new Wallet(toHex(VICTIM.secp256k1.privateKey));
      expect(wallet.address.toLowerCase()).toBe(VICTIM.address);
      const reason =
        `Ethereum-envelope transactions from ${VICTIM.address} are refused: its permission governs ` +
        `TOKEN_TRANSFER, TRANSFER (value moves only through MULTISIG_PROPOSE)`;
      const sign = async (nonce: number) =>
        wallet.signTransaction({
          type: 2,
          chainId: BigInt(CHAIN_ID),
          nonce,
          to: THIEF,
          value: 50n * 10n ** 18n,
          gasLimit: 21_000n,
          maxFeePerGas: GAS_PRICE_WEI,
          maxPriorityFeePerGas: 0n,
        });
      const nonce = await nonceOf(VICTIM);
      const rpc = await rpcFrom(ATTACKER, node.rpcUrl, 'eth_sendRawTransaction', [await sign(nonce)]);
      expect(rpc.error, JSON.stringify(rpc)).toEqual({ code: -32000, message: reason });
      const vm = await requestFrom(ATTACKER, `${node.url}/vm/tx`, { body: { raw: await sign(nonce) } });
      expect(vm.json).toMatchObject({ accepted: false, reason });
      await settled();
      expect(await holdings(token)).toEqual(before);
    },
    TIMEOUT * 3,
  );
});
