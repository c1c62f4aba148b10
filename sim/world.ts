import { createHash } from 'node:crypto';
import { devNetworkGenesis } from '../src/chain/devnet';
import { signTx } from '../src/chain/envelope';
import { deriveKeys, type HybridKeys } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import { fromHex } from '../src/primitives/hex';
import { loadSupply } from '../src/protocol/execState';
import type { Block, SignedTx } from '../src/protocol/types';
import { StateTrie } from '../src/state/stateTrie';
import { decodeCompactBlock, isCompactBlock } from '../src/network/libp2p/wire';
import { MAX_TXS_PER_BLOCK } from '../src/protocol/params';
import { SimHost, type SimLinks, type SimPeer } from './simHost';
import { buildTx, type TxInput } from '../src/sdk/assets';
import type { Hex } from '../src/primitives/hex';
import { Prng } from './prng';
import { LifecycleFollower, protocolInput } from './workload';
import { Scheduler } from './scheduler';
import { SimNode, type SimWiring } from './simNode';
import { scenarioNamed, type ScenarioWorld } from './scenarios';

/** A run's options: with the seed, all a failure needs to be replayed. */
export interface SimOptions {
  seed: number;
  validators: number;
  /**
   * Slots with faults, then `healSlots` without (at least livenessBound(validators) + 5): liveness is judged at the
   * end of those. Without a scenario, the run ends sooner: an epoch after finality moved again on every honest node.
   */
  slots: number;
  healSlots: number;
  slotMs: number;
  /** Off: a quiet network (delays within a slot, nothing lost, nobody down). */
  faults: boolean;
  /**
   * One validator is byzantine: two nodes sign with its key, without double-sign protection or
   * the vote rules, each heard by its own part of the network (it equivocates in every slot).
   * From 7 validators, another withholds its blocks: each is published 2–6 slots late.
   */
  byzantine: boolean;
  /** Half the crashes fall inside the node's next writes instead of between events (their own PRNG stream). */
  crashInWrites: boolean;
  /** Transfers a slot from the simulated clients; 0: one in most slots. */
  load: number;
  /** Protocol transactions too (staking, proposals and votes, AI tasks, bridge transfers): one in about 3 slots. */
  protocol: boolean;
  /**
   * Virtual milliseconds a node spends per transaction of a block it receives (building and importing it): a
   * block of k transactions reaches a peer k × txMs later than an empty one would. 0: blocks cost no time.
   */
  txMs: number;
  /** A scripted schedule of sim/scenarios.ts (its name), run beside the seeded faults; absent: none. */
  scenario?: string;
}

export const DEFAULT_OPTIONS: Omit<SimOptions, 'seed'> = {
  validators: 4,
  slots: 120,
  healSlots: 60,
  slotMs: 500,
  faults: true,
  byzantine: true,
  crashInWrites: true,
  load: 0,
  protocol: true,
  txMs: 0,
};

/** The options of a scenario's run (sim/scenarios.ts): the defaults, the scenario's own, its name and the seed. */
export function scenarioOptions(name: string, seed: number): SimOptions {
  return { ...DEFAULT_OPTIONS, ...scenarioNamed(name).options, scenario: name, seed };
}

/**
 * A user's own workload and invariants, run with the built-in ones (examples/sim-names.ts): clients that send
 * transactions each slot, and checks of every final block and of the end state. A failure is reported, and replays
 * from its seed, as the built-in checks' are.
 */
export interface SimExtension {
  /** Each slot: the extension's clients send what they will (`send`), drawing from `rng` (its own stream). */
  slot?(c: SimSlot): Promise<void> | void;
  /** Every block an honest node reports final, in height order per node: why it breaks an invariant, or undefined. */
  final?(node: SimNode, block: Block): Promise<string | undefined> | string | undefined;
  /** After the run, on the honest nodes (all up, healed): why it failed, or undefined. */
  end?(nodes: readonly SimNode[]): Promise<string | undefined> | string | undefined;
}

