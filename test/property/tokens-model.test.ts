import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GenesisSpec } from '../../src/chain/genesis';
import { CHAIN_ID, MAX_TOKEN_AMOUNT } from '../../src/protocol/params';
import { applyBlock } from '../../src/chain/replay';
import type { Address, Block, SignedTx, TxResult, TxType } from '../../src/protocol/types';
import { keccakHex } from '../../src/crypto/hash';
import { assetId } from '../../src/modules/assets/common';
import { handlerFor } from '../../src/modules/registry';
import {
  allowanceKey,
  balanceKey,
  blacklistKey,
  freezeKey,
  getToken,
  symbolKey,
} from '../../src/modules/tokens/records';
import { toHex, utf8, type Hex } from '../../src/primitives/hex';
import type { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { MemChain, replayBlocks } from '../helpers/memChain';
import { runModel, type Outcomes } from '../helpers/modelRunner';
import { DEV_NETWORK } from '../../src/chain/devnet';

/**
 * Model test of FT20: random blocks of token operations by random senders (owners and
 * strangers, valid and invalid) go through buildBlock/applyTx; a plain in-memory model of
 * the documented rules predicts every outcome and the resulting records. An operation that
 * breaks a stateless rule is never included: block building drops it with the refusal as
 * the reason, and a block carrying it is invalid. Every other one is included, as success
 * or as failed with the predicted reason. After each block: state == model, supply == sum
 * of balances, allowances positive, the token.balance events chain up to the stored
 * balances, a paused token's balances never move, and replaying the blocks on a fresh state
 * reproduces every state root.
 */

const N = 4; // funded senders
const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const STRANGER = addr(50); // never funded: receives only
const PRODUCER = addr(99);
const USERS = Array.from({ length: N }, (_, i) => addr(i));
const PARTIES = [...USERS, STRANGER];
const UNKNOWN_TOKEN: Hex = `0x${'ee'.repeat(20)}`;
const SYMBOLS = ['AAA', 'BBB', 'CCC', 'DDD', 'EEE'];
const MAX = MAX_TOKEN_AMOUNT;

const genesis: GenesisSpec = {
  chainId: CHAIN_ID,
  timestamp: 1,
  accounts: [
    ...USERS.map((address) => ({ address, balance: String(10n ** 12n) })),
    { address: PRODUCER, balance: '0', staked: '5000000', isValidator: true },
  ],
};

type Kind =
  | 'create'
  | 'transfer'
  | 'approve'
  | 'transferFrom'
  | 'mint'
  | 'burn'
  | 'pause'
  | 'unpause'
  | 'blacklist'
  | 'freeze'
  | 'unfreeze';
interface Op {
  kind: Kind;
  sender: number; // 0..N-1
  asOwner: boolean; // send as the token's owner instead (when it is known)
  party: number; // 0..N (N = the stranger)
  third: number; // 0..N: transfer-from recipient
  token: number; // index into the tokens created so far; past the end = an unknown token
  amount: bigint;
  flag: boolean; // mintable / blacklisted
  symbol: number;
  untilOffset: number; // freeze: until = height + offset
}

const amountArb = fc.oneof(
  { weight: 12, arbitrary: fc.bigInt({ min: 1n, max: 150n }) },
  { weight: 1, arbitrary: fc.constant(0n) },
  { weight: 1, arbitrary: fc.constantFrom(MAX, MAX - 3n, 2n ** 255n) },
);
const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.oneof(
    { weight: 1, arbitrary: fc.constant<Kind>('create') },
    { weight: 6, arbitrary: fc.constant<Kind>('transfer') },
    { weight: 4, arbitrary: fc.constant<Kind>('transferFrom') },
    { weight: 4, arbitrary: fc.constantFrom<Kind>('approve', 'mint', 'burn') },
    { weight: 4, arbitrary: fc.constantFrom<Kind>('pause', 'unpause', 'blacklist', 'freeze', 'unfreeze') },
  ),
  sender: fc.nat(N - 1),
  asOwner: fc.boolean(),
  party: fc.nat(N),
  third: fc.nat(N),
  token: fc.oneof({ weight: 8, arbitrary: fc.nat(2) }, { weight: 2, arbitrary: fc.nat(5) }),
  amount: amountArb,
  flag: fc.boolean(),
  symbol: fc.nat(SYMBOLS.length - 1),
  untilOffset: fc.integer({ min: -1, max: 4 }),
});

