import type { HybridKeys } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import type { Hex } from '../src/primitives/hex';
import { getCandidate, getSchedule, getValidatorSet } from '../src/modules/staking';
import type { Address } from '../src/protocol/types';
import type { TxInput } from '../src/sdk/assets';
import { StateTrie } from '../src/state/stateTrie';
import type { AdmitVerdict } from '../src/actors/protocol';
import { REFUSAL } from '../src/protocol/txRefusals';
import type { SimOptions } from './world';
import type { SimCapacity, SimNode } from './simNode';

/**
 * Scripted schedules: the faults the seeded ones reach only by chance, aimed at one rule. A scenario drives the run
 * slot by slot through `ScenarioWorld` (partitions, crashes, transactions signed by any key) and says at the end
 * whether what it aimed at happened and came out right; the built-in checks (safety, liveness, lifecycles) run as in
 * any run. `npm run sim -- --scenario NAME --seed S` replays one.
 */
export interface Scenario {
  about: string;
  /** Options the scenario runs with (it sets the faults it wants itself). */
  options: Partial<SimOptions>;
  /** Governable parameters of its genesis beside the development ones. */
  params?: Record<string, string>;
  /** Clock skew (ms) of validators by index, instead of the seed's. */
  skewMs?: Record<number, number>;
  /** Funded accounts of its own (`ScenarioWorld.own`): no other client signs with them. */
  accounts?: number;
  /** What every node's blocks and mempool hold, instead of the node's defaults. */
  capacity?: SimCapacity;
  /** Each slot of the faulty phase (none: the options and skews are the whole scenario). */
  slot?(w: ScenarioWorld): Promise<void>;
  /** After the heal phase, on the honest nodes: why it did not happen as scripted or came out wrong, or undefined. */
  end?(w: ScenarioWorld): Promise<string | undefined>;
}

export interface ScenarioWorld {
  slot: number;
  /** The honest nodes, by validator index. */
  nodes: readonly SimNode[];
  validators: readonly HybridKeys[];
  users: readonly HybridKeys[];
  /** The scenario's own accounts (`Scenario.accounts`). */
  own: readonly HybridKeys[];
  trace(line: string): void;
  /** Each node's side (by validator index) until `heal`. */
  partition(sides: readonly number[]): void;
  heal(): void;
  /** Down at once, or (`inWrite` k) inside its write k + 1 from now: the store as the writes that landed left it. */
  crash(n: SimNode, inWrite?: number): void;
  restart(n: SimNode): Promise<void>;
  /** `input` signed by `keys` with its account's next nonce at `via`'s head, admitted by `via`: the id, or null. */
  sendAs(keys: HybridKeys, input: TxInput, via: SimNode): Promise<Hex | null>;
  /** `input` signed by `keys` with `nonce`, offered to `via` as POST /tx: admission's verdict (null: `via` is down). */
  offer(keys: HybridKeys, input: TxInput, nonce: number, via: SimNode): Promise<AdmitVerdict | null>;
}

/** The state at a node's head. */
export const headState = (n: SimNode) => StateTrie.open(n.kv, n.view.head.stateRoot);

const jailedAt = async (n: SimNode, a: Address) => (await getCandidate(await headState(n), a))?.jailed;

/**
 * A validator restarts across an election that changes the set: v2 unstakes all it has (a client paid its fee), so
 * the next election (heights that are multiples of EPOCH_BLOCKS, 10 here) leaves it out; v1 dies inside a write two
 * blocks before that election and comes back after it, while the new set waits for the election block to be final.
 * Then: every node has the set without v2 in force, v2 makes no more blocks, finality goes on with three.
 */
