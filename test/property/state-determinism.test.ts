import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountState, Address } from '../../src/protocol/types';
import type { Hex } from '../../src/primitives/hex';
import { type KvBatch, type KvStore, MemoryKv } from '../../src/state/kv';
import { verifyAccountProof } from '../../src/state/proof';
import { StateTrie } from '../../src/state/stateTrie';
import { openStore } from '../../src/storage/rocks';

/**
 * Two independent tries — one over MemoryKv, one over RocksDB, each flushing at its own
 * random points — fed the same random operations must agree on every root and every
 * read, and both must agree with a plain-map model. Insertion order must not matter.
 */

const RUNS = Number(process.env.STATE_PROPERTY_RUNS ?? 100);
const ADDRS: Address[] = Array.from(
  { length: 12 },
  (_, i) => `0x${(i * 0x1234567 + 1).toString(16).padStart(40, 'a')}` as Address,
);
const RECORDS = ['chain/supply', 'staking/validators', 'abcdefghijklmnopqr', 'x', 'names/alice', 'gov/p/1'];

const accountArb: fc.Arbitrary<AccountState> = fc.record({
  balance: fc.bigInt({ min: 0n, max: 10n ** 24n }),
  staked: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  nonce: fc.nat({ max: 1000 }),
  energy: fc.bigInt({ min: 0n, max: 10n ** 6n }),
  energyHeight: fc.nat({ max: 1_000_000 }),
  feeExempt: fc.boolean(),
  isValidator: fc.boolean(),
  mldsaKeyHash: fc.option(
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((u) => `0x${Buffer.from(u).toString('hex')}` as Hex),
  ),
  codeHash: fc.option(
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((u) => `0x${Buffer.from(u).toString('hex')}` as Hex),
  ),
  weiRemainder: fc.bigInt({ min: 0n, max: 10n ** 12n - 1n }),
  delegatedOut: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n })),
  delegatedIn: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n })),
  permissioned: fc.boolean(),
});

const recordValueArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.record({
    amount: fc.bigInt({ min: 0n }).map(String),
    list: fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 4 }),
  }),
  fc.constant(null),
);

type Op =
  | { t: 'acct'; i: number; a: AccountState }
  | { t: 'rec'; i: number; v: unknown }
  | { t: 'delRec'; i: number }
  | { t: 'delAcct'; i: number }
  | { t: 'checkpoint' }
  | { t: 'commit' }
  | { t: 'revert' }
  | { t: 'prefetch'; is: number[] }
  | { t: 'flush'; mem: boolean; rocks: boolean; writeNow: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ t: fc.constant('acct' as const), i: fc.nat({ max: ADDRS.length - 1 }), a: accountArb }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('rec' as const), i: fc.nat({ max: RECORDS.length - 1 }), v: recordValueArb }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delRec' as const), i: fc.nat({ max: RECORDS.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delAcct' as const), i: fc.nat({ max: ADDRS.length - 1 }) }) },
  { weight: 2, arbitrary: fc.constant({ t: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'revert' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('prefetch' as const),
      is: fc.array(fc.nat({ max: ADDRS.length - 1 }), { maxLength: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('flush' as const),
      mem: fc.boolean(),
      rocks: fc.boolean(),
      writeNow: fc.boolean(),
    }),
  },
);

/** The in-memory store with a multi-key read, so prefetching takes that path on one side. */
class MultiGetMemoryKv extends MemoryKv {
  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return Promise.all(keys.map((k) => this.get(k)));
  }
}

/** One trie over one store, flushing when told and writing batches now or at the next flush. */
class Subject {
  private held: KvBatch[] = [];
  constructor(
    readonly kv: KvStore,
    public trie: StateTrie,
  ) {}

  async flush(writeNow: boolean): Promise<void> {
    const batch = this.kv.batch();
    await this.trie.flush(batch);
    this.held.push(batch);
    if (writeNow) await this.writeHeld();
  }

  async writeHeld(): Promise<void> {
    for (const b of this.held.splice(0)) {
      await this.kv.write(b);
      this.trie.settle();
    }
  }
}

interface Model {
  accounts: Map<number, AccountState>;
  records: Map<number, unknown>;
}
const copy = (m: Model): Model => ({ accounts: new Map(m.accounts), records: new Map(m.records) });

