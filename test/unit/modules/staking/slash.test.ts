import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signHeader } from '../../../../src/chain/block';
import { decodeEnvelope } from '../../../../src/chain/envelope';
import { deriveKeys, type HybridKeys } from '../../../../src/crypto/keys';
import { getCandidate, getValidatorSet, getVoter, putCandidate, slashedKey } from '../../../../src/modules/staking';
import { REGISTRY } from '../../../../src/modules/registry';
import { loadSupply } from '../../../../src/protocol/execState';
import { loadParams } from '../../../../src/protocol/governable';
import {
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
} from '../../../../src/protocol/params';
import type { BlockHeader, SignedBlockHeader } from '../../../../src/protocol/types';
import { COIN } from '../../../../src/primitives/amount';
import { fromHex, toHex, type Hex } from '../../../../src/primitives/hex';
import { buildTx } from '../../../../src/sdk/assets';
import { runCliCaptured as cli } from '../../../helpers/cliRun';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { DEV_NETWORK } from '../../../../src/chain/devnet';

/** SLASH_DOUBLE_SIGN (modules/staking/slash.ts): evidence, refusals, nullifier, penalty, jail. */

const c = (n: number | bigint) => BigInt(n) * COIN;
const s = (n: number | bigint) => String(c(n));
const SYSTEM = [REWARD_POOL_ADDRESS, TREASURY_ADDRESS, UNBONDING_ADDRESS, GOV_ESCROW_ADDRESS];

/** U1's block-signing keys (bound by its STAKE), and someone else's. */
const KEYS = deriveKeys(fromHex('5a'.repeat(32)));
const OTHER = deriveKeys(fromHex('6b'.repeat(32)));
const bound = (k: HybridKeys) => ({ secp256k1: toHex(k.secp256k1.publicKey), mldsa44: toHex(k.mldsa44.publicKey) });

const hash = (b: string): Hex => `0x${b.repeat(32)}`;
function header(over: Partial<BlockHeader> = {}, keys: HybridKeys = KEYS): SignedBlockHeader {
  return signHeader(keys, {
    height: 3,
    parentHash: hash('aa'),
    timestamp: 3_000,
    producer: U1,
    txRoot: hash('bb'),
    stateRoot: hash('cc'),
    txCount: 0,
    ...over,
  });
}
/** Two different blocks U1 signed at height 3 (they differ in their state root). */
const A = header();
const B = header({ stateRoot: hash('dd') });

/** A chain where U1 is an elected validator candidate bound to KEYS (elected at 5, blocks by V0). */
async function world(params: Record<string, string> = {}): Promise<EconWorld> {
  const w = await EconWorld.create(params);
  await w.ok('STAKE', U1, { amount: s(1500), data: { candidate: true, signingKeys: bound(KEYS) } });
  await w.until(5);
  expect((await getValidatorSet(w.state)).active).toEqual(expect.arrayContaining([U1, V0]));
  return w;
}

const slash = (evidence: { a: SignedBlockHeader; b: SignedBlockHeader }) => ({ data: { evidence } });

/** Every coin is on some account: Σ balance + staked = the supply counter, Σ staked = the staked counter. */
async function expectSupplyConserved(w: EconWorld) {
  const sup = await loadSupply(w.state);
  expect(await w.total([U1, U2, U3, U4, V0, ...SYSTEM])).toBe(sup.supply);
  let staked = 0n;
  for (const a of [U1, U2, U3, U4, V0]) staked += (await w.account(a)).staked;
  expect(staked).toBe(sup.staked);
}