function electionRestart(): Scenario {
  let unstakeId: Hex | null = null;
  let sentAt = -100;
  let election = 0;
  let crashedAt = -1;
  let restartedAt = -1;
  const EPOCH = 10;
  return {
    about: 'v1 dies inside a write just before the election that removes v2, and restarts after it',
    options: { validators: 4, faults: false, byzantine: false, slots: 60 },
    async slot(w) {
      const [judge, v1, v2] = [w.nodes[0], w.nodes[1], w.nodes[2]];
      const leaver = w.validators[2];
      const state = await headState(judge);
      const acc = await state.getAccount(leaver.address);
      if (!unstakeId || (w.slot - sentAt > 8 && (await judge.store.txLocation(unstakeId)) === undefined)) {
        // A validator holds no coins at genesis: a client pays for its fee first.
        if ((acc?.balance ?? 0n) < COIN) {
          if (w.slot - sentAt > 8) {
            await w.sendAs(w.users[0], { type: 'TRANSFER', to: leaver.address, amount: 10n * COIN } as TxInput, judge);
            sentAt = w.slot;
          }
          return;
        }
        unstakeId = await w.sendAs(leaver, { type: 'UNSTAKE', amount: acc!.staked } as TxInput, v2);
        sentAt = w.slot;
        if (unstakeId) w.trace(`scenario: v2 sends UNSTAKE of its whole stake (${acc!.staked / COIN} coins)`);
        return;
      }
      if (election === 0) {
        const at = await judge.store.txLocation(unstakeId);
        if (!at) return;
        election = Math.ceil(at.height / EPOCH) * EPOCH;
        w.trace(`scenario: UNSTAKE in #${at.height}; the election at #${election} leaves v2 out`);
      }
      const head = judge.view.head.height;
      if (crashedAt < 0 && head >= election - 2 && v1.up) {
        crashedAt = head;
        w.crash(v1, 1);
        w.trace(`scenario: v1 will die inside its next write but one, at #${v1.view.head.height}`);
      } else if (crashedAt >= 0 && restartedAt < 0 && head >= election + 2) {
        if (v1.up) w.crash(v1); // it never reached the crash point: down now
        await w.restart(v1);
        restartedAt = head;
        w.trace(
          `scenario: v1 restarts at #${v1.view.head.height} (election #${election}, judge's final #${judge.view.head.finalizedHeight})`,
        );
      }
    },
    async end(w) {
      if (election === 0) return 'scenario: the UNSTAKE was never included';
      if (crashedAt < 0 || restartedAt < 0) return `scenario: v1 did not die and restart around #${election}`;
      const leaver = w.validators[2].address;
      for (const n of w.nodes) {
        const state = await headState(n);
        if ((await getValidatorSet(state)).active.includes(leaver))
          return `${n.name}: v2 still elected after the election at #${election}`;
        if ((await getSchedule(state)).active.includes(leaver))
          return `${n.name}: the set without v2 not in force (final #${n.view.head.finalizedHeight}, election #${election})`;
        const last = await n.blocksFrom(Math.max(1, n.view.head.finalizedHeight - 15));
        if (last.some((b) => b.header.producer === leaver && b.header.height > election + 20))
          return `${n.name}: v2 made a block after it left the set`;
      }
      return undefined;
    },
  };
}

/**
 * A jailing decided on each side of a partition: v3 alone on one side, the others on the other, with downtime
 * jailing after 2 rounds (JAIL_MISSED_ROUNDS = 2: 8 blocks of 4). The three jail v3 (and finalize it); v3, alone,
 * jails the three on its branch, which nothing finalizes. Healed, every node has v3 jailed and the three not: the
 * jailings of the branch that lost were undone with it.
 */
