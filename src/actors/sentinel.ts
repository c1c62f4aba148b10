import type { Logger } from 'pino';
import { verifyHeader } from '../chain/block';
import type { Address, SignedBlockHeader } from '../protocol/types';
import { finalityThreshold } from '../consensus/finality';
import { COIN } from '../primitives/amount';
import type { Hex } from '../primitives/hex';
import type { BlockSummary, ChainStore, Head } from '../storage/chainStore';
import { ActorRef, type Behavior } from './actorRef';
import type { AlertKind, AlertSource, SecurityAlert } from './alerts';
import type { ChainView } from '../api/chainView';
import type { MempoolMsg, MempoolReplies, MempoolStats, SentinelMsg } from './protocol';
import type { ChildSpec } from './supervisor';

/**
 * The security sentinel (SPEC: /security/alerts): a node actor that watches the chain and
 * the mempool and raises alerts. It only reads (committed blocks from the ChainStore, the
 * published head, mempool statistics) and never feeds anything back into consensus.
 *
 * Each condition that lasts (a stall, a flood, a concentrated producer, a degraded
 * validator) raises one alert when it begins and re-arms once it has cleared, so a
 * lasting condition does not flood the ring. One-off events (a reorganization, a double
 * signature, a large transfer) raise one alert each.
 */

export interface SentinelOptions {
  /** Longest normal gap between two blocks (the node's idle pace), ms. */
  expectedBlockMs: number;
  /** A stall is `stallFactor` × the expected time without progress. */
  stallFactor: number;
  /** Blocks looked at for producer concentration and validator degradation. */
  window: number;
  /** One producer above this share of the window (with more than one active validator). */
  concentrationShare: number;
  /** An active validator below this fraction of its expected share of the window. */
  degradationFraction: number;
  /** Resident mempool at or above this fraction of its cap. */
  floodFraction: number;
  /** Admissions per second above `rateSpikeFactor` × the running baseline… */
  rateSpikeFactor: number;
  /** …and above this absolute rate (per second). */
  rateSpikeMin: number;
  /** A transaction (or VM inner transfer) moving at least this many base units. */
  largeTransfer: bigint;
  /** Heights around the head whose headers are kept for double-sign detection. */
  headerWindow: number;
  /** Most blocks read after one head event (a long gap is skipped, not replayed). */
  maxCatchUp: number;
}

export const defaultSentinelOptions: Readonly<SentinelOptions> = Object.freeze({
  expectedBlockMs: 5_000,
  stallFactor: 5,
  window: 64,
  concentrationShare: 0.5,
  degradationFraction: 0.5,
  floodFraction: 0.8,
  rateSpikeFactor: 10,
  rateSpikeMin: 100,
  largeTransfer: 1_000_000n * COIN,
  headerWindow: 256,
  maxCatchUp: 1_000,
});

const WEI_PER_BASE_UNIT = 10n ** 12n;
/** Weight of the newest sample in the admission-rate baseline (exponential moving average). */
const BASELINE_ALPHA = 0.1;
/** Rate samples needed before a spike can be judged against the baseline. */
const BASELINE_SAMPLES = 5;

/** Bounded ring of recent alerts, newest first; each alert is also logged (warn, or error when critical). */
export class AlertLog implements AlertSource {
  private readonly ring: (SecurityAlert | undefined)[];
  private nextId = 1;
  private count = 0;

  constructor(
    private readonly log: Logger,
    readonly capacity = 1_000,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = new Array(capacity);
  }

  get size(): number {
    return Math.min(this.count, this.capacity);
  }

  raise(kind: AlertKind, severity: SecurityAlert['severity'], message: string, height: number, details: Record<string, unknown> = {}): SecurityAlert {
    const alert: SecurityAlert = { id: this.nextId++, kind, severity, message, at: this.now(), height, details };
    this.ring[this.count % this.capacity] = alert;
    this.count++;
    const fields = { alert: { id: alert.id, kind, severity, height, details } };
    if (severity === 'critical') this.log.error(fields, `security alert: ${message}`);
    else this.log.warn(fields, `security alert: ${message}`);
    return alert;
  }

