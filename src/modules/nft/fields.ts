import { MAX_ASSET_NAME_BYTES, MAX_NFT_URI_BYTES, SYMBOL_RE } from '../../chain/params';
import { ASSET_ID_RE, utf8Length } from '../assets/common';
import type { Hex } from '../../primitives/hex';

/** Stateless checks of NFT721 data fields: each returns a refusal reason, or undefined when the value is good. */

// C0 controls, DEL and C1 controls.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

export function collectionNameError(type: string, v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length === 0 || utf8Length(v) > MAX_ASSET_NAME_BYTES) return `${type} data.name must be a string of 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes`;
  if (CONTROL_RE.test(v)) return `${type} data.name must not contain control characters`;
  return undefined;
}

export function symbolError(type: string, v: unknown): string | undefined {
  if (typeof v !== 'string' || !SYMBOL_RE.test(v)) return `${type} data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits`;
  return undefined;
}

export function uriError(type: string, v: unknown): string | undefined {
  if (v !== undefined && v !== null && (typeof v !== 'string' || utf8Length(v) > MAX_NFT_URI_BYTES)) return `${type} data.uri must be a string of at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`;
  return undefined;
}

export function collectionIdError(type: string, v: unknown): string | undefined {
  if (typeof v !== 'string' || !ASSET_ID_RE.test(v)) return `${type} data.collection must be a collection id (0x + 40 lower-case hex digits)`;
  return undefined;
}

export function itemNumberError(type: string, v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) return `${type} data.item must be a positive safe integer`;
  return undefined;
}

/** Data of the types that act on one item: { collection, item }. */
export interface ItemRef {
  collection: Hex;
  item: number;
}

export function parseItemRef(type: string, d: Record<string, unknown>): ItemRef | string {
  return collectionIdError(type, d.collection) ?? itemNumberError(type, d.item) ?? { collection: d.collection as Hex, item: d.item as number };
}
