import type { Address } from '../protocol/types';
import type { BlockSummary, Head } from '../storage/chainStore';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface HourBucket {
  time: number;
  blocks: number;
  txs: number;
  volume: bigint;
}

/**
 * The published read model of the chain: replaced by the chain actor after each commit,
 * read by HTTP/RPC handlers. Readers never see a half-committed block. It also keeps the
 * explorer aggregates by time (hourly buckets over the last 24 h, the last minute for TPS),
 * so /stats costs nothing per request whatever the block rate.
 */
export class ChainView {
  private listeners = new Set<(h: Head) => void>();
  private hours = new Map<number, HourBucket>();
  private lastMinute: BlockSummary[] = [];
  /** The newest blocks, newest last (producers for finality, last tx height). */
  recent: BlockSummary[] = [];
  static readonly RECENT = 64;

  constructor(
    public head: Head,
    public validators: Address[],
    history: BlockSummary[], // oldest first: at least the last 24 h
  ) {
    for (const s of history) this.add(s);
  }

  publish(head: Head, summary?: BlockSummary): void {
    this.head = head;
    if (summary) this.add(summary);
    for (const l of this.listeners) l(head);
  }

  onHead(l: (h: Head) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private add(s: BlockSummary): void {
    this.recent.push(s);
    if (this.recent.length > ChainView.RECENT) this.recent.shift();
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
  activity(now: number) {
    const from = now - DAY;
    const series = [...this.hours.values()].filter((b) => b.time + HOUR > from).sort((a, b) => a.time - b.time);
    const minute = this.lastMinute.filter((s) => s.timestamp >= now - 60_000).reduce((n, s) => n + s.txCount, 0);
    return {
      volume24h: series.reduce((v, b) => v + b.volume, 0n).toString(),
      txs24h: series.reduce((n, b) => n + b.txs, 0),
      tps: Math.round((minute / 60) * 100) / 100,
      series: series.map((b) => ({ ...b, volume: b.volume.toString() })),
    };
  }
}
