import { initialTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { applyTx } from '../../../../src/chain/applyTx';
import { keccak256 } from '../../../../src/crypto/hash';
import { deriveKeys, type HybridKeys } from '../../../../src/crypto/keys';
import { loadInstance } from '../../../../src/machines/instance';
import { stateName } from '../../../../src/machines/record';
import { assetId } from '../../../../src/modules/assets/common';
import {
  committeeDigest,
  getBreaker,
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
} from '../../../../src/modules/bridge';
import type { TransferEvent, TransferInput } from '../../../../src/modules/bridge/machine';
import { getTokenBalance } from '../../../../src/modules/tokens/records';
import { COIN } from '../../../../src/primitives/amount';
import { canonicalBytes } from '../../../../src/primitives/canonical';
import { toHex, utf8, type Hex } from '../../../../src/primitives/hex';
import { getCommittee, MAX_COMMITTEE_MEMBERS } from '../../../../src/protocol/bridge';
import { loadSupply } from '../../../../src/protocol/execState';
import {
  AI_ESCROW_ADDRESS,
  BRIDGE_ESCROW_ADDRESS,
  CHAIN_ID,
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
  VESTING_ESCROW_ADDRESS,
} from '../../../../src/protocol/params';
import type { Address, SignedTx } from '../../../../src/protocol/types';
import { envelope, validate } from '../../../helpers/assetHarness';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { walkMachine } from '../../../helpers/machineWalk';
import { DEV_NETWORK } from '../../../../src/chain/devnet';

/**
 * The bridge (modules/bridge): the transfer machine, every type's success and refusals, the
 * circuit breaker, refusal of an impossible payout, committee rotation and the committee a
 * proposal installs, and conservation (the escrow holds exactly what the pools have locked).
 * Real hybrid keys; each signature is made once (ML-DSA-44 signing takes milliseconds).
 */
const K: HybridKeys[] = [1, 2, 3, 4, 5].map((i) => deriveKeys(new Uint8Array(32).fill(i)));
/** The first committee (threshold 2) and the one it rotates to (threshold 2). */
const OLD = K.slice(0, 3);
const NEW = K.slice(2, 5);
const c = (n: number | bigint) => BigInt(n) * COIN;
const WINDOW = 10;
const BRIDGE_PARAMS = { BRIDGE_WINDOW_BLOCKS: String(WINDOW), BRIDGE_BREAKER_BPS: '1000' };
const SYSTEM = [
  BRIDGE_ESCROW_ADDRESS,
  AI_ESCROW_ADDRESS,
  GOV_ESCROW_ADDRESS,
  VESTING_ESCROW_ADDRESS,
  TREASURY_ADDRESS,
  REWARD_POOL_ADDRESS,
  UNBONDING_ADDRESS,
];
const EVERYONE: Address[] = [U1, U2, U3, U4, V0, ...K.map((k) => k.address), ...SYSTEM];

const sigCache = new Map<string, MemberSignature>();
function sign(k: HybridKeys, d: Uint8Array): MemberSignature {
  const key = `${k.address}/${toHex(d)}`;
  let s = sigCache.get(key);
  if (!s) sigCache.set(key, (s = signAsMember(k, d)));
  return s;
}
/** BRIDGE_IN data: the message and its signatures by `signers`. */
const attested = (m: InboundMessage, signers: HybridKeys[] = OLD.slice(0, 2)) => ({
  ...m,
  signatures: signers.map((k) => sign(k, inboundDigest(m))),
});
const deposit = (sourceTx: string, amount: bigint, to: Address = U3, asset: Asset = 'native'): InboundMessage => ({
  sourceChain: 'ethereum',
  sourceTx,
  asset,
  to,
  amount: amount.toString(),
});
/** The inbound digest as committee.ts makes it, on another chain id. */
function digestOnChain(chainId: number, m: InboundMessage): Uint8Array {
  const body = canonicalBytes({
    chainId,
    sourceChain: m.sourceChain,
    sourceTx: m.sourceTx,
    asset: m.asset,
    to: m.to,
    amount: m.amount,
  });
  const tag = utf8('cairn/bridge/in/v1');
  return keccak256(new Uint8Array([...tag, ...body]));
}

const status = async (w: EconWorld, id: Hex) => stateName((await loadInstance(w.state, transferDef, id))!.value);
const transfer = async (w: EconWorld, id: Hex) => (await loadInstance(w.state, transferDef, id))!.context;
const balance = async (w: EconWorld, a: Address) => (await w.state.getAccount(a))?.balance ?? 0n;
const NO_COMMITTEE = 'there is no bridge committee yet: a governance proposal creates it (GOV_PROPOSE data.committee)';
const quorum = (what: string, valid: number, needed: number, epoch: number) =>
  `${what}: ${valid} valid member signatures of ${needed} needed ` +
  `(committee epoch ${epoch}; both secp256k1 and ML-DSA-44 halves of each)`;
const NOT_COMMITTEE =
  'is not a committee: distinct members whose addresses their secp256k1 keys control, threshold more than ' +
  'half of them and at most all';

/** Passes a governance proposal installing `members`/`threshold`; returns when it took office. */
async function installByProposal(w: EconWorld, members: HybridKeys[], threshold: number): Promise<void> {
  const epoch = (await getCommittee(w.state))?.epoch ?? 0;
  const prop = await w.tx('GOV_PROPOSE', U1, {
    amount: String(c(10)),
    data: { committee: { members: members.map(memberOf), threshold } },
  });
  const [r] = await w.block([prop]);
  expect(r.error).toBeUndefined();
  await w.ok('GOV_VOTE', V0, { data: { proposalId: prop.id, vote: 'yes' } });
  for (let i = 0; i < 20 && (await getCommittee(w.state))?.epoch !== epoch + 1; i++) await w.block();
  expect((await getCommittee(w.state))?.epoch).toBe(epoch + 1);
}

/** A world with the first committee (OLD, threshold 2) in office and 1000 coins locked by U2. */
async function bridgeWorld(params: Record<string, string> = {}, lockCoins = c(1000)): Promise<EconWorld> {
  const w = await EconWorld.create(
    { ...BRIDGE_PARAMS, ...params },
    undefined,
    K.map((k) => k.address),
  );
  await installByProposal(w, OLD, 2);
  if (lockCoins > 0n)
    await w.ok('BRIDGE_OUT', U2, { amount: String(lockCoins), data: { chain: 'ethereum', recipient: '0xabc' } });
  return w;
}

/** U1's token BUSD (supply 1,000,000, decimals 0), `locked` of it bridged out by U1. */
async function withToken(w: EconWorld, locked = 1000n): Promise<Hex> {
  const create = await w.tx('TOKEN_CREATE', U1, {
    data: { name: 'Bridge USD', symbol: 'BUSD', decimals: 0, supply: '1000000' },
  });
  await w.block([create]);
  const token = assetId(create.id);
  if (locked > 0n)
    await w.ok('BRIDGE_OUT', U1, {
      data: { chain: 'ethereum', recipient: '0xabc', token, tokenAmount: locked.toString() },
    });
  return token;
}

/** Blocks until the next block is the first of a breaker window. */
async function toWindowStart(w: EconWorld): Promise<void> {
  await w.until(Math.ceil((w.height + 1) / WINDOW) * WINDOW - 1);
}

/** Conservation: the escrow holds exactly each pool's locked amount, reserved ≤ locked, and Σ coins = supply. */
async function conserved(w: EconWorld, token?: Hex): Promise<void> {
  const native = await getPool(w.state, 'native');
  expect(await balance(w, BRIDGE_ESCROW_ADDRESS)).toBe(BigInt(native.locked));
  expect(BigInt(native.reserved) <= BigInt(native.locked)).toBe(true);
  expect(BigInt(native.releasedTotal) <= BigInt(native.lockedTotal)).toBe(true);
  if (token) {
    const p = await getPool(w.state, token);
    expect(await getTokenBalance(w.state, token, BRIDGE_ESCROW_ADDRESS)).toBe(BigInt(p.locked));
    expect(BigInt(p.reserved) <= BigInt(p.locked)).toBe(true);
  }
  expect(await w.total(EVERYONE)).toBe((await loadSupply(w.state)).supply);
}

describe('the bridge transfer machine', () => {
  it('reaches every state from both directions, and can() agrees with transition everywhere', () => {
    const base: TransferInput = {
      direction: 'out',
      asset: 'native',
      amount: '5',
      chain: 'ethereum',
      from: U1,
      recipient: '0xabc',
      to: null,
      sourceTx: null,
      epoch: null,
      createdAt: 3,
    };
    const inbound: TransferInput = {
      ...base,
      direction: 'in',
      from: null,
      recipient: null,
      to: U2,
      sourceTx: '0x01',
      epoch: 1,
    };
    const alphabet = (): TransferEvent[] => [
      { type: 'SETTLE', by: U3, targetTx: '0xdead', height: 4 },
      { type: 'HOLD', until: 10, reason: 'breaker', height: 3 },
      { type: 'HOLD', until: 20, reason: 'breaker', height: 10 },
      { type: 'REFUSE', reason: 'token is paused', height: 10 },
      { type: 'DEADLINE', height: 3 },
      { type: 'DEADLINE', height: 10 },
    ];
    const seen = new Set<string>();
    for (const input of [base, inbound]) {
      const [start] = initialTransition(transferMachine, input);
      expect(stateName(start.value)).toBe(input.direction === 'out' ? 'LOCKED' : 'ATTESTED');
      const walk = walkMachine(transferMachine, start, alphabet, 4);
      for (const s of walk.states) seen.add(s);
      expect(walk.disagreements).toEqual([]);
    }
    expect([...seen].sort()).toEqual([...TRANSFER_STATES].sort());
  });
});

describe('BRIDGE_OUT', () => {
  it('locks coins in the escrow: LOCKED transfer, pool grows', async () => {
    const w = await bridgeWorld({}, 0n);
    const before = await balance(w, U2);
    const out = await w.tx('BRIDGE_OUT', U2, {
      amount: String(c(25)),
      data: { chain: 'ethereum', recipient: '0xAbC_1' },
    });
    const [r] = await w.block([out]);
    expect(r.status).toBe('success');
    expect(before - (await balance(w, U2))).toBe(c(25) + BigInt(r.burned)); // + what the energy shortfall burned
    expect(await balance(w, BRIDGE_ESCROW_ADDRESS)).toBe(c(25));
    expect(await status(w, out.id)).toBe('LOCKED');
    expect(await transfer(w, out.id)).toMatchObject({
      direction: 'out',
      asset: 'native',
      amount: String(c(25)),
      chain: 'ethereum',
      from: U2,
      recipient: '0xAbC_1',
      to: null,
      createdAt: w.height,
    });
    expect(await getPool(w.state, 'native')).toEqual({
      asset: 'native',
      locked: String(c(25)),
      reserved: '0',
      lockedTotal: String(c(25)),
      releasedTotal: '0',
    });
    await conserved(w);
  });

  it('locks a token instead (amount "0", data.token + data.tokenAmount)', async () => {
    const w = await bridgeWorld({}, 0n);
    const token = await withToken(w, 0n);
    const out = await w.tx('BRIDGE_OUT', U1, {
      data: { chain: 'solana', recipient: 'So1ana+Addr=', token, tokenAmount: '700' },
    });
    const [r] = await w.block([out]);
    expect(r.status).toBe('success');
    expect(await getTokenBalance(w.state, token, U1)).toBe(1_000_000n - 700n);
    expect(await getTokenBalance(w.state, token, BRIDGE_ESCROW_ADDRESS)).toBe(700n);
    expect(await transfer(w, out.id)).toMatchObject({ direction: 'out', asset: token, amount: '700', chain: 'solana' });
    expect(await getPool(w.state, token)).toMatchObject({ locked: '700', reserved: '0', lockedTotal: '700' });
    await conserved(w, token);
  });

  it('refuses coins and a token together, or neither, and a token without its amount (stateless)', () => {
    const token = `0x${'12'.repeat(20)}`;
    const data = { chain: 'ethereum', recipient: '0xabc' };
    expect(validate(envelope('BRIDGE_OUT', U1, { amount: '5', data: { ...data, token, tokenAmount: '1' } }))).toBe(
      'BRIDGE_OUT moves coins (amount) or a token (data.token), not both: amount must be "0" with data.token',
    );
    expect(validate(envelope('BRIDGE_OUT', U1, { amount: '0', data }))).toBe(
      'BRIDGE_OUT amount is the coins to lock and must be positive (or give data.token with data.tokenAmount)',
    );
    expect(validate(envelope('BRIDGE_OUT', U1, { amount: '0', data: { ...data, token } }))).toBe(
      'BRIDGE_OUT data.token and data.tokenAmount go together',
    );
  });

  it(
    'refuses an unknown token, a paused one, ' + 'a frozen or blacklisted sender, and more than the sender holds',
    async () => {
      const w = await bridgeWorld({}, 0n);
      const token = await withToken(w, 0n);
      const out = (tok: Hex, n: string) => ({
        data: { chain: 'ethereum', recipient: '0xabc', token: tok, tokenAmount: n },
      });
      await w.fails('BRIDGE_OUT', U1, out(`0x${'77'.repeat(20)}`, '1'), 'unknown token');
      await w.fails('BRIDGE_OUT', U1, out(token, '1000001'), 'insufficient token balance');
      await w.ok('TOKEN_TRANSFER', U1, { to: U2, data: { token, amount: '50' } });
      await w.fails('BRIDGE_OUT', U2, out(token, '51'), 'insufficient token balance');
      await w.ok('TOKEN_BLACKLIST', U1, { to: U2, data: { token, blacklisted: true } });
      await w.fails('BRIDGE_OUT', U2, out(token, '1'), 'sender is blacklisted');
      await w.ok('TOKEN_FREEZE', U1, { data: { token, until: w.height + 5 } });
      await w.fails('BRIDGE_OUT', U1, out(token, '1'), `sender is frozen until height ${w.height + 4}`);
      await w.until(w.height + 4);
      await w.ok('TOKEN_PAUSE', U1, { data: { token } });
      await w.fails('BRIDGE_OUT', U1, out(token, '1'), 'token is paused');
      await w.ok('TOKEN_UNPAUSE', U1, { data: { token } });
      await w.ok('BRIDGE_OUT', U1, out(token, '1'));
      // Coins: more than the balance is not includable (balance < amount + fee: skipped, state untouched).
      const all = (await balance(w, U4)).toString();
      const v = await applyTx(
        w.state,
        await w.tx('BRIDGE_OUT', U4, { amount: all, data: { chain: 'ethereum', recipient: '0xabc' } }),
        { height: w.height + 1, timestamp: 1e9, producer: V0, network: DEV_NETWORK },
      );
      expect(v).toMatchObject({ kind: 'skip', refusal: { reason: 'insufficient balance' }, permanent: false });
      expect(await getPool(w.state, token)).toMatchObject({ locked: '1' });
      await conserved(w, token);
    },
  );
});

describe('BRIDGE_SETTLE', () => {
  it(
    'a member marks a LOCKED outbound transfer PAID; ' +
      'refused for a non-member, an unknown, inbound or settled transfer',
    async () => {
      const w0 = await EconWorld.create(
        BRIDGE_PARAMS,
        undefined,
        K.map((k) => k.address),
      );
      const early = await w0.tx('BRIDGE_OUT', U2, {
        amount: String(c(1)),
        data: { chain: 'ethereum', recipient: '0xabc' },
      });
      await w0.block([early]);
      await w0.fails('BRIDGE_SETTLE', K[0].address, { data: { transferId: early.id, targetTx: '0x01' } }, NO_COMMITTEE);

      const w = await bridgeWorld();
      const out = await w.tx('BRIDGE_OUT', U2, {
        amount: String(c(5)),
        data: { chain: 'ethereum', recipient: '0xabc' },
      });
      await w.block([out]);
      await w.fails(
        'BRIDGE_SETTLE',
        U1,
        { data: { transferId: out.id, targetTx: '0x9f' } },
        `${U1} is not a member of the bridge committee (epoch 1)`,
      );
      await w.fails(
        'BRIDGE_SETTLE',
        K[3].address,
        { data: { transferId: out.id, targetTx: '0x9f' } },
        `${K[3].address} is not a member of the bridge committee (epoch 1)`,
      );
      const unknown = `0x${'ab'.repeat(32)}`;
      await w.fails(
        'BRIDGE_SETTLE',
        K[0].address,
        { data: { transferId: unknown, targetTx: '0x9f' } },
        `transfer ${unknown} does not exist`,
      );
      const inn = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0xin1', c(1))) });
      await w.block([inn]);
      await w.fails(
        'BRIDGE_SETTLE',
        K[0].address,
        { data: { transferId: inn.id, targetTx: '0x9f' } },
        `transfer ${inn.id} is inbound: only outbound transfers are settled`,
      );
      const locked = (await getPool(w.state, 'native')).locked;
      await w.ok('BRIDGE_SETTLE', K[1].address, { data: { transferId: out.id, targetTx: '0x9f' } });
      expect(await status(w, out.id)).toBe('PAID');
      expect(await transfer(w, out.id)).toMatchObject({
        settledBy: K[1].address,
        targetTx: '0x9f',
        closedAt: w.height,
      });
      // Settling pays on the other chain: the locked coins stay in the pool (they back inbound releases).
      expect((await getPool(w.state, 'native')).locked).toBe(locked);
      await w.fails(
        'BRIDGE_SETTLE',
        K[0].address,
        { data: { transferId: out.id, targetTx: '0xa0' } },
        `transfer ${out.id} is PAID, not LOCKED: it was settled by ${K[1].address} (0x9f)`,
      );
      // One payout settles one transfer.
      const out2 = await w.tx('BRIDGE_OUT', U2, {
        amount: String(c(2)),
        data: { chain: 'ethereum', recipient: '0xabc' },
      });
      await w.block([out2]);
      await w.fails(
        'BRIDGE_SETTLE',
        K[0].address,
        { data: { transferId: out2.id, targetTx: '0x9f' } },
        `payout ethereum:0x9f already settled transfer ${out.id}`,
      );
      await w.ok('BRIDGE_SETTLE', K[0].address, { data: { transferId: out2.id, targetTx: '0xa1' } });
      await conserved(w);
    },
  );
});

describe('BRIDGE_IN', () => {
  it(
    'releases an attested deposit at the end of its block; ' +
      'refused without a committee, on replay, or without a quorum',
    async () => {
      const w0 = await EconWorld.create(
        BRIDGE_PARAMS,
        undefined,
        K.map((k) => k.address),
      );
      await w0.fails('BRIDGE_IN', U1, { data: attested(deposit('0x00', c(1))) }, NO_COMMITTEE);

      const w = await bridgeWorld();
      const m = deposit('0x01', c(50));
      const inn = await w.tx('BRIDGE_IN', U1, { data: attested(m) });
      const before = await balance(w, U3);
      const [r] = await w.block([inn]);
      expect(r.status).toBe('success');
      expect(await status(w, inn.id)).toBe('RELEASED');
      expect(await transfer(w, inn.id)).toMatchObject({
        direction: 'in',
        asset: 'native',
        to: U3,
        sourceTx: '0x01',
        epoch: 1,
        createdAt: w.height,
        closedAt: w.height,
      });
      expect((await balance(w, U3)) - before).toBe(c(50));
      expect(await getPool(w.state, 'native')).toMatchObject({
        locked: String(c(950)),
        reserved: '0',
        releasedTotal: String(c(50)),
      });
      // Replay: the same deposit, even with other (valid) signatures, by another relayer.
      await w.fails(
        'BRIDGE_IN',
        U4,
        { data: attested(m, OLD.slice(1)) },
        `deposit ethereum:0x01 was already attested (transfer ${inn.id})`,
      );
      // The same sourceTx on another source chain is another deposit.
      await w.ok('BRIDGE_IN', U4, { data: attested({ ...m, sourceChain: 'base' }) });

      const m2 = deposit('0x02', c(10));
      const d2 = inboundDigest(m2);
      const good = sign(K[0], d2);
      const fail = (sigs: MemberSignature[], valid: number) =>
        w.fails('BRIDGE_IN', U1, { data: { ...m2, signatures: sigs } }, quorum('BRIDGE_IN', valid, 2, 1));
      // Forged: right shape, wrong bytes (both halves of K[1]'s signature of another deposit).
      await fail([good, { ...sign(K[1], inboundDigest(deposit('0x99', c(10)))), signer: K[1].address }], 1);
      // Classical-only: a correct secp256k1 half with a zero or a wrong ML-DSA-44 half.
      const k1 = sign(K[1], d2);
      await fail([good, { ...k1, mldsa44: `0x${'00'.repeat(2420)}` }], 1);
      await fail([good, { ...k1, mldsa44: sign(K[1], inboundDigest(deposit('0x98', c(10)))).mldsa44 }], 1);
      // …and the other way round: a correct ML-DSA-44 half with another message's secp256k1 half.
      await fail([good, { ...k1, secp256k1: sign(K[1], inboundDigest(deposit('0x98', c(10)))).secp256k1 }], 1);
      // A member's signature presented under another member's name.
      await fail([good, { ...sign(K[0], d2), signer: K[1].address }], 1);
      // Duplicate signer: counted once.
      await fail([good, good, { ...good, signer: good.signer.toUpperCase().replace('0X', '0x') as Address }], 1);
      // Signature by a non-member (a valid hybrid signature of K[3], not in the committee).
      await fail([good, sign(K[3], d2)], 1);
      // Signatures over a different amount, recipient or chain id.
      await fail([good, sign(K[1], inboundDigest({ ...m2, amount: String(c(11)) }))], 1);
      await fail([good, sign(K[1], inboundDigest({ ...m2, to: U4 }))], 1);
      await fail([good, sign(K[1], inboundDigest({ ...m2, asset: `0x${'12'.repeat(20)}` }))], 1);
      await fail([good, sign(K[1], digestOnChain(CHAIN_ID + 1, m2))], 1);
      await fail([sign(K[0], digestOnChain(CHAIN_ID + 1, m2)), sign(K[1], digestOnChain(CHAIN_ID + 1, m2))], 0);
      // The digest recomputed here is the protocol's on the chain's own id (the test's derivation is right).
      expect(toHex(digestOnChain(CHAIN_ID, m2))).toBe(toHex(d2));
      // A chain with its own id signs and checks its own (the SDK's and CLI's digest take it).
      expect(toHex(inboundDigest(m2, CHAIN_ID + 1))).toBe(toHex(digestOnChain(CHAIN_ID + 1, m2)));
      // Three signatures, one forged: a quorum of two valid ones is enough; the failures above left no trace.
      const ok = await w.tx('BRIDGE_IN', U1, {
        data: { ...m2, signatures: [{ ...k1, mldsa44: `0x${'00'.repeat(2420)}` }, good, sign(K[2], d2)] },
      });
      await w.block([ok]);
      expect(await status(w, ok.id)).toBe('RELEASED');
      await conserved(w);
    },
  );

  it('refuses more than is locked, and more than is locked minus what DELAYED transfers reserved', async () => {
    const w = await bridgeWorld();
    const free = (locked: bigint, reserved: bigint, want: bigint) =>
      `the bridge holds ${locked - reserved} base units of native free to release ` +
      `(${locked} locked, ${reserved} promised), less than ${want}`;
    await w.fails('BRIDGE_IN', U1, { data: attested(deposit('0x10', c(1000) + 1n)) }, free(c(1000), 0n, c(1000) + 1n));
    // Nothing of another asset is locked.
    const tok = `0x${'34'.repeat(20)}` as Hex;
    await w.fails(
      'BRIDGE_IN',
      U1,
      { data: attested(deposit('0x11', 1n, U3, tok)) },
      `the bridge holds 0 base units of ${tok} free to release (0 locked, 0 promised), less than 1`,
    );
    // 300 coins wait (over the 100-coin breaker share): reserved.
    const big = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x12', c(300))) });
    await w.block([big]);
    expect(await status(w, big.id)).toBe('DELAYED');
    expect(await getPool(w.state, 'native')).toMatchObject({ locked: String(c(1000)), reserved: String(c(300)) });
    await w.fails(
      'BRIDGE_IN',
      U1,
      { data: attested(deposit('0x13', c(700) + 1n)) },
      free(c(1000), c(300), c(700) + 1n),
    );
    // Exactly what is free is accepted (and waits too).
    const rest = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x13', c(700))) });
    await w.block([rest]);
    expect(await status(w, rest.id)).toBe('DELAYED');
    expect(await getPool(w.state, 'native')).toMatchObject({ locked: String(c(1000)), reserved: String(c(1000)) });
    await w.fails('BRIDGE_IN', U1, { data: attested(deposit('0x14', 1n)) }, free(c(1000), c(1000), 1n));
    await conserved(w);
  });
});

describe('the circuit breaker', () => {
  it('delays a release over the window share until the next window, then releases it', async () => {
    const w = await bridgeWorld();
    await toWindowStart(w);
    const first = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x20', c(60))) });
    await w.block([first]);
    expect(await status(w, first.id)).toBe('RELEASED');
    const window = Math.floor(w.height / WINDOW);
    expect(await getBreaker(w.state, 'native')).toEqual({
      asset: 'native',
      window,
      base: String(c(1000)),
      used: String(c(60)),
      exempted: false,
    });
    const second = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x21', c(60), U4)) });
    const before = await balance(w, U4);
    await w.block([second]);
    const releaseAt = (window + 1) * WINDOW;
    expect(await status(w, second.id)).toBe('DELAYED');
    expect(await transfer(w, second.id)).toMatchObject({
      releaseAt,
      holds: 1,
      closedAt: null,
      reason:
        `the circuit breaker of native allows ${c(40)} more base units in window ${window} ` +
        `(BRIDGE_BREAKER_BPS of ${c(1000)}): released from height ${releaseAt}`,
    });
    expect(releaseAt).toBeGreaterThan(w.height);
    await w.until(releaseAt - 1);
    expect(await status(w, second.id)).toBe('DELAYED');
    expect(await balance(w, U4)).toBe(before);
    await w.block();
    expect(await status(w, second.id)).toBe('RELEASED');
    expect(await transfer(w, second.id)).toMatchObject({ releaseAt: null, closedAt: releaseAt, reason: null });
    expect((await balance(w, U4)) - before).toBe(c(60));
    // The new window's base is the pool at its first release.
    expect(await getBreaker(w.state, 'native')).toEqual({
      asset: 'native',
      window: window + 1,
      base: String(c(940)),
      used: String(c(60)),
      exempted: false,
    });
    await conserved(w);
  });

  it(
    'releases a transfer larger than a whole window share after one window; ' + 'a second one waits another window',
    async () => {
      const w = await bridgeWorld();
      await toWindowStart(w);
      const a = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x30', c(300))) });
      const b = await w.tx('BRIDGE_IN', U4, { data: attested(deposit('0x31', c(250), U4)) });
      await w.block([a, b]);
      const window = Math.floor(w.height / WINDOW);
      const [lo, hi] = [a.id, b.id].sort();
      for (const id of [a.id, b.id])
        expect(await transfer(w, id)).toMatchObject({ releaseAt: (window + 1) * WINDOW, holds: 1 });
      await w.until((window + 1) * WINDOW);
      // The first by id goes although it is over the share (nothing released in the window yet); the other waits again.
      expect(await status(w, lo)).toBe('RELEASED');
      expect(await status(w, hi)).toBe('DELAYED');
      expect(await transfer(w, hi)).toMatchObject({ releaseAt: (window + 2) * WINDOW, holds: 2 });
      await w.until((window + 2) * WINDOW - 1);
      expect(await status(w, hi)).toBe('DELAYED');
      await w.block();
      expect(await status(w, hi)).toBe('RELEASED');
      expect(await getPool(w.state, 'native')).toMatchObject({
        locked: String(c(450)),
        reserved: '0',
        releasedTotal: String(c(550)),
      });
      await conserved(w);
    },
  );

  it('a delayed transfer over the share is not starved by small releases taken first in its window', async () => {
    const w = await bridgeWorld();
    await toWindowStart(w);
    const big = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x60', c(300))) });
    await w.block([big]);
    const { releaseAt } = await transfer(w, big.id);
    expect(await status(w, big.id)).toBe('DELAYED');
    // Small deposits attested in the block at the window's start, released in id order with the big one.
    await w.until(releaseAt! - 1);
    // Two small deposits whose ids come before the big one's: released first, they use the share.
    const small: SignedTx[] = [];
    for (let i = 0; small.length < 2; i++) {
      const t = await w.tx('BRIDGE_IN', [U3, U4][small.length], { data: attested(deposit(`0x7${i}`, c(1), U2)) });
      if (t.id < big.id) small.push(t);
    }
    await w.block(small);
    for (const t of small) expect(await status(w, t.id)).toBe('RELEASED');
    expect(await status(w, big.id)).toBe('RELEASED');
    expect(await getBreaker(w.state, 'native')).toMatchObject({ exempted: true });
    await conserved(w);
  });

  it('refuses data.to = the bridge escrow, and checks only the first signature of each member', async () => {
    const w = await bridgeWorld();
    const m = deposit('0x70', c(1), '0x0000000000000000000000000000000000000079');
    expect(validate(await w.tx('BRIDGE_IN', U1, { data: attested(m) }))).toBe(
      'BRIDGE_IN data.to cannot be the bridge escrow (0x…79)',
    );
    const ok = deposit('0x71', c(1));
    const bad = {
      ...sign(OLD[1], inboundDigest(ok)),
      mldsa44: sign(OLD[1], inboundDigest(deposit('0x72', c(1)))).mldsa44,
    };
    // A member's bad signature first: its good one after it is not checked.
    await w.fails(
      'BRIDGE_IN',
      U1,
      { data: { ...ok, signatures: [sign(OLD[0], inboundDigest(ok)), bad, sign(OLD[1], inboundDigest(ok))] } },
      'BRIDGE_IN: 1 valid member signatures of 2 needed ' +
        '(committee epoch 1; both secp256k1 and ML-DSA-44 halves of each)',
    );
  });

  it('decides the transfers of one block in id order, whatever the order of its transactions', async () => {
    const world = async () => {
      const w = await bridgeWorld();
      await toWindowStart(w);
      return { w, h: w.height + 1 };
    };
    const one = await world();
    const two = await world();
    expect(two.h).toBe(one.h);
    // The same three signed transactions (same senders and nonces in both worlds).
    const txs: SignedTx[] = [];
    for (const [i, from] of [U1, U3, U4].entries())
      txs.push(await one.w.tx('BRIDGE_IN', from, { data: attested(deposit(`0x4${i}`, c(40), U2)) }));
    await one.w.block(txs);
    await two.w.block([...txs].reverse());
    const ids = txs.map((t) => t.id).sort();
    for (const w of [one.w, two.w]) {
      expect(await Promise.all(ids.map((id) => status(w, id)))).toEqual(['RELEASED', 'RELEASED', 'DELAYED']);
      expect(await getBreaker(w.state, 'native')).toMatchObject({ used: String(c(80)) });
    }
  });
});

describe('a payout that became impossible', () => {
  it(
    'REFUSED when the token is paused between attestation and release: ' + 'reservation withdrawn, nothing paid',
    async () => {
      const w = await bridgeWorld();
      const token = await withToken(w);
      await toWindowStart(w);
      const inn = await w.tx('BRIDGE_IN', U2, { data: attested(deposit('0x50', 500n, U3, token)) });
      await w.block([inn]);
      const { releaseAt } = await transfer(w, inn.id);
      expect(await status(w, inn.id)).toBe('DELAYED');
      expect(await getPool(w.state, token)).toMatchObject({ locked: '1000', reserved: '500' });
      await w.ok('TOKEN_PAUSE', U1, { data: { token } });
      await w.until(releaseAt!);
      expect(await status(w, inn.id)).toBe('REFUSED');
      expect(await transfer(w, inn.id)).toMatchObject({
        reason: 'token is paused',
        closedAt: releaseAt,
        releaseAt: null,
      });
      expect(await getPool(w.state, token)).toMatchObject({ locked: '1000', reserved: '0', releasedTotal: '0' });
      expect(await getTokenBalance(w.state, token, U3)).toBe(0n);
      await conserved(w, token);
      // Terminal: unpausing does not revive it; the deposit, which paid nothing, may be attested again and then
      // released
      // once.
      await w.ok('TOKEN_UNPAUSE', U1, { data: { token } });
      await w.until(w.height + WINDOW);
      expect(await status(w, inn.id)).toBe('REFUSED');
      const again = await w.tx('BRIDGE_IN', U2, { data: attested(deposit('0x50', 500n, U3, token)) });
      await w.block([again]);
      const { releaseAt: at2 } = await transfer(w, again.id);
      if (at2 !== null) await w.until(at2);
      expect(await status(w, again.id)).toBe('RELEASED');
      expect(await getTokenBalance(w.state, token, U3)).toBe(500n);
      await w.fails(
        'BRIDGE_IN',
        U2,
        { data: attested(deposit('0x50', 500n, U3, token)) },
        `deposit ethereum:0x50 was already attested (transfer ${again.id})`,
      );
      await conserved(w, token);
    },
  );

  it('REFUSED at the end of its own block when the recipient is blacklisted after the attestation', async () => {
    const w = await bridgeWorld();
    const token = await withToken(w);
    const inn = await w.tx('BRIDGE_IN', U2, { data: attested(deposit('0x51', 50n, U4, token)) });
    await w.block([inn, await w.tx('TOKEN_BLACKLIST', U1, { to: U4, data: { token, blacklisted: true } })]);
    expect(await status(w, inn.id)).toBe('REFUSED');
    expect(await transfer(w, inn.id)).toMatchObject({ reason: 'recipient is blacklisted', closedAt: w.height });
    expect(await getPool(w.state, token)).toMatchObject({ locked: '1000', reserved: '0' });
    expect(await getBreaker(w.state, token)).toBeUndefined();
    await conserved(w, token);
  });
});

describe('committee rotation (BRIDGE_COMMITTEE_UPDATE)', () => {
  it(
    'the old quorum hands over to epoch 2; a replay is refused; ' +
      'the new members sign from then on, the old ones no longer',
    async () => {
      const w0 = await EconWorld.create(
        BRIDGE_PARAMS,
        undefined,
        K.map((k) => k.address),
      );
      const members = NEW.map(memberOf);
      const d2 = committeeDigest({ epoch: 2, members, threshold: 2 });
      const rotation = { members, threshold: 2, signatures: OLD.map((k) => sign(k, d2)) };
      await w0.fails('BRIDGE_COMMITTEE_UPDATE', U1, { data: rotation }, NO_COMMITTEE);

      const w = await bridgeWorld();
      // One signature, or signatures over this epoch (1) instead of the next: no quorum.
      await w.fails(
        'BRIDGE_COMMITTEE_UPDATE',
        U1,
        { data: { ...rotation, signatures: [sign(K[0], d2)] } },
        quorum('BRIDGE_COMMITTEE_UPDATE', 1, 2, 1),
      );
      const d1 = committeeDigest({ epoch: 1, members, threshold: 2 });
      await w.fails(
        'BRIDGE_COMMITTEE_UPDATE',
        U1,
        { data: { ...rotation, signatures: OLD.map((k) => sign(k, d1)) } },
        quorum('BRIDGE_COMMITTEE_UPDATE', 0, 2, 1),
      );
      // Signed for another threshold.
      const d2t3 = committeeDigest({ epoch: 2, members, threshold: 3 });
      await w.fails(
        'BRIDGE_COMMITTEE_UPDATE',
        U1,
        { data: { ...rotation, signatures: OLD.map((k) => sign(k, d2t3)) } },
        quorum('BRIDGE_COMMITTEE_UPDATE', 0, 2, 1),
      );
      // The members' order does not change the digest.
      await w.ok('BRIDGE_COMMITTEE_UPDATE', U1, { data: { ...rotation, members: [...members].reverse() } });
      const cm = (await getCommittee(w.state))!;
      expect(cm).toEqual({
        epoch: 2,
        members: [...members].sort((a, b) => (a.address < b.address ? -1 : 1)),
        threshold: 2,
        since: w.height,
      });
      // Replayed: the same signature set is over epoch 2, the committee now needs epoch 3 (K[2], still a member, signed
      // it too).
      await w.fails('BRIDGE_COMMITTEE_UPDATE', U4, { data: rotation }, quorum('BRIDGE_COMMITTEE_UPDATE', 0, 2, 2));
      // Deposits: the new committee's signatures work, the old one's do not.
      await w.fails(
        'BRIDGE_IN',
        U1,
        { data: attested(deposit('0x60', c(5)), K.slice(0, 2)) },
        quorum('BRIDGE_IN', 0, 2, 2),
      );
      await w.fails(
        'BRIDGE_IN',
        U1,
        { data: attested(deposit('0x60', c(5)), [K[1], K[2]]) },
        quorum('BRIDGE_IN', 1, 2, 2),
      );
      const inn = await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x60', c(5)), [K[3], K[4]]) });
      await w.block([inn]);
      expect(await status(w, inn.id)).toBe('RELEASED');
      expect(await transfer(w, inn.id)).toMatchObject({ epoch: 2 });
      // Settling too.
      const out = await w.tx('BRIDGE_OUT', U2, {
        amount: String(c(3)),
        data: { chain: 'ethereum', recipient: '0xabc' },
      });
      await w.block([out]);
      await w.fails(
        'BRIDGE_SETTLE',
        K[0].address,
        { data: { transferId: out.id, targetTx: '0x1' } },
        `${K[0].address} is not a member of the bridge committee (epoch 2)`,
      );
      await w.ok('BRIDGE_SETTLE', K[4].address, { data: { transferId: out.id, targetTx: '0x1' } });
      // A later proposal replaces the committee (epoch 3): a rotation the second committee signed for epoch 3 is void
      // (K[4] is still a member, but the next rotation is epoch 4).
      const d3 = committeeDigest({ epoch: 3, members: OLD.map(memberOf), threshold: 2 });
      const back = { members: OLD.map(memberOf), threshold: 2, signatures: NEW.map((k) => sign(k, d3)) };
      await installByProposal(w, [K[0], K[4]], 2);
      expect((await getCommittee(w.state))!.members.map((m) => m.address)).toEqual([K[0].address, K[4].address].sort());
      await w.fails('BRIDGE_COMMITTEE_UPDATE', U1, { data: back }, quorum('BRIDGE_COMMITTEE_UPDATE', 0, 2, 3));
      await conserved(w);
    },
  );

  it('refuses a new committee that is not one (stateless)', () => {
    const members = NEW.map(memberOf);
    const sig = sign(K[0], committeeDigest({ epoch: 2, members, threshold: 2 }));
    const v = (data: object) =>
      validate(
        envelope('BRIDGE_COMMITTEE_UPDATE', U1, { data: { members, threshold: 2, signatures: [sig], ...data } }),
      );
    expect(v({})).toBeUndefined();
    const reason = `BRIDGE_COMMITTEE_UPDATE data.members and data.threshold ${NOT_COMMITTEE.replace(/^is/, 'are')}`;
    expect(v({ threshold: 1 })).toBe(reason);
    expect(v({ threshold: 4 })).toBe(reason);
    expect(v({ members: [members[0], members[0], members[1]] })).toBe(reason);
    expect(v({ members: [{ ...members[0], address: members[1].address }, members[2]] })).toBe(reason);
  });
});

describe('GOV_PROPOSE data.committee', () => {
  const keys8 = [...K, ...[6, 7, 8].map((i) => deriveKeys(new Uint8Array(32).fill(i)))];
  const propose = (data: object) => validate(envelope('GOV_PROPOSE', U1, { amount: String(c(10)), data }));
  const committee = (members = OLD.map(memberOf), threshold = 2) => ({ committee: { members, threshold } });
  const reason = `GOV_PROPOSE data.committee ${NOT_COMMITTEE}`;

  it('accepts 1 to 7 distinct members whose keys control their addresses, with a threshold over half', () => {
    expect(propose(committee())).toBeUndefined();
    expect(propose(committee([memberOf(K[0])], 1))).toBeUndefined();
    expect(propose(committee(keys8.slice(0, MAX_COMMITTEE_MEMBERS).map(memberOf), 4))).toBeUndefined();
    // Upper-case hex is read as lower-case.
    expect(
      propose(
        committee(
          OLD.map(memberOf).map((m) => ({ ...m, address: m.address.toUpperCase().replace('0X', '0x') as Address })),
        ),
      ),
    ).toBeUndefined();
  });

  it(
    'refuses a threshold of half or less, a key that does not control the address, ' +
      'a duplicate, more than 7, and mixing with param or spend',
    () => {
      expect(propose(committee(OLD.map(memberOf), 1))).toBe(reason);
      expect(propose(committee(K.slice(0, 4).map(memberOf), 2))).toBe(reason);
      expect(propose(committee(OLD.map(memberOf), 4))).toBe(reason);
      const [a, b, cc] = OLD.map(memberOf);
      expect(propose(committee([{ ...a, address: b.address }, cc]))).toBe(reason);
      expect(propose(committee([a, { ...b, secp256k1: a.secp256k1 }, cc]))).toBe(reason);
      expect(propose(committee([a, a, b]))).toBe(reason);
      // A point off the curve.
      expect(propose(committee([a, b, { ...cc, secp256k1: `0x02${'00'.repeat(32)}` as Hex }]))).toBe(reason);
      const eight = propose(committee(keys8.map(memberOf), 5));
      expect(eight).toMatch(
        /^GOV_PROPOSE data\.committee must be \{members: \[\.\.\.\], threshold: integer\}; members a list of 1 to 7 /,
      );
      const exclusive = 'GOV_PROPOSE needs exactly one of data.param with data.value, data.spend or data.committee';
      expect(propose({ ...committee(), param: 'MAX_VALIDATORS', value: '25' })).toBe(exclusive);
      expect(propose({ ...committee(), spend: { to: U2, amount: '5' } })).toBe(exclusive);
    },
  );
});

describe('conservation', () => {
  it(
    'the escrow holds exactly what the pools locked, ' +
      'and coins are conserved, through outs, ins, delays and refusals',
    async () => {
      const w = await bridgeWorld();
      const token = await withToken(w, 2000n);
      await toWindowStart(w);
      await w.block([
        await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x70', c(90))) }),
        await w.tx('BRIDGE_IN', U2, { data: attested(deposit('0x71', 150n, U4, token)) }),
        await w.tx('BRIDGE_OUT', U3, { amount: String(c(7)), data: { chain: 'base', recipient: 'r' } }),
      ]);
      await conserved(w, token);
      await w.block([
        await w.tx('BRIDGE_IN', U1, { data: attested(deposit('0x72', c(90), U4)) }),
        await w.tx('BRIDGE_IN', U2, { data: attested(deposit('0x73', 100n, U2, token)) }),
      ]);
      await conserved(w, token);
      await w.ok('TOKEN_PAUSE', U1, { data: { token } });
      await w.until(w.height + 2 * WINDOW);
      await conserved(w, token);
      const native = await getPool(w.state, 'native');
      expect(native).toMatchObject({
        reserved: '0',
        lockedTotal: String(c(1007)),
        releasedTotal: String(c(180)),
        locked: String(c(827)),
      });
      const pool = await getPool(w.state, token);
      expect(pool).toMatchObject({ reserved: '0', lockedTotal: '2000', releasedTotal: '150', locked: '1850' });
      expect(await getTokenBalance(w.state, token, U4)).toBe(150n);
    },
  );
});

describe('digests as SDK callers build them', () => {
  it(
    'sign lower case and only the member keys: checksum-case addresses and members from GET /bridge ' +
      "(with native) give the node's digests",
    () => {
      const m = deposit('0x80', c(1), U3);
      expect(inboundDigest({ ...m, to: m.to.toUpperCase().replace('0X', '0x') as Address })).toEqual(inboundDigest(m));
      const members = K.slice(0, 3).map(memberOf);
      const shown = members.map((x) => ({
        ...x,
        native: 'cairn1…',
        mldsa44: x.mldsa44.toUpperCase().replace('0X', '0x'),
      }));
      expect(committeeDigest({ epoch: 2, members: shown as never, threshold: 2 })).toEqual(
        committeeDigest({ epoch: 2, members, threshold: 2 }),
      );
    },
  );
});
