/**
 * A wallet on the SDK: keys from one secret, both address forms, a transfer signed with both
 * halves of the hybrid scheme, and a wait for finality that treats a timeout as "unknown" —
 * never as failed, and never re-sent under a new nonce (the same signed transaction is the
 * only one that can land).
 *
 *   npx tsx examples/wallet.ts --secret <64 hex> --to <0x… or cairn1…> --amount <base units> [--node <url>]
 */
import { CairnClient, deriveKeys, generateSecret, toNative, type HybridKeys, type TxInput } from '../src/sdk';
import { fromHex, toHex } from '../src/primitives/hex';
import { arg } from './support';

export function newWallet(secretHex?: string): { secret: string; keys: HybridKeys; address: string; native: string } {
  const secret = secretHex ? fromHex(secretHex) : generateSecret();
  const keys = deriveKeys(secret);
  return { secret: toHex(secret), keys, address: keys.address, native: toNative(keys.address) };
}

/**
 * Sends `amount` base units and waits until final: `finalized`, `failed` or `dropped` (with the reason), `refused` or
 * `unknown`.
 */
export async function pay(client: CairnClient, keys: HybridKeys, to: string, amount: bigint, timeoutMs = 60_000) {
  const r = await client.sendTx(keys, { type: 'TRANSFER', to, amount } as TxInput, { wait: 'finalized', timeoutMs });
  if (!r.verdict.accepted) return { outcome: 'refused' as const, id: r.tx.id, reason: r.verdict.reason };
  const w = r.wait!;
  if (w.outcome === 'finalized') return { outcome: 'finalized' as const, id: r.tx.id, height: w.record?.blockHeight };
  if (w.outcome === 'failed') return { outcome: 'failed' as const, id: r.tx.id, reason: w.record?.result?.error };
  if (w.outcome === 'dropped') return { outcome: 'dropped' as const, id: r.tx.id, reason: w.record?.reason };
  // Not seen final in time: it may still land. Ask again with waitFor(id) — never sign a new one.
  return { outcome: 'unknown' as const, id: r.tx.id };
}

if (process.argv[1]?.endsWith('wallet.ts')) {
  const w = newWallet(arg('secret'));
  const to = arg('to');
  if (!to) {
    console.log(JSON.stringify({ secret: w.secret, address: w.address, native: w.native }, null, 2));
  } else {
    const client = new CairnClient(arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070');
    pay(client, w.keys, to, BigInt(arg('amount') ?? '1000000')).then(
      (r) => console.log(JSON.stringify(r)),
      (e) => (console.error(e), process.exit(1)),
    );
  }
}
