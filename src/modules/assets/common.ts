import type { Address } from '../../protocol/types';
import { keccakHex } from '../../crypto/hash';
import { concatBytes, fromHex, utf8, type Hex } from '../../primitives/hex';
import { TxFailure } from '../../protocol/handler';
import { ASSET } from './errors';

/** Domain tag for ids of assets (tokens, collections) born from a transaction. */
const ASSET_DOMAIN = 'CAIRN/ASSET/v1\n';

/**
 * Id of the asset a transaction creates: the last 20 bytes of keccak256(domain || tx id),
 * lower-case 0x hex. Deterministic, and unique because transaction ids are.
 */
export function assetId(txId: Hex): Hex {
  return `0x${keccakHex(concatBytes(utf8(ASSET_DOMAIN), fromHex(txId))).slice(26)}`;
}

/** Lower-case 0x + 40 hex: the shape of token and collection ids. */
export const ASSET_ID_RE = /^0x[0-9a-f]{40}$/;

/** Fails the transaction unless `who` is `expected` (owner checks). */
export function requireOwner(who: Address, expected: Address, what: string): void {
  if (who !== expected) throw new TxFailure(ASSET.ASSET_NOT_OWNER({ what, owner: expected, sender: who }));
}
