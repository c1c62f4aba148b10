import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildPayload,
  decodeEnvelope,
  decodeReceived,
  MAX_DATA_DEPTH,
  encodeTx,
  senderMatchesKey,
  signatureBytesOf,
  signingBytes,
  signTx,
  txId,
  verifyJobOf,
} from '../../../src/chain/envelope';
import { MAX_DATA_BYTES, TX_DOMAIN } from '../../../src/protocol/params';
import type { HybridTx } from '../../../src/protocol/types';
import { toNative } from '../../../src/crypto/address';
import { createFastVerifier } from '../../../src/crypto/fastVerify';
import { keccakHex } from '../../../src/crypto/hash';
import { verifyHybridReference } from '../../../src/crypto/hybrid';
import { verifyTxReference } from '../../../src/crypto/txSigning';
import { DEV_SEED, deriveKeys, devSecret } from '../../../src/crypto/keys';
import { canonicalJson } from '../../../src/primitives/canonical';
import { concatBytes, fromHex, toHex, utf8 } from '../../../src/primitives/hex';
import vectors from '../../vectors/envelope.json';
import { DEV_NETWORK } from '../../../src/chain/devnet';

const k0 = deriveKeys(devSecret(0));
const k1 = deriveKeys(devSecret(1));
const FIELDS = {
  type: 'TRANSFER',
  to: k1.address,
  amount: '1000000',
  nonce: 0,
  timestamp: 1700000000000,
  fee: '1000',
  data: null,
} as const;

/** A valid wire body (plain JSON object), ready to be broken one field at a time. */
const wire = (tx: HybridTx = signTx(k0, FIELDS, DEV_NETWORK)): Record<string, unknown> =>
  JSON.parse(encodeTx(tx)) as Record<string, unknown>;

describe('test vectors (test/vectors/envelope.json, docs/PROTOCOL.md)', () => {
  it('reproduces secrets, keys and addresses', () => {
    expect(vectors.devSeed).toBe(DEV_SEED);
    expect(vectors.txDomain).toBe(TX_DOMAIN);
    for (const a of vectors.accounts) {
      const k = deriveKeys(devSecret(a.index));
      expect(toHex(k.secret)).toBe(a.secret);
      expect(k.address).toBe(a.address);
      expect(toNative(k.address)).toBe(a.native);
      expect(toHex(k.secp256k1.privateKey)).toBe(a.secp256k1PrivateKey);
      expect(toHex(k.secp256k1.publicKey)).toBe(a.secp256k1PublicKey);
      expect(keccakHex(k.mldsa44.publicKey)).toBe(a.mldsa44PublicKeyKeccak);
    }
  });

  it('reproduces the canonical payload, signing bytes, id and signatures', () => {
    const v = vectors.transfer;
    const tx = signTx(k0, { ...v.fields, type: 'TRANSFER', to: v.fields.to as `0x${string}` }, DEV_NETWORK);
    const { id, publicKeys, signatures, ...payload } = tx;
    expect(canonicalJson(payload)).toBe(v.canonicalPayload);
    expect(vectors.network).toMatchObject(DEV_NETWORK);
    expect(toHex(signingBytes(tx, DEV_NETWORK))).toBe(v.signingBytesHex);
    // utf8(txDomain) ‖ the genesis hash's 32 bytes ‖ the canonical payload
    expect(v.signingBytesHex).toBe(
      toHex(utf8(TX_DOMAIN)) + DEV_NETWORK.genesisHash.slice(2) + toHex(utf8(v.canonicalPayload)).slice(2),
    );
    expect(id).toBe(v.id);
    expect(keccakHex(concatBytes(utf8(TX_DOMAIN), utf8(v.canonicalPayload)))).toBe(v.id);
    expect(signatures.secp256k1).toBe(v.signatures.secp256k1);
    expect(keccakHex(fromHex(signatures.mldsa44))).toBe(v.signatures.mldsa44Keccak);
    expect(publicKeys.secp256k1).toBe(vectors.accounts[0].secp256k1PublicKey);
    expect(encodeTx(tx)).toBe(JSON.stringify(v.envelope));
  });

  it('the stored envelope decodes and verifies', () => {
    const d = decodeEnvelope(vectors.transfer.envelope, DEV_NETWORK);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    const j = verifyJobOf(d.tx, DEV_NETWORK);
    expect(verifyHybridReference(j.msg, j.pubs, j.sigs)).toBe(true);
  });
});