export interface SimSlot {
  slot: number;
  /** Virtual time, ms. */
  now: number;
  rng: Prng;
  /** The development accounts the clients sign with (funded at genesis). */
  users: readonly HybridKeys[];
  /** Signs `input` as user `u` (its next nonce, a fee of 1 coin) and gives it to one node, as POST /tx; its id. */
  send(u: number, input: TxInput): Promise<Hex>;
}

/** The steady load's signed transfers, kept across the runs of one process (see the workload). */
const signedLoad = new Map<string, SignedTx>();

/**
 * The liveness bound, in slots after the faults heal: the nodes reconverge (a poll every two slots, a sync), then two
 * epochs of n blocks justify a checkpoint and the next, with a validator that voted on a losing branch sitting out
 * an epoch. Measured over 4–21 validators (the note of issue 28): the worst seen, with room.
 *
 * A run is allowed this bound plus the slots after the heal left empty by a validator's own doing (livenessAllowance).
 */
export const livenessBound = (validators: number): number => 3 * validators + 15;

/**
 * What a run is allowed: the bound, plus each slot after the heal that a validator left empty by its own doing.
 * - Unsigned: fork choice adopts the chain with the later justified checkpoint (consensus/forkChoice.ts), which can be
 *   the lower one, and a validator whose slot falls at a height it signed on a branch that lost makes no block there
 *   (a second block at a height is the spec's double sign: SLASH_DOUBLE_SIGN, same producer and height).
 * - Withheld: the withholder's block comes 2–6 slots late, after the next producer has made that height again (seed
 *   35447, 9 validators: 5 withheld, final again 44 slots after the heal, bound 42). The byzantine validators do not
 *   heal with the faults.
 */
export const livenessAllowance = (
  validators: number,
  s: Pick<SimResult['stats'], 'unsignedAfterHeal' | 'withheldAfterHeal'>,
): number => livenessBound(validators) + s.unsignedAfterHeal + s.withheldAfterHeal;

export interface SimResult {
  options: SimOptions;
  /** Null when every check held; else what broke (the first failure). */
  failure: string | null;
  trace: string[];
  traceHash: string;
  stats: {
    blocks: number;
    finalized: number;
    reorganizations: number;
    txs: number;
    /** Of which protocol transactions (staking, governance, AI, bridge). */
    protocolTxs: number;
    /** Machine transitions in final blocks, as the first honest node's follower read them. */
    transitions: number;
    faults: number;
    /** Slots from the heal until every honest node's finality had moved (-1: it never did). */
    livenessSlots: number;
    /** Slots after the heal whose producer did not sign, having signed at that height on a branch that lost. */
    unsignedAfterHeal: number;
    /** Blocks the withholder made after the heal: each published 2–6 slots late, its slot's height is made again. */
    withheldAfterHeal: number;
  };
}

/**
 * One line per thing that happened, in virtual time (ms from the start) and its slot: who produced, which
 * deliveries changed a node's chain, what became final, every fault. What a failure is read from.
 */
class Trace {
  readonly lines: string[] = [];
  constructor(
    private readonly t0: number,
    private readonly slotMs: number,
  ) {}
  add(now: number, line: string): void {
    const ms = now - this.t0;
    this.lines.push(`${String(ms).padStart(7)} s${String(Math.floor(ms / this.slotMs)).padEnd(4)} ${line}`);
  }
  hash(): string {
    return createHash('sha256').update(this.lines.join('\n')).digest('hex');
  }
}

class SafetyFailure extends Error {}

const short = (h: string) => h.slice(2, 10);

/**
 * One seeded run: N real validators (sim/simNode.ts) on a simulated network, one of them
 * byzantine if asked. The PRNG decides every delay, loss, duplicate, partition, crash, clock
 * skew and workload transaction; the checker runs after every event, on the honest nodes.
 */