function jailPartition(): Scenario {
  let majorityJailed = -1;
  const minorityJailed: string[] = [];
  let partitioned = false;
  let healed = false;
  return {
    about: 'v3 is cut off; each side jails the other for downtime; only the final side stays',
    options: { validators: 4, faults: false, byzantine: false, slots: 90 },
    params: { JAIL_MISSED_ROUNDS: '2' },
    async slot(w) {
      const [judge, , , v3] = w.nodes;
      if (!partitioned && w.slot >= 4) {
        partitioned = true;
        w.partition([0, 0, 0, 1]);
        w.trace('scenario: partition {v0,v1,v2} | {v3}');
      }
      if (!partitioned || healed) return;
      if (majorityJailed < 0 && (await jailedAt(judge, w.validators[3].address))) {
        majorityJailed = judge.view.head.height;
        w.trace(`scenario: the three jailed v3 by #${majorityJailed} (final #${judge.view.head.finalizedHeight})`);
      }
      if (minorityJailed.length === 0) {
        for (const [i, v] of w.validators.slice(0, 3).entries())
          if (await jailedAt(v3, v.address)) minorityJailed.push(`v${i}`);
        if (minorityJailed.length)
          w.trace(`scenario: v3's branch jailed ${minorityJailed.join(',')} by #${v3.view.head.height}`);
      }
      if ((majorityJailed >= 0 && minorityJailed.length > 0) || w.slot >= 80) {
        healed = true;
        w.heal();
        w.trace('scenario: partition healed');
      }
    },
    async end(w) {
      if (majorityJailed < 0) return 'scenario: the three never jailed v3';
      if (minorityJailed.length === 0) return "scenario: v3's branch never jailed anyone";
      const [v0, v1, v2, v3] = w.validators.map((v) => v.address);
      for (const n of w.nodes) {
        const j = await jailedAt(n, v3);
        if (j?.reason !== 'downtime') return `${n.name}: v3 not jailed for downtime (${JSON.stringify(j)})`;
        for (const a of [v0, v1, v2]) if (await jailedAt(n, a)) return `${n.name}: ${a} jailed: the losing branch's`;
        if ((await getSchedule(await headState(n))).active.includes(v3)) return `${n.name}: v3 still in the set`;
      }
      return undefined;
    },
  };
}

/**
 * Clocks a second off: v3's ahead, v1's behind, of 10 validators, with the seed's faults and workload. v3 makes its
 * blocks in what it takes for its slots, two slots early; v1 takes its peers' blocks for blocks from the future. Two
 * such clocks take two validators out of finality: of 7 (two faults tolerated, no room left) finality came back after
 * the heal, but up to 48 slots after it, past the bound of 36; 10 leave one. It found: with blocks taken up to
 * 1,000 ms ahead, v3's early blocks met those honestly made before them at their height (and won every such tie
 * under a rule that favoured later blocks: nothing final); v1, refusing its peers' blocks as invalid, scored them down
 * until it had dropped them all; and, once early blocks waited instead, v1 on a branch of its own never stepped back
 * to where it left the chain. A block more than half a slot ahead now waits, counts against no one, and a sync page
 * that does not link steps back first.
 */
function clockSkew(): Scenario {
  return {
    about: "v3's clock a second ahead and v1's a second behind, with the seed's faults",
    options: { validators: 10, faults: true, byzantine: false },
    skewMs: { 1: -1000, 3: 1000 },
  };
}

/**
 * Offered load well above what blocks hold: blocks of BLOCK_TXS transactions (one a slot), mempools of POOL_TXS, and
 * the scenario's own clients offering RATE transfers a slot (three blocks' worth) for the slots [FROM, TO), each
 * account to one node, as a wallet does: a refused nonce is offered again the next slot before any later one. Then:
 * - the excess was refused at admission, and for capacity only (`mempool full`);
 * - finality moved on all along: never more than two epochs (2n slots) without moving, on any node;
 * - every transaction a node accepted is in the final chain, or dropped with a reason in that node's lifecycle;
 * - blocks were full while it lasted, and never fuller than BLOCK_TXS.
 */
