import { LRUCache } from 'lru-cache';
import { partiesOf } from '../modules/registry';
import type { GenesisSpec } from '../chain/genesis';
import { encodeChainPage } from '../chain/chainPage';
import { CHAIN_PAGE_BYTES } from '../protocol/peers';
import type { BlockSummary, Head } from '../protocol/chain';
import type { Network } from '../protocol/network';
import type { Address, Block } from '../protocol/types';
import { fromHex, toHex, type Hex } from '../primitives/hex';
import { readU64be, u32be, u64be } from '../primitives/height';
import { getMany, type KvBatch, type KvStore } from '../state/kv';
import { BUCKETS, bucketOf, kindOf } from './buckets';
import { putAssetIndexes } from './assetIndex';
import { decodeUndo, encodeUndo, RecordingBatch, type UndoEntry } from './undo';
import { CairnError } from '../errors/CairnError';
import type { TxLifecycleEvent } from '../machines/txLifecycle';
import type { ChainEvent } from '../protocol/events';
import { bucketEnd, bucketKey, type BucketName } from './buckets';
import {
  encodeStoredBlock,
  finishStoredBlock,
  parseStoredBlock,
  signerKeysOf,
  signerRefsOf,
  storedSignerRefs,
  type EncodedBlock,
  type SignerKeys,
} from '../chain/blockCodec';

/**
 * The chain database: blocks, their indexes and the head pointer. Every key is built from
 * a bucket of storage/buckets.ts (prefix, layout, and what undoing a block does with it).
 * A block, its state nodes, indexes, undo record and the head pointer are written in one batch.
 */
const enc = new TextEncoder();
const HEAD_KEY = bucketKey('head');
const STATS_KEY = bucketKey('stats');
const GENESIS_KEY = bucketKey('genesis');
const HISTORY_FROM_KEY = bucketKey('historyFrom');
const STATE_FROM_KEY = bucketKey('stateFrom');
const SEQ_KEY = bucketKey('commitSeq');
const undoKey = (height: number) => bucketKey('undo', u64be(height));

/** One entry of a transaction's lifecycle history (bucket txLifecycle). */
interface LifecycleEntry {
  event: 'included' | 'undone';
  height: number;
  hash: Hex;
  /** On `undone`: the transaction itself, which no block holds any more. */
  tx?: Block['txs'][number];
}

/** A machine instance's history key prefix: length-prefixed names so one id is never a prefix of another's. */
const machinePrefix = (machine: string, id: string) => {
  const m = enc.encode(machine);
  const i = enc.encode(id);
  return bucketKey('machineHistory', Buffer.of(m.length), m, u32be(i.length), i);
};

export interface StoreCounters {
  accounts: number;
  txs: number;
}

export type { BlockSummary, Head } from '../protocol/chain';

export interface StoredLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockHeight: number;
  txIndex: number;
  logIndex: number; // position in the block
}

export interface StoredInternal {
  txId: Hex;
  kind: string;
  from: Address;
  to: Address;
  amountWei: string;
  blockHeight: number;
}

export interface TxLocation {
  height: number;
  index: number;
}

const json = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8'));
const bytes = (v: unknown) => enc.encode(JSON.stringify(v));
const signerKey = (ref: Uint8Array) => bucketKey('signer', ref);
/** Signers whose record a decode may need at once: a block has at most 500 (MAX_TXS_PER_BLOCK). */
const SIGNERS_CACHED = 4_096;
/** Addresses known to have a firstSeen record: ~100 B each, ~25 MB at most. */
const SEEN_CACHED = 262_144;

/** A signer record as the store caches it: its stored value, and its keys as hex once a block was read with it. */
interface SignerEntry {
  value: Uint8Array;
  keys?: SignerKeys;
}

export class ChainStore {
  /**
   * Signer records by reference, each known to be on disk (read from it, or found there before a write): the value as
   * stored (a binary /chain page carries it) and, once a block was read with it, its keys as hex (one string each,
   * shared by every transaction of the signer that is read).
   */
  private readonly signers = new LRUCache<Hex, SignerEntry>({ max: SIGNERS_CACHED });
  /**
   * Addresses whose firstSeen record was found on disk: a block's ~1,000 parties are mostly known, and their multi-get
   * was ~6 ms of every block's commit. Only what was read is remembered (never what a batch not yet written holds),
   * and an undone block clears it (its firstSeen records go with it). Cleared when full.
   */
  private readonly seen = new Set<Address>();

