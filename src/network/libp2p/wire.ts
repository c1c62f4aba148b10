import { decodeChainPage, encodeChainPage } from '../../chain/chainPage';
import { encodeStoredBlock, MalformedBlock, parseStoredBlock, Reader } from '../../chain/blockCodec';
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

/**
 * A compact block: the signed header, its transactions' ids, and what execution recorded (results and end-of-block
 * events, which the importer checks against its own execution). A receiver rebuilds the block from its mempool and
 * asks the sender for the transactions it lacks (the `txs` request); the transactions, nearly all of a block's bytes,
 * crossed every link once already in their batches.
 *
 *   COMPACT_BLOCK, the id count (u16), the ids (32 bytes each), then the block without its transactions as the store
 *   keeps it (chain/blockCodec.ts: the header in binary, the results, the events)
 */
export const COMPACT_BLOCK = 0xc0;

export interface CompactBlock {
  header: Block['header'];
  ids: Hex[];
  results: Block['results'];
  events?: Block['events'];
}

export function encodeCompactBlock(block: Block): Uint8Array {
  const rest = encodeStoredBlock({ ...block, txs: [] }).bytes;
  const out = new Uint8Array(3 + 32 * block.txs.length + rest.length);
  out[0] = COMPACT_BLOCK;
  new DataView(out.buffer).setUint16(1, block.txs.length);
  for (const [i, t] of block.txs.entries()) out.set(fromHex(t.id), 3 + 32 * i);
  out.set(rest, 3 + 32 * block.txs.length);
  return out;
}

/** A compact block's parts, shape-checked (the rebuilt block is checked again by parseBlock, and imported). */
export function decodeCompactBlock(bytes: Uint8Array, maxTxs: number): CompactBlock {
  if (bytes.length < 3 || bytes[0] !== COMPACT_BLOCK) throw new MalformedBlock('not a compact block');
  const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(1);
  if (count > maxTxs) throw new MalformedBlock(`compact block of ${count} transactions`);
  const at = 3 + 32 * count;
  if (bytes.length <= at) throw new MalformedBlock('compact block cut short');
  const ids = Array.from({ length: count }, (_, i) => toHex(bytes.subarray(3 + 32 * i, 3 + 32 * (i + 1))));
  const parsed = parseStoredBlock(bytes.subarray(at));
  const { header, txs, results, events } = parsed.block;
  if (txs.length !== 0 || (parsed.kind === 'compact' && parsed.pending.length !== 0))
    throw new MalformedBlock('a compact block carries ids, not transactions');
  if (!Array.isArray(results) || results.length !== count)
    throw new MalformedBlock('compact block results do not match its ids');
  return { header, ids, results, ...(events !== undefined && { events }) };
}

/** A block message's kind: a full one-block page, or a compact block. */
export const isCompactBlock = (bytes: Uint8Array): boolean => bytes[0] === COMPACT_BLOCK;