describe('SLASH_DOUBLE_SIGN: a proven double sign', () => {
  it(
    'takes SLASH_DOUBLE_SIGN_BPS of the stake to the treasury, ' +
      'jails the producer for good, out of the active set, with events',
    async () => {
      const w = await world();
      const p = await loadParams(w.state);
      expect(p.SLASH_DOUBLE_SIGN_BPS).toBe(500n);
      const before = {
        u1: await w.account(U1),
        treasury: (await w.account(TREASURY_ADDRESS)).balance,
        supply: await loadSupply(w.state),
      };

      const r = await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
      const penalty = c(75); // 5% of 1,500 coins, all of it free stake
      const u1 = await w.account(U1);
      expect(u1.staked).toBe(before.u1.staked - penalty);
      expect(u1.balance).toBe(before.u1.balance);
      // The treasury got the penalty and this block's TREASURY_REWARD, nothing else.
      expect((await w.account(TREASURY_ADDRESS)).balance - before.treasury).toBe(penalty + p.TREASURY_REWARD);
      const after = await loadSupply(w.state);
      expect(after.staked).toBe(before.supply.staked - penalty);
      // the slash mints or burns nothing
      expect(after.supply).toBe(before.supply.supply + p.BLOCK_REWARD + p.TREASURY_REWARD - BigInt(r.burned));
      await expectSupplyConserved(w);

      expect((await getCandidate(w.state, U1))!.jailed).toEqual({ at: w.height, reason: 'double-sign' });
      expect((await getValidatorSet(w.state)).active).toEqual([V0]);
      expect(u1.isValidator).toBe(false);
      expect(r.events).toEqual([
        {
          kind: 'validators.slash',
          address: U1,
          height: 3,
          penalty: String(penalty),
          fromStake: String(penalty),
          reporter: U2,
        },
        { kind: 'validators.jail', address: U1, height: w.height, reason: 'double-sign', active: [V0] },
      ]);
      expect(await w.state.getRecord(slashedKey(U1, 3))).toEqual({
        at: w.height,
        reporter: U2,
        penalty: String(penalty),
      });
      expect(REGISTRY.SLASH_DOUBLE_SIGN.report!(r.events!)).toEqual({ penalty: String(penalty) });

      // One offence is slashed once, whoever reports it and in whichever order the headers come.
      await w.fails(
        'SLASH_DOUBLE_SIGN',
        U3,
        slash({ a: B, b: A }),
        'this double sign (producer and height) was already slashed',
      );
      // Jailed for good: STAKE never lets it stand again.
      await w.fails(
        'STAKE',
        U1,
        { amount: s(1), data: { candidate: true } },
        'the sender was slashed for double signing and cannot stand again',
      );
      await w.until(w.height + 5); // an election passes: still out
      expect((await getValidatorSet(w.state)).active).toEqual([V0]);
      await expectSupplyConserved(w);
    },
  );

  it(
    'a later offence at another height is slashed again (the stake as it is then); ' + 'the jail stays as it was',
    async () => {
      const w = await world();
      await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
      const jailed = (await getCandidate(w.state, U1))!.jailed;
      const r = await w.ok(
        'SLASH_DOUBLE_SIGN',
        U2,
        slash({ a: header({ height: 4 }), b: header({ height: 4, txCount: 1 }) }),
      );
      expect(r.events).toEqual([
        {
          kind: 'validators.slash',
          address: U1,
          height: 4,
          penalty: String((c(1425) * 500n) / 10_000n),
          fromStake: String((c(1425) * 500n) / 10_000n),
          reporter: U2,
        },
      ]);
      expect((await getCandidate(w.state, U1))!.jailed).toEqual(jailed);
      await expectSupplyConserved(w);
    },
  );

  it('a candidate jailed for downtime is jailed for good', async () => {
    const w = await world();
    await putCandidate(w.state, { ...(await getCandidate(w.state, U1))!, jailed: { at: 2, reason: 'downtime' } });
    await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
    expect((await getCandidate(w.state, U1))!.jailed).toEqual({ at: w.height, reason: 'double-sign' });
  });
});

describe('SLASH_DOUBLE_SIGN refuses evidence that proves nothing', () => {
  it.each([
    ['different producers', () => ({ a: A, b: header({ producer: U2 }) }), 'the two headers have different producers'],
    ['different heights', () => ({ a: A, b: header({ height: 4 }) }), 'the two headers are at different heights'],
    [
      'one block twice',
      () => ({ a: A, b: { ...A } }),
      'the two headers have the same hash: they are one block, not two',
    ],
    [
      'header a altered after signing',
      () => ({ a: { ...A, txCount: 9 }, b: B }),
      "header a's hash does not match its contents",
    ],
    [
      'header b with another block hash',
      () => ({ a: A, b: { ...B, hash: hash('ee') } }),
      "header b's hash does not match its contents",
    ],
    [
      'header b signed by other keys',
      () => ({ a: A, b: header({ stateRoot: hash('dd') }, OTHER) }),
      "header b's signatures do not verify against the producer's block-signing keys",
    ],
    [
      "header a's secp256k1 signature from another header",
      () => ({ a: { ...A, signatures: { ...A.signatures, secp256k1: B.signatures.secp256k1 } }, b: B }),
      "header a's signatures do not verify against the producer's block-signing keys",
    ],
    [
      'a producer that is no candidate',
      () => ({ a: header({ producer: U3 }), b: header({ producer: U3, stateRoot: hash('dd') }) }),
      'the producer is not a validator candidate',
    ],
    // The genesis validator has no bound keys in this world ("0x"): nothing verifies, nothing throws.
    [
      'a producer whose keys do not sign these',
      () => ({ a: header({ producer: V0 }), b: header({ producer: V0, stateRoot: hash('dd') }) }),
      "header a's signatures do not verify against the producer's block-signing keys",
    ],
  ] as const)('%s', async (_label, evidence, reason) => {
    const w = await world();
    await w.fails('SLASH_DOUBLE_SIGN', U2, slash(evidence()), reason);
    expect(await w.state.getRecord(slashedKey(U1, 3))).toBeUndefined();
    expect((await getCandidate(w.state, U1))!.jailed ?? null).toBeNull();
    expect((await w.account(U1)).staked).toBe(c(1500));
  });
});

