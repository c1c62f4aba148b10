import type { Logger } from 'pino';
import { headerHash, verifyHeader } from '../crypto/blockHeader';
import { CairnError } from '../errors/CairnError';
import { getSchedule, producerKeysOf } from '../modules/staking';
import { httpSnapshots, PeerBusy, type SnapshotTransport } from '../network/peerClient';
import type { Hex } from '../primitives/hex';
import type { Head } from '../protocol/chain';
import { MAX_SNAPSHOT_NODES } from '../protocol/params';
import type { SignedBlockHeader } from '../protocol/types';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { nodeKey } from '../state/trieNodes';
import { TrieSync } from '../state/trieSync';
import type { ChainStore } from '../storage/chainStore';

/**
 * Joining by state sync (`cairn node --sync state --checkpoint <hash>`): instead of replaying
 * every block from genesis, an empty node takes the state of a recent final block from its
 * peers, then follows by blocks.
 *
 * What is believed, and why: the operator gives the hash of a final block it trusts (from a
 * node it runs, or its community's published checkpoint — Cosmos state sync's trust hash). A
 * peer's header for it is kept only if it hashes to that; its producer's signatures are checked
 * against the keys the synced state binds. Every state node is asked for by hash and kept only if
 * its keccak is that hash, from the header's state root down (state/trieSync.ts): a peer can
 * slow the sync, never change what the node ends with. A peer that gives a wrong node, or no
 * longer has the snapshot, is dropped and its share asked of the others.
 *
 * Crash-safe: nodes are written as they come (content-addressed, so harmless alone) and the
 * head last, in one batch (storage/chainStore.ts putCheckpoint). A node restarted before that
 * starts the sync again and finds what it already has in its store.
 */
export interface StateSyncDeps {
  kv: KvStore;
  store: ChainStore;
  peers: readonly string[];
  checkpoint: Hex;
  /** This chain's genesis: peers of another chain are not asked. */
  genesisHash: Hex;
  log: Logger;
  transport?: SnapshotTransport;
  /** Nodes per request (default MAX_SNAPSHOT_NODES). */
  chunk?: number;
  /** Requests in flight at once (default 4). */
  parallel?: number;
  /** ms between progress lines (default 5,000). */
  progressMs?: number;
}

interface Source {
  url: string;
  /** Not asked before this time (ms, performance.now()): it answered 429. */
  readyAt: number;
  failures: number;
  dropped?: string;
}

/** Consecutive failed requests after which a peer is no longer asked. */
const MAX_FAILURES = 3;

const syncError = (message: string, meta: Record<string, unknown> = {}) => new CairnError('STATE_SYNC', message, meta);