let dir: string;
let seq = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-state-prop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state determinism', () => {
  it('two independent tries agree with each other and with a model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const rocks = await openStore(join(dir, `p${seq++}`));
        const mem = new MultiGetMemoryKv();
        const subjects = [
          new Subject(mem, await StateTrie.open(mem, null)),
          new Subject(rocks, await StateTrie.open(rocks, null)),
        ];
        let model: Model = { accounts: new Map(), records: new Map() };
        const saved: Model[] = [];
        try {
          for (const op of ops) {
            if (op.t === 'flush') {
              if (saved.length > 0) continue; // flush is only legal between transactions
              if (op.mem) await subjects[0].flush(op.writeNow);
              if (op.rocks) await subjects[1].flush(op.writeNow);
            } else if (op.t === 'commit' || op.t === 'revert') {
              const m = saved.pop();
              if (m === undefined) continue;
              if (op.t === 'revert') model = m;
              for (const s of subjects) await s.trie[op.t]();
            } else if (op.t === 'prefetch') {
              for (const s of subjects) await s.trie.prefetchAccounts(op.is.map((i) => ADDRS[i]));
            } else {
              if (op.t === 'checkpoint') saved.push(copy(model));
              else if (op.t === 'acct') model.accounts.set(op.i, op.a);
              else if (op.t === 'delAcct') model.accounts.delete(op.i);
              else if (op.t === 'rec') model.records.set(op.i, op.v);
              else model.records.delete(op.i);
              for (const s of subjects) await apply(s.trie, op);
            }
            expect(subjects[1].trie.root()).toBe(subjects[0].trie.root());
            // Reads right after a rollback, a flush or a prefetch must already reflect it.
            if (op.t === 'revert' || op.t === 'flush' || op.t === 'prefetch')
              for (const s of subjects) await expectMatches(s.trie, model);
          }
          while (saved.pop() !== undefined) for (const s of subjects) await s.trie.commit();
          for (const s of subjects) {
            await s.flush(true);
            await expectMatches(s.trie, model);
            // Everything needed is in the store: a fresh trie at the root reads the same.
            await expectMatches(await StateTrie.open(s.kv, s.trie.root()), model);
          }
          const root = subjects[0].trie.root();
          const proof = await subjects[1].trie.proveAccount(ADDRS[0]);
          expect(await verifyAccountProof(root, ADDRS[0], proof)).toEqual(model.accounts.get(0) ?? null);
        } finally {
          await rocks.close();
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('the same final map gives the same root whatever the insertion order', async () => {
    const entries = fc.uniqueArray(fc.tuple(fc.nat({ max: ADDRS.length - 1 }), accountArb), {
      selector: ([i]) => i,
      minLength: 1,
      maxLength: ADDRS.length,
    });
    await fc.assert(
      fc.asyncProperty(entries, fc.array(fc.nat()), fc.array(fc.nat()), async (list, keysA, keysB) => {
        const order = (keys: number[]) =>
          list
            .map((e, j) => ({ e, k: keys[j] ?? j }))
            .sort((x, y) => x.k - y.k)
            .map((x) => x.e);
        const roots: Hex[] = [];
        for (const [n, ordered] of [order(keysA), order(keysB)].entries()) {
          const t = await StateTrie.open(new MemoryKv(), null);
          // The second trie also writes and then removes a record: removals leave no trace.
          if (n === 1) await t.putRecord('tmp', 'gone');
          for (const [i, a] of ordered) await t.putAccount(ADDRS[i], a);
          if (n === 1) await t.deleteRecord('tmp');
          roots.push(t.root());
        }
        expect(roots[1]).toBe(roots[0]);
      }),
      { numRuns: RUNS },
    );
  });
});

async function apply(t: StateTrie, op: Op): Promise<void> {
  if (op.t === 'checkpoint') t.checkpoint();
  else if (op.t === 'acct') await t.putAccount(ADDRS[op.i], op.a);
  else if (op.t === 'delAcct') await t.deleteAccount(ADDRS[op.i]);
  else if (op.t === 'rec') await t.putRecord(RECORDS[op.i], op.v);
  else if (op.t === 'delRec') await t.deleteRecord(RECORDS[op.i]);
}

async function expectMatches(t: StateTrie, m: Model): Promise<void> {
  for (const [i, a] of ADDRS.entries()) expect(await t.getAccount(a)).toEqual(m.accounts.get(i));
  for (const [i, k] of RECORDS.entries()) expect(await t.getRecord(k)).toEqual(m.records.get(i));
}