describe('the penalty keeps votes and resource loans consistent', () => {
  it(
    'takes free stake first, then stake backing votes (its own votes first, ' +
      'rewards settled), never lent stake; then the liquid balance',
    async () => {
      const w = await world({ SLASH_DOUBLE_SIGN_BPS: '2000' });
      await w.ok('VOTE', U1, { data: { votes: { [U1]: s(1000), [V0]: s(400) } } });
      await w.ok('DELEGATE_RESOURCE', U1, { to: U3, data: { amount: s(200) } });
      await w.until(10); // U1 earns voter rewards meanwhile
      // 20% of 1,500 = 300: the free stake is 100 (1,500 − 1,400 voted), so 200 more comes from voted stake.
      const r = await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
      expect(r.events![0]).toEqual({
        kind: 'validators.slash',
        address: U1,
        height: 3,
        penalty: s(300),
        fromStake: s(300),
        reporter: U2,
      });
      const u1 = await w.account(U1);
      expect(u1.staked).toBe(c(1200));
      expect(u1.delegatedOut).toBe(c(200)); // the loan is whole
      const v = await getVoter(w.state, U1);
      expect(v.votes).toEqual({ [U1]: s(800), [V0]: s(400) }); // cut from its vote for itself
      expect(v.total).toBe(s(1200));
      expect(BigInt(v.claimable)).toBeGreaterThan(0n); // rewards earned before the cut are kept
      expect((await getCandidate(w.state, U1))!.received).toBe(s(800));
      expect((await getCandidate(w.state, V0))!.received).toBe(s(400));
      await expectSupplyConserved(w);
    },
  );

  it(
    'when the stake that is not lent does not cover it, ' +
      'cuts every vote and takes the liquid balance; the rest is not collected',
    async () => {
      const w = await world({ SLASH_DOUBLE_SIGN_BPS: '10000' });
      await w.ok('VOTE', U1, { data: { votes: { [U1]: s(1000), [V0]: s(400) } } });
      await w.ok('DELEGATE_RESOURCE', U1, { to: U3, data: { amount: s(200) } });
      const before = await w.account(U1);
      // leaves about 150 coins liquid
      await w.ok('TRANSFER', U1, { to: U4, amount: String(before.balance - c(150) - COIN) });
      const liquid = (await w.account(U1)).balance;
      expect(liquid).toBeLessThan(c(200));
      const treasury = (await w.account(TREASURY_ADDRESS)).balance;
      const p = await loadParams(w.state);

      // 100% of 1,500: 1,300 from the stake that is not lent, then the whole liquid balance; the rest is waived.
      const r = await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
      expect(r.events![0]).toEqual({
        kind: 'validators.slash',
        address: U1,
        height: 3,
        penalty: String(c(1300) + liquid),
        fromStake: s(1300),
        reporter: U2,
      });
      const u1 = await w.account(U1);
      expect(u1).toMatchObject({ staked: c(200), delegatedOut: c(200), balance: 0n });
      expect((await w.account(TREASURY_ADDRESS)).balance - treasury).toBe(c(1300) + liquid + p.TREASURY_REWARD);
      const v = await getVoter(w.state, U1);
      expect(v.votes).toEqual({ [V0]: s(200) }); // its own vote gone, then V0's cut to what stays staked
      expect(v.total).toBe(s(200));
      expect((await getCandidate(w.state, U1))!.received).toBe('0');
      expect((await getCandidate(w.state, V0))!.received).toBe(s(200));
      await expectSupplyConserved(w);
    },
  );

  it('a producer reporting itself keeps what its own transaction may still burn', async () => {
    const w = await world({ SLASH_DOUBLE_SIGN_BPS: '10000' });
    await w.ok('DELEGATE_RESOURCE', U1, { to: U3, data: { amount: s(200) } });
    const before = await w.account(U1);
    await w.ok('TRANSFER', U1, { to: U4, amount: String(before.balance - c(50) - COIN) });
    const liquid = (await w.account(U1)).balance;
    const r = await w.ok('SLASH_DOUBLE_SIGN', U1, slash({ a: A, b: B }));
    // The fee limit of the envelopes here is 1 coin (more than 1,000 energy's burn): it stays.
    expect(r.events![0]).toMatchObject({ penalty: String(c(1300) + liquid - COIN), fromStake: s(1300), reporter: U1 });
    expect((await w.account(U1)).balance).toBe(COIN - BigInt(r.burned));
    await expectSupplyConserved(w);
  });

  it('with SLASH_DOUBLE_SIGN_BPS 0 takes nothing but still jails and nullifies', async () => {
    const w = await world({ SLASH_DOUBLE_SIGN_BPS: '0' });
    const r = await w.ok('SLASH_DOUBLE_SIGN', U2, slash({ a: A, b: B }));
    expect(r.events![0]).toMatchObject({ kind: 'validators.slash', penalty: '0', fromStake: '0' });
    expect((await w.account(U1)).staked).toBe(c(1500));
    expect((await getCandidate(w.state, U1))!.jailed?.reason).toBe('double-sign');
    await w.fails(
      'SLASH_DOUBLE_SIGN',
      U2,
      slash({ a: A, b: B }),
      'this double sign (producer and height) was already slashed',
    );
  });
});