  recent(limit: number): SecurityAlert[] {
    const n = Math.max(0, Math.min(Math.floor(limit) || 0, this.size));
    const out: SecurityAlert[] = [];
    for (let i = 1; i <= n; i++) out.push(this.ring[(this.count - i) % this.capacity]!);
    return out;
  }
}

export interface SentinelDeps {
  alerts: AlertLog;
  view: Pick<ChainView, 'head' | 'validators' | 'recent'>;
  store: Pick<ChainStore, 'block' | 'summary'>;
  mempool?: Pick<ActorRef<MempoolMsg, MempoolReplies>, 'ask'>;
  /** Node actors may read the clock (DESIGN.md §1); tests pass a fake one. */
  now: () => number;
  /**
   * Height of the last block looked at, kept outside the behaviour so that a restart neither
   * skips blocks whose heads are still queued nor re-reads the block that crashed it.
   */
  cursor?: { height: number };
  log: Logger;
  options?: Partial<SentinelOptions>;
}

/** Hash, producer key and both producer signatures check out (a malformed header does not). */
function signedBy(h: SignedBlockHeader): boolean {
  try {
    return verifyHeader(h) === undefined;
  } catch {
    return false;
  }
}

interface SeenHeader {
  hash: Hex;
  /** Gossiped headers are kept whole; the node's own blocks are read back only as evidence. */
  header?: SignedBlockHeader;
  verified: boolean; // committed by this node, or checked after a conflict
}

