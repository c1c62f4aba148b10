import { NODE_PREFIX } from '../state/trieNodes';

/**
 * Every key prefix of the node's database, in one table. A key is its bucket's prefix
 * followed by the parts in `layout`; no prefix is a prefix of another
 * (test/unit/storage/buckets.test.ts), so no two buckets can ever share a key.
 *
 * `kind` says what undoing a block does with the bucket (ChainStore.undoBlock):
 *   block    keys unique to the block that wrote them: undo deletes them
 *   mutable  keys a later block overwrites or deletes: undo restores the previous value
 *   history  append-only record of what happened (a tx's inclusions and undos): never undone
 *   undo     the undo records themselves
 *   local    written outside blocks (node-local metadata): untouched by undo
 *   trie     state nodes, content-addressed: a replaced block's nodes are simply unreferenced
 *   content  other content-addressed records blocks refer to (signer keys): likewise never undone
 * `prune`: history a node with a bounded window (--history N) drops with its block once the
 * block is N blocks below the finalized height (ChainStore.pruneBlock). The other buckets stay:
 * the current chain (summaries, listings, balances) and the on-chain machines' transitions,
 * which oracles and governance follow and which a machine's views are rebuilt from (a few
 * small records per machine transaction, not per transfer).
 * Heights are u64be, tx/log/event positions u32be, addresses and asset ids their 20 bytes,
 * hashes their 32 bytes, balances 32-byte big-endian (byte order = numeric order).
 */
export type BucketKind = 'block' | 'mutable' | 'history' | 'undo' | 'local' | 'trie' | 'content';

interface BucketDef {
  prefix: string;
  kind: BucketKind;
  layout: string;
  /** One exact key rather than a key space. */
  exact?: true;
  /** Dropped with its block when the block leaves a bounded history window. */
  prune?: true;
}

export const BUCKETS = {
  // chain store (storage/chainStore.ts)
  block: {
    prefix: 'h',
    kind: 'block',
    layout: 'height → the block, compact binary (chain/blockCodec.ts) or a JSON line (older stores)',
    prune: true,
  },
  signer: {
    prefix: 'k',
    kind: 'content',
    layout:
      'keccak(keccak(ML-DSA key) ‖ secp256k1 key) → secp256k1 key ‖ ML-DSA key (stored once, not per transaction)',
  },
  summary: { prefix: 's', kind: 'block', layout: 'height → block summary (feeds, stats)' },
  blockHash: { prefix: 'H', kind: 'block', layout: 'hash → height' },
  txLocation: { prefix: 'T', kind: 'block', layout: 'txid → height, index', prune: true },
  addressFeed: {
    prefix: 'A',
    kind: 'block',
    layout: 'addr|height|index → txid (newest first by reverse scan)',
    prune: true,
  },
  firstSeen: { prefix: 'a', kind: 'block', layout: 'addr → height first seen (address search, account count)' },
  logs: { prefix: 'L', kind: 'block', layout: 'height|tx|log → VM log (eth_getLogs, /logs)', prune: true },
  internalByAddress: { prefix: 'I', kind: 'block', layout: 'addr|height|tx|n → internal transfer', prune: true },
  internal: { prefix: 'J', kind: 'block', layout: 'height|tx|n → internal transfer', prune: true },
  machineHistory: {
    prefix: 'Q',
    kind: 'block',
    layout: 'len(machine)|machine|len(id)|id|height|n → machine.transition event',
  },
  machineFeed: {
    prefix: 'F',
    kind: 'block',
    layout: 'len(machine)|machine|height|n → machine.transition event (every instance, in height order: ?since feeds)',
  },
  txLifecycle: {
    prefix: 'W',
    kind: 'history',
    layout:
      'txid|seq (Mseq at the write) → {event: included | undone, height, hash}: written when a block is undone ' +
      '(its inclusion, then undone); a current inclusion is the tx location',
  },
  undo: { prefix: 'U', kind: 'undo', layout: 'height → the previous values of the keys the block wrote' },
  contract: { prefix: 'V', kind: 'local', layout: 'addr → contract verification metadata' },
  head: { prefix: 'Mhead', kind: 'mutable', layout: 'the head pointer', exact: true },
  stats: { prefix: 'Mstats', kind: 'mutable', layout: 'counters: accounts, txs', exact: true },
  genesis: { prefix: 'Mgenesis', kind: 'local', layout: 'the genesis spec (replays start from it)', exact: true },
  stateFrom: {
    prefix: 'MstateFrom',
    kind: 'local',
    layout: 'u64be: the lowest height whose state root is kept (absent: every root, an archive)',
    exact: true,
  },
  historyFrom: {
    prefix: 'MhistoryFrom',
    kind: 'local',
    layout: 'u64be: the lowest height whose history is kept (absent: every block, an archive)',
    exact: true,
  },
  commitSeq: {
    prefix: 'Mseq',
    kind: 'history',
    layout: 'u64be: commits and undos so far (orders the lifecycle history)',
    exact: true,
  },
  // asset indexes from block events (storage/assetIndex.ts)
  tokenList: { prefix: 'K', kind: 'block', layout: 'height|tx|ev → token id (newest first)' },
  holdersByBalance: {
    prefix: 'O',
    kind: 'mutable',
    layout: 'token|balance32|holder → empty (reverse scan = largest first)',
  },
  holdings: { prefix: 'P', kind: 'mutable', layout: 'account|token → balance32 (non-zero only)' },
  tokenTransfers: { prefix: 'X', kind: 'block', layout: 'token|height|tx|ev → StoredTokenTransfer', prune: true },
  tokenSearch: {
    prefix: 'Y',
    kind: 'mutable',
    layout: 's|lower(symbol)|0|token or n|lower(name)|0|token → {symbol, name}',
  },
  collectionList: { prefix: 'G', kind: 'block', layout: 'height|tx|ev → collection id (newest first)' },
  collectionItems: {
    prefix: 'E',
    kind: 'mutable',
    layout: 'collection|item64 → empty (live items; newest = highest id)',
  },
  namesList: { prefix: 'N', kind: 'mutable', layout: 'registeredAt|name → {owner, target}' },
  namesByName: { prefix: 'R', kind: 'mutable', layout: 'name → {owner, target, registeredAt}' },
  // state (state/trieNodes.ts)
  trieNodes: { prefix: Buffer.from(NODE_PREFIX).toString('latin1'), kind: 'trie', layout: 'node hash → node (RLP)' },
} as const satisfies Record<string, BucketDef>;

