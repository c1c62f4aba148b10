import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readDue } from '../../src/machines/dueIndex';
import { createInstance, deadlineOf, loadInstance, sendEvent, type MachineStep } from '../../src/machines/instance';
import { machineKey, stateName, toRecord, type MachineRecord } from '../../src/machines/record';
import { machineRegistry } from '../../src/machines/registry';
import { tickMachines } from '../../src/machines/tick';
import { canonicalJson } from '../../src/primitives/canonical';
import type { ChainEvent } from '../../src/protocol/events';
import { TxFailure } from '../../src/protocol/handler';
import type { Address } from '../../src/protocol/types';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { commitState } from '../helpers/memChain';
import { runModel, type Outcomes, type Replay } from '../helpers/modelRunner';
import { AUCTION_STATES, BLOCKED_SELLER, auctionDef, type AuctionEvent } from '../helpers/testMachine';

/**
 * Random sequences of transactions (create, bid, cancel, claim) and blocks (each ending in a
 * tick) folded through the helper, on two independent states. Checks at every step: only legal
 * states; `can` decides acceptance; a refused event leaves the state root untouched and is a
 * TxFailure; records are exactly the canonical {machine, version, value, context}; the due
 * index holds every pending deadline and nothing in the past; coins are conserved; and both
 * states have the same root after every command.
 */
const addr = (b: string) => `0x${b.repeat(20)}` as Address;
const SELLER = addr('5e');
const PEOPLE = [addr('a1'), addr('b0'), addr('c3'), SELLER, BLOCKED_SELLER];
const IDS = ['a0', 'a1', 'a2', 'a3'];
const registry = machineRegistry([auctionDef]);
const LEGAL = new Set<string>(AUCTION_STATES);

type Cmd =
  | { kind: 'create'; id: string; seller: Address; reserve: number; window: number }
  | { kind: 'send'; id: string; event: AuctionEvent }
  | { kind: 'blocks'; n: number };

const person = fc.constantFrom(...PEOPLE);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      id: fc.constantFrom(...IDS),
      seller: fc.constantFrom(SELLER, BLOCKED_SELLER),
      reserve: fc.integer({ min: 1, max: 50 }),
      window: fc.nat(6),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      id: fc.constantFrom(...IDS),
      event: fc.record({
        type: fc.constant('BID' as const),
        bidder: person,
        amount: fc.integer({ min: 1, max: 100 }).map(String),
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      id: fc.constantFrom(...IDS),
      event: fc.record({ type: fc.constant('CANCEL' as const), by: person }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      id: fc.constantFrom(...IDS),
      event: fc.record({ type: fc.constant('CLAIM' as const), by: person }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('blocks' as const), n: fc.integer({ min: 1, max: 5 }) }) },
);

/** One chain of auctions: a state, its height, and what the model expects of it. */
class World {
  height = 1;
  /** Coins taken by accepted bids: must equal what the appliers paid out plus what is still held. */
  escrowed = 0n;
  readonly roots: string[] = [];
  readonly events: ChainEvent[] = [];

  private constructor(
    readonly kv: MemoryKv,
    readonly state: StateTrie,
    /** Commit to the store after every block (the other world never does): storage must not change roots. */
    readonly flushes: boolean,
  ) {}

  static async open(flushes: boolean): Promise<World> {
    const kv = new MemoryKv();
    return new World(kv, await StateTrie.open(kv, null), flushes);
  }

  /** Runs one transaction-like step as applyTx does: under a checkpoint, reverted on TxFailure. */
  private async tx(
    run: () => Promise<MachineStep<typeof auctionDef.machine>>,
  ): Promise<MachineStep<typeof auctionDef.machine> | TxFailure> {
    const root = this.state.root();
    this.state.checkpoint();
    try {
      const step = await run();
      await this.state.commit();
      return step;
    } catch (e) {
      await this.state.revert();
      if (!(e instanceof TxFailure)) throw e;
      expect(this.state.root()).toBe(root);
      return e;
    }
  }

