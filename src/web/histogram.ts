/**
 * A Prometheus histogram (cumulative buckets, sum, count) in constant memory, and the few
 * helpers of the text exposition format 0.0.4 the node needs.
 */

/** Seconds; HTTP handling from sub-millisecond reads to slow contract verification. */
export const HTTP_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; building and committing a block (up to 500 transactions). */
export const BLOCK_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds; one hybrid signature verification (secp256k1 + ML-DSA-44) in the worker pool. */
export const VERIFY_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class Histogram {
  private readonly counts: Float64Array; // per bucket (not cumulative); the last one is +Inf
  sum = 0;
  count = 0;

  constructor(readonly buckets: readonly number[]) {
    for (let i = 1; i < buckets.length; i++)
      if (!(buckets[i] > buckets[i - 1])) throw new Error('histogram buckets must increase');
    this.counts = new Float64Array(buckets.length + 1);
  }

  observe(v: number): void {
    if (!Number.isFinite(v)) return;
    let i = 0;
    while (i < this.buckets.length && v > this.buckets[i]) i++;
    this.counts[i]++;
    this.sum += v;
    this.count++;
  }

  /** Times `f` and observes its duration in seconds (also when it throws). */
  async time<T>(f: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await f();
    } finally {
      this.observe((performance.now() - t0) / 1000);
    }
  }

  /** The `_bucket`, `_sum` and `_count` lines (no HELP/TYPE). */
  lines(name: string, labels: Record<string, string> = {}): string[] {
    const out: string[] = [];
    let cum = 0;
    for (let i = 0; i <= this.buckets.length; i++) {
      cum += this.counts[i];
      const le = i < this.buckets.length ? formatValue(this.buckets[i]) : '+Inf';
      out.push(`${name}_bucket${labelText({ ...labels, le })} ${cum}`);
    }
    out.push(`${name}_sum${labelText(labels)} ${formatValue(this.sum)}`);
    out.push(`${name}_count${labelText(labels)} ${this.count}`);
    return out;
  }
}

/** A sample value: integers as such, floats in the shortest form, non-finite as the format spells them. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export function labelText(labels: Record<string, string>): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(',')}}`;
}

/** `# HELP` and `# TYPE` lines of a metric family. */
export function family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string): string[] {
  return [`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} ${type}`];
}
