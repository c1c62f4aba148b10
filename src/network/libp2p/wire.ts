import { decodeChainPage, encodeChainPage } from '../../chain/chainPage';
import { encodeStoredBlock, MalformedBlock, Reader } from '../../chain/blockCodec';
import { encodeTx } from '../../chain/envelope';
import { fromHex, toHex, type Hex } from '../../primitives/hex';
import type { Block, SignedTx } from '../../protocol/types';

/**
 * What crosses the libp2p links, in bytes:
 * - a block is a binary chain page of one block (chain/chainPage.ts): the block as the store keeps it and its
 *   signers' key records, so the receiver decodes it with the strict page decoder every synced page goes through;
 * - a transaction is a kind byte and its envelope: HYBRID, the envelope's canonical JSON (envelope.ts encodeTx, what
 *   POST /tx takes); ETH, a signed Ethereum transaction's raw bytes (what eth_sendRawTransaction takes). Each is then
 *   admitted exactly as a client's submission is.
 */
export const TX_WIRE = { HYBRID: 0, ETH: 1 } as const;

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: true });

export function encodeTxWire(tx: SignedTx): Uint8Array {
  const body = tx.envelope === 'eth' ? fromHex(tx.raw) : utf8.encode(encodeTx(tx));
  const out = new Uint8Array(1 + body.length);
  out[0] = tx.envelope === 'eth' ? TX_WIRE.ETH : TX_WIRE.HYBRID;
  out.set(body, 1);
  return out;
}

/** A transaction off the wire, ready for admission; `error` when the bytes are not one (the sender is to blame). */
export type WireTx =
  | { kind: 'hybrid'; body: unknown }
  | { kind: 'eth'; raw: Hex }
  | { kind: 'malformed'; error: string };

export function decodeTxWire(bytes: Uint8Array): WireTx {
  if (bytes.length < 2) return { kind: 'malformed', error: 'empty transaction' };
  const body = bytes.subarray(1);
  if (bytes[0] === TX_WIRE.ETH) return { kind: 'eth', raw: toHex(body) };
  if (bytes[0] !== TX_WIRE.HYBRID) return { kind: 'malformed', error: `transaction of unknown kind ${bytes[0]}` };
  try {
    return { kind: 'hybrid', body: JSON.parse(text.decode(body)) };
  } catch (e) {
    return { kind: 'malformed', error: `transaction is not JSON: ${(e as Error).message}` };
  }
}

export function encodeBlockWire(block: Block): Uint8Array {
  const { bytes, signers } = encodeStoredBlock(block);
  const records = new Map<Hex, Uint8Array>(signers.map((s) => [toHex(s.ref), s.value]));
  return encodeChainPage({ next: null, records, blocks: [bytes] });
}

/** The block of a gossiped message; throws MalformedBlock for anything but exactly one well-formed block. */
export function decodeBlockWire(bytes: Uint8Array): Block {
  const { blocks, next } = decodeChainPage(bytes);
  if (blocks.length !== 1 || next !== null) throw new MalformedBlock(`a block message holds ${blocks.length} blocks`);
  return blocks[0];
}

/**
 * A block message's height and parent, read without decoding the block (its signer records are skipped, not hashed):
 * what the receiver needs to refuse an orphan for the cost of a lookup. Throws MalformedBlock when the bytes do not
 * even hold that much; the full decode checks the rest.
 */
export function peekBlockWire(bytes: Uint8Array): { height: number; parentHash: Hex } | undefined {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  r.u8(); // version: decodeChainPage checks it
  r.uint(); // next
  for (let n = r.count(); n > 0; n--) {
    r.skip(32);
    r.skip(r.uint());
  }
  if (r.count() !== 1) throw new MalformedBlock('a block message holds one block');
  r.uint(); // the block's length
  // A block the compact layout does not keep exactly is stored as its JSON line: only the full decode reads it.
  if (r.u8() !== STORED_COMPACT) return undefined;
  return { height: r.uint(), parentHash: r.fixedHex(32) };
}

/** The first byte of a stored block in the compact layout (chain/blockCodec.ts). */
const STORED_COMPACT = 0x01;