const TYPE: Record<Kind, TxType> = {
  create: 'TOKEN_CREATE',
  transfer: 'TOKEN_TRANSFER',
  approve: 'TOKEN_APPROVE',
  transferFrom: 'TOKEN_TRANSFER_FROM',
  mint: 'TOKEN_MINT',
  burn: 'TOKEN_BURN',
  pause: 'TOKEN_PAUSE',
  unpause: 'TOKEN_UNPAUSE',
  blacklist: 'TOKEN_BLACKLIST',
  freeze: 'TOKEN_FREEZE',
  unfreeze: 'TOKEN_UNFREEZE',
};

/** The envelope's `to` and `data` of an op (invalid combinations included on purpose). */
function shape(o: Op, token: Hex, height: number): { to: Address | null; data: Record<string, unknown> } {
  const party = PARTIES[o.party];
  const amount = o.amount.toString();
  switch (o.kind) {
    case 'create':
      return {
        to: null,
        data: { name: `Token ${o.symbol}`, symbol: SYMBOLS[o.symbol], decimals: 2, supply: amount, mintable: o.flag },
      };
    case 'transfer':
    case 'approve':
    case 'mint':
      return { to: party, data: { token, amount } };
    case 'transferFrom':
      return { to: PARTIES[o.third], data: { token, from: party, amount } };
    case 'burn':
      return { to: null, data: { token, amount } };
    case 'pause':
    case 'unpause':
    case 'unfreeze':
      return { to: null, data: { token } };
    case 'blacklist':
      return { to: party, data: { token, blacklisted: o.flag } };
    case 'freeze':
      return { to: null, data: { token, until: height + o.untilOffset } };
  }
}

function makeTx(o: Op, token: Hex, height: number, nonce: number, ts: number): SignedTx {
  const from = USERS[o.sender];
  const { to, data } = shape(o, token, height);
  const payload = {
    chainId: CHAIN_ID,
    type: TYPE[o.kind],
    from,
    to,
    amount: '0',
    nonce,
    timestamp: ts,
    fee: '1000000',
    data,
  };
  return {
    ...payload,
    id: keccakHex(utf8(JSON.stringify(payload))),
    publicKeys: { secp256k1: '0x', mldsa44: toHex(utf8(`key-${o.sender}`)) },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  } as SignedTx;
}

// ---- the model: the documented rules, written independently of the handlers ----

interface MToken {
  id: Hex;
  owner: Address;
  mintable: boolean;
  paused: boolean;
  supply: bigint;
}
class Model {
  tokens = new Map<Hex, MToken>();
  order: Hex[] = []; // creation order: ops address tokens by index
  symbols = new Set<string>();
  bal = new Map<string, bigint>();
  alw = new Map<string, bigint>();
  bl = new Set<string>();
  frz = new Map<string, number>();

  private b = (t: Hex, a: Address) => this.bal.get(`${t}/${a}`) ?? 0n;
  private setB = (t: Hex, a: Address, v: bigint) =>
    v === 0n ? this.bal.delete(`${t}/${a}`) : this.bal.set(`${t}/${a}`, v);
  private frozen = (t: Hex, a: Address, h: number) => {
    const u = this.frz.get(`${t}/${a}`);
    return u !== undefined && h < u ? u : undefined;
  };

  /**
   * The stateless verdict: a refusal means the transaction is never included (admission
   * refuses it, block building drops it, a block carrying it is invalid). These rules are
   * unit-tested (test/unit/modules/tokens/tokens.test.ts); the model takes them from the handlers.
   */
  refusal(tx: SignedTx): string | undefined {
    return handlerFor(tx.type)?.validate(tx);
  }