/** The sentinel's behaviour: its detection state is rebuilt from the read model on (re)start. */
export function sentinelBehavior(d: SentinelDeps): Behavior<SentinelMsg> {
  const o: SentinelOptions = { ...defaultSentinelOptions, ...d.options };
  const { alerts } = d;
  const start = d.now();

  let head: Head = d.view.head;
  // Blocks up to `cursor.height` have been looked at; a first start begins at the head (history is not re-scanned).
  const cursor = d.cursor ?? { height: head.height };
  if (cursor.height > head.height || cursor.height < 0) cursor.height = head.height;
  const hashes = new Map<number, Hex>(); // committed height → hash, for reorganizations
  const producers: Address[] = []; // producers of the newest committed blocks, oldest first
  for (const s of d.view.recent) {
    if (s.height > cursor.height || s.height === 0) continue;
    hashes.set(s.height, s.hash);
    producers.push(s.producer);
  }
  producers.splice(0, Math.max(0, producers.length - o.window));

  // Progress clocks start when the sentinel starts: a node restarted after downtime is not stalled.
  let headAt = start;
  let finalized = head.finalizedHeight;
  let finalizedAt = start;
  let headWhenFinalized = head.height;
  let headStalled = false;
  let finalityStalled = false;

  const headers = new Map<number, Map<Address, SeenHeader>>(); // height → producer → first valid header
  const reported = new Set<string>();
  const concentrated = new Set<Address>();
  const degraded = new Set<Address>();

  let flooded = false;
  let spiking = false;
  let lastStats: { at: number; admitted: number } | undefined;
  let baseline = 0;
  let samples = 0;

  const raise = (kind: AlertKind, severity: SecurityAlert['severity'], message: string, details: Record<string, unknown>) =>
    alerts.raise(kind, severity, message, head.height, details);

  // ---- double signing ------------------------------------------------------------------

  /** A header claimed by its producer: from gossip (`header` given, unverified) or committed here (trusted). */
  async function observeHeader(h: { height: number; producer: Address; hash: Hex; header?: SignedBlockHeader }, trusted: boolean): Promise<void> {
    if (!Number.isSafeInteger(h.height) || h.height < 1) return; // genesis has no producer
    if (Math.abs(h.height - head.height) > o.headerWindow) return; // outside the window kept
    let byProducer = headers.get(h.height);
    if (!byProducer) headers.set(h.height, (byProducer = new Map()));
    const first = byProducer.get(h.producer);
    const entry: SeenHeader = { hash: h.hash, header: h.header, verified: trusted };
    if (!first) {
      byProducer.set(h.producer, entry);
      return;
    }
    if (first.hash === h.hash) {
      if (trusted) first.verified = true;
      return;
    }
    // Two different headers claim the same producer and height: only signed ones count.
    const newValid = trusted || (h.header !== undefined && signedBy(h.header));
    if (!first.verified) first.verified = first.header !== undefined && signedBy(first.header);
    if (!first.verified) {
      if (newValid) byProducer.set(h.producer, { ...entry, verified: true });
      else byProducer.delete(h.producer);
      return;
    }
    if (!newValid) {
      d.log.debug({ height: h.height, producer: h.producer, hash: h.hash }, 'sentinel: ignored an unsigned conflicting header');
      return;
    }
    const pair = [first.hash, h.hash].sort();
    const key = `${h.height}/${h.producer}/${pair[0]}/${pair[1]}`;
    if (reported.has(key)) return;
    reported.add(key);
    // Evidence: both signed headers (a committed one is read back from the store).
    const evidence = await Promise.all([first, entry].map(async (e) => e.header ?? (await committedHeader(h.height, e.hash))));
    raise('double_sign', 'critical', `producer ${h.producer} signed two different blocks at height ${h.height}`, {
      producer: h.producer, height: h.height, hashes: [first.hash, h.hash], evidence: evidence.filter((x) => x !== undefined),
    });
  }

  async function committedHeader(height: number, hash: Hex): Promise<SignedBlockHeader | undefined> {
    const b = await d.store.block(height);
    return b?.header.hash === hash ? b.header : undefined;
  }

  function pruneHeaders(): void {
    for (const height of headers.keys()) if (height < head.height - o.headerWindow) headers.delete(height);
    for (const height of hashes.keys()) if (height < head.height - o.headerWindow) hashes.delete(height);
    if (reported.size > 10_000) reported.clear();
  }

  // ---- committed blocks ----------------------------------------------------------------

  /** A committed block: its summary always, the whole block only when it carries transactions. */
  async function onCommitted(sum: BlockSummary): Promise<void> {
    hashes.set(sum.height, sum.hash);
    await observeHeader(sum, true);
    producers.push(sum.producer);
    if (producers.length > o.window) producers.splice(0, producers.length - o.window);
    if (sum.txCount === 0) return;
    const b = await d.store.block(sum.height);
    if (!b || b.header.hash !== sum.hash) return;
    b.txs.forEach((tx, i) => {
      if (b.results[i]?.status !== 'success' || !/^\d{1,78}$/.test(tx.amount)) return;
      const amount = BigInt(tx.amount);
      if (amount >= o.largeTransfer) {
        raise('large_transfer', 'warning', `transaction ${tx.id} moved ${amount} base units`, {
          txId: tx.id, type: tx.type, from: tx.from, to: tx.to, amount: amount.toString(), blockHeight: sum.height,
        });
      }
      for (const t of b.results[i].vm?.internal ?? []) {
        if (!/^\d{1,96}$/.test(t.amountWei)) continue;
        const base = BigInt(t.amountWei) / WEI_PER_BASE_UNIT;
        if (base < o.largeTransfer) continue;
        raise('large_transfer', 'warning', `an inner VM transfer of transaction ${tx.id} moved ${base} base units`, {
          txId: tx.id, kind: t.kind, from: t.from, to: t.to, amount: base.toString(), blockHeight: sum.height,
        });
      }
    });
  }

  /** Shares of the window: one producer dominating, or an active validator missing its turns. */
  function checkProducers(): void {
    const active = d.view.validators;
    if (active.length <= 1 || producers.length < o.window) {
      concentrated.clear();
      degraded.clear();
      return;
    }
    const counts = new Map<Address, number>();
    for (const p of producers) counts.set(p, (counts.get(p) ?? 0) + 1);
    for (const [p, n] of counts) {
      const share = n / producers.length;
      if (share > o.concentrationShare) {
        if (concentrated.has(p)) continue;
        concentrated.add(p);
        raise('producer_concentration', 'warning', `producer ${p} made ${n} of the last ${producers.length} blocks`, {
          producer: p, blocks: n, window: producers.length, share: Math.round(share * 1000) / 1000, activeValidators: active.length,
        });
      } else concentrated.delete(p);
    }
    const expected = producers.length / active.length;
    for (const v of active) {
      const n = counts.get(v) ?? 0;
      if (n < o.degradationFraction * expected) {
        if (degraded.has(v)) continue;
        degraded.add(v);
        raise('validator_degradation', 'warning', `validator ${v} made ${n} of the last ${producers.length} blocks (expected about ${Math.round(expected)})`, {
          validator: v, blocks: n, expected: Math.round(expected * 10) / 10, window: producers.length, activeValidators: active.length,
        });
      } else degraded.delete(v);
    }
    for (const v of degraded) if (!active.includes(v)) degraded.delete(v);
  }

  async function onHead(h: Head): Promise<void> {
    const prev = head;
    if (h.hash === prev.hash && h.height === prev.height && cursor.height >= h.height) {
      noteFinality(h);
      return;
    }
    // The newest height still holding the block we saw there: the common ancestor.
    let ancestor = Math.min(cursor.height, h.height);
    while (ancestor >= 1 && hashes.has(ancestor)) {
      const s = await d.store.summary(ancestor);
      if (s && s.hash === hashes.get(ancestor)) break;
      ancestor--;
    }
    const rolledBack = h.height <= prev.height && h.hash !== prev.hash;
    head = h;
    if (ancestor < cursor.height || rolledBack) {
      const fork = Math.min(ancestor, h.height);
      const depth = prev.height - fork;
      const belowFinality = fork < prev.finalizedHeight;
      raise('reorg', belowFinality ? 'critical' : 'warning',
        `reorganization: head ${prev.hash} at ${prev.height} replaced by ${h.hash} at ${h.height} (${depth} block(s) undone)${belowFinality ? ', below the finalized height' : ''}`,
        { oldHeight: prev.height, oldHash: prev.hash, newHeight: h.height, newHash: h.hash, commonAncestor: fork, depth, finalizedHeight: prev.finalizedHeight });
      for (const height of [...hashes.keys()]) if (height > fork) hashes.delete(height);
      const undone = Math.max(0, cursor.height - fork);
      producers.splice(Math.max(0, producers.length - undone), undone);
      cursor.height = Math.min(cursor.height, fork);
    }
    let from = cursor.height + 1;
    if (h.height - from + 1 > o.maxCatchUp) {
      d.log.debug({ from, to: h.height }, 'sentinel: skipped blocks after a long gap');
      from = h.height - o.maxCatchUp + 1;
    }
    for (let height = from; height <= h.height; height++) {
      const sum = await d.store.summary(height);
      if (!sum) break;
      cursor.height = height; // first: a block that crashes the sentinel is not read again
      await onCommitted(sum);
    }
    const now = d.now();
    if (h.height !== prev.height || h.hash !== prev.hash) {
      headAt = now;
      headStalled = false;
    }
    noteFinality(h);
    checkProducers();
    pruneHeaders();
  }

  function noteFinality(h: Head): void {
    if (h.finalizedHeight > finalized) {
      finalized = h.finalizedHeight;
      finalizedAt = d.now();
      headWhenFinalized = h.height;
      finalityStalled = false;
    }
  }

  // ---- periodic checks -------------------------------------------------------------------

  function checkStalls(now: number): void {
    const headLimit = o.stallFactor * o.expectedBlockMs;
    if (!headStalled && now - headAt > headLimit) {
      headStalled = true;
      raise('finality_stall', 'critical', `the head has not advanced for ${Math.round((now - headAt) / 1000)} s (height ${head.height})`, {
        reason: 'head', headHeight: head.height, finalizedHeight: head.finalizedHeight, sinceMs: now - headAt, limitMs: headLimit,
      });
    }
    // Finality needs ⌊2n/3⌋+1 distinct producers on top: about that many blocks.
    const finalityLimit = o.stallFactor * o.expectedBlockMs * (finalityThreshold(Math.max(1, d.view.validators.length)) + 1);
    if (!finalityStalled && !headStalled && head.height > headWhenFinalized && now - finalizedAt > finalityLimit) {
      finalityStalled = true;
      raise('finality_stall', 'critical', `finalizedHeight stuck at ${finalized} for ${Math.round((now - finalizedAt) / 1000)} s while the head advanced to ${head.height}`, {
        reason: 'finality', headHeight: head.height, finalizedHeight: finalized, sinceMs: now - finalizedAt, limitMs: finalityLimit,
      });
    }
  }

  function checkMempool(s: MempoolStats, now: number): void {
    const limit = o.floodFraction * s.cap;
    if (s.size >= limit) {
      if (!flooded) {
        flooded = true;
        raise('mempool_flood', 'warning', `mempool holds ${s.size} of ${s.cap} transactions`, { reason: 'size', size: s.size, cap: s.cap });
      }
    } else if (s.size < 0.9 * limit) flooded = false;

    if (!lastStats || s.admitted < lastStats.admitted || now <= lastStats.at) {
      lastStats = { at: now, admitted: s.admitted }; // first sample, or the mempool actor restarted
      return;
    }
    const rate = ((s.admitted - lastStats.admitted) * 1000) / (now - lastStats.at);
    lastStats = { at: now, admitted: s.admitted };
    if (samples >= BASELINE_SAMPLES && rate >= o.rateSpikeMin && rate > o.rateSpikeFactor * baseline) {
      if (!spiking) {
        spiking = true;
        raise('mempool_flood', 'warning', `admission rate ${Math.round(rate)}/s is over ${o.rateSpikeFactor}× the usual ${Math.round(baseline * 10) / 10}/s`, {
          reason: 'rate', ratePerSec: Math.round(rate), baselinePerSec: Math.round(baseline * 10) / 10, size: s.size, cap: s.cap,
        });
      }
    } else if (rate <= o.rateSpikeFactor * baseline || rate < o.rateSpikeMin) spiking = false;
    baseline = samples === 0 ? rate : baseline + BASELINE_ALPHA * (rate - baseline);
    samples++;
  }

  return {
    async handle(msg) {
      switch (msg.type) {
        case 'head':
          await onHead(msg.head);
          return undefined;
        case 'header':
          await observeHeader({ height: msg.header.height, producer: msg.header.producer, hash: msg.header.hash, header: msg.header }, false);
          pruneHeaders();
          return undefined;
        case 'tick': {
          const now = d.now();
          checkStalls(now);
          if (d.mempool) {
            const s = await d.mempool.ask({ type: 'stats' }).catch(() => undefined); // stopped or restarting
            if (s) checkMempool(s, d.now());
          }
          return undefined;
        }
      }
    },
  };
}