  /**
   * `devUndo` (a --dev node only): undo records of final blocks are kept and final blocks may be
   * undone (POST /dev/revert), finality going back with them. Never on a network.
   */
  constructor(
    readonly kv: KvStore,
    readonly opts: { devUndo?: boolean } = {},
  ) {}

  async head(): Promise<Head | undefined> {
    const v = await this.kv.get(HEAD_KEY);
    return v ? (json(v) as Head) : undefined;
  }

  async block(height: number): Promise<Block | undefined> {
    const stored = await this.kv.get(bucketKey('block', u64be(height)));
    return stored && this.decodeStored(stored);
  }

  /**
   * A block as an item of a /chain page (the peers' form): one JSON object, `height` and `hash` first and `size` (its
   * stored JSON length) last, the block's own fields between. Serialized once: wrapping the block's JSON line in them
   * copied each ~4 MB full block twice more (about a third of a page's build, bench/sync.ts's serving peer).
   */
  async chainItemJson(height: number, hash: Hex, size: number): Promise<string | undefined> {
    const stored = await this.kv.get(bucketKey('block', u64be(height)));
    if (!stored) return undefined;
    if (stored[0] !== 0x7b) return JSON.stringify({ height, hash, ...(await this.decodeStored(stored)), size });
    // A block stored as a JSON line (stores written before the binary encoding): its text, wrapped.
    const text = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('utf8');
    return `{"height":${height},"hash":"${hash}",${text.slice(1, text.lastIndexOf('}'))},"size":${size}}`;
  }

  /** A stored block, its signers' keys re-attached (from the cache, or in one multi-get). */
  private async decodeStored(stored: Uint8Array): Promise<Block> {
    const parsed = parseStoredBlock(stored);
    const records = await this.signerRecords(signerRefsOf(parsed));
    return finishStoredBlock(parsed, (ref) => {
      const r = records.get(ref) as SignerEntry;
      r.keys ??= signerKeysOf(r.value);
      return r.keys;
    });
  }

  /**
   * The items of a /chain page from `from` up to `head`: at most `limit`, and past the first, no more than `maxBytes`
   * of the blocks' JSON (their `size`, whatever the page's encoding); `next` is the height after the last, null at
   * the head.
   */
  async pageItems<T>(
    from: number,
    head: number,
    limit: number,
    maxBytes: number,
    item: (height: number, summary: BlockSummary) => Promise<T | undefined>,
  ): Promise<{ items: T[]; next: number | null }> {
    const items: T[] = [];
    let bytes = 0;
    let h = from;
    for (; h <= head && items.length < limit; h++) {
      const summary = await this.summary(h);
      if (!summary || (items.length > 0 && bytes + summary.size > maxBytes)) break;
      const it = await item(h, summary);
      if (it === undefined) break;
      bytes += summary.size;
      items.push(it);
    }
    return { items, next: h <= head ? h : null };
  }

  /**
   * A binary /chain page (chain/chainPage.ts): the stored blocks of pageItems and their signer records, each once;
   * with `next` and the count of its blocks (what the page weighs against a client's rate limit).
   */
  async binaryPage(
    from: number,
    head: number,
    limit: number,
    maxBytes = CHAIN_PAGE_BYTES,
  ): Promise<{ page: Buffer; next: number | null; blocks: number }> {
    const records = new Map<Hex, Uint8Array>();
    const { items, next } = await this.pageItems(from, head, limit, maxBytes, (h) => this.pageBlock(h, records));
    return { page: encodeChainPage({ next, records, blocks: items }), next, blocks: items.length };
  }

  /**
   * A block as a binary /chain page carries it: its stored bytes, read as they are, and its signer records added to
   * `records` (each once per page). Undefined when the height holds no block.
   */
  async pageBlock(height: number, records: Map<Hex, Uint8Array>): Promise<Uint8Array | undefined> {
    const stored = await this.kv.get(bucketKey('block', u64be(height)));
    if (!stored) return undefined;
    const found = await this.signerRecords(storedSignerRefs(stored).filter((ref) => !records.has(ref)));
    for (const [ref, r] of found) records.set(ref, r.value);
    return stored;
  }