export async function syncState(d: StateSyncDeps): Promise<Head> {
  const t = d.transport ?? httpSnapshots;
  const log = d.log.child({ module: 'state-sync' });
  const started = performance.now();
  const { header, sources } = await findCheckpoint(d, t, log);
  log.info(
    { height: header.height, hash: header.hash, stateRoot: header.stateRoot, peers: sources.map((s) => s.url) },
    'state sync: checkpoint found, fetching its state',
  );
  const sync = new TrieSync(header.stateRoot);
  await fetchTrie(d, t, log, sync, sources);

  // The state is whole and matches the root: check the header's signatures against the keys it binds.
  const state = await StateTrie.open(d.kv, header.stateRoot);
  const keys = await producerKeysOf(state, header.producer);
  const refusal = keys ? verifyHeader(header, keys) : `producer ${header.producer} has no bound block-signing keys`;
  if (refusal) throw syncError(`the checkpoint block's header does not verify: ${refusal}`, { hash: header.hash });
  const schedule = await getSchedule(state);
  const head: Head = {
    height: header.height,
    hash: header.hash,
    stateRoot: header.stateRoot,
    timestamp: header.timestamp,
    finalizedHeight: header.height,
    justifiedHeight: Math.max(header.height, schedule.epochs?.justified.height ?? 0),
  };
  const batch = d.kv.batch();
  d.store.putCheckpoint(batch, header, head);
  await d.kv.write(batch);
  log.info(
    {
      height: header.height,
      nodes: sync.nodes,
      bytes: sync.bytes,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
    'state sync: done; following by blocks from here',
  );
  return head;
}

/** The checkpoint's header from the peers that serve it as a snapshot, and those peers. */
async function findCheckpoint(
  d: StateSyncDeps,
  t: SnapshotTransport,
  log: Logger,
): Promise<{ header: SignedBlockHeader; sources: Source[] }> {
  let header: SignedBlockHeader | undefined;
  const sources: Source[] = [];
  const seen: string[] = [];
  await Promise.all(
    d.peers.map(async (url) => {
      try {
        const status = await t.status(url);
        if (status.genesisHash !== undefined && status.genesisHash !== d.genesisHash) {
          log.warn({ peer: url, genesisHash: status.genesisHash }, 'state sync: a peer of another chain is not asked');
          return;
        }
        const snapshots = await t.snapshots(url);
        seen.push(`${url}: ${snapshots.map((h) => `${h.height} ${h.hash}`).join(', ') || 'none'}`);
        const h = snapshots.find((s) => s.hash === d.checkpoint);
        // The header is believed only if it hashes to the checkpoint.
        if (!h || headerHash(h) !== d.checkpoint) return;
        header ??= h;
        sources.push({ url, readyAt: 0, failures: 0 });
      } catch (e) {
        seen.push(`${url}: ${(e as Error).message}`);
      }
    }),
  );
  if (!header)
    throw syncError(
      `no peer serves a snapshot at checkpoint ${d.checkpoint} (GET /snapshots): ${seen.join('; ') || 'no peer answered'}`,
      { checkpoint: d.checkpoint },
    );
  return { header, sources };
}

/** Fetches every node of `sync`'s trie that the store lacks, `parallel` requests at a time, spread over `sources`. */
async function fetchTrie(
  d: StateSyncDeps,
  t: SnapshotTransport,
  log: Logger,
  sync: TrieSync,
  sources: Source[],
): Promise<void> {
  const chunk = d.chunk ?? MAX_SNAPSHOT_NODES;
  const parallel = d.parallel ?? 4;
  let turn = 0;
  let fatal: Error | undefined;
  let lastLog = performance.now();

  /** The next peer still asked, round-robin (waiting out a 429 if every peer is resting). */
  async function nextSource(): Promise<Source> {
    for (;;) {
      const live = sources.filter((s) => !s.dropped);
      if (live.length === 0)
        throw syncError(
          `no peer serves the whole snapshot any more: ${sources.map((s) => `${s.url}: ${s.dropped}`).join('; ')}`,
        );
      const now = performance.now();
      const ready = live.filter((s) => s.readyAt <= now);
      if (ready.length > 0) return ready[turn++ % ready.length];
      await new Promise((r) => setTimeout(r, Math.min(...live.map((s) => s.readyAt)) - now));
    }
  }

  const drop = (s: Source, why: string) => {
    if (s.dropped) return;
    s.dropped = why;
    log.warn({ peer: s.url, why }, 'state sync: a peer is no longer asked; its share goes to the others');
  };

  async function fetchChunk(hashes: Uint8Array[]): Promise<void> {
    const missing = await sync.fromStore(d.kv, hashes);
    if (missing.length === 0) return;
    const s = await nextSource();
    let nodes: (Uint8Array | undefined)[];
    try {
      nodes = await t.stateNodes(s.url, missing);
    } catch (e) {
      sync.retry(missing);
      if (e instanceof PeerBusy) s.readyAt = performance.now() + e.ms;
      else if (++s.failures >= MAX_FAILURES) drop(s, `${MAX_FAILURES} requests failed: ${(e as Error).message}`);
      return;
    }
    s.failures = 0;
    const batch = d.kv.batch();
    const again: Uint8Array[] = [];
    let wrong = 0;
    let absent = 0;
    missing.forEach((h, i) => {
      const enc = nodes[i];
      if (enc === undefined) {
        absent++;
        again.push(h);
      } else if (sync.accept(h, enc)) batch.put(nodeKey(Buffer.from(h).toString('hex')), enc);
      else {
        wrong++;
        again.push(h);
      }
    });
    await d.kv.write(batch);
    sync.retry(again);
    if (wrong > 0) drop(s, `it gave ${wrong} node(s) whose hash is not the one asked for: refused`);
    else if (absent > 0) drop(s, `it no longer has ${absent} node(s) of the snapshot`);
  }

  const running = new Set<Promise<void>>();
  while (!sync.done) {
    while (running.size < parallel && sync.waiting > 0) {
      const p: Promise<void> = fetchChunk(sync.take(chunk))
        .catch((e: Error) => {
          fatal ??= e;
        })
        .finally(() => running.delete(p));
      running.add(p);
    }
    if (running.size > 0) await Promise.race(running);
    else if (!sync.done) throw new Error('state sync: nodes outstanding with no request running');
    if (fatal) {
      await Promise.allSettled(running);
      throw fatal;
    }
    if (performance.now() - lastLog >= (d.progressMs ?? 5_000)) {
      lastLog = performance.now();
      log.info({ nodes: sync.nodes, bytes: sync.bytes, waiting: sync.waiting }, 'state sync: fetching state');
    }
  }
}
