import { describe, expect, it } from 'vitest';
import { applyTx } from '../../../../src/chain/applyTx';
import { signTx, verifyJobsOf } from '../../../../src/chain/envelope';
import { deriveKeys } from '../../../../src/crypto/keys';
import { assetId } from '../../../../src/modules/assets/common';
import { balanceKey } from '../../../../src/modules/tokens/records';
import { loadSupply } from '../../../../src/protocol/execState';
import { COIN } from '../../../../src/primitives/amount';
import { toHex } from '../../../../src/primitives/hex';
import type { Address, HybridTx } from '../../../../src/protocol/types';
import { refusal } from '../../../helpers/assetHarness';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { DEV_NETWORK } from '../../../../src/chain/devnet';
import { usedNonces } from '../../../../src/actors/consensus/commitBlock';
import { TxPool } from '../../../../src/mempool/pool';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
const USER = deriveKeys(new Uint8Array(32).fill(7));
const OTHER = deriveKeys(new Uint8Array(32).fill(9));
const RELAYER = U1;

/** A world where USER (real keys) holds 100 coins and nothing else of its own. */
async function world(): Promise<EconWorld> {
  const w = await EconWorld.create();
  await w.ok('TRANSFER', U2, { to: USER.address, amount: c(100) });
  return w;
}
const inner = (
  fields: {
    type?: 'TRANSFER' | 'TOKEN_TRANSFER';
    to?: Address;
    amount?: string;
    nonce?: number;
    fee?: string;
    data?: unknown;
  },
  keys = USER,
): HybridTx =>
  signTx(
    keys,
    {
      type: fields.type ?? 'TRANSFER',
      to: fields.to ?? U3,
      amount: fields.amount ?? c(10),
      nonce: fields.nonce ?? 0,
      fee: fields.fee ?? '0',
      timestamp: 5,
      data: fields.data ?? null,
    },
    DEV_NETWORK,
  );

