import type { Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { fromHex, isHex, utf8 } from '../primitives/hex';

/** The trie keys of the state's two kinds of entry, before key hashing. */

export function addressKey(addr: Address): Uint8Array {
  if (!isHex(addr, 20))
    throw new CairnError('INVALID_ADDRESS', `not a 20-byte hex address: ${String(addr).slice(0, 80)}`);
  return fromHex(addr);
}

/**
 * utf8('r/' + name). Such a key is exactly 20 bytes for an 18-byte name and would then
 * share the account key space (anyone can fund the address 0x722f…): those get a trailing
 * 0xff, a byte that never occurs in UTF-8, so the mapping stays injective and collision-free.
 */
export function recordKey(key: string): Uint8Array {
  const k = utf8(`r/${key}`);
  return k.length === 20 ? Buffer.concat([k, Uint8Array.of(0xff)]) : k;
}
