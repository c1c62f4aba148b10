import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * The loop every model test runs (test/property: the *-model tests, onchainMachine, chain,
 * reorg): one place for it, so that each gets all three of its checks, not the ones its copy
 * happened to keep.
 *
 * - fc.assert over the generated sequences: `run` applies one to a real chain and to the
 *   test's model, checking them against each other as it goes (the test's own assertions);
 * - replay: each of `replays` executes the same sequence again, independently (a second run,
 *   an import of the blocks on a fresh state, another order…) and must reach the same state
 *   roots: execution is deterministic;
 * - outcomes reached: `run` counts what each sequence reached (results, refusals, states) in
 *   `Outcomes`, and at the end every outcome of `reach` must have been seen, and every count
 *   of `moreThan` exceeded — a generator that never gets to a failure, a refusal or a final
 *   state would otherwise pass while testing little.
 */

/** How often each outcome was reached, over every sequence of one `runModel`. */
export class Outcomes {
  private readonly counts = new Map<string, number>();

  count(outcome: string, by = 1): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + by);
  }

  get(outcome: string): number {
    return this.counts.get(outcome) ?? 0;
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

/** What a run leaves to compare: its state roots, in order. */
export interface ModelRun {
  readonly roots: readonly string[];
}

/** Another execution of the same sequence; its roots must equal the run's (only the last one with `finalOnly`). */
export interface Replay<I, R extends ModelRun> {
  name: string;
  roots: (input: I, run: R) => Promise<readonly string[]>;
  /** The replay may pass through other roots (it reorders within blocks): only the final root must match. */
  finalOnly?: boolean;
}

export interface ModelTest<I, R extends ModelRun> {
  /** The generated sequences (of commands, operations, blocks…). */
  inputs: fc.Arbitrary<I>;
  /** Applies one sequence to the chain and the model, asserting as it goes; counts the outcomes it reaches. */
  run: (input: I, outcomes: Outcomes) => Promise<R>;
  /** At least one. */
  replays: readonly [Replay<I, R>, ...Replay<I, R>[]];
  numRuns: number;
  /** A fixed fast-check seed (default: a random one per test run). */
  seed?: number;
  /** Outcomes some sequence must have reached. */
  reach?: readonly string[];
  /** Outcomes reached more than this many times over all the sequences. */
  moreThan?: Readonly<Record<string, number>>;
}

/** Runs a model test (see above); returns the outcomes reached. */
export async function runModel<I, R extends ModelRun>(t: ModelTest<I, R>): Promise<Outcomes> {
  const outcomes = new Outcomes();
  await fc.assert(
    fc.asyncProperty(t.inputs, async (input) => {
      const run = await t.run(input, outcomes);
      expect(run.roots.length, 'a run leaves roots to replay').toBeGreaterThan(0);
      for (const replay of t.replays) {
        const roots = await replay.roots(input, run);
        if (replay.finalOnly) expect(roots.at(-1), `final root of ${replay.name}`).toBe(run.roots.at(-1));
        else expect(roots, `roots of ${replay.name}`).toEqual(run.roots);
      }
    }),
    // No `seed` key unless fixed: an undefined one would override fc.configureGlobal's.
    { numRuns: t.numRuns, ...(t.seed === undefined ? {} : { seed: t.seed }) },
  );
  for (const outcome of t.reach ?? []) expect(outcomes.get(outcome), `${outcome} reached`).toBeGreaterThan(0);
  for (const [outcome, n] of Object.entries(t.moreThan ?? {}))
    expect(outcomes.get(outcome), `${outcome} reached more than ${n} times`).toBeGreaterThan(n);
  return outcomes;
}