describe('ids', () => {
  it('re-signing the same payload gives the same id', () => {
    const a = signTx(k0, FIELDS, DEV_NETWORK);
    const b = signTx(k0, FIELDS, DEV_NETWORK);
    expect(b.id).toBe(a.id);
    // A hedged (randomized) ML-DSA signature differs but the id does not.
    const hedged = {
      ...a,
      signatures: {
        ...a.signatures,
        mldsa44: toHex(ml_dsa44.sign(signingBytes(a, DEV_NETWORK), k0.mldsa44.secretKey)),
      },
    };
    expect(hedged.signatures.mldsa44).not.toBe(a.signatures.mldsa44);
    const d = decodeEnvelope(wire(hedged), DEV_NETWORK);
    expect(d.ok && d.tx.id).toBe(a.id);
  });

  it('any payload field changes the id', () => {
    const base = txId(buildPayload(k0, FIELDS, DEV_NETWORK.chainId));
    for (const change of [
      { nonce: 1 },
      { amount: '1000001' },
      { fee: '999' },
      { timestamp: 1700000000001 },
      { to: null },
      { data: 'x' },
    ]) {
      expect(txId(buildPayload(k0, { ...FIELDS, ...change }, DEV_NETWORK.chainId))).not.toBe(base);
    }
  });

  it('buildPayload applies defaults and refuses invalid fields', () => {
    const p = buildPayload(k0, { type: 'TRANSFER', nonce: 3 }, DEV_NETWORK.chainId);
    expect(p).toMatchObject({ chainId: 72020, from: k0.address, to: null, amount: '0', fee: '1000', data: null });
    expect(p.timestamp).toBeGreaterThan(0);
    expect(
      buildPayload(k0, { ...FIELDS, amount: 5n, fee: 7n, to: toNative(k1.address) }, DEV_NETWORK.chainId),
    ).toMatchObject({ amount: '5', fee: '7', to: k1.address });
    expect(() => buildPayload(k0, { ...FIELDS, amount: '01' }, DEV_NETWORK.chainId)).toThrow(/amount/);
    expect(() => buildPayload(k0, { ...FIELDS, nonce: -1 }, DEV_NETWORK.chainId)).toThrow(/nonce/);
    expect(() => buildPayload(k0, { ...FIELDS, to: '0x12' }, DEV_NETWORK.chainId)).toThrow(/to address/);
    expect(() => buildPayload(k0, { ...FIELDS, data: 1.5 }, DEV_NETWORK.chainId)).toThrow(/safe integers/);
  });
});

