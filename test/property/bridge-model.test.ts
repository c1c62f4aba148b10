import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { loadInstance } from '../../src/machines/instance';
import { stateName } from '../../src/machines/record';
import { assetId } from '../../src/modules/assets/common';
import {
  committeeDigest,
  getPool,
  inboundDigest,
  memberOf,
  signAsMember,
  TRANSFER_STATES,
  transferDef,
  transferMachine,
  type Asset,
  type InboundMessage,
  type MemberSignature,
} from '../../src/modules/bridge';
import { getToken, getTokenBalance } from '../../src/modules/tokens/records';
import { getCommittee } from '../../src/protocol/bridge';
import type { ChainEvent } from '../../src/protocol/events';
import { loadSupply } from '../../src/protocol/execState';
import {
  BRIDGE_ESCROW_ADDRESS,
  CHAIN_ID,
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
} from '../../src/protocol/params';
import type { Address, SignedTx } from '../../src/protocol/types';
import { COIN } from '../../src/primitives/amount';
import { toHex, type Hex } from '../../src/primitives/hex';
import type { StateTrie } from '../../src/state/stateTrie';
import { nonceEnvelopes } from '../helpers/assetHarness';
import { addr, SHORT_WINDOWS } from '../helpers/econWorld';
import { heldBy, MemChain } from '../helpers/memChain';
import { legalMoves } from '../helpers/machineWalk';
import { runModel, type Outcomes } from '../helpers/modelRunner';

/**
 * Model test of the bridge: random interleavings of BRIDGE_OUT (coins and one token),
 * BRIDGE_IN (validly signed by the committee of the time or the other one, forged, signed over
 * another amount, replayed, more than the pool has free), BRIDGE_SETTLE (by members and
 * others, of every kind of transfer), empty stretches crossing circuit-breaker windows, the
 * token paused and unpaused, and one committee rotation (then replayed), run through the real
 * execution (applyTx + finishBlock). Each BRIDGE_IN / BRIDGE_SETTLE / rotation outcome is
 * predicted from the committee in office, the deposits already attested and the pool before
 * it. After every block:
 * - no deposit is attested (so released) twice; each transfer is in one state of the
 *   machine, moved there legally, and a terminal state never changes; nothing stays ATTESTED
 *   past its block; a DELAYED transfer's releaseAt is above the height;
 * - conservation: the escrow holds exactly each pool's `locked` (coins and token),
 *   locked = Σ outbound − Σ released, reserved = Σ of the pending inbound transfers ≤ locked,
 *   and Σ (balance + staked) of every account = supply;
 * and the same blocks on a fresh state give the same state root after every block.
 */
const K: HybridKeys[] = [1, 2, 3, 4, 5].map((i) => deriveKeys(new Uint8Array(32).fill(i)));
const OLD = K.slice(0, 3); // epoch 1, threshold 2
const NEW = K.slice(2, 5); // epoch 2 after the rotation, threshold 2
const USERS = [addr(0xa1), addr(0xa2), addr(0xa3), addr(0xa4)];
const [U1] = USERS;
const V0 = addr(0x1000);
const WINDOW = 5;
/** The target chain of every outbound transfer here (payouts are unique per chain). */
const OUT_CHAIN = 'ethereum';
const FUNDS = 1_000_000n * COIN;
const TOKEN_SUPPLY = 1_000_000n;
const SYSTEM = [BRIDGE_ESCROW_ADDRESS, GOV_ESCROW_ADDRESS, TREASURY_ADDRESS, REWARD_POOL_ADDRESS, UNBONDING_ADDRESS];
const ALL: Address[] = [...USERS, V0, ...K.map((k) => k.address), ...SYSTEM];
const GENESIS = {
  chainId: CHAIN_ID,
  timestamp: 1,
  params: { ...SHORT_WINDOWS, BRIDGE_WINDOW_BLOCKS: String(WINDOW), BRIDGE_BREAKER_BPS: '2500' },
  accounts: [
    ...[...USERS, ...K.map((k) => k.address)].map((address) => ({ address, balance: String(FUNDS) })),
    { address: V0, balance: String(FUNDS), staked: String(2_000n * COIN), isValidator: true },
  ],
};
const LEGAL = legalMoves(transferMachine);
const TERMINAL = new Set(['PAID', 'RELEASED', 'REFUSED']);

/**
 * The prefix, built once (fixed ids, so the token id and every signature are the same in
 * every run): a proposal installing OLD, the token, its distribution, the vote, and enough
 * empty blocks for the proposal to execute.
 */
