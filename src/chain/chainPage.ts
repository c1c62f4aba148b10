import { toHex, type Hex } from '../primitives/hex';
import type { Block } from '../protocol/types';
import {
  finishStoredBlock,
  MalformedBlock,
  parseStoredBlock,
  Reader,
  signerKeysOf,
  signerRefOfValue,
  signerRefsOf,
  Writer,
  type SignerKeys,
} from './blockCodec';
import { parseBlock } from './blockShape';

/**
 * A GET /chain page in binary, for a peer that asks for it (`Accept: CHAIN_PAGE_MEDIA`, protocol/peers.ts): the blocks as the serving node
 * stores them (chain/blockCodec.ts) and each signer record they refer to, once per page. The JSON page stays what the
 * API serves everyone else (the same blocks, the same `next`). Serving a page of full blocks as JSON cost the peer
 * ~100 ms of CPU per block (decoding its stored form, then 4 MB of JSON), and its follower the parse of that JSON; this
 * form is the stored bytes as they are, a third of the size.
 *
 *   version (1), next + 1 (0: none, LEB128), record count, then per record: ref (32 bytes), length, value,
 *   block count, then per block: length, stored bytes
 *
 * A page comes from a stranger: every length is bounded by the bytes left, every record must hash to its reference,
 * every reference a block makes must have its record in the page, and each block passes the shape check any peer's
 * block does (chain/blockShape.ts) before the consensus actor verifies it like a JSON one.
 */
const VERSION = 1;

export interface ChainPageParts {
  next: number | null;
  /** Signer record values by hex reference. */
  records: ReadonlyMap<Hex, Uint8Array>;
  /** Stored blocks, in height order. */
  blocks: readonly Uint8Array[];
}

export function encodeChainPage(p: ChainPageParts): Buffer {
  let size = 32;
  for (const v of p.records.values()) size += 32 + 8 + v.length;
  for (const b of p.blocks) size += 8 + b.length;
  const w = new Writer(size);
  w.u8(VERSION);
  w.uint(p.next === null ? 0 : p.next + 1);
  w.uint(p.records.size);
  for (const [ref, value] of p.records) {
    w.fixedHex(ref, 32);
    w.bytes(value);
  }
  w.uint(p.blocks.length);
  for (const b of p.blocks) w.bytes(b);
  return w.buf.subarray(0, w.at);
}

/**
 * Signer records already checked, by reference: a follower gets the same senders' records page after page (1,000
 * senders: ~1,000 a page), and hashing and hex-encoding each again was ~4 % of its sync (bench/sync.ts). One is taken
 * from here only for the very bytes that were checked; its keys' hex strings are then shared by every page.
 */
const checked = new Map<Hex, { value: Buffer; keys: SignerKeys }>();
const CHECKED_KEPT = 4_096;

/** The blocks and `next` of a binary page; throws MalformedBlock saying what is wrong with it. */
export function decodeChainPage(bytes: Uint8Array): { blocks: Block[]; next: number | null } {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const version = r.u8();
  if (version !== VERSION) throw new MalformedBlock(`chain page version ${version}, not ${VERSION}`);
  const next = r.uint();
  const keys = new Map<Hex, SignerKeys>();
  for (let n = r.count(); n > 0; n--) {
    const ref = r.fixedHex(32);
    const value = r.bytes(r.uint());
    let known = checked.get(ref);
    if (!known?.value.equals(value)) {
      const actual = signerRefOfValue(value);
      if (!actual || toHex(actual) !== ref)
        throw new MalformedBlock(`signer record ${ref} does not hash to its reference`);
      known = { value: Buffer.from(value), keys: signerKeysOf(value) };
      if (checked.size >= CHECKED_KEPT) checked.clear();
      checked.set(ref, known);
    }
    keys.set(ref, known.keys);
  }
  const blocks: Block[] = [];
  for (let n = r.count(); n > 0; n--) {
    const parsed = parseStoredBlock(r.bytes(r.uint()));
    for (const ref of signerRefsOf(parsed))
      if (!keys.has(ref)) throw new MalformedBlock(`a block refers to signer record ${ref}, not in the page`);
    const shaped = parseBlock(finishStoredBlock(parsed, (ref) => keys.get(ref) as SignerKeys));
    if (!shaped.ok) throw new MalformedBlock(shaped.error);
    blocks.push(shaped.block);
  }
  r.end();
  return { blocks, next: next === 0 ? null : next - 1 };
}