export type BucketName = keyof typeof BUCKETS;

const enc = new TextEncoder();
const PREFIX_BYTES = Object.fromEntries(Object.entries(BUCKETS).map(([n, b]) => [n, enc.encode(b.prefix)])) as Record<
  BucketName,
  Uint8Array
>;

/** A key of `bucket`: its prefix, then the parts. */
export const bucketKey = (bucket: BucketName, ...parts: Uint8Array[]): Buffer =>
  Buffer.concat([PREFIX_BYTES[bucket], ...parts]);

/** Longest prefixes first, so an exact key (Mhead) is not taken for a shorter prefix. */
const BUCKET_NAMES = (Object.keys(BUCKETS) as BucketName[]).sort(
  (a, b) => BUCKETS[b].prefix.length - BUCKETS[a].prefix.length,
);

/** Buckets by the first byte of their prefix, longest prefixes first (an exact key before a shorter prefix). */
const BY_FIRST_BYTE: BucketName[][] = Array.from({ length: 256 }, () => []);
for (const name of BUCKET_NAMES) BY_FIRST_BYTE[PREFIX_BYTES[name][0]].push(name);

/** The bucket a key belongs to (undefined: a key no bucket declares — a bug). */
export function bucketOf(key: Uint8Array): BucketName | undefined {
  if (key.length === 0) return undefined;
  for (const name of BY_FIRST_BYTE[key[0]]) {
    const p = PREFIX_BYTES[name];
    if (key.length < p.length) continue;
    let i = 1;
    while (i < p.length && key[i] === p[i]) i++;
    if (i === p.length && (!(BUCKETS[name] as BucketDef).exact || key.length === p.length)) return name;
  }
  return undefined;
}

/** The smallest key above every key of `bucket` (the end of a scan over it). */
export function bucketEnd(bucket: BucketName): Buffer {
  const p = Buffer.from(PREFIX_BYTES[bucket]);
  p[p.length - 1]++; // prefixes are printable ASCII: never 0xff
  return p;
}

export const kindOf = (key: Uint8Array): BucketKind | undefined => {
  const b = bucketOf(key);
  return b && BUCKETS[b].kind;
};