const nonce0 = new Map<Address, number>();
const ptx = nonceEnvelopes(nonce0);
const tokenCreate = ptx('TOKEN_CREATE', U1, {
  data: { name: 'Bridge USD', symbol: 'BUSD', decimals: 0, supply: String(TOKEN_SUPPLY) },
});
const TOKEN = assetId(tokenCreate.id);
const propose = ptx('GOV_PROPOSE', U1, {
  amount: String(10n * COIN),
  data: { committee: { members: OLD.map(memberOf), threshold: 2 } },
});
const PREFIX: SignedTx[][] = [
  [tokenCreate, propose],
  [
    ptx('GOV_VOTE', V0, { data: { proposalId: propose.id, vote: 'yes' } }),
    ...USERS.slice(1).map((u) => ptx('TOKEN_TRANSFER', U1, { to: u, data: { token: TOKEN, amount: '100000' } })),
  ],
  // Some liquidity to release from.
  [
    ptx('BRIDGE_OUT', USERS[1], { amount: String(3_000n * COIN), data: { chain: OUT_CHAIN, recipient: 'seed' } }),
    ptx('BRIDGE_OUT', USERS[2], { data: { chain: OUT_CHAIN, recipient: 'seed', token: TOKEN, tokenAmount: '30000' } }),
  ],
  ...Array.from({ length: 7 }, (): SignedTx[] => []),
];

/** The deposits a BRIDGE_IN may attest (fixed, so their signatures are made once for all runs). */
const DEPOSITS: InboundMessage[] = Array.from({ length: 20 }, (_, i) => {
  const asset: Asset = i % 2 === 0 ? 'native' : TOKEN;
  const base = [10n, 40n, 90n, 200n, 500n, 1_500n][i % 6];
  const amount = i >= 18 ? 10n ** 12n : asset === 'native' ? base * COIN : base * 10n;
  return {
    sourceChain: i % 5 === 4 ? 'base' : 'ethereum',
    sourceTx: `0xdep${i}`,
    asset,
    to: USERS[i % 4],
    amount: amount.toString(),
  };
});
type Signers = 'old' | 'new' | 'both' | 'forged' | 'wrong';
const sigCache = new Map<string, MemberSignature>();
const sign = (k: HybridKeys, d: Uint8Array): MemberSignature => {
  const key = `${k.address}/${toHex(d)}`;
  let s = sigCache.get(key);
  if (!s) sigCache.set(key, (s = signAsMember(k, d)));
  return s;
};
function signaturesOf(m: InboundMessage, who: Signers): MemberSignature[] {
  const d = inboundDigest(m);
  if (who === 'old') return [sign(K[0], d), sign(K[1], d)];
  if (who === 'new') return [sign(K[4], d), sign(K[3], d)];
  if (who === 'both') return [sign(K[0], d), sign(K[1], d), sign(K[3], d), sign(K[4], d)];
  if (who === 'wrong')
    return [K[0], K[1], K[3], K[4]].map((k) =>
      sign(k, inboundDigest({ ...m, amount: (BigInt(m.amount) + 1n).toString() })),
    );
  // forged: one valid signature of K[0] (epoch 1), repeated, and K[1]'s and K[3]'s classical halves only
  const zero = `0x${'00'.repeat(2420)}` as Hex;
  return [sign(K[0], d), sign(K[0], d), { ...sign(K[1], d), mldsa44: zero }, { ...sign(K[3], d), mldsa44: zero }];
}
/**
 * What the committee of `epoch` counts of `who` (epoch 1: K0..K2, epoch 2: K2..K4; 'both' carries a quorum of each).
 */
const validCount = (who: Signers, epoch: number): number =>
  who === 'both'
    ? 2
    : who === 'old'
      ? epoch === 1
        ? 2
        : 0
      : who === 'new'
        ? epoch === 2
          ? 2
          : 0
        : who === 'forged'
          ? epoch === 1
            ? 1
            : 0
          : 0;
const ROTATION_MEMBERS = NEW.map(memberOf);
const rotationData = () => ({
  members: ROTATION_MEMBERS,
  threshold: 2,
  signatures: [K[1], K[0]].map((k) => sign(k, committeeDigest({ epoch: 2, members: ROTATION_MEMBERS, threshold: 2 }))),
});
const quorum = (what: string, valid: number, epoch: number) =>
  `${what}: ${valid} valid member signatures of 2 needed ` +
  `(committee epoch ${epoch}; both secp256k1 and ML-DSA-44 halves of each)`;

