import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountState, Address } from '../../../src/protocol/types';
import { isCairnError } from '../../../src/errors/CairnError';
import { type Hex, fromHex, toHex } from '../../../src/primitives/hex';
import { decodeAccount, emptyAccount, encodeAccount } from '../../../src/state/account';
import { type KvStore, MemoryKv } from '../../../src/state/kv';
import { verifyAccountProof } from '../../../src/state/proof';
import { keccak256 } from '../../../src/crypto/keccak';
import { EMPTY_TRIE_ROOT, StateTrie } from '../../../src/state/stateTrie';
import { recordKey } from '../../../src/state/trieKeys';
import { NODE_PREFIX } from '../../../src/state/trieNodes';
import { RocksKv, openStore } from '../../../src/storage/rocks';

const b = (...xs: number[]) => Uint8Array.from(xs);
const addr = (i: number): Address => `0x${i.toString(16).padStart(40, '0')}`;
const acct = (i: number, extra: Partial<AccountState> = {}): AccountState => ({
  ...emptyAccount(),
  balance: BigInt(i) * 1_000_000n,
  nonce: i % 7,
  ...extra,
});

async function collect(it: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of it) out.push(toHex(k));
  return out;
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isCairnError(e) ? e.code : e).toBe(code);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let storeSeq = 0;
const stores: Record<string, () => Promise<KvStore>> = {
  MemoryKv: async () => new MemoryKv(),
  RocksKv: async () => openStore(join(dir, `kv${storeSeq++}`)),
};

for (const [name, make] of Object.entries(stores)) {
  describe(name, () => {
    it('gets what was written and nothing else', async () => {
      const kv = await make();
      const w = kv.batch();
      w.put(b(1, 2), b(9));
      w.put(b(3), b());
      expect(w.size).toBe(2);
      expect(await kv.get(b(1, 2))).toBeUndefined(); // nothing until the batch is written
      await kv.write(w);
      expect(await kv.get(b(1, 2))).toEqual(b(9));
      expect(await kv.get(b(3))).toEqual(b());
      expect(await kv.get(b(1))).toBeUndefined();
      await kv.close();
    });

    it('iterates in unsigned byte order, with ranges, reverse and limit', async () => {
      const kv = await make();
      const w = kv.batch();
      for (const k of [b(0xff), b(0x01), b(0x80), b(0x01, 0x00), b(0x7f, 0xff), b(0x00)]) w.put(k, k);
      await kv.write(w);
      expect(await collect(kv.iterate({}))).toEqual(['0x00', '0x01', '0x0100', '0x7fff', '0x80', '0xff']);
      expect(await collect(kv.iterate({ gte: b(0x01), lt: b(0x80) }))).toEqual(['0x01', '0x0100', '0x7fff']);
      expect(await collect(kv.iterate({ gte: b(0x01), lt: b(0x80), reverse: true }))).toEqual([
        '0x7fff',
        '0x0100',
        '0x01',
      ]);
      expect(await collect(kv.iterate({ reverse: true, limit: 2 }))).toEqual(['0xff', '0x80']);
      expect(await collect(kv.iterate({ gte: b(0x02), limit: 1 }))).toEqual(['0x7fff']);
      expect(await collect(kv.iterate({ limit: 0 }))).toEqual([]);
      expect(await collect(kv.iterate({ lt: b() }))).toEqual([]); // nothing sorts below the empty key
      expect(await collect(kv.iterate({ gte: b(), limit: 1 }))).toEqual(['0x00']);
      await kv.close();
    });

    it('applies a batch of puts and deletes as one write', async () => {
      const kv = await make();
      const w1 = kv.batch();
      w1.put(b(1), b(1));
      w1.put(b(2), b(2));
      await kv.write(w1);
      const w2 = kv.batch();
      w2.del(b(1));
      w2.put(b(2), b(22));
      w2.put(b(3), b(3));
      w2.del(b(3)); // later operations in a batch win
      await kv.write(w2);
      expect(await collect(kv.iterate({}))).toEqual(['0x02']);
      expect(await kv.get(b(2))).toEqual(b(22));
      await kv.close();
    });
  });
}

