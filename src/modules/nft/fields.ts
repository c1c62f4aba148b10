import { MAX_ASSET_NAME_BYTES, MAX_NFT_URI_BYTES, SYMBOL_RE } from '../../protocol/params';
import type { Hex } from '../../primitives/hex';
import { ASSET_ID_RE, utf8Length } from '../assets/common';
import { refuse } from '../assets/define';

/** Stateless readers of NFT721 data fields for the specs' `parse`: each returns the typed value or refuses. */

// C0 controls, DEL and C1 controls.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

export function readCollectionName(type: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0 || utf8Length(v) > MAX_ASSET_NAME_BYTES) refuse(`${type} data.name must be a string of 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes`);
  if (CONTROL_RE.test(v)) refuse(`${type} data.name must not contain control characters`);
  return v;
}

export function readSymbol(type: string, v: unknown): string {
  if (typeof v !== 'string' || !SYMBOL_RE.test(v)) refuse(`${type} data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits`);
  return v;
}

/** An optional URI: absent means null. */
export function readUri(type: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || utf8Length(v) > MAX_NFT_URI_BYTES) refuse(`${type} data.uri must be a string of at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`);
  return v;
}

export function readCollectionId(type: string, v: unknown): Hex {
  if (typeof v !== 'string' || !ASSET_ID_RE.test(v)) refuse(`${type} data.collection must be a collection id (0x + 40 lower-case hex digits)`);
  return v as Hex;
}

export function readItemNumber(type: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) refuse(`${type} data.item must be a positive safe integer`);
  return v;
}

/** Data of the types that act on one item: { collection, item }. */
export interface ItemRef {
  collection: Hex;
  item: number;
}

export function readItemRef(type: string, d: Record<string, unknown>): ItemRef {
  const collection = readCollectionId(type, d.collection);
  return { collection, item: readItemNumber(type, d.item) };
}