  /** Signer records by reference: from the cache, the rest in one multi-get. */
  private async signerRecords(refs: Hex[]): Promise<Map<Hex, SignerEntry>> {
    const out = new Map<Hex, SignerEntry>();
    const missing: Hex[] = [];
    for (const ref of refs) {
      const r = this.signers.get(ref);
      if (r) out.set(ref, r);
      else missing.push(ref);
    }
    const found = await getMany(
      this.kv,
      missing.map((r) => signerKey(fromHex(r))),
    );
    missing.forEach((ref, i) => {
      const value = found[i];
      if (!value) throw new CairnError('BAD_RECORD', `the signer record ${ref} of a stored block is missing`);
      const r = { value };
      out.set(ref, r);
      this.signers.set(ref, r);
    });
    return out;
  }

  async summary(height: number): Promise<BlockSummary | undefined> {
    const v = await this.kv.get(bucketKey('summary', u64be(height)));
    return v ? (json(v) as BlockSummary) : undefined;
  }

  /** Summaries from `fromHeight` downwards (newest first), at most `limit`. */
  async summariesDesc(fromHeight: number, limit: number): Promise<BlockSummary[]> {
    const out: BlockSummary[] = [];
    for await (const [, v] of this.kv.iterate({
      gte: bucketKey('summary', u64be(0)),
      lt: bucketKey('summary', u64be(fromHeight + 1)),
      reverse: true,
      limit,
    })) {
      out.push(json(v) as BlockSummary);
    }
    return out;
  }

  async heightOfHash(hash: Hex): Promise<number | undefined> {
    const v = await this.kv.get(bucketKey('blockHash', fromHex(hash)));
    return v ? readU64be(v) : undefined;
  }

  async txLocation(id: Hex): Promise<TxLocation | undefined> {
    const v = await this.kv.get(bucketKey('txLocation', fromHex(id)));
    return v ? { height: readU64be(v), index: Buffer.from(v).readUInt32BE(8) } : undefined;
  }

  /** Transactions touching `addr`, newest first, strictly below height `before` when given. */
  async addressFeed(addr: Address, limit: number, before?: number): Promise<(TxLocation & { id: Hex })[]> {
    const a = fromHex(addr);
    const upper =
      before === undefined
        ? bucketKey('addressFeed', a, Buffer.alloc(12, 0xff))
        : bucketKey('addressFeed', a, u64be(before));
    const out: (TxLocation & { id: Hex })[] = [];
    for await (const [k, v] of this.kv.iterate({ gte: bucketKey('addressFeed', a), lt: upper, reverse: true, limit })) {
      const kb = Buffer.from(k);
      out.push({ height: readU64be(kb, 21), index: kb.readUInt32BE(29), id: `0x${Buffer.from(v).toString('hex')}` });
    }
    return out;
  }

  /** The genesis spec this chain was created from (replays start from it). */
  async genesisSpec(): Promise<GenesisSpec | undefined> {
    const v = await this.kv.get(GENESIS_KEY);
    return v ? (json(v) as GenesisSpec) : undefined;
  }

  /**
   * The chain this store holds: its specification's chain id and its genesis block's hash (a genesis must be written).
   */
  async network(): Promise<Network> {
    const [spec, genesis] = await Promise.all([this.genesisSpec(), this.summary(0)]);
    if (!spec || !genesis) throw new CairnError('NO_GENESIS', 'the store holds no genesis block');
    return { chainId: spec.chainId, genesisHash: genesis.hash };
  }

  putGenesisSpec(batch: KvBatch, spec: GenesisSpec): void {
    batch.put(GENESIS_KEY, bytes(spec));
  }

  /** Blocks from `from` to the head, in order (replay, export). */
  async *blocksFrom(from: number): AsyncGenerator<Block> {
    for await (const [, v] of this.kv.iterate({
      gte: bucketKey('block', u64be(from)),
      lt: bucketKey('block', Buffer.alloc(8, 0xff)),
    }))
      yield await this.decodeStored(v);
  }