describe('RocksKv files', () => {
  it('keeps data across reopen and refuses a second opener', async () => {
    const path = join(dir, 'reopen');
    const kv = await openStore(path);
    const w = kv.batch();
    w.put(b(7), b(8));
    await kv.write(w);
    await expectCode(RocksKv.open(path), 'STORAGE_OPEN');
    const err = await RocksKv.open(path).catch((e: Error) => e);
    expect((err as Error).message).toContain('in use by another cairn process');
    await kv.close();
    const again = await RocksKv.open(path, { readOnly: true });
    expect(await again.get(b(7))).toEqual(b(8));
    await again.close();
  });

  it('reports unusable directories as STORAGE_OPEN', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    await expectCode(openStore(file), 'STORAGE_OPEN');
    await expectCode(openStore(join(file, 'sub')), 'STORAGE_OPEN');
    await expectCode(RocksKv.open(join(dir, 'absent'), { readOnly: true }), 'STORAGE_OPEN');
  });
});

describe('account encoding', () => {
  it('round-trips and is canonical JSON with string amounts', () => {
    const a = acct(5, {
      staked: 3n,
      energy: 10n ** 30n,
      energyHeight: 9,
      feeExempt: true,
      isValidator: true,
      mldsaKeyHash: toHex(keccak_256(b(1))),
    });
    const bytes = encodeAccount(a);
    expect(decodeAccount(bytes)).toEqual(a);
    expect(Buffer.from(encodeAccount(emptyAccount())).toString()).toBe(
      '{"balance":"0","energy":"0","energyHeight":0,"feeExempt":false,' +
        '"isValidator":false,"mldsaKeyHash":null,"nonce":0,"staked":"0"}',
    );
  });

  it('rejects anything that is not exactly the canonical form', () => {
    const ok = Buffer.from(encodeAccount(emptyAccount())).toString();
    for (const text of [
      ok.replace('"balance":"0"', '"balance":"01"'),
      ok.replace('"balance":"0"', '"balance":0'),
      ok.replace('"nonce":0', '"nonce":-1'),
      ok.replace('"nonce":0', '"nonce":1.5'),
      ok.replace('"staked":"0"}', '"staked":"0","x":1}'),
      ok.replace('{"balance":"0",', '{'),
      ok.replace('"mldsaKeyHash":null', '"mldsaKeyHash":"0x12"'),
      ` ${ok}`,
      'null',
      ok.replace('"nonce":0', '"nonce":1e0'),
      ok.replace('"nonce":0', '"nonce":-0'),
      ok.replace('"nonce":0', '"nonce":9007199254740993'),
      ok.replace('"staked":"0"', '"staked":"0","weiRemainder":"0"'),
      ok.replace('"staked":"0"', '"staked":"0","staked":"0"'),
      ok.replace('"mldsaKeyHash":null', `"mldsaKeyHash":"0x${'A'.repeat(64)}"`),
    ]) {
      expect(() => decodeAccount(Buffer.from(text)), text).toThrow(/invalid stored account/);
    }
    expect(decodeAccount(Buffer.from(ok.replace('"nonce":0', '"nonce":9007199254740991'))).nonce).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});

describe('StateTrie', () => {
  it('starts at the standard empty-trie root', async () => {
    const t = await StateTrie.open(new MemoryKv(), null);
    expect(t.root()).toBe(EMPTY_TRIE_ROOT);
    expect(EMPTY_TRIE_ROOT).toBe(toHex(keccak_256(b(0x80))));
    expect(await t.getAccount(addr(1))).toBeUndefined();
    expect(await t.proveAccount(addr(1))).toEqual([]);
    expect(await t.flush(new MemoryKv().batch())).toBe(EMPTY_TRIE_ROOT);
  });

  it('round-trips accounts and records, and deletes them', async () => {
    const t = await StateTrie.open(new MemoryKv(), null);
    await t.putAccount(addr(1), acct(1));
    await t.putRecord('chain/supply', { supply: '100', list: [1, 'a', null, { x: true }] });
    expect(await t.getAccount(addr(1))).toEqual(acct(1));
    expect(await t.getAccount(addr(2))).toBeUndefined();
    expect(await t.getRecord('chain/supply')).toEqual({ supply: '100', list: [1, 'a', null, { x: true }] });
    expect(await t.getRecord('missing')).toBeUndefined();
    await t.deleteRecord('chain/supply');
    await t.deleteRecord('never-written');
    expect(await t.getRecord('chain/supply')).toBeUndefined();
    await t.deleteAccount(addr(1));
    expect(t.root()).toBe(EMPTY_TRIE_ROOT);
  });

  it('refuses record values that do not survive JSON unchanged', async () => {
    const t = await StateTrie.open(new MemoryKv(), null);
    await expectCode(t.putRecord('k', { a: 1n }), 'BAD_RECORD');
    await expectCode(t.putRecord('k', 1.5), 'BAD_RECORD');
    await expectCode(t.putRecord('k', { a: undefined }), 'BAD_RECORD');
    await expectCode(t.putRecord('k', new Date(0)), 'BAD_RECORD');
    expect(t.root()).toBe(EMPTY_TRIE_ROOT);
  });

  it('keeps records out of the 20-byte account key space', async () => {
    const name = 'abcdefghijklmnopqr'; // 18 bytes: 'r/' + name would be 20 bytes
    expect(recordKey(name)).toHaveLength(21);
    const twin: Address = toHex(Buffer.from(`r/${name}`));
    const t = await StateTrie.open(new MemoryKv(), null);
    await t.putRecord(name, 'record');
    await t.putAccount(twin, acct(3));
    expect(await t.getRecord(name)).toBe('record');
    expect(await t.getAccount(twin)).toEqual(acct(3));
  });

  it('reverts to the checkpoint root, nested, and commits', async () => {
    const t = await StateTrie.open(new MemoryKv(), null);
    await t.putAccount(addr(1), acct(1));
    const r1 = t.root();
    t.checkpoint();
    await t.putAccount(addr(2), acct(2));
    t.checkpoint();
    await t.putRecord('x', 'y');
    await t.revert();
    expect(await t.getRecord('x')).toBeUndefined();
    expect(await t.getAccount(addr(2))).toEqual(acct(2));
    await t.revert();
    expect(t.root()).toBe(r1);
    expect(await t.getAccount(addr(2))).toBeUndefined();
    t.checkpoint();
    await t.putAccount(addr(3), acct(3));
    await t.commit();
    expect(await t.getAccount(addr(3))).toEqual(acct(3));
    await expectCode(t.revert(), 'STATE_NO_CHECKPOINT');
    t.checkpoint();
    await expectCode(t.flush(new MemoryKv().batch()), 'STATE_CHECKPOINT_OPEN');
  });

  it('gives the same root for the same operations in two instances', async () => {
    const a = await StateTrie.open(new MemoryKv(), null);
    const c = await StateTrie.open(new MemoryKv(), null);
    for (let i = 0; i < 50; i++) await a.putAccount(addr(i), acct(i));
    for (let i = 49; i >= 0; i--) await c.putAccount(addr(i), acct(i));
    expect(a.root()).toBe(c.root());
    await a.putRecord('k', { v: '1' });
    expect(a.root()).not.toBe(c.root());
  });

  for (const [name, make] of Object.entries(stores)) {
    it(`flushes into the batch only, reads before and after the write, reopens from ${name}`, async () => {
      const kv = await make();
      const t = await StateTrie.open(kv, null);
      for (let i = 0; i < 200; i++) await t.putAccount(addr(i), acct(i));
      await t.putRecord('r', { n: 1 });
      const batch = kv.batch();
      const root = await t.flush(batch);
      expect(root).toBe(t.root());
      expect(batch.size).toBeGreaterThan(0);
      expect(await collect(kv.iterate({}))).toEqual([]); // flush wrote nothing itself
      // Before the batch is written, this trie and a fresh one both read from the overlay.
      expect(await t.getAccount(addr(7))).toEqual(acct(7));
      expect(await (await StateTrie.open(kv, root)).getAccount(addr(8))).toEqual(acct(8));
      await kv.write(batch);
      t.settle();
      const fresh = await StateTrie.open(kv, root);
      await fresh.prefetchAccounts([addr(3), addr(4), addr(3), addr(10_000)]);
      expect(fresh.root()).toBe(root);
      for (let i = 0; i < 200; i++) expect(await fresh.getAccount(addr(i))).toEqual(acct(i));
      expect(await fresh.getRecord('r')).toEqual({ n: 1 });
      // Only reachable nodes were written: a trie's node count is below 2× its leaves.
      expect(batch.size).toBeLessThan(2 * 201);

      // Next block: old root stays readable (archive), the new one has the change.
      await fresh.putAccount(addr(7), acct(7, { nonce: 99 }));
      const b2 = kv.batch();
      const root2 = await fresh.flush(b2);
      expect(b2.size).toBeLessThan(12); // proportional to the change, not to the state
      await kv.write(b2);
      fresh.settle();
      const old = await fresh.atRoot(root);
      expect(await old.getAccount(addr(7))).toEqual(acct(7));
      expect((await (await StateTrie.open(kv, root2)).getAccount(addr(7)))?.nonce).toBe(99);
      await expectCode(old.putAccount(addr(1), acct(1)), 'STATE_READ_ONLY');
      await kv.close();
    });
  }

  it('refuses an unknown root', async () => {
    await expectCode(StateTrie.open(new MemoryKv(), `0x${'11'.repeat(32)}`), 'STATE_MISSING_NODE');
    await expectCode(StateTrie.open(new MemoryKv(), '0x1234'), 'BAD_STATE_ROOT');
  });
});

/** A MemoryKv that also reads many keys in one call, counting calls and keys read. */
class MultiGetKv extends MemoryKv {
  calls = 0;
  singles = 0;
  keysRead = 0;
  override async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.singles++;
    return super.get(key);
  }
  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.calls++;
    this.keysRead += keys.length;
    return Promise.all(keys.map((k) => super.get(k)));
  }
}