  /** Predicts an admissible transaction's outcome and applies it: undefined = success, else the failure reason. */
  apply(tx: SignedTx, h: number): string | undefined {
    if (this.refusal(tx) !== undefined) throw new Error('the model applies admissible transactions only');
    const d = tx.data as Record<string, unknown>;
    const s = tx.from;
    const to = tx.to!;
    if (tx.type === 'TOKEN_CREATE') {
      const sym = d.symbol as string;
      if (this.symbols.has(sym)) return 'symbol already taken';
      const id = assetId(tx.id);
      const supply = BigInt(d.supply as string);
      this.symbols.add(sym);
      this.tokens.set(id, { id, owner: s, mintable: d.mintable === true, paused: false, supply });
      this.order.push(id);
      this.setB(id, s, supply);
      return undefined;
    }
    const t = this.tokens.get(d.token as Hex);
    if (!t) return 'unknown token';
    const id = t.id;
    const amount = typeof d.amount === 'string' ? BigInt(d.amount) : 0n;
    const isBl = (a: Address) => this.bl.has(`${id}/${a}`);
    const owner = () => (s === t.owner ? undefined : 'only the owner of this token may do this');
    const canSend = (a: Address, role: string) => {
      if (isBl(a)) return `${role} is blacklisted`;
      const u = this.frozen(id, a, h);
      return u === undefined ? undefined : `${role} is frozen until height ${u}`;
    };
    switch (tx.type) {
      case 'TOKEN_TRANSFER': {
        if (t.paused) return 'token is paused';
        const r =
          canSend(s, 'sender') ??
          (isBl(to) ? 'recipient is blacklisted' : undefined) ??
          (this.b(id, s) < amount ? 'insufficient token balance' : undefined);
        if (r) return r;
        this.setB(id, s, this.b(id, s) - amount);
        this.setB(id, to, this.b(id, to) + amount);
        return undefined;
      }
      case 'TOKEN_APPROVE':
        if (amount === 0n) this.alw.delete(`${id}/${s}/${to}`);
        else this.alw.set(`${id}/${s}/${to}`, amount);
        return undefined;
      case 'TOKEN_TRANSFER_FROM': {
        const from = (d.from as string).toLowerCase() as Address;
        if (t.paused) return 'token is paused';
        const a = this.alw.get(`${id}/${from}/${s}`) ?? 0n;
        const r =
          canSend(from, 'owner') ??
          (isBl(s) ? 'spender is blacklisted' : undefined) ??
          (isBl(to) ? 'recipient is blacklisted' : undefined) ??
          (a < amount ? 'allowance too low' : undefined) ??
          (this.b(id, from) < amount ? 'insufficient token balance' : undefined);
        if (r) return r;
        if (a === amount) this.alw.delete(`${id}/${from}/${s}`);
        else this.alw.set(`${id}/${from}/${s}`, a - amount);
        this.setB(id, from, this.b(id, from) - amount);
        this.setB(id, to, this.b(id, to) + amount);
        return undefined;
      }
      case 'TOKEN_MINT': {
        const r =
          owner() ??
          (t.mintable ? undefined : 'token is not mintable') ??
          (t.paused ? 'token is paused' : undefined) ??
          (isBl(to) ? 'recipient is blacklisted' : undefined) ??
          (t.supply + amount > MAX ? 'mint would take the supply above 2^256 − 1' : undefined);
        if (r) return r;
        t.supply += amount;
        this.setB(id, to, this.b(id, to) + amount);
        return undefined;
      }
      case 'TOKEN_BURN': {
        const r =
          (t.paused ? 'token is paused' : undefined) ??
          canSend(s, 'sender') ??
          (this.b(id, s) < amount ? 'insufficient token balance' : undefined);
        if (r) return r;
        t.supply -= amount;
        this.setB(id, s, this.b(id, s) - amount);
        return undefined;
      }
      case 'TOKEN_PAUSE':
      case 'TOKEN_UNPAUSE': {
        const want = tx.type === 'TOKEN_PAUSE';
        const r =
          owner() ?? (t.paused === want ? (want ? 'token is already paused' : 'token is not paused') : undefined);
        if (r) return r;
        t.paused = want;
        return undefined;
      }
      case 'TOKEN_BLACKLIST': {
        const want = d.blacklisted === true;
        const r =
          owner() ??
          (isBl(to) === want ? (want ? 'address is already blacklisted' : 'address is not blacklisted') : undefined);
        if (r) return r;
        if (want) this.bl.add(`${id}/${to}`);
        else this.bl.delete(`${id}/${to}`);
        return undefined;
      }
      case 'TOKEN_FREEZE': {
        const until = d.until as number;
        if (until <= h) return `data.until must be above the current height ${h}`;
        const u = this.frozen(id, s, h);
        if (u !== undefined && until <= u) return `a freeze can only be extended: frozen until height ${u}`;
        this.frz.set(`${id}/${s}`, until);
        return undefined;
      }
      case 'TOKEN_UNFREEZE': {
        const u = this.frz.get(`${id}/${s}`);
        if (u === undefined) return 'not frozen';
        if (h < u) return `frozen until height ${u}`;
        this.frz.delete(`${id}/${s}`);
        return undefined;
      }
    }
    throw new Error(`model has no rule for ${tx.type}`);
  }
}