  async counters(): Promise<StoreCounters> {
    const v = await this.kv.get(STATS_KEY);
    return v ? (json(v) as StoreCounters) : { accounts: 0, txs: 0 };
  }

  /** Of `addrs`, those never seen before. */
  async unseen(addrs: Iterable<Address>): Promise<Address[]> {
    const unknown = [...new Set(addrs)].filter((a) => !this.seen.has(a));
    if (unknown.length === 0) return [];
    // One multi-get for a block's ~1,000 addresses instead of as many awaited reads (~25 ms).
    const found = await getMany(
      this.kv,
      unknown.map((a) => bucketKey('firstSeen', fromHex(a))),
    );
    if (this.seen.size + unknown.length > SEEN_CACHED) this.seen.clear();
    unknown.forEach((a, i) => {
      if (found[i]) this.seen.add(a);
    });
    return unknown.filter((_, i) => !found[i]);
  }

  /** Keys under `prefix` followed by hex `hexPrefix` (any length), for prefix search. */
  async scanHexPrefix(
    bucket: Extract<BucketName, 'firstSeen' | 'blockHash' | 'txLocation'>,
    hexPrefix: string,
    limit: number,
  ): Promise<Hex[]> {
    const lo = hexPrefix.padEnd(2 * Math.ceil(hexPrefix.length / 2), '0');
    const hi = hexPrefix.padEnd(2 * Math.ceil(hexPrefix.length / 2), 'f');
    const gte = bucketKey(bucket, Buffer.from(lo, 'hex'));
    const lt = Buffer.concat([bucketKey(bucket, Buffer.from(hi, 'hex')), Buffer.alloc(32, 0xff)]);
    const out: Hex[] = [];
    for await (const [k] of this.kv.iterate({ gte, lt, limit }))
      out.push(`0x${Buffer.from(k).subarray(1).toString('hex')}`);
    return out;
  }