describe('decodeEnvelope', () => {
  it('accepts a valid envelope and normalises addresses and hex case', () => {
    const body = wire();
    body.from = toNative(k0.address);
    body.to = (body.to as string).toUpperCase().replace('0X', '0x');
    body.publicKeys = {
      secp256k1: (body.publicKeys as { secp256k1: string }).secp256k1.toUpperCase().replace('0X', '0x'),
      mldsa44: (body.publicKeys as { mldsa44: string }).mldsa44,
    };
    delete body.id;
    const d = decodeEnvelope(body, DEV_NETWORK);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.tx.from).toBe(k0.address);
    expect(d.tx.to).toBe(k1.address);
    expect(d.tx.id).toBe(vectors.transfer.id);
    expect(d.tx.publicKeys.secp256k1).toBe(vectors.accounts[0].secp256k1PublicKey);
    expect(senderMatchesKey(d.tx)).toBe(true);
  });

  it('treats an absent `to` and `data` as null', () => {
    const tx = signTx(k0, { type: 'TRANSFER', amount: '5', nonce: 1, timestamp: 5 }, DEV_NETWORK);
    const body = wire(tx);
    delete body.to;
    delete body.data;
    const d = decodeEnvelope(body, DEV_NETWORK);
    expect(d.ok && d.tx.to === null && d.tx.data === null && d.tx.id === tx.id).toBe(true);
  });

  const refusals: [string, (b: Record<string, unknown>) => unknown, string][] = [
    ['not an object', () => [1, 2], 'transaction must be a JSON object'],
    ['null body', () => null, 'transaction must be a JSON object'],
    ['unknown key', (b) => ({ ...b, gas: 1 }), 'unknown field: gas'],
    ['missing type', (b) => ({ ...b, type: undefined }), 'missing field: type'],
    ['missing nonce', (b) => ({ ...b, nonce: undefined }), 'missing field: nonce'],
    ['unknown type', (b) => ({ ...b, type: 'MINT_ME' }), 'unknown transaction type'],
    ['wrong chain id', (b) => ({ ...b, chainId: 1 }), 'wrong chain id'],
    ['chain id as string', (b) => ({ ...b, chainId: '72020' }), 'wrong chain id'],
    ['bad from', (b) => ({ ...b, from: '0x1234' }), 'invalid from address'],
    ['bad to checksum', (b) => ({ ...b, to: `${toNative(k1.address).slice(0, -1)}x` }), 'invalid to address'],
    ['numeric amount', (b) => ({ ...b, amount: 1000000 }), 'amount must be a non-negative integer string'],
    ['negative amount', (b) => ({ ...b, amount: '-1' }), 'amount must be a non-negative integer string'],
    ['decimal fee', (b) => ({ ...b, fee: '1.5' }), 'fee must be a non-negative integer string'],
    ['negative nonce', (b) => ({ ...b, nonce: -1 }), 'nonce must be a non-negative integer'],
    ['fractional nonce', (b) => ({ ...b, nonce: 1.5 }), 'nonce must be a non-negative integer'],
    ['zero timestamp', (b) => ({ ...b, timestamp: 0 }), 'timestamp must be a positive integer'],
    ['unsafe timestamp', (b) => ({ ...b, timestamp: 2 ** 53 }), 'timestamp must be a positive integer'],
    ['float in data', (b) => ({ ...b, data: { x: 0.5 } }), 'data numbers must be safe integers'],
    ['missing publicKeys', (b) => ({ ...b, publicKeys: undefined }), 'missing field: publicKeys'],
    [
      'short secp key',
      (b) => ({ ...b, publicKeys: { ...(b.publicKeys as object), secp256k1: '0x04' } }),
      'publicKeys.secp256k1 must be 0x hex of a 33- or 65-byte key',
    ],
    [
      'short mldsa key',
      (b) => ({ ...b, publicKeys: { ...(b.publicKeys as object), mldsa44: '0xabcd' } }),
      'publicKeys.mldsa44 must be 0x hex of a 1312-byte key',
    ],
    [
      'extra key field',
      (b) => ({ ...b, publicKeys: { ...(b.publicKeys as object), ed25519: '0x' } }),
      'unknown field: publicKeys.ed25519',
    ],
  ];

  it.each(refusals)('refuses %s', (_name, mutate, error) => {
    const body = mutate(wire());
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete (body as Record<string, unknown>)[k];
    }
    expect(decodeEnvelope(body, DEV_NETWORK)).toEqual({ ok: false, error });
  });

  // SPEC: a payload changed after signing is refused as `invalid signature`; admission answers so for `signature:
  // true`.
  it.each([
    ["an id that is not the payload's", (b: Record<string, unknown>) => ({ ...b, id: `0x${'00'.repeat(32)}` })],
    [
      'a payload changed after signing that keeps its id',
      (b: Record<string, unknown>) => ({ ...b, amount: '2000000' }),
    ],
    ['an id that is not a string', (b: Record<string, unknown>) => ({ ...b, id: 7 })],
  ])('flags %s as a signature failure, with the id of the payload received', (_name, mutate) => {
    const body: Record<string, unknown> = mutate(wire());
    const { id: _claimed, ...payloadOnly } = body;
    const d = decodeEnvelope(payloadOnly, DEV_NETWORK);
    expect(d.ok).toBe(true);
    expect(decodeEnvelope(body, DEV_NETWORK)).toEqual({
      ok: false,
      error: 'id does not match payload',
      signature: true,
      id: d.ok && d.tx.id,
    });
  });

  it('decodes missing or malformed signatures, which then fail verification', async () => {
    const fast = await createFastVerifier();
    const variants = [undefined, null, 'sig', {}, { secp256k1: 'zz', mldsa44: 7 }];
    for (const signatures of variants) {
      const body = wire();
      if (signatures === undefined) delete body.signatures;
      else body.signatures = signatures;
      const d = decodeEnvelope(body, DEV_NETWORK);
      expect(d.ok).toBe(true);
      if (!d.ok) continue;
      expect(d.tx.signatures).toEqual({ secp256k1: '0x', mldsa44: '0x' });
      const j = verifyJobOf(d.tx, DEV_NETWORK);
      expect(verifyHybridReference(j.msg, j.pubs, j.sigs)).toBe(false);
      expect(fast.verify(j.msg, j.pubs, j.sigs)).toBe(false);
    }
  });

  it('a sender that does not match the key fails verification', async () => {
    const fast = await createFastVerifier();
    // k1 signs a payload claiming to be from k0: both signatures are valid for k1's keys.
    const forged = signTx(k1, FIELDS, DEV_NETWORK);
    const body: Record<string, unknown> = { ...wire(forged), from: k0.address };
    const msg = signingBytes({ ...forged, from: k0.address }, DEV_NETWORK);
    body.id = txId({ ...forged, from: k0.address });
    const resigned = {
      ...body,
      signatures: {
        secp256k1: toHex(secp256k1.sign(msg, k1.secp256k1.privateKey)),
        mldsa44: toHex(ml_dsa44.sign(msg, k1.mldsa44.secretKey)),
      },
    };
    const d = decodeEnvelope(resigned, DEV_NETWORK);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(senderMatchesKey(d.tx)).toBe(false);
    const j = verifyJobOf(d.tx, DEV_NETWORK);
    expect(fast.verify(j.msg, j.pubs, j.sigs)).toBe(false);
    expect(verifyHybridReference(j.msg, j.pubs, j.sigs)).toBe(false);
  });

  it('accepts a compressed secp256k1 key', () => {
    const tx = signTx(k0, FIELDS, DEV_NETWORK);
    const compressed = toHex(secp256k1.Point.fromBytes(k0.secp256k1.publicKey).toBytes(true));
    const d = decodeEnvelope({ ...wire(tx), publicKeys: { ...tx.publicKeys, secp256k1: compressed } }, DEV_NETWORK);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(senderMatchesKey(d.tx)).toBe(true);
    const j = verifyJobOf(d.tx, DEV_NETWORK);
    expect(verifyHybridReference(j.msg, j.pubs, j.sigs)).toBe(true);
  });

  describe('data size limit (canonical UTF-8 bytes of the data value)', () => {
    const withData = (data: unknown): Record<string, unknown> => {
      const body = wire();
      delete body.id;
      return { ...body, data };
    };
    // A JSON string costs its characters plus two quote bytes.
    it('accepts exactly MAX_DATA_BYTES', () => {
      const data = 'a'.repeat(MAX_DATA_BYTES - 2);
      expect(decodeEnvelope(withData(data), DEV_NETWORK).ok).toBe(true);
      expect(signTx(k0, { ...FIELDS, data }, DEV_NETWORK).data).toBe(data);
    });
    it('refuses one byte more', () => {
      expect(decodeEnvelope(withData('a'.repeat(MAX_DATA_BYTES - 1)), DEV_NETWORK)).toEqual({
        ok: false,
        error: 'data field exceeds 65536 bytes',
      });
      expect(() => signTx(k0, { ...FIELDS, data: 'a'.repeat(MAX_DATA_BYTES - 1) }, DEV_NETWORK)).toThrow(/exceeds/);
    });
    it('counts bytes, not characters', () => {
      // 'é' is 2 bytes in UTF-8: (MAX/2 - 1) of them plus quotes is exactly MAX.
      expect(decodeEnvelope(withData('é'.repeat(MAX_DATA_BYTES / 2 - 1)), DEV_NETWORK).ok).toBe(true);
      expect(decodeEnvelope(withData(`${'é'.repeat(MAX_DATA_BYTES / 2 - 1)}a`), DEV_NETWORK).ok).toBe(false);
    });
    it('bounds nesting, so hashing can never overflow the stack', () => {
      const nest = (levels: number): unknown => {
        let deep: unknown = 1;
        for (let i = 0; i < levels; i++) deep = [deep];
        return deep;
      };
      expect(decodeEnvelope(withData(nest(MAX_DATA_DEPTH)), DEV_NETWORK).ok).toBe(true);
      expect(decodeEnvelope(withData(nest(MAX_DATA_DEPTH + 1)), DEV_NETWORK)).toEqual({
        ok: false,
        error: `data nesting exceeds ${MAX_DATA_DEPTH} levels`,
      });
      expect(decodeEnvelope(withData(nest(100_000)), DEV_NETWORK)).toEqual({
        ok: false,
        error: `data nesting exceeds ${MAX_DATA_DEPTH} levels`,
      });
    });
    it('refuses non-JSON values', () => {
      expect(decodeEnvelope(withData({ when: new Date(0) }), DEV_NETWORK)).toEqual({
        ok: false,
        error: 'data must be a JSON value',
      });
      expect(decodeEnvelope(withData([1n]), DEV_NETWORK)).toEqual({ ok: false, error: 'data must be a JSON value' });
    });
  });
});