/** The sentinel's double_sign alert as GET /security/alerts lists it (actors/sentinel/doubleSign.ts). */
const ALERT = {
  id: 7,
  kind: 'double_sign',
  severity: 'critical',
  message: `producer ${U1} signed two different blocks at height 3`,
  at: 1_700_000_000_000,
  height: 9,
  details: { producer: U1, height: 3, hashes: [A.hash, B.hash], evidence: [A, B] },
};

describe('the SDK builder and `cairn stake slash`', () => {
  it('build from {a, b}, the alert or its details', () => {
    const want = { type: 'SLASH_DOUBLE_SIGN', to: null, amount: '0', data: { evidence: { a: A, b: B } } };
    for (const evidence of [{ a: A, b: B }, ALERT, ALERT.details])
      expect(buildTx({ type: 'SLASH_DOUBLE_SIGN', evidence })).toEqual(want);
    expect(() =>
      buildTx({ type: 'SLASH_DOUBLE_SIGN', evidence: { ...ALERT, details: { ...ALERT.details, evidence: [A] } } }),
    ).toThrow(/^evidence must be \{a, b\}: two signed block headers, a double_sign alert or its details, got /);
    expect(() => buildTx({ type: 'SLASH_DOUBLE_SIGN', evidence: { a: A, b: { ...B, height: 0 } } })).toThrow(
      /^evidence must hold two signed block headers as blocks carry them, got .{0,120}$/,
    );
  });

  const dir = mkdtempSync(join(tmpdir(), 'cairn-slash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const OFFLINE = [
    '--secret',
    '22'.repeat(32),
    '--nonce',
    '4',
    '--timestamp',
    '1700000000000',
    '--sign-only',
    '--genesis-hash',
    DEV_NETWORK.genesisHash,
  ];

  it.each([
    ['{a, b}', { a: A, b: B }],
    ['the alert', ALERT],
    ["the alert's details", ALERT.details],
  ])('--evidence <file> holding %s signs the evidence', async (_label, content) => {
    const r = await cli(['stake', 'slash', '--evidence', file('e.json', content), ...OFFLINE]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const d = decodeEnvelope(JSON.parse(r.out), DEV_NETWORK);
    expect(d.ok && d.tx).toMatchObject({
      type: 'SLASH_DOUBLE_SIGN',
      to: null,
      amount: '0',
      data: { evidence: { a: A, b: B } },
      nonce: 4,
    });
  });

  it.each([
    ['no --evidence', [], /--evidence is required/],
    ['a missing file', ['--evidence', join(dir, 'nope.json')], /--evidence: cannot read .*nope\.json/],
    ['a file that is not JSON', ['--evidence', file('bad.json', '{"a":')], /--evidence: .*bad\.json is not JSON/],
    [
      'an alert without both headers',
      ['--evidence', file('one.json', { ...ALERT, details: { ...ALERT.details, evidence: [A] } })],
      /^cairn: --evidence must be \{a, b\}: two signed block headers, a double_sign alert or its details, got \{"id":7/,
    ],
  ])('usage error (exit 2): %s', async (_label, args, message) => {
    const r = await cli(['stake', 'slash', ...args, ...OFFLINE]);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });

  it('--help says which files it takes; the stake group lists it', async () => {
    const h = await cli(['stake', 'slash', '--help']);
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/^Usage: cairn stake slash --evidence <file>\n/);
    expect(h.out).toContain('double_sign');
    expect(h.out).toContain('GET /security/alerts');
    expect((await cli(['stake', '--help'])).out).toMatch(
      /^ {2}stake slash +--evidence <file> \(prove a double sign\)$/m,
    );
  });
});
