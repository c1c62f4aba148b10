import type { Address } from '../../protocol/types';

/**
 * How a quorum task's answer is decided from its reveals (docs/PROTOCOL.md "AI tasks"). Pure and
 * symmetric: it sees the reveals as a set (sorted by oracle), never their order in the block.
 *
 * - exact: the output revealed by the most oracles wins; if two outputs share the top count,
 *   nothing is decided (no arbitrary pick between disagreeing answers).
 * - median: outputs are decimal numbers ("-12.5"; anything else counts as a losing answer);
 *   the median of the numeric ones (the lower one of an even count) is the answer, and every
 *   oracle within MEDIAN_TOLERANCE_BPS of it wins. Compared as scaled integers: no floats.
 *
 * At least `quorum` reveals (numeric ones, for median) are needed to decide anything.
 */
export type Aggregate = 'exact' | 'median';

export interface Decision {
  result: string;
  winners: Address[];
  losers: Address[];
}

/** A median answer wins within 1% of the median (0.01 × |median|; exactly equal when the median is 0). */
export const MEDIAN_TOLERANCE_BPS = 100n;
const DECIMAL = /^-?(0|[1-9][0-9]{0,39})(\.[0-9]{1,18})?$/;

export function decide(reveals: Record<Address, string>, quorum: number, aggregate: Aggregate): Decision | null {
  const oracles = (Object.keys(reveals) as Address[]).sort();
  if (oracles.length < quorum) return null;
  return aggregate === 'exact' ? plurality(oracles, reveals) : median(oracles, reveals, quorum);
}

function plurality(oracles: Address[], reveals: Record<Address, string>): Decision | null {
  const count = new Map<string, number>();
  for (const o of oracles) count.set(reveals[o], (count.get(reveals[o]) ?? 0) + 1);
  const top = Math.max(...count.values());
  const leaders = [...count.entries()].filter(([, n]) => n === top);
  if (leaders.length !== 1) return null;
  const result = leaders[0][0];
  return {
    result,
    winners: oracles.filter((o) => reveals[o] === result),
    losers: oracles.filter((o) => reveals[o] !== result),
  };
}

/** A decimal as an integer scaled by 10^18. */
const scaled = (s: string): bigint => {
  const neg = s.startsWith('-');
  const [i, f = ''] = (neg ? s.slice(1) : s).split('.');
  const v = BigInt(i) * 10n ** 18n + BigInt(f.padEnd(18, '0'));
  return neg ? -v : v;
};
const abs = (v: bigint) => (v < 0n ? -v : v);

function median(oracles: Address[], reveals: Record<Address, string>, quorum: number): Decision | null {
  const numeric = oracles.filter((o) => DECIMAL.test(reveals[o]));
  if (numeric.length < quorum) return null;
  // Ties between equal values keep the smaller string, so "1.50" and "1.5" decide the same way everywhere.
  const sorted = [...numeric].sort((a, b) => {
    const d = scaled(reveals[a]) - scaled(reveals[b]);
    return d < 0n ? -1 : d > 0n ? 1 : reveals[a] < reveals[b] ? -1 : reveals[a] > reveals[b] ? 1 : 0;
  });
  const result = reveals[sorted[Math.floor((sorted.length - 1) / 2)]];
  const m = scaled(result);
  const wins = (o: Address) =>
    numeric.includes(o) && abs(scaled(reveals[o]) - m) * 10_000n <= abs(m) * MEDIAN_TOLERANCE_BPS;
  return { result, winners: oracles.filter(wins), losers: oracles.filter((o) => !wins(o)) };
}

/** Splits `amount` equally among `to` (sorted); the remainder goes to `rest`. */
export function split(amount: bigint, to: readonly Address[], rest: Address): { to: Address; amount: string }[] {
  if (to.length === 0) return amount > 0n ? [{ to: rest, amount: amount.toString() }] : [];
  const share = amount / BigInt(to.length);
  const dust = amount - share * BigInt(to.length);
  const out = share > 0n ? [...to].sort().map((a) => ({ to: a, amount: share.toString() })) : [];
  if (dust > 0n) out.push({ to: rest, amount: dust.toString() });
  return out;
}