export async function simulate(options: SimOptions, ext?: SimExtension): Promise<SimResult> {
  const o = options;
  const rng = new Prng(o.seed);
  const net = rng.fork();
  const faults = rng.fork();
  const load = rng.fork();
  const writes = rng.fork();
  const scenario = o.scenario === undefined ? undefined : scenarioNamed(o.scenario);
  // The clients' accounts, then the scenario's own (no other client signs with those).
  const userCount = Math.max(8, 2 * o.load);
  const { spec, validators, accounts } = devNetworkGenesis(
    userCount + (scenario?.accounts ?? 0),
    o.validators,
    undefined,
    scenario?.params,
  );
  const funded: HybridKeys[] = accounts.map((a) => deriveKeys(fromHex(a.secret)));
  const users = funded.slice(0, userCount);
  const own = funded.slice(userCount);
  const t0 = spec.timestamp + o.slotMs;
  const sched = new Scheduler(t0);
  const trace = new Trace(t0, o.slotMs);
  const stats = {
    blocks: 0,
    finalized: 0,
    reorganizations: 0,
    txs: 0,
    protocolTxs: 0,
    transitions: 0,
    faults: 0,
    livenessSlots: -1,
    unsignedAfterHeal: 0,
    withheldAfterHeal: 0,
  };
  /** Every honest node's finality moved past what was final at the heal. */
  let movedAgain = false;
  const healAt = t0 + o.slots * o.slotMs;
  /** Slots left empty by a validator's own doing count from the heal until liveness is judged (livenessAllowance). */
  const untilJudged = () => sched.now >= healAt && !movedAgain;

  // The byzantine validator, if any: two nodes under its key, each heard by one side of the others.
  const twin = o.byzantine ? rng.int(validators.length) : -1;
  const side = validators.map(() => rng.int(2));
  // From 7 validators (two faults tolerated), a second one withholds: it publishes each block of its own 2–6 slots
  // late (its peers may still pull it by sync), so the others build past it and its release reorganizes them.
  const withholding = new Prng(o.seed ^ 0x3717);
  const withholder =
    o.byzantine && validators.length >= 7
      ? (twin + 1 + withholding.int(validators.length - 1)) % validators.length
      : -1;
  const nodes: SimNode[] = [];
  const hooks = {
    produced: (n: SimNode, b: Block) => produced(n, b),
    crashed: (n: SimNode) => trace.add(sched.now, `${n.name} crashed in a write at #${n.view.head.height}`),
    undone: (n: SimNode, count: number) => {
      stats.reorganizations++;
      trace.add(sched.now, `${n.name} undid ${count} block(s), back to #${n.view.head.height}`);
    },
    rejected: (n: SimNode, reason: string) => trace.add(sched.now, `${n.name} rejected: ${reason}`),
    early: (n: SimNode, reason: string) => trace.add(sched.now, `${n.name} not yet: ${reason}`),
    unsigned: (n: SimNode, height: number, reason: string) => {
      if (untilJudged()) stats.unsignedAfterHeal++;
      trace.add(sched.now, `${n.name} did not sign #${height}: ${reason}`);
    },
    escalated: (n: SimNode, reason: string) => {
      escalations.push(`${n.name}: ${reason}`);
      trace.add(sched.now, `${n.name} ESCALATED: ${reason}`);
    },
  };
  const escalations: string[] = [];
  // Each node's network on the simulated libp2p host (simHost.ts): a new host for each life of the node.
  const wiring: SimWiring = {
    time: () => sched.now,
    host: (n: SimNode) => new SimHost(n, () => nodes, links, n.network.genesisHash),
  };
  for (const [i, keys] of validators.entries())
    for (const byzantine of i === twin ? (['a', 'b'] as const) : [undefined]) {
      // Clocks within a fifth of a slot of each other (faults) or exact.
      const drawn = o.faults ? faults.between(-Math.floor(o.slotMs / 5), Math.floor(o.slotMs / 5)) : 0;
      const skewMs = scenario?.skewMs?.[i] ?? drawn;
      const n = new SimNode(i, keys, {
        slotMs: o.slotMs,
        hooks,
        wiring,
        skewMs,
        byzantine,
        capacity: scenario?.capacity,
      });
      n.id = nodes.length;
      nodes.push(n);
    }
  if (twin >= 0)
    trace.add(t0, `byzantine: v${twin} runs twins${withholder >= 0 ? `; v${withholder} withholds its blocks` : ''}`);
  const honest = nodes.filter((n) => !n.byzantine);
  /** A twin talks to the honest nodes of its side only, never to the other twin. */
  const hears = (twinNode: SimNode, other: SimNode) =>
    !other.byzantine && (side[other.index] === 0) === twinNode.name.endsWith('a');
  const linked = (a: SimNode, b: SimNode) => (!a.byzantine || hears(a, b)) && (!b.byzantine || hears(b, a));

  // The network's state: which group each node is in (a partition), and whether faults are on.
  let group: number[] = nodes.map(() => 0);
  let faulty = o.faults;
  const reachable = (a: SimNode, b: SimNode) => group[a.id] === group[b.id] && linked(a, b);
  const delay = () =>
    faulty && net.chance(150) ? net.between(o.slotMs, 3 * o.slotMs) : net.between(2, Math.floor(o.slotMs / 5));
  const lost = () => faulty && net.chance(50);

  // The hosts see the nodes they carry (SimHost's SimPeer is a SimNode here).
  const node = (p: SimPeer) => p as SimNode;
  /** The transactions a block message holds (the simulator's blocks travel compact: every node has a mempool). */
  const txsOf = (data: Uint8Array) =>
    isCompactBlock(data) ? decodeCompactBlock(data, MAX_TXS_PER_BLOCK).ids.length : 0;
  const links: SimLinks = {
    sched,
    reachable: (a, b) => reachable(node(a), node(b)),
    delay,
    lost,
    // A withholder's own blocks leave it late.
    holdMs: (from, topic) =>
      topic === 'blocks' && node(from).index === withholder ? withholding.between(2, 6) * o.slotMs : 0,
    workMs: (topic, data) => (topic === 'blocks' && o.txMs > 0 ? txsOf(data) * o.txMs : 0),
    // A block that changed the receiver's chain, or that it refused; known, stale and orphan ones are not traced.
    handled: (to, from, topic, data, verdict) => {
      if (topic !== 'blocks' || verdict === 'ignore' || !isCompactBlock(data)) return;
      const { header } = decodeCompactBlock(data, MAX_TXS_PER_BLOCK);
      const what = verdict === 'accept' ? 'imported' : 'rejected';
      trace.add(sched.now, `${from.name} → ${to.name} #${header.height} ${short(header.hash)}: ${what}`);
    },
  };
  for (const n of nodes) {
    await n.init(spec);
    await n.start(t0);
  }
  const genesisSupply = (await loadSupply(await StateTrie.open(nodes[0].kv, nodes[0].view.head.stateRoot))).supply;

  /**
   * Each honest validator's signed block per height: a second is the spec's slashable double sign (SLASH_DOUBLE_SIGN:
   * same producer and height), which the signing guard must prevent across reorganizations, crashes and restarts.
   */
  const signedAt = new Map<string, Hex>();
  let doubleSigned: string | undefined;
  function produced(from: SimNode, block: Block): void {
    stats.blocks++;
    if (from.index === withholder && untilJudged()) stats.withheldAfterHeal++;
    const h = block.header;
    if (!from.byzantine) {
      const key = `${h.producer}:${h.height}`;
      const before = signedAt.get(key);
      if (before !== undefined && before !== h.hash)
        doubleSigned ??= `${from.name} signed two blocks at #${h.height}: ${before} and ${h.hash}`;
      signedAt.set(key, h.hash);
    }
    trace.add(
      sched.now,
      `${from.name} +#${h.height} ${short(h.hash)} on ${short(h.parentHash)} txs ${block.txs.length}`,
    );
  }

  // Slot ticks: each node at the start of each slot by its own (skewed) clock.
  // The heal phase lasts at least the liveness bound (and a little): a large set is judged by the bound, not by
  // the window (seed 6226, 20 validators: final again 62 slots after the heal, bound 75, window 60).
  const end = t0 + (o.slots + Math.max(o.healSlots, livenessBound(o.validators) + 5)) * o.slotMs;
  /** The nodes' clockwork over [from, to): slot ticks, and the p2p actors' poll (network.poll()) every two slots. */
  function clockwork(from: number, to: number): void {
    for (let t = from; t < to; t += o.slotMs)
      for (const n of nodes) sched.at(t + 1 - (n.clock(0) - 0), () => n.tick(sched.now));
    for (const [i, n] of nodes.entries()) {
      const offset = Math.floor(((i + 1) * o.slotMs) / (nodes.length + 1)); // each node at its own offset
      const first = t0 + offset + Math.ceil((from - t0 - offset) / (2 * o.slotMs)) * 2 * o.slotMs;
      for (let t = Math.max(t0 + offset, first); t < to; t += 2 * o.slotMs)
        sched.at(t, () => {
          if (n.up) n.net.tick(n.clock(sched.now));
        });
    }
  }
  clockwork(t0, end);

  // Workload: transfers from the dev accounts, each sent to one node, which relays it (its transaction topic). `load`
  // transfers a slot, or (0) one in most slots.
  const nonces = users.map(() => 0);
  // Sent and not yet seen in a chain (see the wallets below).
  const pending = new Map<Hex, SignedTx>();
  let nextUser = 0;
  for (let t = t0 + Math.floor(o.slotMs / 3); t < end; t += o.slotMs)
    sched.at(t, async () => {
      const count = o.load > 0 ? o.load : load.chance(600) ? 1 : 0;
      for (let k = 0; k < count; k++) {
        const u = o.load > 0 ? nextUser++ % users.length : load.int(users.length);
        const nonce = nonces[u]++;
        // A steady load is the same transactions on every seed (its amounts from the sender and nonce), so they are
        // signed once per process and a run of many seeds does not spend its time signing.
        const amount = o.load > 0 ? BigInt(1 + ((u * 7 + nonce) % 1000)) : BigInt(1 + load.int(1000));
        const key = `${nodes[0].network.genesisHash}:${u}:${nonce}:${t}`;
        const tx =
          (o.load > 0 ? signedLoad.get(key) : undefined) ??
          signTx(
            users[u],
            {
              type: 'TRANSFER',
              to: users[(u + 1) % users.length].address,
              amount: amount * COIN,
              nonce,
              fee: String(COIN),
              timestamp: t,
            },
            nodes[0].network,
          );
        if (o.load > 0) signedLoad.set(key, tx);
        stats.txs++;
        pending.set(tx.id, tx);
        await load.pick(nodes).admit(tx);
      }
    });

  /** `input` signed by `keys` with `nonce`, a fee of 1 coin, now. */
  const sign = (keys: HybridKeys, input: TxInput, nonce: number) =>
    signTx(keys, { ...buildTx(input), nonce, fee: String(COIN), timestamp: sched.now }, nodes[0].network);

  /** A simulated client's POST /tx: `input` signed as user `u` with its next nonce, handed to one node (`rng`'s pick). */
  async function send(rng: Prng, u: number, input: TxInput, protocolTx: boolean): Promise<Hex> {
    const tx = sign(users[u], input, nonces[u]++);
    stats.txs++;
    if (protocolTx) stats.protocolTxs++;
    pending.set(tx.id, tx);
    await rng.pick(nodes).admit(tx);
    return tx.id;
  }

  // The clients' wallets: every 4 slots each sent transaction not yet in the chain of a live node is sent again, to
  // a node of its own stream's choosing — as a wallet rebroadcasts — so one lost to a crashed node's pool does not
  // leave a gap that holds back every later nonce of its sender.
  const rebroadcast = new Prng(o.seed ^ 0x2eb0ad);
  for (let t = t0 + 4 * o.slotMs + Math.floor(o.slotMs / 2); t < end; t += 4 * o.slotMs)
    sched.at(t, async () => {
      const judge = honest.find((n) => n.up);
      if (!judge) return;
      for (const [id, tx] of [...pending].slice(0, 200)) {
        if ((await judge.store.txLocation(id)) !== undefined) {
          pending.delete(id);
          continue;
        }
        await rebroadcast.pick(nodes).admit(tx);
      }
    });

  // Protocol transactions, on their own PRNG stream (the other streams draw as they did without them).
  const proto = new Prng(o.seed ^ 0x5eed5eed);
  const proposals: Hex[] = [];
  if (o.protocol)
    for (let t = t0 + Math.floor((2 * o.slotMs) / 3); t < end; t += o.slotMs)
      sched.at(t, async () => {
        if (!proto.chance(330)) return;
        const input = protocolInput(proto, users, proposals);
        const id = await send(proto, proto.int(users.length), input, true);
        if (input.type === 'GOV_PROPOSE') proposals.push(id);
      });

  // An extension's clients, each slot, on a stream of their own.
  if (ext?.slot) {
    const mine = new Prng(o.seed ^ 0x0e7e0e7e);
    for (let t = t0 + Math.floor((5 * o.slotMs) / 6); t < end; t += o.slotMs) {
      const slot = Math.floor((t - t0) / o.slotMs);
      sched.at(t, () => ext.slot!({ slot, now: t, rng: mine, users, send: (u, input) => send(mine, u, input, false) }));
    }
  }

  // Faults, in the faulty phase only: partitions that heal, crashes that restart.
  if (o.faults)
    for (let t = t0 + o.slotMs; t < t0 + o.slots * o.slotMs; t += o.slotMs) {
      if (faults.chance(40)) {
        const split = nodes.map(() => faults.int(2));
        const heal = t + faults.between(2, 20) * o.slotMs;
        sched.at(t, () => {
          group = split;
          stats.faults++;
          trace.add(sched.now, `partition ${describeGroups(split, nodes)}`);
        });
        sched.at(Math.min(heal, t0 + o.slots * o.slotMs), () => {
          if (group === split) {
            group = nodes.map(() => 0);
            trace.add(sched.now, 'partition healed');
          }
        });
      }
      if (faults.chance(25)) {
        const n = faults.pick(nodes);
        const back = Math.min(t + faults.between(2, 20) * o.slotMs, t0 + o.slots * o.slotMs);
        // Half the crashes come between two events; the other half in the middle of the node's next writes.
        const inWrite = o.crashInWrites && writes.chance(500) ? writes.between(0, 3) : null;
        sched.at(t, () => {
          if (!n.up) return;
          stats.faults++;
          if (inWrite !== null) {
            n.kv.crashAfter(inWrite);
            trace.add(sched.now, `${n.name} will crash in its write ${inWrite + 1} from now`);
            return;
          }
          n.crash();
          trace.add(sched.now, `${n.name} crashed at #${n.view.head.height}`);
        });
        sched.at(back, async () => {
          if (n.up) return n.kv.crashAfter(Number.POSITIVE_INFINITY); // it never reached the crash point
          await n.start(sched.now);
          trace.add(sched.now, `${n.name} restarted at #${n.view.head.height}`);
        });
      }
    }

  // A scripted schedule, each slot of the faulty phase (late in the slot, after the workload's events).
  const scripted: Omit<ScenarioWorld, 'slot'> = {
    nodes: validators.map((_, i) => honest.find((n) => n.index === i)!),
    validators,
    users,
    own,
    trace: (line) => trace.add(sched.now, line),
    partition: (sides) => {
      group = nodes.map((n) => sides[n.index] ?? 0);
      stats.faults++;
    },
    heal: () => {
      group = nodes.map(() => 0);
    },
    crash: (n, inWrite) => {
      stats.faults++;
      if (inWrite === undefined) n.crash();
      else n.kv.crashAfter(inWrite);
    },
    restart: (n) => n.start(sched.now),
    sendAs: async (keys, input, via) => {
      const acc = await (await StateTrie.open(via.kv, via.view.head.stateRoot)).getAccount(keys.address);
      const tx = sign(keys, input, acc?.nonce ?? 0);
      if (!(await via.admit(tx))) return null;
      stats.txs++;
      stats.protocolTxs++;
      pending.set(tx.id, tx);
      return tx.id;
    },
    offer: async (keys, input, nonce, via) => {
      const verdict = await via.submit(sign(keys, input, nonce));
      if (verdict?.accepted) stats.txs++;
      return verdict;
    },
  };
  if (scenario?.slot)
    for (let t = t0 + o.slotMs; t < t0 + o.slots * o.slotMs; t += o.slotMs) {
      const slot = Math.floor((t - t0) / o.slotMs);
      sched.at(t + Math.floor((9 * o.slotMs) / 10), () => scenario.slot!({ ...scripted, slot }));
    }

  // The heal phase: everyone up, one network, delays within a slot.
  let healedFinal = 0;
  let healed = false;
  // When each node's finality first moved past what was final at the heal.
  const advancedAt = nodes.map(() => Number.POSITIVE_INFINITY);
  sched.at(healAt, async () => {
    faulty = false;
    group = nodes.map(() => 0);
    for (const n of nodes) {
      if (!n.up) await n.start(sched.now);
      n.kv.crashAfter(Number.POSITIVE_INFINITY);
    }
    healedFinal = Math.max(...honest.map((n) => n.view.head.finalizedHeight));
    healed = true;
    trace.add(sched.now, `healed: all up and connected, final at most #${healedFinal}`);
  });

  // The checker: every final block any node reports, at once, against every other report.
  const finalHash = new Map<number, string>();
  const checked = nodes.map(() => 0);
  // Each honest node's final chain, read by a follower of its machines' lifecycles.
  const followers = nodes.map(() => new LifecycleFollower());
  // The heads the last check saw (frozen, replaced whole when they change; undefined: the node was down): an event
  // that changed no head — most deliveries — leaves nothing new to check.
  const seenHead: (object | undefined)[] = nodes.map(() => undefined);
  async function check(): Promise<void> {
    if (escalations.length > 0) throw new SafetyFailure(`an actor crashed for good: ${escalations[0]}`);
    if (doubleSigned) throw new SafetyFailure(`double sign: ${doubleSigned}`);
    let changed = false;
    for (const n of honest) {
      const h = n.up ? n.view.head : undefined;
      if (h !== seenHead[n.id]) {
        seenHead[n.id] = h;
        changed = true;
      }
    }
    if (!changed) return;
    // Same blocks ⇒ same state: two nodes at one head have one state root, at every step.
    const rootOf = new Map<string, string>();
    for (const n of honest) {
      if (!n.up) continue;
      const h = n.view.head;
      const seen = rootOf.get(h.hash);
      if (seen !== undefined && seen !== h.stateRoot)
        throw new SafetyFailure(`head #${h.height} ${h.hash}: state roots ${seen} and ${h.stateRoot} (${n.name})`);
      rootOf.set(h.hash, h.stateRoot);
    }
    for (const n of honest) {
      if (!n.up) continue;
      const f = n.view.head.finalizedHeight;
      if (f < checked[n.id]) throw new SafetyFailure(`${n.name}'s finalized height went back: ${checked[n.id]} → ${f}`);
      for (let h = checked[n.id] + 1; h <= f; h++) {
        const s = await n.store.summary(h);
        if (!s) throw new SafetyFailure(`${n.name} reports #${h} final but has no block there`);
        const seen = finalHash.get(h);
        if (seen && seen !== s.hash)
          throw new SafetyFailure(`two blocks final at #${h}: ${seen} and ${s.hash} (${n.name})`);
        finalHash.set(h, s.hash);
        const block = (await n.store.block(h))!;
        const moved = followers[n.id].follow(block);
        if (moved) throw new SafetyFailure(`${n.name}'s final chain, machine lifecycles: ${moved}`);
        const broken = await ext?.final?.(n, block);
        if (broken) throw new SafetyFailure(`${n.name}'s final #${h}: ${broken}`);
      }
      if (f > checked[n.id]) trace.add(sched.now, `${n.name} final #${f}`);
      if (healed && f > healedFinal && advancedAt[n.id] === Number.POSITIVE_INFINITY) advancedAt[n.id] = sched.now;
      checked[n.id] = f;
    }
    movedAgain = honest.every((n) => Number.isFinite(advancedAt[n.id]));
  }
  /** When the last honest node's finality moved past the heal (infinite until it has on every one). */
  const movedAgainAt = () => Math.max(...honest.map((n) => advancedAt[n.id]));

  /**
   * Once finality has moved again on every honest node, the run goes on for one epoch (n slots: another checkpoint
   * checked on the healed network) and ends, rather than at the end of the heal window: liveness is judged by then,
   * and the window (bound + 5 slots, at least `healSlots`) is three to four times the mean (~23 slots over 1,083
   * seeds). A scenario runs to the end of the window: what it checks at the end may take that long.
   */
  const done = () => !scenario && movedAgain && sched.now >= movedAgainAt() + o.validators * o.slotMs;
  let failure: string | null = null;
  try {
    await sched.runUntil(end, check, done);
    // The bound grows by the slots left empty after the heal (livenessAllowance): the run goes on while that
    // allowance does, up to four bounds past the heal.
    const allowed = () => livenessAllowance(o.validators, stats);
    const cap = healAt + 4 * livenessBound(o.validators) * o.slotMs;
    for (let until = end; !movedAgain && until < Math.min(cap, healAt + (allowed() + 5) * o.slotMs); ) {
      const next = Math.min(cap, healAt + (allowed() + 5) * o.slotMs);
      clockwork(until, next);
      await sched.runUntil(next, check);
      until = next;
    }
    await check();
    // Liveness in slots: how long after the heal the last node's finality moved.
    const latest = movedAgainAt();
    stats.livenessSlots = Number.isFinite(latest) ? Math.ceil((latest - healAt) / o.slotMs) : -1;
    const bound = allowed();
    failure =
      stats.livenessSlots > bound
        ? `liveness: finality moved ${stats.livenessSlots} slots after the faults healed (bound ${bound}: ` +
          `${livenessBound(o.validators)} + ${stats.unsignedAfterHeal} unsigned + ${stats.withheldAfterHeal} withheld)`
        : ((await endChecks(honest, healedFinal, genesisSupply)) ??
          (await scenario?.end?.({ ...scripted, slot: -1 })) ??
          (await ext?.end?.(honest)) ??
          null);
  } catch (e) {
    if (!(e instanceof SafetyFailure)) throw e;
    failure = e.message;
  }
  stats.finalized = Math.min(...honest.map((n) => n.view.head.finalizedHeight));
  stats.transitions = followers[honest[0].id].transitions;
  if (failure) trace.add(sched.now, `FAILED: ${failure}`);
  return { options: o, failure, trace: trace.lines, traceHash: trace.hash(), stats };
}