describe('decodeReceived (a transaction in a received block)', () => {
  /** A transaction as a block carries it: the JSON of the decoded object (its key order, lower-case hex). */
  const inBlock = (): Record<string, unknown> => {
    const d = decodeEnvelope(wire(), DEV_NETWORK);
    if (!d.ok) throw new Error(d.error);
    return JSON.parse(JSON.stringify(d.tx)) as Record<string, unknown>;
  };

  it('decodes once per object, to a form equal in every field that holds its signatures as bytes', () => {
    const raw = inBlock();
    const r = decodeReceived(raw, DEV_NETWORK);
    expect(decodeReceived(raw, DEV_NETWORK)).toBe(r);
    expect(r.same).toBe(true);
    if (!r.decoded.ok) throw new Error('not decoded');
    expect(JSON.stringify(r.decoded.tx)).toBe(JSON.stringify(raw));
    const bytes = signatureBytesOf(r.decoded.tx.signatures)!;
    expect(toHex(bytes.mldsa44)).toBe((raw.signatures as { mldsa44: string }).mldsa44);
    const j = verifyJobOf(r.decoded.tx, DEV_NETWORK);
    expect(verifyHybridReference(j.msg, j.pubs, j.sigs)).toBe(true);
  });

  it('is not the same when the received form differs from the decoded one, though it decodes', () => {
    const edits: ((b: Record<string, unknown>) => void)[] = [
      (b) => (b.from = toNative(k0.address)),
      (b) => delete b.data,
      (b) => (b.to = (b.to as string).toUpperCase().replace('0X', '0x')),
      (b) => {
        const s = b.signatures as { secp256k1: string; mldsa44: string };
        b.signatures = { secp256k1: s.secp256k1, mldsa44: `0x${s.mldsa44.slice(2).toUpperCase()}` };
      },
      (b) => (b.signatures = { secp256k1: '0x', mldsa44: 'zz' }),
      (b) => {
        const { id, ...rest } = b;
        for (const k of Object.keys(b)) delete b[k];
        Object.assign(b, { id, ...rest }); // the id first: another key order
      },
    ];
    for (const edit of edits) {
      const raw = inBlock();
      edit(raw);
      const r = decodeReceived(raw, DEV_NETWORK);
      expect(r.decoded.ok ? 'decoded' : r.decoded.error).toBe('decoded');
      expect(r.same).toBe(false);
    }
  });
});