/**
 * Writes a fresh store with `n` accounts and returns it with its root (the store object is new: its node cache is
 * empty).
 */
async function storeWith(n: number, make: () => MemoryKv): Promise<{ kv: MemoryKv; root: Hex }> {
  const src = new MemoryKv();
  const t = await StateTrie.open(src, null);
  for (let i = 0; i < n; i++) await t.putAccount(addr(i), acct(i));
  const batch = src.batch();
  const root = await t.flush(batch);
  const kv = make();
  await kv.write(batch);
  return { kv, root };
}

describe('StateTrie engine', () => {
  it('hashes with keccak256 exactly as @noble/hashes does, at every length around the block size', () => {
    let seed = 7;
    for (let len = 0; len <= 700; len++) {
      const data = Uint8Array.from({ length: len }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      expect(toHex(keccak256(data)), `length ${len}`).toBe(toHex(keccak_256(data)));
    }
    const big = new Uint8Array(100_000).fill(0xab);
    expect(toHex(keccak256(big))).toBe(toHex(keccak_256(big)));
  });

  it('prefetches accounts one trie level per store call, and then reads without the store', async () => {
    const { kv, root } = await storeWith(400, () => new MultiGetKv());
    const multi = kv as MultiGetKv;
    const t = await StateTrie.open(kv, root);
    const wanted = [...Array.from({ length: 100 }, (_, i) => addr(i * 3)), addr(9_999), addr(3)];
    await t.prefetchAccounts(wanted);
    expect(multi.calls).toBeGreaterThan(0);
    expect(multi.calls).toBeLessThanOrEqual(5); // ~ the trie's depth, not one call per node
    const before = { calls: multi.calls, singles: multi.singles };
    for (let i = 0; i < 100; i++) expect(await t.getAccount(addr(i * 3))).toEqual(acct(i * 3));
    expect(await t.getAccount(addr(9_999))).toBeUndefined();
    await t.putAccount(addr(3), acct(3, { nonce: 5 }));
    expect({ calls: multi.calls, singles: multi.singles }).toEqual(before);
    // Prefetching again, or what is already cached, reads nothing.
    await t.prefetchAccounts(wanted);
    expect(multi.calls).toBe(before.calls);
    expect(await t.getAccount(addr(3))).toEqual(acct(3, { nonce: 5 }));
  });

  it('prefetches over a store with single gets only', async () => {
    const { kv, root } = await storeWith(300, () => new MemoryKv());
    const t = await StateTrie.open(kv, root);
    await t.prefetchAccounts(Array.from({ length: 300 }, (_, i) => addr(i)));
    for (let i = 0; i < 300; i++) expect(await t.getAccount(addr(i))).toEqual(acct(i));
  });

  it('reports a missing node as STATE_MISSING_NODE and stays as it was', async () => {
    const { kv, root } = await storeWith(200, () => new MultiGetKv());
    // Remove one stored node below the root.
    const nodes: Uint8Array[] = [];
    for await (const [k] of kv.iterate({ gte: NODE_PREFIX })) nodes.push(k);
    const rootKey = toHex(Buffer.concat([NODE_PREFIX, fromHex(root)]));
    const victim = nodes.find((k) => toHex(k) !== rootKey) as Uint8Array;
    const del = kv.batch();
    del.del(victim);
    await kv.write(del);
    const t = await StateTrie.open(kv, root);
    const errors = new Set<string>();
    const done: number[] = [];
    for (let i = 0; i < 200; i++) {
      try {
        await t.putAccount(addr(i), acct(i, { nonce: 6 }));
        done.push(i);
      } catch (e) {
        errors.add(isCairnError(e) ? e.code : String(e));
      }
    }
    expect([...errors]).toEqual(['STATE_MISSING_NODE']);
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(200);
    // The failed writes changed nothing: the root is that of the successful ones alone.
    const intact = await StateTrie.open(new MemoryKv(), null);
    for (let i = 0; i < 200; i++) await intact.putAccount(addr(i), done.includes(i) ? acct(i, { nonce: 6 }) : acct(i));
    expect(t.root()).toBe(intact.root());
    await expectCode(t.prefetchAccounts(Array.from({ length: 200 }, (_, i) => addr(i))), 'STATE_MISSING_NODE');
    await expectCode(
      (await StateTrie.open(kv, root)).prefetchAccounts(Array.from({ length: 200 }, (_, i) => addr(i))),
      'STATE_MISSING_NODE',
    );
  });

  it('views an unflushed root reported earlier, and flushes nothing twice', async () => {
    const kv = new MemoryKv();
    const t = await StateTrie.open(kv, null);
    for (let i = 0; i < 50; i++) await t.putAccount(addr(i), acct(i));
    const r1 = t.root();
    await t.putAccount(addr(1), acct(1, { nonce: 9 }));
    await t.deleteAccount(addr(2));
    const v1 = await t.atRoot(r1);
    expect(await v1.getAccount(addr(1))).toEqual(acct(1));
    expect(await v1.getAccount(addr(2))).toEqual(acct(2));
    expect(v1.root()).toBe(r1);
    const now = await t.atRoot(t.root());
    expect(await now.getAccount(addr(2))).toBeUndefined();
    const b1 = kv.batch();
    const root = await t.flush(b1);
    expect(b1.size).toBeGreaterThan(0);
    const b2 = kv.batch();
    expect(await t.flush(b2)).toBe(root);
    expect(b2.size).toBe(0);
    await kv.write(b1);
    t.settle();
    // Unchanged after a write that sets an account to what it already is.
    await t.putAccount(addr(3), acct(3));
    const b3 = kv.batch();
    expect(await t.flush(b3)).toBe(root);
    expect(b3.size).toBe(0);
  });

  it('removes accounts down to the empty root, through flushes, in any order', async () => {
    const kv = new MemoryKv();
    let t = await StateTrie.open(kv, null);
    for (let i = 0; i < 120; i++) await t.putAccount(addr(i), acct(i));
    const batch = kv.batch();
    const root = await t.flush(batch);
    await kv.write(batch);
    t.settle();
    t = await StateTrie.open(kv, root);
    for (let i = 0; i < 120; i++) await t.deleteAccount(addr((i * 37) % 120));
    expect(t.root()).toBe(EMPTY_TRIE_ROOT);
    const b2 = kv.batch();
    expect(await t.flush(b2)).toBe(EMPTY_TRIE_ROOT);
    expect(b2.size).toBe(0);
    expect(await (await StateTrie.open(kv, EMPTY_TRIE_ROOT)).getAccount(addr(1))).toBeUndefined();
  });
});

describe('account proofs', () => {
  let t: StateTrie;
  let root: Hex;
  beforeAll(async () => {
    t = await StateTrie.open(new MemoryKv(), null);
    for (let i = 1; i <= 300; i++) await t.putAccount(addr(i), acct(i));
    await t.putRecord('chain/supply', { supply: '1' });
    root = t.root();
  });

  it('proves a present account', async () => {
    const proof = await t.proveAccount(addr(42));
    expect(proof.length).toBeGreaterThan(1);
    expect(await verifyAccountProof(root, addr(42), proof)).toEqual(acct(42));
  });

  it('proves an absent account', async () => {
    const proof = await t.proveAccount(addr(100_000));
    expect(await verifyAccountProof(root, addr(100_000), proof)).toBeNull();
    expect(await verifyAccountProof(EMPTY_TRIE_ROOT, addr(1), [])).toBeNull();
  });

  it('rejects a tampered node, a dropped node, a wrong root and a proof for another key', async () => {
    const proof = await t.proveAccount(addr(42));
    for (let i = 0; i < proof.length; i++) {
      const bytes = fromHex(proof[i]);
      bytes[bytes.length >> 1] ^= 0x01;
      const tampered = proof.map((n, j) => (j === i ? toHex(bytes) : n));
      await expectCode(verifyAccountProof(root, addr(42), tampered), 'BAD_PROOF');
      await expectCode(
        verifyAccountProof(
          root,
          addr(42),
          proof.filter((_, j) => j !== i),
        ),
        'BAD_PROOF',
      );
    }
    await expectCode(verifyAccountProof(`0x${'ab'.repeat(32)}`, addr(42), proof), 'BAD_PROOF');
    await expectCode(verifyAccountProof(root, addr(42), []), 'BAD_PROOF');
    await expectCode(verifyAccountProof(root, addr(42), ['0xzz' as Hex]), 'BAD_PROOF');
    // A proof for one account says nothing about another on a different path.
    const other = await t.proveAccount(addr(43));
    const r = await verifyAccountProof(root, addr(42), other).catch((e: unknown) => e);
    expect(isCairnError(r) ? r.code : r).toBe('BAD_PROOF');
  });

  it('verifies against an old root after the state moved on', async () => {
    const t2 = await StateTrie.open(new MemoryKv(), null);
    await t2.putAccount(addr(5), acct(5));
    const r1 = t2.root();
    const p1 = await t2.proveAccount(addr(5));
    await t2.putAccount(addr(5), acct(5, { nonce: 6 }));
    expect(await verifyAccountProof(r1, addr(5), p1)).toEqual(acct(5));
    await expectCode(verifyAccountProof(t2.root(), addr(5), p1), 'BAD_PROOF');
  });
});