// ---- running blocks ----

/**
 * Every token record in state equals the model; supply = sum of balances; holders = non-zero balances; events chain up.
 */
async function checkState(state: StateTrie, m: Model, eventBal: Map<string, bigint>): Promise<void> {
  for (const sym of SYMBOLS) {
    const rec = await state.getRecord<{ id: Hex }>(symbolKey(sym));
    expect(rec !== undefined, `symbol ${sym}`).toBe(m.symbols.has(sym));
  }
  for (const t of m.tokens.values()) {
    const rec = (await getToken(state, t.id))!;
    expect({ owner: rec.owner, mintable: rec.mintable, paused: rec.paused, supply: rec.supply }).toEqual({
      owner: t.owner,
      mintable: t.mintable,
      paused: t.paused,
      supply: t.supply.toString(),
    });
    let sum = 0n;
    let holders = 0;
    for (const a of PARTIES) {
      const raw = await state.getRecord<string>(balanceKey(t.id, a));
      if (raw !== undefined) holders++;
      if (raw !== undefined) expect(BigInt(raw) > 0n, 'zero balances are deleted').toBe(true);
      const v = BigInt(raw ?? '0');
      expect(v, `balance ${t.id}/${a}`).toBe(m.bal.get(`${t.id}/${a}`) ?? 0n);
      expect(v, `event-tracked balance ${t.id}/${a}`).toBe(eventBal.get(`${t.id}/${a}`) ?? 0n);
      sum += v;
      expect(await state.getRecord(blacklistKey(t.id, a))).toBe(m.bl.has(`${t.id}/${a}`) ? true : undefined);
      const f = await state.getRecord<{ until: number }>(freezeKey(t.id, a));
      expect(f?.until).toBe(m.frz.get(`${t.id}/${a}`));
      for (const sp of PARTIES) {
        const w = await state.getRecord<string>(allowanceKey(t.id, a, sp));
        if (w !== undefined) expect(BigInt(w) > 0n, 'allowances are positive (zero is deleted)').toBe(true);
        expect(BigInt(w ?? '0')).toBe(m.alw.get(`${t.id}/${a}/${sp}`) ?? 0n);
      }
    }
    expect(sum, `supply of ${t.id}`).toBe(t.supply);
    expect(rec.holders, `holder count of ${t.id}`).toBe(holders);
  }
}

/** Checks one executed transaction's result against the model, and that paused tokens do not move. */
function checkResult(tx: SignedTx, r: TxResult, m: Model, h: number, eventBal: Map<string, bigint>): void {
  const pausedBefore = new Set([...m.tokens.values()].filter((t) => t.paused).map((t) => t.id));
  const expected = m.apply(tx, h);
  expect({ type: tx.type, status: r.status, error: r.error }).toEqual({
    type: tx.type,
    status: expected === undefined ? 'success' : 'failed',
    error: expected,
  });
  for (const e of r.events ?? []) {
    if (e.kind !== 'token.balance') continue;
    expect(pausedBefore.has(e.token), "a paused token's balances never change").toBe(false);
    const k = `${e.token}/${e.holder}`;
    expect(e.previous).toBe((eventBal.get(k) ?? 0n).toString());
    eventBal.set(k, BigInt(e.balance));
  }
}

const seedOp = (o: Partial<Op>): Op => ({
  kind: 'transfer',
  sender: 0,
  asOwner: false,
  party: 0,
  third: 0,
  token: 0,
  amount: 0n,
  flag: false,
  symbol: 0,
  untilOffset: 0,
  ...o,
});
/**
 * Block 1 creates three tokens (AAA mintable, BBB fixed, CCC mintable from 0); block 2
 * spreads them, has every user approve every other for AAA and CCC, and freezes users 1
 * and 3 on AAA until height 4 (so later blocks see frozen senders and unfreezes).
 */
