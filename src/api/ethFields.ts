import { createTxFromRLP } from '@ethereumjs/tx';
import { fromHex, type Hex } from '../primitives/hex';
import type { EthTx } from '../protocol/types';
import { txDecodeCommonFor } from '../vm/common';

/**
 * The JSON-RPC fields of a stored Ethereum transaction that only its signed bytes hold
 * (signature, fee fields, access list…): decoded once per transaction, cached. `raw` is
 * the authority; null when it cannot be decoded (the stored fields still describe it).
 */
export interface DecodedEth {
  type: number;
  fields: Record<string, unknown>; // JSON-RPC fields taken from the signed bytes
}

const DECODE_CACHE_MAX = 4_096;
const decodeCache = new Map<Hex, DecodedEth | null>();

export function decodeEthFields(tx: EthTx): DecodedEth | null {
  const hit = decodeCache.get(tx.id);
  if (hit !== undefined) return hit;
  let out: DecodedEth | null;
  try {
    // shared: a per-call Common copy costs ~120 µs
    const t = createTxFromRLP(fromHex(tx.raw), { common: txDecodeCommonFor(tx.chainId) });
    const j = t.toJSON() as Record<string, unknown>;
    const type = Number(t.type);
    const fields: Record<string, unknown> = { v: j.v ?? '0x0', r: j.r ?? '0x0', s: j.s ?? '0x0' };
    const isPre155 = type === 0 && (j.v === '0x1b' || j.v === '0x1c');
    fields.chainId = isPre155 ? undefined : j.chainId; // undefined: omitted from the JSON, as geth does
    if (type === 0 || type === 1) fields.gasPrice = j.gasPrice;
    if (type >= 2) {
      fields.maxFeePerGas = j.maxFeePerGas;
      fields.maxPriorityFeePerGas = j.maxPriorityFeePerGas;
    }
    if (type >= 1) {
      fields.accessList = j.accessList ?? [];
      fields.yParity = j.v;
    }
    if (type === 3) {
      fields.maxFeePerBlobGas = j.maxFeePerBlobGas;
      fields.blobVersionedHashes = j.blobVersionedHashes ?? [];
    }
    if (type === 4) fields.authorizationList = j.authorizationList ?? [];
    out = { type, fields };
  } catch {
    out = null; // stored fields still describe the transaction; the signature reads as zero
  }
  if (decodeCache.size >= DECODE_CACHE_MAX) decodeCache.delete(decodeCache.keys().next().value as Hex);
  decodeCache.set(tx.id, out);
  return out;
}
