/**
 * The META_TX flood of issue 23 row 4, reusable by bench/attack.ts and bench/metaTx.ts: a
 * block's worth of META_TXs, each relaying another development account's fee-"0" TRANSFER —
 * two hybrid signatures per transaction, the inner one once checked on the thread that
 * executes blocks. One META_TX per relayer (so a per-sender mempool cap does not split the
 * flood), relayers and users distinct development accounts: the node needs
 * `--dev-accounts ≥ relayers + users` (2 × 500 by default) and, for the default nonces, a
 * fresh chain. The honest twin, `transferBlock`, is the same count of plain TRANSFERs.
 */
import { encodeTx, signTx, type TxFields } from '../../../src/chain/envelope';
import type { HybridSignatures } from '../../../src/crypto/hybrid';
import { deriveKeys, devSecret, type HybridKeys } from '../../../src/crypto/keys';
import type { Hex } from '../../../src/primitives/hex';
import type { Network } from '../../../src/protocol/network';
import type { HybridTx } from '../../../src/protocol/types';
import { ATTACKER, requestFrom } from '../lib';

export type Signer = (keys: HybridKeys, msg: Uint8Array) => HybridSignatures;

export interface FloodOptions {
  /** The chain the transactions are for (Target.network, networkOfSpec). */
  network: Network;
  /** Transactions (default 500, a full block). */
  count?: number;
  /** First development account of the relayers (default 0): relayers first..first+count-1. */
  firstRelayer?: number;
  /** First development account of the users (default count): users first..first+count-1. */
  firstUser?: number;
  /** The relayers' and the users' next nonces (default 0: a fresh chain). */
  relayerNonce?: number;
  userNonce?: number;
  /** A faster signer (bench/lib/sign.ts fastHybridSigner); default the reference one. */
  sign?: Signer;
  /** Timestamp of the first transaction (each next one +1), so reruns make new ids. */
  timestamp0?: number;
}

const keysOf = (i: number) => deriveKeys(devSecret(i));
const sign = (keys: HybridKeys, fields: TxFields, o: FloodOptions): HybridTx => signTx(keys, fields, o.network, o.sign);

/** `count` META_TXs, ready to POST (signed before any clock starts). */
export function metaTxFlood(o: FloodOptions): HybridTx[] {
  const n = o.count ?? 500;
  const r0 = o.firstRelayer ?? 0;
  const u0 = o.firstUser ?? n;
  const t0 = o.timestamp0 ?? Date.now();
  return Array.from({ length: n }, (_, i) => {
    const user = keysOf(u0 + i);
    const inner = sign(
      user,
      {
        type: 'TRANSFER',
        to: keysOf(r0 + i).address,
        amount: 1n,
        fee: '0',
        nonce: o.userNonce ?? 0,
        timestamp: t0 + i,
      },
      o,
    );
    return sign(
      keysOf(r0 + i),
      { type: 'META_TX', nonce: o.relayerNonce ?? 0, timestamp: t0 + i, data: { tx: JSON.parse(encodeTx(inner)) } },
      o,
    );
  });
}

/** The honest twin: `count` TRANSFERs of the users (firstUser…), one each. */
export function transferBlock(o: FloodOptions): HybridTx[] {
  const n = o.count ?? 500;
  const r0 = o.firstRelayer ?? 0;
  const u0 = o.firstUser ?? n;
  const t0 = o.timestamp0 ?? Date.now();
  return Array.from({ length: n }, (_, i) =>
    sign(
      keysOf(u0 + i),
      { type: 'TRANSFER', to: keysOf(r0 + i).address, amount: 1n, nonce: o.userNonce ?? 0, timestamp: t0 + i },
      o,
    ),
  );
}

export interface SendReport {
  /** Outcome → count: `accepted`, a refusal reason, or `HTTP <status>` / the error. */
  outcomes: Map<string, number>;
  accepted: Hex[];
  ms: number;
}

/** POSTs `txs` to `url`/tx from source address `from` (default the attacker's), `concurrency` at a time. */
export async function postAll(
  url: string,
  txs: readonly HybridTx[],
  opts: { from?: string; concurrency?: number } = {},
): Promise<SendReport> {
  const outcomes = new Map<string, number>();
  const accepted: Hex[] = [];
  const note = (k: string) => outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < txs.length; i = next++) {
      try {
        const r = await requestFrom(opts.from ?? ATTACKER, `${url}/tx`, { body: encodeTx(txs[i]) });
        if (r.status !== 200) note(`HTTP ${r.status}`);
        else if (r.json?.accepted) {
          note('accepted');
          accepted.push(txs[i].id);
        } else note(String(r.json?.reason));
      } catch (e) {
        note((e as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 16 }, worker));
  return { outcomes, accepted, ms: performance.now() - t0 };
}