const SEED: Op[][] = [
  [0, 1, 2].map((i) => seedOp({ kind: 'create', sender: i, amount: [1000n, 500n, 0n][i], flag: i !== 1, symbol: i })),
  [
    ...[1, 2, 3, 4].flatMap((p) => [
      seedOp({ kind: 'transfer', sender: 0, party: p, token: 0, amount: 150n }),
      seedOp({ kind: 'transfer', sender: 1, party: p, token: 1, amount: 80n }),
      seedOp({ kind: 'mint', sender: 2, party: p, token: 2, amount: 200n }),
    ]),
    ...USERS.flatMap((_, i) =>
      USERS.flatMap((__, j) =>
        i === j ? [] : [0, 2].map((token) => seedOp({ kind: 'approve', sender: i, party: j, token, amount: 120n })),
      ),
    ),
    ...[1, 3].map((sender) => seedOp({ kind: 'freeze', sender, token: 0, untilOffset: 2 })),
  ],
];

/**
 * A block carrying a transaction admission refuses is invalid: `block` with `tx` put back
 * where its sender's nonce order has it, re-executed on its parent state (a scratch trie at
 * `parentRoot` that is never flushed), is rejected by applyBlock with the refusal.
 */
async function checkBlockCarryingRejected(
  kv: MemoryKv,
  parentRoot: Hex,
  block: Block,
  tx: SignedTx,
  reason: string,
): Promise<void> {
  const at = block.txs.findIndex((t) => t.from === tx.from && t.nonce === tx.nonce);
  const i = at === -1 ? block.txs.length : at;
  const claimed: TxResult = { status: 'failed', error: reason, energyUsed: '0', burned: '0' };
  const carrying: Block = {
    header: { ...block.header, txCount: block.txs.length + 1 },
    txs: [...block.txs.slice(0, i), tx, ...block.txs.slice(i)],
    results: [...block.results.slice(0, i), claimed, ...block.results.slice(i)],
  };
  const scratch = await StateTrie.open(kv, parentRoot);
  expect(await applyBlock(scratch, carrying, DEV_NETWORK)).toBe(`transaction ${tx.id} cannot be included: ${reason}`);
}

/** Runs SEED then `blocksOps` through buildBlock against the model; counts the ok, failed and refused transactions. */
async function runChain(blocksOps: Op[][], outcomes: Outcomes): Promise<MemChain> {
  const c = await MemChain.open(genesis, PRODUCER);
  const m = new Model();
  const eventBal = new Map<string, bigint>();
  const nonces = new Array<number>(N).fill(0);
  let ts = 1;
  for (let h = 1; h <= blocksOps.length; h++) {
    const offered: SignedTx[] = [];
    const refused = new Map<Hex, string>(); // id → the refusal the model predicts
    for (const o of blocksOps[h - 1]) {
      const token = m.order[o.token] ?? UNKNOWN_TOKEN;
      const owner = m.tokens.get(token)?.owner;
      const sender = o.asOwner && owner ? USERS.indexOf(owner) : o.sender;
      const tx = makeTx({ ...o, sender }, token, h, nonces[sender], ts++);
      const reason = m.refusal(tx);
      // A refused transaction never takes its nonce: the sender's next one reuses it. It
      // stays in the pool here so that block building meets it (and must drop it).
      if (reason === undefined) nonces[sender]++;
      else refused.set(tx.id, reason);
      offered.push(tx);
    }
    const { built, block } = await c.buildAdmitted(offered, refused); // every other one is included: fees are covered
    outcomes.count('refused', refused.size);
    for (let i = 0; i < built.txs.length; i++) {
      checkResult(built.txs[i], built.results[i], m, h, eventBal);
      outcomes.count(built.results[i].status === 'failed' ? 'failed' : 'ok');
    }
    const firstRefused = offered.find((tx) => refused.has(tx.id));
    if (firstRefused)
      await checkBlockCarryingRejected(c.kv, c.roots.at(-2)!, block, firstRefused, refused.get(firstRefused.id)!);
    await checkState(c.state, m, eventBal);
  }
  return c;
}

describe('FT20 model', () => {
  it('state follows the model, refused operations are never included, ' +
    'supply = sum of balances, paused tokens stay put, and replays reproduce every root', async () => {
    await runModel({
      inputs: fc.array(fc.array(opArb, { minLength: 5, maxLength: 25 }), { minLength: 2, maxLength: 6 }),
      run: (ops, outcomes) => runChain([...SEED, ...ops], outcomes),
      replays: [{ name: 'the blocks imported on a fresh state', roots: (_, c) => replayBlocks(genesis, c.blocks) }],
      numRuns: 50,
      // the generator exercises every outcome in quantity
      moreThan: { ok: 500, failed: 300, refused: 150 },
    });
  }, 60_000);
});
