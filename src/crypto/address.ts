import { bech32m } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { fromHex, toHex } from '../primitives/hex';
import { keccak256 } from './hash';

/** Human-readable prefix of native addresses (`cairn1…`). */
export const NATIVE_PREFIX = 'cairn';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/**
 * The Ethereum rule: last 20 bytes of keccak256 of the 64-byte uncompressed point
 * (without its 0x04 tag), so an ethers/MetaMask key controls the same account.
 * Accepts a 33-byte compressed or 65-byte uncompressed key; throws on anything else.
 */
export function addressFromPublicKey(pub: Uint8Array): Address {
  let uncompressed: Uint8Array;
  if (pub.length === 65 && pub[0] === 0x04) uncompressed = pub;
  else if (pub.length === 33 && (pub[0] === 0x02 || pub[0] === 0x03)) {
    try {
      uncompressed = secp256k1.Point.fromBytes(pub).toBytes(false);
    } catch (cause) {
      throw new CairnError('INVALID_PUBLIC_KEY', 'secp256k1 public key is not on the curve', {}, { cause });
    }
  } else {
    throw new CairnError(
      'INVALID_PUBLIC_KEY',
      'secp256k1 public key must be 33 (compressed) or 65 (uncompressed) bytes',
    );
  }
  return toHex(keccak256(uncompressed.subarray(1)).subarray(12));
}

/** The same 20 bytes as bech32m with prefix `cairn`. */
export function toNative(addr: Address): string {
  const bytes = fromHex(addr);
  if (bytes.length !== 20) throw new CairnError('INVALID_ADDRESS', 'address must be 20 bytes');
  return bech32m.encode(NATIVE_PREFIX, bech32m.toWords(bytes));
}

/**
 * Parses either form to the canonical lower-case 0x form. 0x hex is accepted in any case
 * (no EIP-55 enforcement: mixed case is a display convention, not a checksum we require).
 * bech32m must have the `cairn` prefix, a valid checksum and exactly 20 bytes.
 */
export function parseAddress(s: string): Address | undefined {
  if (typeof s !== 'string') return undefined;
  if (ADDRESS_RE.test(s)) return `0x${s.slice(2).toLowerCase()}`;
  // bech32 is case-insensitive but must not mix cases; the library enforces that.
  if (!s.toLowerCase().startsWith(`${NATIVE_PREFIX}1`)) return undefined;
  const decoded = bech32m.decodeUnsafe(s, 90);
  if (!decoded || decoded.prefix !== NATIVE_PREFIX) return undefined;
  const bytes = bech32m.fromWordsUnsafe(decoded.words);
  if (bytes?.length !== 20) return undefined;
  return toHex(bytes);
}

/** True for a valid address in either form (use parseAddress to get the canonical 0x form). */
export const isAddress = (s: unknown): boolean => typeof s === 'string' && parseAddress(s) !== undefined;