  /** Logs of blocks in [from, to] in order; `match` filters; stops after `limit` matches. */
  async logs(from: number, to: number, match: (l: StoredLog) => boolean, limit: number): Promise<StoredLog[]> {
    const out: StoredLog[] = [];
    for await (const [, v] of this.kv.iterate({
      gte: bucketKey('logs', u64be(from)),
      lt: bucketKey('logs', u64be(to + 1)),
    })) {
      const l = json(v) as StoredLog;
      if (match(l)) out.push(l);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Newest logs first (the /logs feed). */
  async recentLogs(limit: number): Promise<StoredLog[]> {
    const out: StoredLog[] = [];
    for await (const [, v] of this.kv.iterate({ gte: bucketKey('logs'), lt: bucketEnd('logs'), reverse: true, limit }))
      out.push(json(v) as StoredLog);
    return out;
  }

  /** Internal transfers from height `from` upwards, for one address or all. */
  async internal(addr: Address | undefined, from: number, limit: number): Promise<StoredInternal[]> {
    const prefix = addr ? bucketKey('internalByAddress', fromHex(addr)) : bucketKey('internal');
    const out: StoredInternal[] = [];
    const end = addr
      ? bucketKey('internalByAddress', fromHex(addr), Buffer.alloc(16, 0xff))
      : bucketKey('internal', Buffer.alloc(16, 0xff));
    for await (const [, v] of this.kv.iterate({ gte: Buffer.concat([prefix, u64be(from)]), lt: end, limit }))
      out.push(json(v) as StoredInternal);
    return out;
  }

  async contractMetadata(addr: Address): Promise<unknown | undefined> {
    const v = await this.kv.get(bucketKey('contract', fromHex(addr)));
    return v ? json(v) : undefined;
  }

  /** Node-local data, not consensus state: a write of its own, disjoint from block batches. */
  async saveContractMetadata(addr: Address, meta: unknown): Promise<void> {
    const b = this.kv.batch();
    b.put(bucketKey('contract', fromHex(addr)), bytes(meta));
    await this.kv.write(b);
  }

  /** Adds a block and all its indexes to `batch`, plus its signer records, the new head pointer and counters. */
  putBlock(
    batch: KvBatch,
    block: Block,
    head: Head,
    newAddresses: Address[] = [],
    prev: StoreCounters = { accounts: 0, txs: 0 },
  ): BlockSummary {
    const encoded = encodeStoredBlock(block);
    for (const s of encoded.signers) batch.put(signerKey(s.ref), s.value);
    return this.putEncodedBlock(batch, block, encoded, head, newAddresses, prev);
  }

  /** putBlock without the signer records (the caller writes those it does not find on disk). */
  private putEncodedBlock(
    batch: KvBatch,
    block: Block,
    encoded: EncodedBlock,
    head: Head,
    newAddresses: Address[],
    prev: StoreCounters = { accounts: 0, txs: 0 },
  ): BlockSummary {
    const h = block.header;
    const hb = u64be(h.height);
    batch.put(bucketKey('block', hb), encoded.bytes);
    batch.put(bucketKey('blockHash', fromHex(h.hash)), hb);
    let volume = 0n;
    let logIndex = 0;
    block.results.forEach((r, i) => {
      for (const l of r.vm?.logs ?? []) {
        const rec: StoredLog = { ...l, blockHeight: h.height, txIndex: i, logIndex };
        batch.put(bucketKey('logs', hb, u32be(i), u32be(logIndex++)), bytes(rec));
      }
      (r.vm?.internal ?? []).forEach((t, n) => {
        const rec: StoredInternal = {
          txId: block.txs[i].id,
          kind: t.kind,
          from: t.from,
          to: t.to,
          amountWei: t.amountWei,
          blockHeight: h.height,
        };
        const v = bytes(rec);
        batch.put(bucketKey('internal', hb, u32be(i), u32be(n)), v);
        for (const a of new Set([t.from, t.to]))
          batch.put(bucketKey('internalByAddress', fromHex(a), hb, u32be(i), u32be(n)), v);
      });
    });
    putAssetIndexes(batch, block);
    putMachineHistory(batch, block);
    block.txs.forEach((tx, i) => {
      const id = fromHex(tx.id);
      batch.put(bucketKey('txLocation', id), Buffer.concat([hb, u32be(i)]));
      for (const a of partiesOf(tx)) batch.put(bucketKey('addressFeed', fromHex(a), hb, u32be(i)), id);
      if (block.results[i]?.status === 'success') volume += BigInt(tx.amount);
    });
    const summary: BlockSummary = {
      height: h.height,
      hash: h.hash,
      stateRoot: h.stateRoot,
      timestamp: h.timestamp,
      producer: h.producer,
      txCount: block.txs.length,
      // The spec's size: the byte length of the block line, the JSON the API serves (not the stored bytes).
      size: encoded.jsonSize,
      volume: volume.toString(),
    };
    batch.put(bucketKey('summary', hb), bytes(summary));
    for (const a of newAddresses) batch.put(bucketKey('firstSeen', fromHex(a)), hb);
    batch.put(
      STATS_KEY,
      bytes({
        accounts: prev.accounts + newAddresses.length,
        txs: prev.txs + block.txs.length,
      } satisfies StoreCounters),
    );
    batch.put(HEAD_KEY, bytes(head));
    return summary;
  }

  /**
   * putBlock, undoably: the block's writes go through a recording batch, and an undo record
   * (bucket undo) keeps what each written key held before — one multi-get of the keys of
   * mutable buckets; keys unique to the block held nothing. The same multi-get looks for the
   * block's signer records not known to be on disk; only the absent ones are written. Undo
   * records of blocks now final are pruned in the same batch: a final block is never undone.
   * A transaction's inclusion is its location (bucket txLocation); the lifecycle history is
   * written only when a block is undone.
   */
  async putUndoableBlock(
    batch: KvBatch,
    block: Block,
    head: Head,
    newAddresses: Address[] = [],
    prev?: StoreCounters,
  ): Promise<BlockSummary> {
    const encoded = encodeStoredBlock(block);
    const rec = new RecordingBatch(batch);
    const summary = this.putEncodedBlock(rec, block, encoded, head, newAddresses, prev);
    // Keys of block buckets held nothing before the block; mutable ones are read, in one multi-get.
    const mutable = rec.keys.filter((k) => kindOf(k) === 'mutable');
    const signers = encoded.signers.filter((s) => !this.signers.has(toHex(s.ref)));
    const found = await getMany(this.kv, [...mutable, ...signers.map((s) => signerKey(s.ref))]);
    const entries: UndoEntry[] = rec.keys.filter((k) => kindOf(k) === 'block').map((k) => [k, undefined]);
    let previousHead: Uint8Array | undefined;
    mutable.forEach((k, i) => {
      entries.push([k, found[i]]);
      if (Buffer.compare(k, HEAD_KEY) === 0) previousHead = found[i];
    });
    signers.forEach((s, i) => {
      const onDisk = found[mutable.length + i];
      if (onDisk) this.signers.set(toHex(s.ref), { value: onDisk });
      else batch.put(signerKey(s.ref), s.value);
    });
    const h = block.header.height;
    batch.put(undoKey(h), encodeUndo(entries));
    const prevFinal = previousHead ? (json(previousHead) as Head).finalizedHeight : 0;
    if (!this.opts.devUndo) for (let f = prevFinal + 1; f <= head.finalizedHeight; f++) batch.del(undoKey(f));
    return summary;
  }

  /**
   * Takes back the head block: every key it wrote returns to what it held before (the head
   * pointer and counters included), its undo record goes, and its transactions' lifecycle
   * history gets `undone`. Only the head can be undone, and only while it is not final.
   * Returns the head it restores.
   */
  async undoBlock(batch: KvBatch, height: number): Promise<Head> {
    const head = await this.head();
    if (!head || head.height !== height)
      throw new CairnError('UNDO', `only the head block can be undone: head is ${head?.height}, asked ${height}`);
    if (height <= head.finalizedHeight && !this.opts.devUndo)
      throw new CairnError(
        'UNDO',
        `block ${height} is final (finalized height ${head.finalizedHeight}): it cannot be undone`,
      );
    const [record, block, seq] = await Promise.all([
      this.kv.get(undoKey(height)),
      this.block(height),
      this.kv.get(SEQ_KEY),
    ]);
    if (!record || !block) throw new CairnError('UNDO', `block ${height} has no undo record`);
    let restored: Head | undefined;
    for (const [k, v] of decodeUndo(record)) {
      if (v) batch.put(k, v);
      else batch.del(k);
      if (v && Buffer.compare(k, HEAD_KEY) === 0) restored = json(v) as Head;
    }
    batch.del(undoKey(height));
    this.seen.clear(); // the block's firstSeen records are deleted with it
    this.putUndoneLifecycle(batch, seq, block);
    if (!restored) throw new CairnError('UNDO', `block ${height}'s undo record has no previous head`);
    // Finality never goes back: what the undone block finalized stays final.
    if (head.finalizedHeight > restored.finalizedHeight && !this.opts.devUndo) {
      restored = { ...restored, finalizedHeight: head.finalizedHeight };
      batch.put(HEAD_KEY, bytes(restored));
    }
    return restored;
  }

  /**
   * The lifecycle of a transaction in blocks, oldest first: the inclusions and undos recorded
   * when blocks were undone, then its current inclusion (its location), unless the history
   * already ends with it (stores written before the history was kept at undo time only).
   */
  async txLifecycleEvents(id: Hex): Promise<TxLifecycleEvent[]> {
    const prefix = bucketKey('txLifecycle', fromHex(id));
    const out: TxLifecycleEvent[] = [];
    for await (const [, v] of this.kv.iterate({ gte: prefix, lt: Buffer.concat([prefix, Buffer.alloc(8, 0xff)]) })) {
      const e = json(v) as LifecycleEntry;
      const event: TxLifecycleEvent =
        e.event === 'included' ? { type: 'INCLUDED', height: e.height, blockHash: e.hash } : { type: 'UNDONE' };
      if (!sameInclusion(out[out.length - 1], event)) out.push(event);
    }
    const at = await this.txLocation(id);
    const block = at && (await this.summary(at.height));
    if (block) {
      const current: TxLifecycleEvent = { type: 'INCLUDED', height: block.height, blockHash: block.hash };
      if (!sameInclusion(out[out.length - 1], current)) out.push(current);
    }
    return out;
  }

  /** The transaction of the newest `undone` entry of its history, if it has one. */
  async undoneTx(id: Hex): Promise<Block['txs'][number] | undefined> {
    const prefix = bucketKey('txLifecycle', fromHex(id));
    for await (const [, v] of this.kv.iterate({
      gte: prefix,
      lt: Buffer.concat([prefix, Buffer.alloc(8, 0xff)]),
      reverse: true,
    })) {
      const e = json(v) as LifecycleEntry;
      if (e.tx) return e.tx;
    }
    return undefined;
  }

  /** A machine instance's transitions, oldest first, with their heights. */
  async machineHistory(
    machine: string,
    id: string,
    limit = 1_000,
  ): Promise<Extract<ChainEvent, { kind: 'machine.transition' }>[]> {
    const prefix = machinePrefix(machine, id);
    const out: Extract<ChainEvent, { kind: 'machine.transition' }>[] = [];
    for await (const [, v] of this.kv.iterate({
      gte: prefix,
      lt: Buffer.concat([prefix, Buffer.alloc(12, 0xff)]),
      limit,
    }))
      out.push(json(v));
    return out;
  }

  /**
   * A machine's transitions of every instance after height `since`, oldest first, at most
   * `limit` (whole blocks: a block's transitions are never split across pages).
   */
  async machineFeed(
    machine: string,
    since: number,
    limit = 1_000,
  ): Promise<Extract<ChainEvent, { kind: 'machine.transition' }>[]> {
    const prefix = feedPrefix(machine);
    const out: Extract<ChainEvent, { kind: 'machine.transition' }>[] = [];
    for await (const [, v] of this.kv.iterate({
      gte: Buffer.concat([prefix, u64be(since + 1)]),
      lt: Buffer.concat([prefix, Buffer.alloc(12, 0xff)]),
    })) {
      const e = json(v) as Extract<ChainEvent, { kind: 'machine.transition' }>;
      if (out.length >= limit && e.height !== out[out.length - 1].height) break;
      out.push(e);
    }
    return out;
  }

  /**
   * A machine's latest transitions of every instance, newest first, at most `limit` (what the
   * lists without `since` read: the instances that changed most recently, however long the
   * machine's history is).
   */
  async machineFeedNewest(
    machine: string,
    limit: number,
  ): Promise<Extract<ChainEvent, { kind: 'machine.transition' }>[]> {
    const prefix = feedPrefix(machine);
    const out: Extract<ChainEvent, { kind: 'machine.transition' }>[] = [];
    for await (const [, v] of this.kv.iterate({
      gte: prefix,
      lt: Buffer.concat([prefix, Buffer.alloc(12, 0xff)]),
      reverse: true,
      limit,
    }))
      out.push(json(v));
    return out;
  }

  /**
   * The history of an undone block's transactions: their inclusion in it, then `undone` with the
   * transaction (which no block holds any more), under the next two commit sequence numbers.
   */
  private putUndoneLifecycle(batch: KvBatch, seqValue: Uint8Array | undefined, block: Block): void {
    const seq = seqValue ? readU64be(seqValue) : 0;
    const { height, hash } = block.header;
    const included = bytes({ event: 'included', height, hash } satisfies LifecycleEntry);
    for (const tx of block.txs) {
      const id = fromHex(tx.id);
      batch.put(bucketKey('txLifecycle', id, u64be(seq)), included);
      batch.put(bucketKey('txLifecycle', id, u64be(seq + 1)), bytes({ event: 'undone', height, hash, tx }));
    }
    batch.put(SEQ_KEY, u64be(seq + 2));
  }

  /** The lowest height whose history (body, feeds, logs) this store keeps: 0 for an archive. */
  async historyFrom(): Promise<number> {
    const v = await this.kv.get(HISTORY_FROM_KEY);
    return v ? readU64be(v) : 0;
  }

  /** The lowest height whose state root this store keeps (old nodes collected below it): 0 for an archive. */
  async stateFrom(): Promise<number> {
    const v = await this.kv.get(STATE_FROM_KEY);
    return v ? readU64be(v) : 0;
  }

  /** Records, in the batch that deletes state nodes, from which height state roots are kept. */
  putStateFrom(batch: KvBatch, height: number): void {
    batch.put(STATE_FROM_KEY, u64be(height));
  }

  /**
   * Drops block `height`'s history: its body and every key of a `prune` bucket it wrote (found
   * by writing its indexes again into a batch that only collects keys: the keys a block writes
   * are a function of the block), and records that history now starts above it. The caller
   * prunes only final blocks, in height order. Returns how many keys were deleted.
   */
  async pruneBlock(batch: KvBatch, height: number): Promise<number> {
    const stored = await this.kv.get(bucketKey('block', u64be(height)));
    let deleted = 0;
    if (stored) {
      // Index keys never depend on the public keys: the parsed block needs no signer records.
      const block = parseStoredBlock(stored).block;
      const keys = new KeyCollector();
      const { hash, stateRoot, timestamp } = block.header;
      const head: Head = { height, hash, stateRoot, timestamp, finalizedHeight: 0 };
      this.putEncodedBlock(keys, block, { bytes: stored, signers: [], jsonSize: 0 }, head, []);
      for (const k of keys.keys) {
        const b = bucketOf(k);
        if (b && (BUCKETS[b] as { prune?: true }).prune) {
          batch.del(k);
          deleted++;
        }
      }
    }
    batch.put(HISTORY_FROM_KEY, u64be(height + 1));
    return deleted;
  }

  /**
   * A chain joined by state sync: its head becomes `header`'s block, whose state nodes the
   * caller wrote (verified by hash from its state root), final. Only the header is believed: the
   * block's body and results came from no trusted source, so its summary carries what the
   * header says (size and volume unknown: 0) and history starts above it. State reads start at
   * it too. The caller writes this batch last: until then the store has no such head, and a
   * crash means the sync starts again (the nodes already written are found in the store).
   */
  putCheckpoint(batch: KvBatch, header: Block['header'], head: Head): void {
    const hb = u64be(header.height);
    const summary: BlockSummary = {
      height: header.height,
      hash: header.hash,
      stateRoot: header.stateRoot,
      timestamp: header.timestamp,
      producer: header.producer,
      txCount: header.txCount,
      size: 0,
      volume: '0',
    };
    batch.put(bucketKey('summary', hb), bytes(summary));
    batch.put(bucketKey('blockHash', fromHex(header.hash)), hb);
    batch.put(HISTORY_FROM_KEY, u64be(header.height + 1));
    batch.put(STATE_FROM_KEY, hb);
    batch.put(HEAD_KEY, bytes(head));
  }

  /** Only the finalized height moved: rewrite the head pointer alone. */
  putHead(batch: KvBatch, head: Head): void {
    batch.put(HEAD_KEY, bytes(head));
  }
}

/** A batch that only notes the keys written to it (what a block's write would touch). */
class KeyCollector implements KvBatch {
  readonly keys: Uint8Array[] = [];
  put(key: Uint8Array): void {
    this.keys.push(key);
  }
  del(key: Uint8Array): void {
    this.keys.push(key);
  }
  get size(): number {
    return this.keys.length;
  }
}

/** Two entries for one inclusion (a store written before undo-time history records each inclusion once already). */
const sameInclusion = (a: TxLifecycleEvent | undefined, b: TxLifecycleEvent): boolean =>
  a?.type === 'INCLUDED' && b.type === 'INCLUDED' && a.height === b.height && a.blockHash === b.blockHash;

/** A machine's feed key prefix (every instance, by height). */
const feedPrefix = (machine: string) => {
  const m = enc.encode(machine);
  return bucketKey('machineFeed', Buffer.of(m.length), m);
};

/** Machine transitions of the block (from its transactions and its end-of-block tick), by instance and by height. */
function putMachineHistory(batch: KvBatch, block: Block): void {
  const hb = u64be(block.header.height);
  let n = 0;
  const put = (e: ChainEvent) => {
    if (e.kind !== 'machine.transition') return;
    const v = bytes(e);
    const seq = u32be(n++);
    batch.put(Buffer.concat([machinePrefix(e.machine, e.id), hb, seq]), v);
    batch.put(Buffer.concat([feedPrefix(e.machine), hb, seq]), v);
  };
  for (const r of block.results) if (r.status === 'success') r.events?.forEach(put);
  block.events?.forEach(put);
}