type Step =
  | { k: 'out'; user: number; token: boolean; amount: number }
  | { k: 'in'; dep: number; signers: Signers; relayer: number }
  | { k: 'settle'; target: number; member: number }
  | { k: 'pause' | 'unpause' | 'rotate' | 'seal' }
  | { k: 'gap'; blocks: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('out' as const),
      user: fc.nat(3),
      token: fc.boolean(),
      amount: fc.integer({ min: 1, max: 600 }),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      k: fc.constant('in' as const),
      dep: fc.nat(DEPOSITS.length - 1),
      signers: fc.constantFrom<Signers>('both', 'both', 'both', 'old', 'old', 'new', 'forged', 'wrong'),
      relayer: fc.nat(3),
    }),
  },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('settle' as const), target: fc.nat(30), member: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.constantFrom({ k: 'pause' as const }, { k: 'unpause' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'rotate' as const }) },
  { weight: 4, arbitrary: fc.constant({ k: 'seal' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ k: fc.constant('gap' as const), blocks: fc.integer({ min: 1, max: 2 * WINDOW }) }),
  },
);

/** What a transaction of a step is, for the prediction (the BRIDGE_* ones). */
interface Tagged {
  tx: SignedTx;
  dep?: InboundMessage;
  signers?: Signers;
  target?: Hex;
}

/** Steps → blocks after the prefix (nonces from the prefix on; ids fixed once for the replay). */
function blocksOf(steps: Step[]): Tagged[][] {
  const tx = nonceEnvelopes(new Map(nonce0));
  const bridgeTxs: Hex[] = [];
  const blocks: Tagged[][] = [[]];
  const cur = () => blocks[blocks.length - 1];
  for (const s of steps) {
    if (s.k === 'seal') blocks.push([]);
    else if (s.k === 'gap') for (let i = 0; i < s.blocks; i++) blocks.push([]);
    else if (s.k === 'out') {
      const data = { chain: OUT_CHAIN, recipient: `r${s.user}` };
      const t = s.token
        ? tx('BRIDGE_OUT', USERS[s.user], { data: { ...data, token: TOKEN, tokenAmount: String(s.amount * 10) } })
        : tx('BRIDGE_OUT', USERS[s.user], { amount: String(BigInt(s.amount) * COIN), data });
      bridgeTxs.push(t.id);
      cur().push({ tx: t });
    } else if (s.k === 'in') {
      const m = DEPOSITS[s.dep];
      const t = tx('BRIDGE_IN', USERS[s.relayer], { data: { ...m, signatures: signaturesOf(m, s.signers) } });
      bridgeTxs.push(t.id);
      cur().push({ tx: t, dep: m, signers: s.signers });
    } else if (s.k === 'settle') {
      const target = bridgeTxs.length > 0 ? bridgeTxs[s.target % bridgeTxs.length] : (`0x${'ab'.repeat(32)}` as Hex);
      cur().push({
        tx: tx('BRIDGE_SETTLE', s.member < K.length ? K[s.member].address : U1, {
          data: { transferId: target, targetTx: `0xpaid${s.target}` },
        }),
        target,
      });
    } else if (s.k === 'rotate') cur().push({ tx: tx('BRIDGE_COMMITTEE_UPDATE', USERS[3], { data: rotationData() }) });
    else cur().push({ tx: tx(s.k === 'pause' ? 'TOKEN_PAUSE' : 'TOKEN_UNPAUSE', U1, { data: { token: TOKEN } }) });
  }
  // Enough empty blocks for every delayed transfer to be decided.
  for (let i = 0; i < 3 * WINDOW; i++) blocks.push([]);
  return blocks;
}

/** The model's side of one run: what it predicts and what it has seen. */
interface Model {
  epoch: number;
  attested: Map<string, Hex>;
  /** Payouts that settled a transfer ("chain:targetTx" → transfer): one payout settles one transfer. */
  payouts: Map<string, Hex>;
  transfers: Set<Hex>;
  terminal: Map<Hex, string>;
  /** What the run reached (transaction outcomes, transfer moves). */
  outcomes: Outcomes;
}

