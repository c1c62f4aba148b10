/**
 * The simulator's one source of choices: a seeded PRNG (SplitMix32, the mixing function of
 * SplitMix64 cut to 32 bits). Every delay, drop, fault and workload pick of a run comes from
 * it, in the order the run asks, so a seed replays a run exactly.
 */
export class Prng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  /** A uniform 32-bit integer. */
  u32(): number {
    this.s = (this.s + 0x9e3779b9) >>> 0;
    let z = this.s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability `p` (a rational in per-mille, so no float decides a branch on two machines differently). */
  chance(perMille: number): boolean {
    return this.int(1000) < perMille;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  /** A fresh generator for a sub-stream (a node, the workload) that does not shift the others' draws. */
  fork(): Prng {
    return new Prng(this.u32());
  }
}