describe('META_TX', () => {
  it(
    "relays a TRANSFER: the user's coins move, " + "the relayer pays the energy, the user's nonce is used once",
    async () => {
      const w = await world();
      const [u, to, relayer] = [await w.account(USER.address), await w.account(U3), await w.account(RELAYER)];
      const t = inner({});
      const r = await w.ok('META_TX', RELAYER, { data: { tx: t } });
      expect((await w.account(USER.address)).balance).toBe(u.balance - 10n * COIN); // burns nothing
      expect((await w.account(U3)).balance).toBe(to.balance + 10n * COIN);
      expect((await w.account(USER.address)).nonce).toBe(1);
      expect(BigInt(r.energyUsed) + BigInt(r.burned)).toBe(500n + 100n);
      expect((await w.account(RELAYER)).nonce).toBe(relayer.nonce + 1);
      await w.fails('META_TX', U4, { data: { tx: t } }, 'META_TX inner transaction: nonce 1 expected, got 0');
      const s = await loadSupply(w.state);
      expect(s.supply).toBe(
        await w.total([
          U1,
          U2,
          U3,
          U4,
          V0,
          USER.address,
          '0x000000000000000000000000000000000000007f',
          '0x000000000000000000000000000000000000007e',
        ]),
      );
    },
  );

  it('relays a TOKEN_TRANSFER', async () => {
    const w = await world();
    const create = await w.tx('TOKEN_CREATE', U2, {
      data: { name: 'Gold', symbol: 'GLD', decimals: 0, supply: '1000' },
    });
    await w.block([create]);
    const token = assetId(create.id);
    await w.ok('TOKEN_TRANSFER', U2, { to: USER.address, data: { token, amount: '40' } });
    await w.ok('META_TX', RELAYER, {
      data: { tx: inner({ type: 'TOKEN_TRANSFER', to: U4, amount: '0', data: { token, amount: '15' } }) },
    });
    expect(await w.state.getRecord(balanceKey(token, U4))).toBe('15');
    expect(await w.state.getRecord(balanceKey(token, USER.address))).toBe('25');
  });

  it('never includes a bad inner signature or a tampered payload; reverts the nonce when the inner fails', async () => {
    const w = await world();
    const t = inner({});
    const forged = { ...t, signatures: { ...t.signatures, mldsa44: toHex(new Uint8Array(2420)) } };
    const { id: _, ...noId } = t;
    const someoneElse = { ...inner({}, OTHER), publicKeys: t.publicKeys };
    const { id: _x, ...other } = someoneElse;
    for (const bad of [forged, { ...noId, amount: c(20) }, other]) {
      // Without a verify-pool verdict (a replay, a tool), execution checks it itself: it can never be in a block.
      const meta = await w.tx('META_TX', RELAYER, { data: { tx: bad } });
      expect(
        await applyTx(w.state, meta, { height: w.height + 1, timestamp: 1e9, producer: V0, network: DEV_NETWORK }),
      ).toEqual({
        kind: 'skip',
        refusal: { code: 'TX_BAD_SIGNATURE', reason: 'invalid signature', meta: {} },
        permanent: true,
        gap: false,
      });
    }
    await w.fails(
      'META_TX',
      RELAYER,
      { data: { tx: inner({ amount: c(1000) }) } },
      'META_TX inner transaction failed: insufficient balance',
    );
    expect((await w.account(USER.address)).nonce).toBe(0);
    await w.ok('META_TX', RELAYER, { data: { tx: t } });
    // A user the chain has never seen has nothing to move.
    await w.fails(
      'META_TX',
      RELAYER,
      { data: { tx: inner({}, OTHER) } },
      'META_TX inner transaction: insufficient balance',
    );
  });

  it('does not verify the inner signature at execution when the verify pool did (nestedVerified)', async () => {
    const w = await world();
    const t = inner({});
    const forged = { ...t, signatures: { ...t.signatures, mldsa44: toHex(new Uint8Array(2420)) } };
    // The producer and the importer pass nestedVerified only after the pool passed them: a forged
    // one executing here shows that execution itself spends no signature check.
    const meta = await w.tx('META_TX', RELAYER, { data: { tx: forged } });
    const v = await applyTx(w.state, meta, {
      height: w.height + 1,
      timestamp: 1e9,
      producer: V0,
      network: DEV_NETWORK,
      nestedVerified: true,
    });
    expect(v).toMatchObject({ kind: 'applied', result: { status: 'success' } });
    // the pool checks the outer and the inner envelope together
    expect(verifyJobsOf(meta as HybridTx, DEV_NETWORK)).toHaveLength(2);
  });

  it(
    'judges the inner transaction as if its user had sent it: ' + 'a permission governing it fails the META_TX',
    async () => {
      const w = await world();
      const create = await w.tx('TOKEN_CREATE', U2, {
        data: { name: 'Gold', symbol: 'GLD', decimals: 0, supply: '1000' },
      });
      await w.block([create]);
      const token = assetId(create.id);
      await w.ok('TOKEN_TRANSFER', U2, { to: USER.address, data: { token, amount: '400' } });
      await w.block([
        signTx(
          USER,
          {
            type: 'PERMISSION_UPDATE',
            nonce: 0,
            fee: '100000',
            timestamp: 5,
            data: {
              permission: {
                keys: { [U3]: 1, [U4]: 1 },
                threshold: 2,
                operations: ['TRANSFER', 'TOKEN_TRANSFER'],
                timelockBlocks: 3,
              },
            },
          },
          DEV_NETWORK,
        ),
      ]);
      const before = await w.account(USER.address);
      const governed = (type: string) =>
        `${type} from ${USER.address} needs its multisig permission (MULTISIG_PROPOSE)`;
      await w.fails(
        'META_TX',
        RELAYER,
        { data: { tx: inner({ nonce: 1 }) } },
        `META_TX inner transaction failed: ${governed('TRANSFER')}`,
      );
      await w.fails(
        'META_TX',
        RELAYER,
        {
          data: {
            tx: inner({ nonce: 1, type: 'TOKEN_TRANSFER', to: U4, amount: '0', data: { token, amount: '400' } }),
          },
        },
        `META_TX inner transaction failed: ${governed('TOKEN_TRANSFER')}`,
      );
      expect((await w.account(USER.address)).balance).toBe(before.balance);
      expect((await w.account(USER.address)).nonce).toBe(1);
      expect(await w.state.getRecord(balanceKey(token, USER.address))).toBe('400');
    },
  );

  it('refuses at admission what can never run', () => {
    const r = (tx: unknown, from: Address = RELAYER) => refusal('META_TX', { data: { tx } }, from);
    const t = inner({});
    expect(r(t)).toBeUndefined();
    expect(r(inner({ fee: '1' }))).toBe('META_TX data.tx must have fee "0": the relayer pays');
    expect(r({ ...t, type: 'STAKE' })).toBe('META_TX data.tx must be a TRANSFER or TOKEN_TRANSFER');
    expect(r({ ...t, chainId: 1 })).toBe('META_TX data.tx must be for chain 72020');
    expect(r({ ...t, extra: 1 })).toMatch(/^META_TX data\.tx must be a signed hybrid envelope/);
    expect(r({ ...t, amount: c(11) })).toBe('META_TX data.tx id does not match its payload');
    expect(r(inner({ amount: '0' }))).toBe('META_TX data.tx: TRANSFER amount must be positive');
    expect(r(t, USER.address)).toBe("META_TX relays another account's transaction: send your own directly");
    expect(refusal('META_TX', { data: null })).toBe('META_TX needs a data object with tx');
  });
});

describe('META_TX and the mempool', () => {
  it("a block's used nonces include the relayed user's: the mempool moves that user's base too", async () => {
    const w = await world();
    const meta = await w.tx('META_TX', RELAYER, { data: { tx: inner({ nonce: 0 }) } });
    const direct = inner({ nonce: 1, fee: '1000' });
    expect(usedNonces([meta, direct])).toEqual([
      [RELAYER, meta.nonce],
      [USER.address, 0],
      [USER.address, 1],
    ]);
    // What the mempool does with them: USER's nonce-1 transaction, admitted while its head nonce was 0 and nonce 0 rode
    // in a META_TX, was gapped; it is ready once the block's nonces are applied.
    const pool = new TxPool({ cap: 10, lifetimeMs: 60_000, maxNonceGap: 64 });
    expect(
      pool.admit(direct, { nonce: 0, balance: 100n * COIN, mldsaKeyHash: null } as never, null, 0),
    ).toBeUndefined();
    expect(pool.isGapped(direct.id)).toBe(true);
    for (const [from, nonce] of usedNonces([meta])) pool.rebase(from, nonce + 1, 1);
    expect(pool.isGapped(direct.id)).toBe(false);
  });
});