/** The predicted error of a bridge transaction (null: success), from the model and the state before it. */
async function predict(s: StateTrie, m: Model, t: Tagged): Promise<string | null | undefined> {
  const { tx } = t;
  if (tx.type === 'BRIDGE_IN') {
    const dep = t.dep!;
    const key = `${dep.sourceChain}:${dep.sourceTx}`;
    // A REFUSED attempt paid nothing: the deposit may be attested again.
    if (m.attested.has(key) && m.terminal.get(m.attested.get(key)!) !== 'REFUSED')
      return `deposit ${key} was already attested (transfer ${m.attested.get(key)})`;
    const valid = validCount(t.signers!, m.epoch);
    if (valid < 2) return quorum('BRIDGE_IN', valid, m.epoch);
    const p = await getPool(s, dep.asset as Asset);
    const free = BigInt(p.locked) - BigInt(p.reserved);
    if (BigInt(dep.amount) > free)
      return (
        `the bridge holds ${free} base units of ${dep.asset} free to release ` +
        `(${p.locked} locked, ${p.reserved} promised), less than ${dep.amount}`
      );
    return null;
  }
  if (tx.type === 'BRIDGE_SETTLE') {
    const members = (m.epoch === 1 ? OLD : NEW).map((k) => k.address);
    if (!members.includes(tx.from)) return `${tx.from} is not a member of the bridge committee (epoch ${m.epoch})`;
    const snap = await loadInstance(s, transferDef, t.target!);
    if (!snap) return `transfer ${t.target} does not exist`;
    if (snap.context.direction !== 'out') return `transfer ${t.target} is inbound: only outbound transfers are settled`;
    const st = stateName(snap.value);
    if (st !== 'LOCKED')
      return (
        `transfer ${t.target} is ${st}, not LOCKED: it was settled by ${snap.context.settledBy} ` +
        `(${snap.context.targetTx})`
      );
    const payout = `${snap.context.chain}:${(tx.data as { targetTx: string }).targetTx}`;
    if (m.payouts.has(payout)) return `payout ${payout} already settled transfer ${m.payouts.get(payout)}`;
    return null;
  }
  if (tx.type === 'BRIDGE_COMMITTEE_UPDATE')
    return m.epoch === 1 ? null : quorum('BRIDGE_COMMITTEE_UPDATE', 0, m.epoch);
  if (tx.type === 'BRIDGE_OUT') {
    const d = tx.data as { token?: Hex; tokenAmount?: string };
    if (!d.token) return null;
    if ((await getToken(s, TOKEN))!.paused) return 'token is paused';
    if ((await getTokenBalance(s, TOKEN, tx.from)) < BigInt(d.tokenAmount!)) return 'insufficient token balance';
    return null;
  }
  if (tx.type === 'TOKEN_PAUSE' || tx.type === 'TOKEN_UNPAUSE') {
    const paused = (await getToken(s, TOKEN))!.paused;
    if (tx.type === 'TOKEN_PAUSE') return paused ? 'token is already paused' : null;
    return paused ? null : 'token is not paused';
  }
  return undefined;
}

/** After a successful transaction: what the model learns. */
function learn(m: Model, t: Tagged): void {
  if (t.tx.type === 'BRIDGE_IN') m.attested.set(`${t.dep!.sourceChain}:${t.dep!.sourceTx}`, t.tx.id);
  if (t.tx.type === 'BRIDGE_IN' || t.tx.type === 'BRIDGE_OUT') m.transfers.add(t.tx.id);
  if (t.tx.type === 'BRIDGE_COMMITTEE_UPDATE') m.epoch = 2;
  if (t.tx.type === 'BRIDGE_SETTLE')
    m.payouts.set(`${OUT_CHAIN}:${(t.tx.data as { targetTx: string }).targetTx}`, t.target!);
}