describe('networks: the signatures bind the genesis hash', () => {
  const OTHER = { chainId: DEV_NETWORK.chainId, genesisHash: `0x${'ab'.repeat(32)}` } as const;

  it('a transaction of one network fails verification on another with the same chain id; its id is the same', () => {
    const tx = signTx(k0, FIELDS, DEV_NETWORK);
    const d = decodeEnvelope(wire(tx), OTHER);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.tx.id).toBe(tx.id); // the id names the payload; the network is in what is signed
    const there = verifyJobOf(d.tx, OTHER);
    expect(verifyHybridReference(there.msg, there.pubs, there.sigs)).toBe(false);
    const here = verifyJobOf(d.tx, DEV_NETWORK); // the decode cache is per network
    expect(verifyHybridReference(here.msg, here.pubs, here.sigs)).toBe(true);
    expect(verifyTxReference(tx, DEV_NETWORK)).toBe(true);
    expect(verifyTxReference(tx, OTHER)).toBe(false);
  });

  it('signs for the network it is given: its chain id in the payload, its genesis hash in the signing bytes', () => {
    const net = { chainId: 5, genesisHash: OTHER.genesisHash };
    const tx = signTx(k0, FIELDS, net);
    expect(tx.chainId).toBe(5);
    expect(toHex(signingBytes(tx, net)).startsWith(toHex(utf8(TX_DOMAIN)) + OTHER.genesisHash.slice(2))).toBe(true);
    expect(decodeEnvelope(wire(tx), DEV_NETWORK)).toEqual({ ok: false, error: 'wrong chain id' });
    expect(decodeEnvelope(wire(tx), net).ok).toBe(true);
  });

  it('refuses a malformed genesis hash (a caller bug)', () => {
    expect(() => signTx(k0, FIELDS, { chainId: 72020, genesisHash: '0x1234' })).toThrow(/genesis hash/);
  });
});

describe('encodeTx', () => {
  let tx: HybridTx;
  beforeAll(() => {
    tx = signTx(k0, { ...FIELDS, data: { z: 1, a: [true, 'x'] } }, DEV_NETWORK);
  });
  it('has a fixed key order and canonical data, and round-trips through decodeEnvelope', () => {
    const text = encodeTx(tx);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'id',
      'chainId',
      'type',
      'from',
      'to',
      'amount',
      'nonce',
      'timestamp',
      'fee',
      'data',
      'publicKeys',
      'signatures',
    ]);
    expect(text).toContain('"data":{"a":[true,"x"],"z":1}');
    const d = decodeEnvelope(JSON.parse(text), DEV_NETWORK);
    expect(d.ok && encodeTx(d.tx)).toBe(text);
  });
});