export interface SentinelConfig extends Omit<SentinelDeps, 'alerts' | 'view'> {
  view: ChainView;
  /** Ring size of recent alerts. */
  capacity?: number;
}

/**
 * The sentinel as the node sees it: the alert ring (which outlives restarts of the actor),
 * the actor's ref and child spec for the supervisor, and the feeds that drive it.
 */
export class Sentinel implements AlertSource {
  readonly ref = new ActorRef<SentinelMsg>('sentinel', 1_024);
  readonly alerts: AlertLog;
  private readonly cursor: { height: number };

  constructor(private readonly c: SentinelConfig) {
    this.cursor = { height: c.view.head.height };
    this.alerts = new AlertLog(c.log, c.capacity ?? 1_000, c.now);
  }

  /** Permanent child: a crash restarts it with its detection state rebuilt from the read model. */
  childSpec(): ChildSpec<SentinelMsg> {
    return { ref: this.ref, start: async () => sentinelBehavior({ ...this.c, alerts: this.alerts, cursor: this.cursor }) };
  }

  /** Subscribes to new heads and starts the periodic checks; returns the disconnect. */
  connect(tickMs = 1_000): () => void {
    const off = this.c.view.onHead((head) => this.ref.send({ type: 'head', head }));
    const timer = setInterval(() => {
      if (this.ref.queued < 8) this.ref.send({ type: 'tick' });
    }, tickMs);
    timer.unref();
    return () => {
      off();
      clearInterval(timer);
    };
  }

  /** A signed header seen outside this node's own production (the gossip path). */
  observeHeader(h: SignedBlockHeader): void {
    this.ref.send({ type: 'header', header: h });
  }

  /** An alert raised by the node itself (e.g. a storage failure). */
  raise(kind: AlertKind, severity: SecurityAlert['severity'], message: string, details: Record<string, unknown> = {}): SecurityAlert {
    return this.alerts.raise(kind, severity, message, this.c.view.head.height, details);
  }

  recent(limit: number): SecurityAlert[] {
    return this.alerts.recent(limit);
  }
}
