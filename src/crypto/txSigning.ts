import { canonicalJson } from '../primitives/canonical';
import { boundedMemo } from '../primitives/memo';
import { concatBytes, fromHex, isHex, utf8, type Hex } from '../primitives/hex';
import type { Network } from '../protocol/network';
import { TX_DOMAIN } from '../protocol/params';
import type { Address, HybridTx, TxPayload } from '../protocol/types';
import { addressFromPublicKey } from './address';
import { keccakHex } from './hash';
import { verifyHybridReference } from './hybrid';

/**
 * What a hybrid transaction's signatures cover (docs/PROTOCOL.md "Canonical payload, signing
 * bytes, id"): utf8(TX_DOMAIN) ‖ the 32 bytes of the network's genesis hash ‖ RFC 8785 JSON of
 * exactly the nine payload fields. The id is keccak256(utf8(TX_DOMAIN) ‖ the same JSON): it
 * names the payload without the network, so stateless checks (a META_TX's claimed inner id)
 * need no chain context, while the signatures bind the transaction to one chain.
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

/** Strings that JSON writes as they are (no escape, one byte per character): addresses, amounts, type names. */
const PLAIN = /^[0-9A-Za-z_]*$/;
const plainString = (v: unknown): v is string => typeof v === 'string' && PLAIN.test(v);
const plainCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * RFC 8785 JSON of the nine payload fields. A payload of the usual kinds (plain strings, counts) is written
 * directly, keys in JCS order — several times faster than the generic canonicalizer, which every received
 * transaction went through for its id; anything else takes the generic path. Both give the same text
 * (property-tested).
 */
export function payloadJson(p: TxPayload): string {
  const { amount, chainId, fee, from, nonce, timestamp, type } = p;
  const to = p.to ?? null;
  const data = p.data === undefined ? null : p.data;
  if (
    !plainString(amount) ||
    !plainCount(chainId) ||
    !plainString(fee) ||
    !plainString(from) ||
    !plainCount(nonce) ||
    !plainCount(timestamp) ||
    !(to === null || plainString(to)) ||
    !plainString(type)
  )
    return canonicalJson(payloadFields(p));
  return (
    `{"amount":"${amount}","chainId":${chainId},"data":${data === null ? 'null' : canonicalJson(data)}` +
    `,"fee":"${fee}","from":"${from}","nonce":${nonce},"timestamp":${timestamp}` +
    `,"to":${to === null ? 'null' : `"${to}"`},"type":"${type}"}`
  );
}

/** The generic encoding payloadJson must equal (tests compare the two). */
export const payloadJsonReference = (p: TxPayload): string => canonicalJson(payloadFields(p));

/** The genesis hash as the 32 bytes the signing bytes carry; a malformed one is a caller bug. */
export function genesisBytes(network: Network): Uint8Array {
  if (lastGenesis.hash === network.genesisHash) return lastGenesis.bytes; // a node signs and verifies for one network
  if (!isHex(network.genesisHash, 32))
    throw new TypeError(`network genesis hash must be 0x and 64 hex digits, got ${String(network.genesisHash)}`);
  lastGenesis = { hash: network.genesisHash, bytes: fromHex(network.genesisHash) };
  return lastGenesis.bytes;
}
let lastGenesis: { hash: string; bytes: Uint8Array } = { hash: '', bytes: new Uint8Array(0) };

/** The id and the signing bytes from one canonical encoding (decoding computes both). */
export function txIdAndSigningBytes(p: TxPayload, network: Network): { id: Hex; msg: Uint8Array } {
  const json = utf8(payloadJson(p));
  return {
    id: keccakHex(concatBytes(TX_DOMAIN_BYTES, json)),
    msg: concatBytes(TX_DOMAIN_BYTES, genesisBytes(network), json),
  };
}

export const signingBytes = (p: TxPayload, network: Network): Uint8Array =>
  concatBytes(TX_DOMAIN_BYTES, genesisBytes(network), utf8(payloadJson(p)));

export const txId = (p: TxPayload): Hex => keccakHex(concatBytes(TX_DOMAIN_BYTES, utf8(payloadJson(p))));

/** The `from` address must be the one the secp256k1 key derives (Ethereum rule). */
export function senderMatchesKey(tx: HybridTx): boolean {
  return keyAddress(tx.publicKeys.secp256k1) === tx.from;
}

/**
 * The address of a secp256k1 key (null: not a key), by its hex: a sender's transactions carry the same key, and a
 * compressed one costs a point decompression. Keyed by the (interned) hex, whose hash V8 keeps.
 */
const KEYS_KEPT = 20_000;
const keyAddress = boundedMemo(KEYS_KEPT, (hex: Hex): Address | null => {
  try {
    return addressFromPublicKey(fromHex(hex));
  } catch {
    return null;
  }
});

/**
 * Both signatures of `tx` over its payload, by the reference verifier (noble), on the calling
 * thread: for the rare transaction checked during execution. Admission verifies envelopes in
 * the worker pool instead.
 */
export function verifyTxReference(tx: HybridTx, network: Network): boolean {
  if (!senderMatchesKey(tx)) return false;
  try {
    return verifyHybridReference(
      signingBytes(tx, network),
      { secp256k1: fromHex(tx.publicKeys.secp256k1), mldsa44: fromHex(tx.publicKeys.mldsa44) },
      { secp256k1: fromHex(tx.signatures.secp256k1), mldsa44: fromHex(tx.signatures.mldsa44) },
    );
  } catch {
    return false;
  }
}

/**
 * keccak256 of the ML-DSA-44 key a hybrid transaction carries (Ethereum-born ones carry
 * none): what an account binds to. Memoized per transaction object: admission, block building
 * and a META_TX's inner check all need it, and converting and hashing the 1,312-byte key was a
 * measurable share of admission and of a META_TX block (two keys per transaction).
 */
const pqKeyHashes = new WeakMap<object, Hex>();
export function pqKeyHashOf(tx: { envelope?: unknown; publicKeys?: { mldsa44: Hex } }): Hex | null {
  if (tx.envelope === 'eth' || !tx.publicKeys) return null;
  let h = pqKeyHashes.get(tx);
  if (!h) pqKeyHashes.set(tx, (h = pqKeyHash(tx.publicKeys.mldsa44)));
  return h;
}

/** …and by the key's hex across transactions: a sender's transactions carry the same key. */
const pqKeyHash = boundedMemo(KEYS_KEPT, (hex: Hex): Hex => keccakHex(fromHex(hex)));
