import { getSchedule } from '../modules/staking';
import type { ExecState } from '../protocol/execState';
import type { Address } from '../protocol/types';
import type { BlockSummary, Head } from '../protocol/chain';
import type { HourView, StatsView } from '../views';
import type { ChainStore } from '../storage/chainStore';
import type { ReadModel } from './ports';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface HourBucket {
  time: number;
  blocks: number;
  txs: number;
  volume: bigint;
}

/**
 * The published read model of the chain: replaced by the consensus actor after each commit,
 * read by HTTP/RPC handlers. Readers never see a half-committed block. It also keeps the
 * explorer aggregates by time (hourly buckets over the last 24 h, the last minute for TPS),
 * so /stats costs nothing per request whatever the block rate.
 */
export class ChainView implements ReadModel {
  private listeners = new Set<(h: Readonly<Head>) => void>();
  private hours = new Map<number, HourBucket>();
  private lastMinute: BlockSummary[] = [];
  private current: Readonly<Head>;
  private newest: Readonly<BlockSummary>[] = [];
  private active: readonly Address[];
  private keptFrom: number;
  private stateKeptFrom: number;
  static readonly RECENT = 64;

  constructor(
    head: Head,
    validators: Address[],
    history: BlockSummary[], // oldest first: at least the last 24 h
    historyFrom = 0,
    stateFrom = 0,
  ) {
    this.keptFrom = historyFrom;
    this.stateKeptFrom = stateFrom;
    this.current = Object.freeze({ ...head });
    this.active = Object.freeze([...validators]);
    for (const s of history) this.add(s);
  }

  /** The head readers see: frozen, replaced whole by publish(). */
  get head(): Readonly<Head> {
    return this.current;
  }

  /** The newest blocks, newest last (producers for finality, last tx height). */
  get recent(): readonly Readonly<BlockSummary>[] {
    return this.newest;
  }

  /** The lowest height whose history (body, feeds, logs) the store keeps: 0 for an archive. */
  get historyFrom(): number {
    return this.keptFrom;
  }

  /** The lowest height whose state (reads at a height, proofs) the store keeps: 0 for an archive. */
  get stateFrom(): number {
    return this.stateKeptFrom;
  }

  /** History below `historyFrom`, or state below `stateFrom`, was pruned (published after the write). */
  pruned(p: { historyFrom?: number; stateFrom?: number }): void {
    if (p.historyFrom !== undefined) this.keptFrom = p.historyFrom;
    if (p.stateFrom !== undefined) this.stateKeptFrom = p.stateFrom;
  }

  /** The active validator set as of the head (elections change it at epoch boundaries). */
  get validators(): readonly Address[] {
    return this.active;
  }

  publish(head: Head, summary?: BlockSummary, validators?: readonly Address[]): void {
    this.current = Object.freeze({ ...head });
    this.setValidators(validators);
    if (summary) this.add(summary);
    for (const l of this.listeners) l(this.current);
  }

  /**
   * A reorganization took the chain back to `head`: the summaries above it leave the recent
   * list and the activity counters; listeners see the restored head.
   */
  rewind(head: Head, validators?: readonly Address[]): void {
    this.setValidators(validators);
    const gone = this.newest.filter((s) => s.height > head.height);
    this.newest = Object.freeze(this.newest.filter((s) => s.height <= head.height)) as Readonly<BlockSummary>[];
    for (const s of gone) {
      const b = this.hours.get(Math.floor(s.timestamp / HOUR) * HOUR);
      if (b) {
        b.blocks--;
        b.txs -= s.txCount;
        b.volume -= BigInt(s.volume);
      }
    }
    this.lastMinute = this.lastMinute.filter((s) => s.height <= head.height);
    this.current = Object.freeze({ ...head });
    for (const l of this.listeners) l(this.current);
  }

  private setValidators(validators?: readonly Address[]): void {
    if (validators && (validators.length !== this.active.length || validators.some((v, i) => v !== this.active[i])))
      this.active = Object.freeze([...validators]);
  }

  onHead(l: (h: Readonly<Head>) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private add(s: BlockSummary): void {
    // A fresh frozen array per block: a reader holding the previous one keeps a consistent list.
    this.newest = Object.freeze([
      ...this.newest.slice(this.newest.length >= ChainView.RECENT ? 1 : 0),
      Object.freeze({ ...s }),
    ]) as Readonly<BlockSummary>[];
    const t = Math.floor(s.timestamp / HOUR) * HOUR;
    const b = this.hours.get(t) ?? { time: t, blocks: 0, txs: 0, volume: 0n };
    b.blocks++;
    b.txs += s.txCount;
    b.volume += BigInt(s.volume);
    this.hours.set(t, b);
    for (const k of this.hours.keys()) if (k < s.timestamp - DAY - HOUR) this.hours.delete(k);
    this.lastMinute.push(s);
    while (this.lastMinute.length && this.lastMinute[0].timestamp < s.timestamp - 60_000) this.lastMinute.shift();
  }

  /** 24 h volume and count (hour granularity at the window's far edge), TPS over the last minute, hourly series. */
  activity(now: number): Pick<StatsView, 'volume24h' | 'txs24h' | 'tps' | 'series'> {
    const from = now - DAY;
    const series = [...this.hours.values()].filter((b) => b.time + HOUR > from).sort((a, b) => a.time - b.time);
    const minute = this.lastMinute.filter((s) => s.timestamp >= now - 60_000).reduce((n, s) => n + s.txCount, 0);
    return {
      volume24h: series.reduce((v, b) => v + b.volume, 0n).toString(),
      txs24h: series.reduce((n, b) => n + b.txs, 0),
      tps: Math.round((minute / 60) * 100) / 100,
      series: series.map((b): HourView => ({ ...b, volume: b.volume.toString() })),
    };
  }
}

/**
 * The read model of a store whose head is `head`: the set in force in its state, and the
 * history the /stats aggregates need (the last 24 h of block summaries before `now`).
 */
export async function loadChainView(
  store: ChainStore,
  head: Head,
  headState: ExecState,
  now: number,
): Promise<ChainView> {
  return new ChainView(
    head,
    (await getSchedule(headState)).active,
    await recentSummaries(store, head, now - DAY),
    await store.historyFrom(),
    await store.stateFrom(),
  );
}

/** Block summaries back to `since` (at least the newest 64), oldest first, for the read model. */
export async function recentSummaries(store: ChainStore, head: Head, since: number) {
  const out: Awaited<ReturnType<ChainStore['summariesDesc']>> = [];
  let from = head.height;
  for (;;) {
    const page = await store.summariesDesc(from, 10_000);
    out.push(...page);
    const last = page[page.length - 1];
    if (!last || last.height === 0 || (last.timestamp < since && out.length >= ChainView.RECENT)) break;
    from = last.height - 1;
  }
  return out.reverse();
}