function describeGroups(split: number[], nodes: SimNode[]): string {
  const part = (g: number) => nodes.filter((n) => split[n.id] === g).map((n) => n.name);
  return `{${part(0).join(',')}} | {${part(1).join(',')}}`;
}

/**
 * After the heal phase: finality advanced past what was final when the faults stopped, on
 * every node; nodes at one head have one state root; no transaction is in a chain twice; the
 * supply adds up.
 */
async function endChecks(nodes: SimNode[], healedFinal: number, genesisSupply: bigint): Promise<string | null> {
  for (const n of nodes) {
    const f = n.view.head.finalizedHeight;
    if (f <= healedFinal) return `liveness: ${n.name} final at #${f}, not past #${healedFinal} after the faults healed`;
  }
  const rootAt = new Map<string, string>();
  for (const n of nodes) {
    const seen = rootAt.get(n.view.head.hash);
    if (seen && seen !== n.view.head.stateRoot) return `one head ${n.view.head.hash}, two state roots`;
    rootAt.set(n.view.head.hash, n.view.head.stateRoot);
    const ids = new Set<string>();
    for (const b of await n.blocksFrom(1))
      for (const t of b.txs) {
        if (ids.has(t.id)) return `${n.name}: transaction ${t.id} included twice`;
        ids.add(t.id);
      }
    const s = await loadSupply(await StateTrie.open(n.kv, n.view.head.stateRoot));
    if (s.supply !== genesisSupply + s.minted - s.burned)
      return `${n.name}: supply ${s.supply} ≠ genesis ${genesisSupply} + minted ${s.minted} − burned ${s.burned}`;
  }
  return null;
}
