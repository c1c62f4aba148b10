import { describe, expect, it } from 'vitest';
import { createAdmission, OVERLOADED } from '../../../src/api/admission';
import { signTx } from '../../../src/chain/envelope';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import type { VerifyPool } from '../../../src/crypto/verifyPool';
import type { ActorRef } from '../../../src/actors/actorRef';
import type { MempoolMsg, MempoolReplies } from '../../../src/actors/protocol';
import type { Hex } from '../../../src/primitives/hex';
import type { AccountState } from '../../../src/protocol/types';
import type { ChainStore } from '../../../src/storage/chainStore';

const sender = deriveKeys(devSecret(0));
const to = deriveKeys(devSecret(1)).address;

/**
 * Admission over counted stand-ins: the head account says the sender's nonce, the store holds `inBlocks`, the
 * signature check and the mempool accept everything (their own rules are tested with them).
 */
function admissionWith(
  accountNonce: number,
  inBlocks: Set<Hex>,
  extra: Partial<Parameters<typeof createAdmission>[0]> = {},
) {
  const n = { txLocation: 0, verified: 0, mempool: 0 };
  const store = {
    txLocation: async (id: Hex) => {
      n.txLocation++;
      return inBlocks.has(id) ? { height: 1, index: 0 } : undefined;
    },
  } as unknown as ChainStore;
  const verifier = {
    verifyMany: async (jobs: readonly unknown[]) => {
      n.verified++;
      return jobs.map(() => true);
    },
  } as unknown as VerifyPool;
  const mempool = {
    ask: async (m: Extract<MempoolMsg, { type: 'admit' }>) => {
      n.mempool++;
      return { accepted: true, id: m.tx.id };
    },
  } as unknown as ActorRef<MempoolMsg, MempoolReplies>;
  const account = { nonce: accountNonce, balance: 10n ** 24n } as AccountState;
  const admission = createAdmission({
    network: DEV_NETWORK,
    verifier,
    store,
    readAccount: async () => account,
    mempool,
    now: () => 0,
    ...extra,
  });
  return { admission, n };
}

describe('admission: the already-known check', () => {
  const tx = (nonce: number) => signTx(sender, { type: 'TRANSFER', to, amount: '1', nonce }, DEV_NETWORK);

  it('reads no block location for a nonce the head account has not used', async () => {
    const { admission, n } = admissionWith(5, new Set());
    for (const nonce of [5, 6, 40]) {
      const out = await admission.submit(tx(nonce));
      expect(out).toMatchObject({ kind: 'verdict', verdict: { accepted: true } });
    }
    expect(n).toEqual({ txLocation: 0, verified: 3, mempool: 3 });
  });

  it('refuses an included transaction as known before its signatures are checked', async () => {
    const included = tx(2);
    const { admission, n } = admissionWith(5, new Set([included.id]));
    expect(await admission.submit(included)).toMatchObject({
      kind: 'verdict',
      verdict: { accepted: false, id: included.id, reason: 'transaction already known', code: 'TX_KNOWN' },
    });
    expect(n).toEqual({ txLocation: 1, verified: 0, mempool: 0 });
    // Below the nonce but in no block (a rival of the included one): the mempool says why.
    await admission.submit(tx(3));
    expect(n).toEqual({ txLocation: 2, verified: 1, mempool: 1 });
  });
});

describe('admission under load (the `shed` hook: node/loadGauge.ts)', () => {
  const tx = (nonce: number) => signTx(sender, { type: 'TRANSFER', to, amount: '1', nonce }, DEV_NETWORK);

  it("turns clients' transactions away unread (503) while shedding, and takes a peer's (relay: false)", async () => {
    const { admission, n } = admissionWith(0, new Set(), { shed: () => true });
    expect(await admission.submit(tx(0))).toEqual({ kind: 'unavailable', error: OVERLOADED });
    expect(await admission.submitRaw('0x00')).toEqual({ kind: 'unavailable', error: OVERLOADED });
    expect(n).toEqual({ txLocation: 0, verified: 0, mempool: 0 });
    expect(await admission.submit(tx(0), { relay: false })).toMatchObject({ verdict: { accepted: true } });
    expect(n).toEqual({ txLocation: 0, verified: 1, mempool: 1 });
  });
});
