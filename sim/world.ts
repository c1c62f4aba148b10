import { createHash } from 'node:crypto';
import { parseBlock } from '../src/chain/blockShape';
import { devNetworkGenesis } from '../src/chain/devnet';
import { decodeEnvelope, signTx } from '../src/chain/envelope';
import { prefers } from '../src/consensus/forkChoice';
import { deriveKeys, type HybridKeys } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import { fromHex } from '../src/primitives/hex';
import { loadSupply } from '../src/protocol/execState';
import type { Block, SignedTx } from '../src/protocol/types';
import { StateTrie } from '../src/state/stateTrie';
import { Prng } from './prng';
import { Scheduler } from './scheduler';
import { SimNode } from './simNode';

/** A run's options: with the seed, all a failure needs to be replayed. */
export interface SimOptions {
  seed: number;
  validators: number;
  /** Slots with faults, then `healSlots` without: liveness is judged at the end of those. */
  slots: number;
  healSlots: number;
  slotMs: number;
  /** Off: a quiet network (delays within a slot, nothing lost, nobody down). */
  faults: boolean;
  /**
   * One validator is byzantine: two nodes sign with its key, without double-sign protection or
   * the vote rules, each heard by its own part of the network (it equivocates in every slot).
   */
  byzantine: boolean;
  /** Half the crashes fall inside the node's next writes instead of between events (their own PRNG stream). */
  crashInWrites: boolean;
}

export const DEFAULT_OPTIONS: Omit<SimOptions, 'seed'> = {
  validators: 4,
  slots: 120,
  healSlots: 60,
  slotMs: 500,
  faults: true,
  byzantine: true,
  crashInWrites: true,
};

export interface SimResult {
  options: SimOptions;
  /** Null when every check held; else what broke (the first failure). */
  failure: string | null;
  trace: string[];
  traceHash: string;
  stats: { blocks: number; finalized: number; reorganizations: number; txs: number; faults: number };
}