async function invariants(s: StateTrie, m: Model, events: ChainEvent[], height: number): Promise<void> {
  expect((await getCommittee(s))?.epoch).toBe(m.epoch);
  for (const e of events) {
    if (e.kind !== 'machine.transition' || e.machine !== transferDef.name) continue;
    if (e.from !== '' && e.from !== e.to) expect(LEGAL.has(`${e.from}>${e.to}`), `${e.from}>${e.to}`).toBe(true);
    if (e.to === 'DELAYED') m.outcomes.count(e.from === 'DELAYED' ? 'held again' : 'DELAYED');
    if (e.to === 'RELEASED' || e.to === 'REFUSED') m.outcomes.count(`${e.from}>${e.to}`);
  }
  const sum = new Map<string, bigint>();
  const add = (k: string, v: bigint) => sum.set(k, (sum.get(k) ?? 0n) + v);
  const bySource = new Map<string, Hex>();
  for (const id of m.transfers) {
    const snap = await loadInstance(s, transferDef, id);
    expect(snap, `transfer ${id}`).toBeDefined();
    const st = stateName(snap!.value);
    const c = snap!.context;
    expect(TRANSFER_STATES as readonly string[]).toContain(st);
    if (m.terminal.has(id)) expect(st, `transfer ${id} left ${m.terminal.get(id)}`).toBe(m.terminal.get(id));
    if (TERMINAL.has(st)) m.terminal.set(id, st);
    expect(st, 'released at the end of its block').not.toBe('ATTESTED');
    if (st === 'DELAYED') expect(c.releaseAt!).toBeGreaterThan(height);
    else expect(c.releaseAt).toBeNull();
    const amount = BigInt(c.amount);
    if (c.direction === 'out') {
      add(`out/${c.asset}`, amount);
      continue;
    }
    // A deposit has at most one transfer that is not REFUSED (a refused attempt paid nothing and may be repeated).
    const key = `${c.chain}:${c.sourceTx}`;
    if (st !== 'REFUSED') {
      expect(bySource.get(key), `deposit ${key} attested twice`).toBeUndefined();
      bySource.set(key, id);
    }
    if (st === 'RELEASED') add(`released/${c.asset}`, amount);
    if (st === 'DELAYED') add(`reserved/${c.asset}`, amount);
  }
  for (const asset of ['native', TOKEN] as Asset[]) {
    const p = await getPool(s, asset);
    const escrow =
      asset === 'native'
        ? ((await s.getAccount(BRIDGE_ESCROW_ADDRESS))?.balance ?? 0n)
        : await getTokenBalance(s, TOKEN, BRIDGE_ESCROW_ADDRESS);
    expect(escrow, `escrow of ${asset}`).toBe(BigInt(p.locked));
    expect(BigInt(p.lockedTotal)).toBe(sum.get(`out/${asset}`) ?? 0n);
    expect(BigInt(p.releasedTotal)).toBe(sum.get(`released/${asset}`) ?? 0n);
    expect(BigInt(p.locked)).toBe(BigInt(p.lockedTotal) - BigInt(p.releasedTotal));
    expect(BigInt(p.reserved)).toBe(sum.get(`reserved/${asset}`) ?? 0n);
    expect(BigInt(p.reserved) <= BigInt(p.locked)).toBe(true);
  }
  expect(await heldBy(s, ALL)).toBe((await loadSupply(s)).supply);
}

/**
 * Runs the prefix and `blocks`; with `model`, predicts each bridge outcome and checks the invariants after every block.
 * Returns the roots.
 */
async function runBlocks(blocks: Tagged[][], model?: Model): Promise<Hex[]> {
  const c = await MemChain.open(GENESIS, V0);
  for (const txs of [...PREFIX.map((b) => b.map((tx): Tagged => ({ tx }))), ...blocks]) {
    const height = c.height + 1;
    for (const t of txs) {
      const expected = model && height > PREFIX.length ? await predict(c.state, model, t) : undefined;
      const r = await c.include(t.tx);
      if (model && height <= PREFIX.length) expect(r.error, t.tx.type).toBeUndefined();
      if (expected !== undefined) {
        expect(r.error ?? null, `${t.tx.type} at ${height}`).toBe(expected);
        model!.outcomes.count(`${t.tx.type}:${r.status}`);
      }
      if (model && r.status === 'success') learn(model, t);
    }
    const events = await c.seal();
    if (model && height === PREFIX.length) expect((await getCommittee(c.state))?.epoch).toBe(1);
    if (model && height >= PREFIX.length) await invariants(c.state, model, events, height);
  }
  return c.roots;
}

describe('bridge model (fast-check)', () => {
  it('never releases a deposit twice nor more than was locked, ' +
    'moves transfers legally to one terminal state; same blocks ⇒ same roots', async () => {
    await runModel({
      inputs: fc.array(step, { minLength: 10, maxLength: 60 }),
      run: async (steps, outcomes) => {
        const blocks = blocksOf(steps);
        const model: Model = {
          epoch: 1,
          attested: new Map(),
          payouts: new Map(),
          transfers: new Set(),
          terminal: new Map(),
          outcomes,
        };
        return { blocks, roots: await runBlocks(blocks, model) };
      },
      replays: [{ name: 'the same blocks', roots: (_, { blocks }) => runBlocks(blocks) }],
      numRuns: Number(process.env.BRIDGE_MODEL_RUNS ?? 25),
      // The random runs reach the interesting outcomes.
      reach: [
        'BRIDGE_IN:success',
        'BRIDGE_IN:failed',
        'BRIDGE_OUT:success',
        'BRIDGE_SETTLE:success',
        'BRIDGE_SETTLE:failed',
        'BRIDGE_COMMITTEE_UPDATE:success',
        'ATTESTED>RELEASED',
        'DELAYED',
        'DELAYED>RELEASED',
      ],
    });
  }, 120_000);
});