  async apply(c: Cmd): Promise<void> {
    if (c.kind === 'blocks') {
      for (let i = 0; i < c.n; i++) {
        const { events } = await tickMachines(this.state, registry, this.height);
        this.events.push(...events);
        expect(await readDue(this.state, this.height)).toBeUndefined();
        this.height++;
        if (this.flushes) await commitState(this.kv, this.state);
      }
    } else if (c.kind === 'create') {
      const exists = (await loadInstance(this.state, auctionDef, c.id)) !== undefined;
      const out = await this.tx(() =>
        createInstance(
          this.state,
          auctionDef,
          c.id,
          { seller: c.seller, reserve: String(c.reserve), endsAt: this.height + c.window },
          this.height,
        ),
      );
      expect(out instanceof TxFailure).toBe(exists);
      if (!(out instanceof TxFailure)) this.events.push(...out.events);
    } else {
      const before = await loadInstance(this.state, auctionDef, c.id);
      const out = await this.tx(() => sendEvent(this.state, auctionDef, c.id, c.event, this.height));
      if (before === undefined) expect(out).toMatchObject({ reason: `auction ${c.id} does not exist` });
      else if (!before.can(c.event))
        expect(out).toMatchObject({
          reason: `auction ${c.id} in state ${stateName(before.value)} does not take ${c.event.type}`,
        });
      else if (out instanceof TxFailure)
        expect([c.event.type, before.context.seller, out.reason]).toEqual([
          'CLAIM',
          BLOCKED_SELLER,
          'seller is blocked',
        ]);
      else {
        this.events.push(...out.events);
        if (c.event.type === 'BID') this.escrowed += BigInt(c.event.amount);
      }
    }
    await this.check();
    this.roots.push(this.state.root());
  }

  private async check(): Promise<void> {
    let held = 0n;
    for (const id of IDS) {
      const s = await loadInstance(this.state, auctionDef, id);
      if (s === undefined) continue;
      const name = stateName(s.value);
      expect(LEGAL.has(name), name).toBe(true);
      const rec = await this.state.getRecord<MachineRecord>(machineKey('auction', id));
      expect(Object.keys(rec!).sort()).toEqual(['context', 'machine', 'value', 'version']);
      expect(canonicalJson(rec)).toBe(canonicalJson(toRecord(auctionDef, s)));
      const due = deadlineOf(auctionDef, s);
      if (due !== null) {
        expect(due).toBeGreaterThanOrEqual(this.height);
        expect(await readDue(this.state, due)).toContainEqual({ machine: 'auction', id });
      }
      if (name === 'open.leading' || name === 'settling') held += BigInt(s.context.bid);
    }
    let paid = 0n;
    for (const p of PEOPLE) paid += (await this.state.getAccount(p))?.balance ?? 0n;
    expect(paid + held).toBe(this.escrowed);
    for (const e of this.events)
      if (e.kind === 'machine.transition') expect(e.from === '' || LEGAL.has(e.from)).toBe(true);
  }
}

/** Applies `cmds` to a fresh world; with `outcomes`, counts every state an auction moved to. */
async function runWorld(cmds: Cmd[], flushes: boolean, outcomes?: Outcomes): Promise<World> {
  const w = await World.open(flushes);
  for (const c of cmds) await w.apply(c);
  for (const e of w.events) {
    if (e.kind !== 'machine.transition') continue;
    expect(LEGAL.has(e.to), e.to).toBe(true);
    outcomes?.count(e.to);
  }
  return w;
}

/** The same commands on a world that commits to its store after every block: same roots, same events. */
const flushingReplay: Replay<Cmd[], World> = {
  name: 'a world that commits after every block',
  roots: async (cmds, a) => {
    const b = await runWorld(cmds, true);
    expect(canonicalJson(b.events)).toBe(canonicalJson(a.events));
    return b.roots;
  },
};

describe('on-chain machine helper (property)', () => {
  it(
    'random transactions and ticks reach only legal states, ' + 'refuse cleanly, and replay to the same roots',
    async () => {
      await runModel({
        inputs: fc.array(cmd, { minLength: 1, maxLength: 40 }),
        run: (cmds, outcomes) => runWorld(cmds, false, outcomes),
        replays: [flushingReplay],
        numRuns: 150,
      });
    },
  );

  it('every state of the auction is reached by some random run', async () => {
    await runModel({
      inputs: fc.array(cmd, { minLength: 5, maxLength: 40 }),
      run: (cmds, outcomes) => runWorld(cmds, false, outcomes),
      replays: [flushingReplay],
      numRuns: 150,
      seed: 9,
      reach: AUCTION_STATES,
    });
  });
});
