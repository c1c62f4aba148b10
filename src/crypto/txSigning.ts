import { canonicalBytes } from '../primitives/canonical';
import { concatBytes, fromHex, utf8, type Hex } from '../primitives/hex';
import { TX_DOMAIN } from '../protocol/params';
import type { HybridTx, TxPayload } from '../protocol/types';
import { addressFromPublicKey } from './address';
import { keccakHex } from './hash';
import { verifyHybridReference } from './hybrid';

/**
 * What a hybrid transaction's signatures cover (docs/PROTOCOL.md "Canonical payload"):
 * utf8(TX_DOMAIN) ‖ RFC 8785 JSON of exactly the nine payload fields; id = keccak256 of it.
 * Here (crypto/) so that execution can check a transaction carried inside another (META_TX)
 * with the envelope's own rule; chain/envelope.ts re-exports it.
 */
const TX_DOMAIN_BYTES = utf8(TX_DOMAIN);

/** The nine signed fields, in a fresh object so no extra property can leak into the hash. */
function payloadFields(p: TxPayload): TxPayload {
  return {
    chainId: p.chainId,
    type: p.type,
    from: p.from,
    to: p.to ?? null,
    amount: p.amount,
    nonce: p.nonce,
    timestamp: p.timestamp,
    fee: p.fee,
    data: p.data === undefined ? null : p.data,
  };
}

export const signingBytes = (p: TxPayload): Uint8Array => concatBytes(TX_DOMAIN_BYTES, canonicalBytes(payloadFields(p)));

export const txId = (p: TxPayload): Hex => keccakHex(signingBytes(p));

/** The `from` address must be the one the secp256k1 key derives (Ethereum rule). */
export function senderMatchesKey(tx: HybridTx): boolean {
  try {
    return addressFromPublicKey(fromHex(tx.publicKeys.secp256k1)) === tx.from;
  } catch {
    return false;
  }
}

/**
 * Both signatures of `tx` over its payload, by the reference verifier (noble), on the calling
 * thread: for the rare transaction checked during execution. Admission verifies envelopes in
 * the worker pool instead.
 */
export function verifyTxReference(tx: HybridTx): boolean {
  if (!senderMatchesKey(tx)) return false;
  try {
    return verifyHybridReference(
      signingBytes(tx),
      { secp256k1: fromHex(tx.publicKeys.secp256k1), mldsa44: fromHex(tx.publicKeys.mldsa44) },
      { secp256k1: fromHex(tx.signatures.secp256k1), mldsa44: fromHex(tx.signatures.mldsa44) },
    );
  } catch {
    return false;
  }
}