function overload(): Scenario {
  const BLOCK_TXS = 20;
  // The nodes' pools fill with different transactions once full (each refuses its peers' relays): together they hold
  // 4 × POOL_TXS, which the excess (2 × BLOCK_TXS a slot) fills in 10 slots; the load lasts 24.
  const POOL_TXS = 100;
  const RATE = 3 * BLOCK_TXS;
  const ACCOUNTS = 12;
  const [FROM, TO] = [4, 28];
  const next = new Map<number, number>();
  /** Each accepted transaction and the node that accepted it. */
  const accepted = new Map<Hex, SimNode>();
  const refused = new Map<string, number>();
  /** The lowest final height of the nodes, each slot. */
  const finalBySlot: number[] = [];
  return {
    about: `${RATE} transfers a slot offered for ${TO - FROM} slots to blocks of ${BLOCK_TXS} and mempools of ${POOL_TXS}`,
    options: { validators: 4, faults: false, byzantine: false, slots: 40 },
    accounts: ACCOUNTS,
    capacity: { blockTxs: BLOCK_TXS, poolTxs: POOL_TXS },
    async slot(w) {
      finalBySlot[w.slot] = Math.min(...w.nodes.map((n) => n.view.head.finalizedHeight));
      if (w.slot < FROM || w.slot >= TO) return;
      const waiting = new Set<number>(); // accounts whose offer was refused this slot: they try again next slot
      for (let k = 0; k < RATE; k++) {
        const a = k % ACCOUNTS;
        if (waiting.has(a)) continue;
        const nonce = next.get(a) ?? 0;
        const via = w.nodes[a % w.nodes.length];
        const input = { type: 'TRANSFER', to: w.users[a % w.users.length].address, amount: COIN } as TxInput;
        const v = await w.offer(w.own[a], input, nonce, via);
        if (v?.accepted) {
          next.set(a, nonce + 1);
          accepted.set(v.id, via);
          continue;
        }
        waiting.add(a);
        const why = v?.reason ?? 'node down';
        refused.set(why, (refused.get(why) ?? 0) + 1);
      }
      if (w.slot === TO - 1)
        w.trace(
          `scenario: ${accepted.size} accepted, refused ${JSON.stringify(Object.fromEntries(refused))} ` +
            `(final #${finalBySlot[w.slot]})`,
        );
    },
    async end(w) {
      if (refused.size === 0) return 'scenario: nothing was refused: the load was not above capacity';
      if ([...refused.keys()].some((r) => r !== REFUSAL.full.reason))
        return `scenario: refusals other than capacity: ${JSON.stringify(Object.fromEntries(refused))}`;
      let stall = 0;
      let longest = 0;
      for (let s = FROM + 1; s < finalBySlot.length; s++) {
        stall = finalBySlot[s] > finalBySlot[s - 1] ? 0 : stall + 1;
        longest = Math.max(longest, stall);
      }
      if (longest > 2 * w.nodes.length) return `scenario: finality stood still for ${longest} slots under the load`;
      const judge = w.nodes[0];
      const final = judge.view.head.finalizedHeight;
      let dropped = 0;
      for (const [id, via] of accepted) {
        const at = await judge.store.txLocation(id);
        if (at !== undefined && at.height <= final) continue;
        if (!via.drops.has(id))
          return `scenario: ${id} accepted by ${via.name}, neither final (${at ? `#${at.height}` : 'in no block'}) nor dropped`;
        dropped++;
      }
      const sizes = (await judge.blocksFrom(1)).map((b) => b.txs.length);
      if (Math.max(...sizes) > BLOCK_TXS) return `scenario: a block of ${Math.max(...sizes)} transactions`;
      if (!sizes.includes(BLOCK_TXS)) return `scenario: no block was full (${BLOCK_TXS} transactions)`;
      w.trace(
        `scenario: finality stood still ${longest} slots at most; of ${accepted.size} accepted, ` +
          `${accepted.size - dropped} final and ${dropped} dropped with a reason`,
      );
      return undefined;
    },
  };
}

/** A fresh instance of scenario `name` (each keeps its own state), or an error naming those there are. */
export function scenarioNamed(name: string): Scenario {
  const make = SCENARIOS[name];
  if (!make) throw new Error(`no scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`);
  return make();
}

export const SCENARIOS: Record<string, () => Scenario> = {
  'election-restart': electionRestart,
  'jail-partition': jailPartition,
  'clock-skew': clockSkew,
  overload,
};
