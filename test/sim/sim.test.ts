import { describe, expect, it, vi } from 'vitest';
import { replayCommand, summary } from '../../sim/run';
import {
  DEFAULT_OPTIONS,
  livenessAllowance,
  livenessBound,
  type SimResult,
  scenarioOptions,
  simulate,
} from '../../sim/world';
import { LifecycleFollower } from '../../sim/workload';
import type { Block } from '../../src/protocol/types';
import { SigningGuard } from '../../src/storage/signingGuard';

/**
 * The network simulator (sim/): real validators on virtual time and a simulated network. CI runs
 * a fixed set of seeds; a long run is `npm run sim -- --seeds 1000`. A seed that ever fails is
 * pinned here with the rule that broke.
 */
const SEEDS = (process.env.SIM_SEEDS ?? '1').split(',').map(Number);

/** A random seed's run passed; if not, its trace's last lines and the command that replays it are printed. */
function expectPassed(r: SimResult): void {
  if (r.failure) console.log(`${r.trace.slice(-40).join('\n')}\n${summary(r)}\nreplay: ${replayCommand(r.options)}`);
  expect(r.failure, summary(r)).toBeNull();
}

describe('network simulation', () => {
  it('the same seed gives the same run, event for event', async () => {
    const o = { ...DEFAULT_OPTIONS, seed: 11, slots: 30, healSlots: 20 };
    const a = await simulate(o);
    const b = await simulate(o);
    expect(a.trace.length).toBeGreaterThan(50);
    expect(b.traceHash).toBe(a.traceHash);
    expect((await simulate({ ...o, seed: 12 })).traceHash).not.toBe(a.traceHash);
  }, 120_000);

  it.each(SEEDS)(
    'seed %i: faults everywhere, no two final blocks differ; healed, finality resumes',
    async (seed) => {
      const r = await simulate({ ...DEFAULT_OPTIONS, seed });
      expectPassed(r);
      // The runs exercise what they claim: faults happened, blocks were reorganized, and finality moved.
      expect(r.stats.faults).toBeGreaterThan(0);
      expect(r.stats.finalized).toBeGreaterThan(10);
      expect(r.stats.protocolTxs).toBeGreaterThan(20);
      expect(r.stats.transitions).toBeGreaterThan(5); // proposals, AI tasks, bridge transfers created and expired
      // It ended an epoch after finality moved again on every honest node, before the end of the heal window.
      const o = r.options;
      const lastMs = Number(r.trace.at(-1)!.trim().split(' ')[0]);
      expect(lastMs).toBeLessThanOrEqual((o.slots + r.stats.livenessSlots + o.validators + 1) * o.slotMs);
      expect(r.stats.livenessSlots + o.validators + 1).toBeLessThan(o.healSlots);
    },
    120_000,
  );

  // One seed per few set sizes up to the largest (seeds of the long run of 2026-12-02, each as `--validators 4-21`
  // gives it): the byzantine twins from 4, a withholder from 7, the liveness bound growing with n. 21: seed 35657 below.
  it.each([
    [33015, 7],
    [33036, 10],
    [33003, 13],
    [33024, 16],
    [33009, 19],
  ])(
    'seed %i, %i validators: faults everywhere, safe; healed, final again within the bound',
    async (seed, validators) => {
      const r = await simulate({ ...DEFAULT_OPTIONS, seed, validators });
      expectPassed(r);
      expect(r.stats.faults).toBeGreaterThan(0);
      expect(r.stats.reorganizations).toBeGreaterThan(0);
      expect(r.stats.livenessSlots).toBeGreaterThanOrEqual(0);
      expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessAllowance(validators, r.stats));
    },
    120_000,
  );

  it('seed 7 without the byzantine validator: the run that found two blocks final at #77 under the old rule', async () => {
    // The rule before checkpoints (final once ⌊2n/3⌋+1 producers built above a block, no vote rules) fails this run;
    // test/property/finalitySafety.test.ts and test/unit/consensus/checkpoints.test.ts test the rule that replaced it.
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 7, byzantine: false, crashInWrites: false });
    expect(r.failure, summary(r)).toBeNull();
    // #77 final on every node: the checker compared it (on the libp2p seam the run ends there; it went further on the
    // post transport the seed was found on).
    expect(r.stats.finalized).toBeGreaterThanOrEqual(77);
  }, 120_000);

  it('seed 3: nodes die inside a write and restart from the batches that landed', async () => {
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 3 });
    expect(r.failure, summary(r)).toBeNull();
    const crashes = r.trace.flatMap((l, i) => {
      const m = / (v\d+[ab]?) crashed in a write/.exec(l);
      return m ? [{ node: m[1], at: i }] : [];
    });
    expect(crashes.length).toBeGreaterThan(0);
    for (const c of crashes) expect(r.trace.slice(c.at).some((l) => l.includes(`${c.node} restarted`))).toBe(true);
  }, 120_000);

  it('seed 2 (30 faulty slots, 40 to heal): the run whose nodes waited out an unreachable peer in every poll', async () => {
    // Each poll round waited 5 s for the byzantine twin a node never hears, so after the heal v2 saw the others
    // ahead ten slots late (31 slots to finality, bound 27); test/unit/network/p2p.test.ts tests the rule.
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 2, slots: 30, healSlots: 40 });
    expect(r.failure, summary(r)).toBeNull();
    expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessBound(4));
  }, 120_000);

  it('seed 2: a chain page asked of a peer a partition had just cut off held the sync for the 30 s of its deadline', async () => {
    // On the libp2p seam v3's sync waited out a page whose answer was lost, then v0's one asked across a fresh
    // partition: final again 52 slots after the heal (bound 27). A peer silent for REQUEST_SILENCE_MS is now cut
    // whatever the request's deadline (network/libp2p/host.ts; test/integration/libp2pHost.test.ts).
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 2 });
    expectPassed(r);
    expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessBound(4));
  }, 120_000);

  it('seed 5073, 19 validators: the run where validators that could not vote made no blocks and nothing finalized', async () => {
    // After the partitions most of the set had voted for checkpoints that lost; refused their votes, they made no
    // blocks, and an epoch (counted in blocks) could not end: nothing final in 180 slots. They now make abstaining
    // blocks (test/unit/actors/consensus/abstain.test.ts).
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 5073, validators: 19 });
    expect(r.failure, summary(r)).toBeNull();
    expect(r.stats.finalized).toBeGreaterThan(40);
  }, 180_000);

  it('seed 6089, 9 validators: a withholder whose late blocks won ties by hash held finality back', async () => {
    // v0 withholds its blocks, v8 runs twins. Published once the next producer had filled its place, v0's block won
    // half of those ties by the lower hash; the blocks built on the one it replaced were undone with their votes, and
    // epochs fell short: final again 52 slots after the heal (bound 42). A block that comes after its slot ended now
    // loses an equal-height tie to one that came in time (test/adversarial/withheld-tie.test.ts).
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 6089, validators: 9 });
    expect(r.failure, summary(r)).toBeNull();
    expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessBound(9));
  }, 180_000);

  // The chain adopted at the heal was lower than heights most validators had signed on branches that lost (fork choice
  // takes the later justified checkpoint). The guard refused every height up to a validator's last, so they sat out
  // while the chain climbed: seed 31163 (9 validators, from #50, signed up to #59), 22 slots unsigned and final again
  // 61 slots after the heal (bound 42); seed 35657 (21, nothing final, from #21, signed up to #36), only two could
  // sign, 89 unsigned, 148 slots (bound 78). They now sign the heights they did not sign there.
  it.each([
    [31163, 9],
    [35657, 21],
  ])(
    'seed %i, %i validators: the chain adopted at the heal is lower than the heights the others signed',
    async (seed, validators) => {
      const r = await simulate({ ...DEFAULT_OPTIONS, seed, validators });
      expectPassed(r);
      expect(r.stats.unsignedAfterHeal).toBeLessThan(10);
      expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessBound(validators));
    },
    180_000,
  );

  it("seed 35447, 9 validators: the withholder's slots after the heal are allowed for like the unsigned ones", async () => {
    // v1 runs twins and v3 withholds, so all seven honest validators must be on top of a checkpoint; each of v3's
    // slots comes 2–6 slots late and is made again by the next producer. On the post transport it was final again 44
    // slots after the heal, past the bound of 42 by less than its 5 withheld slots (before the guard's change above:
    // 58 slots, 13 unsigned). On the libp2p seam the nodes reconverge sooner (26 slots, 3 withheld): the withheld
    // slots are still counted, and no seed of a scan of 38 around it needed them (29 slots at most).
    const r = await simulate({ ...DEFAULT_OPTIONS, seed: 35447, validators: 9 });
    expectPassed(r);
    expect(r.stats.withheldAfterHeal).toBeGreaterThan(0);
    expect(r.stats.livenessSlots).toBeLessThanOrEqual(livenessAllowance(9, r.stats));
  }, 180_000);

  it('the checker fails an honest validator that signs a second block at a height (the guard without its height rule)', async () => {
    // Seed 31161 (31163 on the post transport) with the guard keeping only its slot rule: validators sign again at
    // heights they signed on the branch that lost, which the spec's SLASH_DOUBLE_SIGN evidence slashes.
    const slotOnly = vi.spyOn(SigningGuard.prototype, 'refusal').mockImplementation(function (
      this: SigningGuard,
      _height: number,
      slot: number,
    ) {
      const last = this.lastSigned;
      return slot <= last.slot ? `already signed in slot ${last.slot}` : undefined;
    });
    try {
      const r = await simulate({ ...DEFAULT_OPTIONS, seed: 31161, validators: 9 });
      expect(r.failure).toMatch(/^double sign: v\d+ signed two blocks at #\d+: 0x[0-9a-f]{64} and 0x[0-9a-f]{64}$/);
    } finally {
      slotOnly.mockRestore();
    }
  }, 180_000);

  it('scripted: a validator restarts across the election that removes another; the new set is in force everywhere', async () => {
    const r = await simulate(scenarioOptions('election-restart', 1));
    expect(r.failure, summary(r)).toBeNull();
    const line = (re: RegExp) => r.trace.findIndex((l) => re.test(l));
    // It happened as scripted: the UNSTAKE, then v1 down inside a write before the election, back after it.
    expect(line(/election at #\d+ leaves v2 out/)).toBeGreaterThan(0);
    expect(line(/v1 crashed in a write/)).toBeGreaterThan(line(/election at #/));
    expect(line(/v1 restarts/)).toBeGreaterThan(line(/v1 crashed in a write/));
  }, 120_000);

  it("scripted: each side of a partition jails the other; healed, only the final side's jailing stands", async () => {
    const r = await simulate(scenarioOptions('jail-partition', 1));
    expect(r.failure, summary(r)).toBeNull();
    expect(r.trace.some((l) => /the three jailed v3/.test(l))).toBe(true);
    expect(r.trace.some((l) => /v3's branch jailed v\d/.test(l))).toBe(true);
    // The branch that jailed the three was undone when v3 took the final one.
    expect(r.trace.some((l) => /v3 undid \d+ block/.test(l))).toBe(true);
  }, 120_000);

  it('scenario clock-skew, seed 3: clocks a second off, and the late node cut itself off from its peers', async () => {
    // v3's clock a second ahead, v1's a second behind (7 validators, the seed's faults). With blocks refused when more
    // than half a slot ahead, v1 refused its peers' blocks as from the future, scored them down for it, dropped them
    // all and followed the chain no more. Early blocks now wait and count against nobody
    // (test/adversarial/early-block.test.ts, test/unit/network/p2p.test.ts).
    const r = await simulate({ ...scenarioOptions('clock-skew', 3), validators: 7 });
    // Every node's finality moves after the heal, v1's included (it stayed at #43). Two skewed clocks of 7 leave no
    // room, so it may take longer than livenessBound(7): that overrun, and nothing else, is allowed here.
    expect(r.failure === null || /^liveness: finality moved \d+ slots after/.test(r.failure), summary(r)).toBe(true);
    expect(r.stats.livenessSlots).toBeGreaterThan(0);
    expect(r.trace.some((l) => l.includes('block from a future slot'))).toBe(true);
  }, 120_000);

  it('scenario overload: three blocks a slot offered; the excess refused at admission, final, nothing accepted lost', async () => {
    const r = await simulate(scenarioOptions('overload', 1));
    expect(r.failure, summary(r)).toBeNull();
    // It happened as scripted: refusals for capacity during the load, and its end checks ran.
    expect(r.trace.some((l) => /scenario: \d+ accepted, refused \{"mempool full":\d+\}/.test(l))).toBe(true);
    expect(r.trace.some((l) => /of \d+ accepted, \d+ final and \d+ dropped with a reason/.test(l))).toBe(true);
  }, 120_000);

  it('a quiet network finalizes every few blocks and never reorganizes', async () => {
    const r = await simulate({
      ...DEFAULT_OPTIONS,
      seed: 5,
      faults: false,
      byzantine: false,
      slots: 10,
      healSlots: 60,
    });
    expect(r.failure, summary(r)).toBeNull();
    expect(r.stats.reorganizations).toBe(0);
    expect(r.stats.finalized).toBeGreaterThan(r.stats.blocks / 4 - 12);
  }, 120_000);

  it("the lifecycle follower: final transitions continue where the last one ended, and are the machine's moves", () => {
    const block = (height: number, ...moves: [string, string, string][]) =>
      ({
        header: { height },
        results: [],
        events: moves.map(([from, to, event]) => ({
          kind: 'machine.transition',
          machine: 'proposal',
          id: '0xp1',
          from,
          to,
          event,
          height,
        })),
      }) as unknown as Block;
    const f = new LifecycleFollower();
    expect(f.follow(block(1, ['', 'VOTING', 'xstate.init']))).toBeUndefined();
    expect(f.follow(block(5, ['VOTING', 'EXPIRED', 'DEADLINE']))).toBeUndefined();
    expect(f.follow(block(6, ['VOTING', 'QUEUED', 'DEADLINE']))).toMatch(/its last final state was EXPIRED/);
    const g = new LifecycleFollower();
    g.follow(block(1, ['', 'VOTING', 'xstate.init']));
    expect(g.follow(block(2, ['VOTING', 'EXECUTED', 'DEADLINE']))).toMatch(/not a move of the machine/);
  });
});
