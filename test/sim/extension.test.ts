import { describe, expect, it } from 'vitest';
import { nameRace } from '../../examples/sim-names';
import { summary } from '../../sim/run';
import { DEFAULT_OPTIONS, simulate } from '../../sim/world';

/** A user's workload and invariant through the simulator (sim/world.ts SimExtension; examples/sim-names.ts). */
describe('a simulator extension', () => {
  it('runs its clients each slot and its invariant on every final block: the name race holds', async () => {
    const race = nameRace();
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 1, slots: 40, healSlots: 40 }, race);
    expect(r.failure, summary(r)).toBeNull();
    expect(race.registered()).toBeGreaterThan(0);
  }, 120_000);

  it('an invariant that breaks fails the run with its words, at the block that broke it', async () => {
    const r = await simulate(
      { ...DEFAULT_OPTIONS, seed: 1, slots: 20, healSlots: 20 },
      { final: (_node, block) => (block.txs.length > 0 ? `block has ${block.txs.length} transactions` : undefined) },
    );
    expect(r.failure).toMatch(/^v\d+[ab]?'s final #\d+: block has \d+ transactions$/);
    expect(r.trace.at(-1)).toContain('FAILED');
  }, 120_000);
});