/** One line per thing that happened, in virtual time: what a failure is read from. */
class Trace {
  readonly lines: string[] = [];
  constructor(private readonly t0: number) {}
  add(now: number, line: string): void {
    this.lines.push(`${String(now - this.t0).padStart(7)} ${line}`);
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
export async function simulate(options: SimOptions): Promise<SimResult> {
  const o = options;
  const rng = new Prng(o.seed);
  const net = rng.fork();
  const faults = rng.fork();
  const load = rng.fork();
  const writes = rng.fork();
  const { spec, validators, accounts } = devNetworkGenesis(8, o.validators);
  const users: HybridKeys[] = accounts.map((a) => deriveKeys(fromHex(a.secret)));
  const t0 = spec.timestamp + o.slotMs;
  const sched = new Scheduler(t0);
  const trace = new Trace(t0);
  const stats = { blocks: 0, finalized: 0, reorganizations: 0, txs: 0, faults: 0 };

  // The byzantine validator, if any: two nodes under its key, each heard by one side of the others.
  const twin = o.byzantine ? rng.int(validators.length) : -1;
  const side = validators.map(() => rng.int(2));
  const nodes: SimNode[] = [];
  const hooks = {
    produced: (n: SimNode, b: Block) => produced(n, b),
    crashed: (n: SimNode) => trace.add(sched.now, `${n.name} crashed in a write at #${n.view.head.height}`),
  };
  for (const [i, keys] of validators.entries())
    for (const byzantine of i === twin ? (['a', 'b'] as const) : [undefined]) {
      // Clocks within a fifth of a slot of each other (faults) or exact.
      const skewMs = o.faults ? faults.between(-Math.floor(o.slotMs / 5), Math.floor(o.slotMs / 5)) : 0;
      const n = new SimNode(i, keys, { slotMs: o.slotMs, hooks, skewMs, byzantine });
      n.id = nodes.length;
      nodes.push(n);
    }
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

  for (const n of nodes) {
    await n.init(spec);
    await n.start(t0);
  }
  const genesisSupply = (await loadSupply(await StateTrie.open(nodes[0].kv, nodes[0].view.head.stateRoot))).supply;

  /** The wire: a block or transaction crosses as JSON, as between processes. */
  const wire = (b: Block): Block => {
    const p = parseBlock(JSON.parse(JSON.stringify(b)));
    if (!p.ok) throw new Error(`a block did not survive the wire: ${p.error}`);
    return p.block;
  };

  function produced(from: SimNode, block: Block): void {
    stats.blocks++;
    const h = block.header;
    trace.add(
      sched.now,
      `${from.name} +#${h.height} ${short(h.hash)} on ${short(h.parentHash)} txs ${block.txs.length}`,
    );
    for (const to of nodes) if (to !== from) send(from, to, block);
  }

  function send(from: SimNode, to: SimNode, block: Block): void {
    if (!reachable(from, to) || lost()) return;
    const copies = faulty && net.chance(30) ? 2 : 1;
    for (let c = 0; c < copies; c++)
      sched.after(delay(), async () => {
        if (!to.up || !reachable(from, to)) return;
        const r = await to.importBlocks([wire(block)], sched.now);
        if (!r) return;
        note(to, r);
        // A parent it does not have: ask the sender for its chain above our final block.
        if (r.orphan) syncFrom(to, from);
      });
  }

  function note(to: SimNode, r: { reorganized?: number; rejected?: string }): void {
    if (r.reorganized) {
      stats.reorganizations += r.reorganized;
      trace.add(sched.now, `${to.name} reorganized to #${to.view.head.height} ${short(to.view.head.hash)}`);
    }
    if (r.rejected) trace.add(sched.now, `${to.name} rejected: ${r.rejected}`);
  }

  /** Sync: the peer's canonical blocks above our final height, one round trip later. */
  function syncFrom(to: SimNode, from: SimNode): void {
    if (!reachable(from, to) || lost()) return;
    sched.after(delay(), async () => {
      if (!from.up || !to.up || !reachable(from, to)) return;
      const blocks = (await from.blocksFrom(to.view.head.finalizedHeight + 1)).map(wire);
      sched.after(delay(), async () => {
        if (!to.up || blocks.length === 0) return;
        const r = await to.importBlocks(blocks, sched.now);
        if (r) note(to, r);
      });
    });
  }

  // Slot ticks: each node at the start of each slot by its own (skewed) clock.
  const end = t0 + (o.slots + o.healSlots) * o.slotMs;
  for (let t = t0; t < end; t += o.slotMs)
    for (const n of nodes) sched.at(t + 1 - (n.clock(0) - 0), () => n.tick(sched.now));

  // Anti-entropy, as the p2p actor's poll: every 4 slots each node looks at a random peer's head.
  for (let t = t0 + Math.floor(o.slotMs / 2); t < end; t += 4 * o.slotMs)
    sched.at(t, () => {
      for (const n of nodes) {
        const peer = net.pick(nodes.filter((p) => p !== n));
        if (n.up && peer.up && reachable(n, peer) && prefers(peer.view.head, n.view.head)) syncFrom(n, peer);
      }
    });

  // Workload: transfers from the dev accounts, each sent to one node and gossiped.
  const nonces = users.map(() => 0);
  for (let t = t0 + Math.floor(o.slotMs / 3); t < end; t += o.slotMs)
    sched.at(t, async () => {
      if (!load.chance(600)) return;
      const u = load.int(users.length);
      const tx = signTx(
        users[u],
        {
          type: 'TRANSFER',
          to: users[(u + 1) % users.length].address,
          amount: BigInt(1 + load.int(1000)) * COIN,
          nonce: nonces[u]++,
          fee: String(COIN),
          timestamp: sched.now,
        },
        nodes[0].network,
      );
      stats.txs++;
      const first = load.pick(nodes);
      await first.admit(tx);
      for (const to of nodes)
        if (to !== first && reachable(first, to) && !lost())
          sched.after(delay(), async () => {
            const d = decodeEnvelope(JSON.parse(JSON.stringify(tx)), to.network);
            if (d.ok && reachable(first, to)) await to.admit(d.tx as SignedTx);
          });
    });

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

  // The heal phase: everyone up, one network, delays within a slot.
  const healAt = t0 + o.slots * o.slotMs;
  let healedFinal = 0;
  sched.at(healAt, async () => {
    faulty = false;
    group = nodes.map(() => 0);
    for (const n of nodes) {
      if (!n.up) await n.start(sched.now);
      n.kv.crashAfter(Number.POSITIVE_INFINITY);
    }
    healedFinal = Math.max(...honest.map((n) => n.view.head.finalizedHeight));
    trace.add(sched.now, `healed: all up and connected, final at most #${healedFinal}`);
  });

  // The checker: every final block any node reports, at once, against every other report.
  const finalHash = new Map<number, string>();
  const checked = nodes.map(() => 0);
  async function check(): Promise<void> {
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
      }
      if (f > checked[n.id]) trace.add(sched.now, `${n.name} final #${f}`);
      checked[n.id] = f;
    }
  }

  let failure: string | null = null;
  try {
    await sched.runUntil(end, check);
    await check();
    failure = await endChecks(honest, healedFinal, genesisSupply);
  } catch (e) {
    if (!(e instanceof SafetyFailure)) throw e;
    failure = e.message;
  }
  stats.finalized = Math.min(...honest.map((n) => n.view.head.finalizedHeight));
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
