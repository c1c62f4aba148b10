/**
 * Issue 23 row 7, the mempool squat: `accounts` accounts, each funded with `funding` base
 * units, send nonces 1..`nonces` with fee 0 and never nonce 0, so none can ever run. Before
 * the per-sender bounds, 80 × 64 of them held all 5,000 places for the 6 h lifetime at a cost
 * of 80 × 100 base units (0.008 coin), and honest transfers got `mempool full`.
 *
 * `prepareSquat` funds the accounts; `flood()` signs and submits the squat, round-robin over
 * the accounts by nonce, each attacker account from its own loopback address (a client of its
 * own, so the per-client rate limit does not stop it). A rational attacker stops sending for an
 * account once the node refuses it (default); `persistent` sends every nonce regardless. Used by
 * test/adversarial/mempool-squat.test.ts and bench/attack.ts.
 */
import { encodeTx, signTx } from '../../../src/chain/envelope';
import { deriveKeys, devSecret, type HybridKeys } from '../../../src/crypto/keys';
import type { Hex } from '../../../src/primitives/hex';
import { fastHybridSigner } from '../../../bench/lib/sign';
import { networkOf, requestFrom, waitFor } from '../lib';

export interface SquatOptions {
  /** Attacker accounts (80 in row 7). */
  accounts?: number;
  /** Each sends nonces 1..nonces (64 in row 7). */
  nonces?: number;
  /** Base units each account is funded with (100 in row 7). */
  funding?: bigint;
  /** The development account that funds them (its key is devSecret(funder)). */
  funder?: number;
  /** Source address of attacker account i; default 127.0.1.(i+1), 127.0.2.… after 250. */
  addressOf?: (i: number) => string;
  /** Submissions in flight. */
  concurrency?: number;
  /** Address the funding and its polling come from. */
  from?: string;
  /** Keep sending an account's higher nonces after the node refused one of them. */
  persistent?: boolean;
}

export interface SquatReport {
  sent: number;
  accepted: number;
  /** Refusals by reason (and `error <status>` for a non-200 answer). */
  refused: Record<string, number>;
  /** Accepted attack transactions, in the order the node accepted them. */
  acceptedIds: Hex[];
  ms: number;
  /** What it cost the attacker: the funding, in base units (fee 0: the flood itself is free). */
  costBaseUnits: bigint;
}

export interface PreparedSquat {
  accounts: HybridKeys[];
  flood(): Promise<SquatReport>;
}

const SINK = '0x000000000000000000000000000000000000dead';
export const squatterAddress = (i: number): string => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;

/** Funds the attacker accounts (one block's worth of TRANSFERs from the funder) and signs the flood. */
export async function prepareSquat(url: string, o: SquatOptions = {}): Promise<PreparedSquat> {
  const n = o.accounts ?? 80;
  const nonces = o.nonces ?? 64;
  const funding = o.funding ?? 100n;
  const from = o.from ?? '127.0.0.20';
  const addressOf = o.addressOf ?? squatterAddress;
  const accounts = Array.from({ length: n }, (_, i) => deriveKeys(devSecret(i, 'cairn-adversarial-squatter')));

  const sign = await fastHybridSigner();
  const network = await networkOf(url);
  const funder = deriveKeys(devSecret(o.funder ?? 9));
  const acc = await requestFrom(from, `${url}/address/${funder.address}`);
  if (acc.status !== 200) throw new Error(`funder ${funder.address}: ${acc.status} ${acc.text}`);
  let nonce: number = acc.json.nextNonce;
  const funds = accounts.map((a) =>
    signTx(funder, { type: 'TRANSFER', to: a.address, amount: funding.toString(), nonce: nonce++ }, network, sign),
  );
  for (const tx of funds) {
    const r = await requestFrom(from, `${url}/tx`, { body: encodeTx(tx) });
    if (!r.json?.accepted) throw new Error(`funding ${tx.to}: ${r.status} ${r.text}`);
  }
  const last = funds[funds.length - 1];
  await waitFor(
    'the squatters funded',
    async () => {
      const r = await requestFrom(from, `${url}/tx/${last.id}`);
      return r.json?.status === 'included' || r.json?.status === 'finalized';
    },
    60_000,
    250,
  );

  return {
    accounts,
    async flood() {
      const t0 = performance.now();
      const refused: Record<string, number> = {};
      const accepted: Hex[] = [];
      const stopped = new Set<number>();
      let sent = 0;
      let next = 0;
      const worker = async () => {
        for (let j = next++; j < n * nonces; j = next++) {
          const i = j % n;
          if (stopped.has(i)) continue;
          const tx = signTx(
            accounts[i],
            { type: 'TRANSFER', to: SINK, amount: '1', fee: '0', nonce: 1 + Math.floor(j / n) },
            network,
            sign,
          );
          sent++;
          const r = await requestFrom(addressOf(i), `${url}/tx`, { body: encodeTx(tx) });
          if (r.status === 200 && r.json?.accepted === true) accepted.push(tx.id);
          else {
            const why = r.status === 200 ? String(r.json?.reason) : `error ${r.status}`;
            refused[why] = (refused[why] ?? 0) + 1;
            if (!o.persistent) stopped.add(i);
          }
        }
      };
      await Promise.all(Array.from({ length: o.concurrency ?? 16 }, worker));
      return {
        sent,
        accepted: accepted.length,
        refused,
        acceptedIds: accepted,
        ms: performance.now() - t0,
        costBaseUnits: funding * BigInt(n),
      };
    },
  };
}
