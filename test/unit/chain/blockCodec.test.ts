import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO_HASH } from '../../../src/chain/block';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { settleAdmitted, signatureBytesOf, signTx } from '../../../src/chain/envelope';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import { toHex, type Hex } from '../../../src/primitives/hex';
import { TX_TYPE_CATALOGUE, type Block, type SignedTx } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import {
  encodeStoredBlock,
  finishStoredBlock,
  parseStoredBlock,
  signerKeysOf,
  signerRefsOf,
} from '../../../src/chain/blockCodec';
import { bucketEnd, bucketKey } from '../../../src/storage/buckets';
import { ChainStore } from '../../../src/storage/chainStore';
import { u64be } from '../../../src/primitives/height';
import { blockSpec, commitSynthetic, materialize } from '../../helpers/syntheticBlocks';

const alice = deriveKeys(devSecret(0));
const bob = deriveKeys(devSecret(1));

/** encode → parse → re-attach the signer records it wrote: the block that was encoded. */
function roundTrip(b: Block): { block: Block; bytes: number } {
  const { bytes, signers, jsonSize } = encodeStoredBlock(b);
  // The size the encoder counts is the block line's byte length, without serializing it.
  expect(jsonSize).toBe(Buffer.byteLength(JSON.stringify(b)));
  const records = new Map(signers.map((s) => [toHex(s.ref), signerKeysOf(s.value)]));
  const parsed = parseStoredBlock(bytes);
  for (const ref of signerRefsOf(parsed)) expect(records.has(ref)).toBe(true);
  return { block: finishStoredBlock(parsed, (ref) => records.get(ref)!), bytes: bytes.length };
}

function blockOf(txs: SignedTx[], extra: Partial<Block> = {}): Block {
  const b = materialize({ salt: 3, tick: [], txs: [] }, 7, ZERO_HASH);
  return {
    header: { ...b.header, txCount: txs.length, signatures: { secp256k1: `0x${'11'.repeat(65)}`, mldsa44: '0x22' } },
    txs,
    results: txs.map(() => ({ status: 'success', energyUsed: '0', burned: '1000' })),
    ...extra,
  };
}

const transfer = (nonce: number, data: unknown = null) =>
  signTx(
    alice,
    { type: 'TRANSFER', to: bob.address, amount: '123456789', nonce, data, timestamp: 1_700_000_000_000 + nonce },
    DEV_NETWORK,
  );

describe('stored block codec', () => {
  it('keeps signed transactions exactly, their keys once per signer, in well under a third of the JSON', () => {
    const txs = Array.from({ length: 20 }, (_, i) =>
      transfer(i, i % 3 === 0 ? { memo: `n${i} héllo ☃ "q"`, list: [1, 'x', null, true] } : null),
    );
    const b = blockOf(txs, {
      results: txs.map((_, i) =>
        i % 2
          ? {
              status: 'failed',
              error: 'insufficient balance',
              code: 'INSUFFICIENT_BALANCE',
              energyUsed: '3',
              burned: '0',
            }
          : {
              status: 'success',
              energyUsed: '0',
              burned: '1000',
              events: [{ kind: 'reward.claim', voter: bob.address, amount: '5' }],
            },
      ),
      events: [{ kind: 'reward.claim', voter: alice.address, amount: '9' }],
    });
    const { block, bytes } = roundTrip(b);
    expect(block).toEqual(b);
    expect(JSON.stringify(block).length).toBe(JSON.stringify(b).length);
    expect(encodeStoredBlock(b).signers).toHaveLength(1);
    expect(bytes).toBeLessThan(JSON.stringify(b).length / 3);
    // Per plain transfer: the 2,420-byte ML-DSA signature, the secp256k1 one and ~140 bytes of fields and result.
    const plain = Array.from({ length: 20 }, (_, i) => transfer(100 + i));
    const perTx = (roundTrip(blockOf(plain)).bytes - roundTrip(blockOf([])).bytes) / plain.length;
    expect(perTx).toBeLessThan(2_650);
  });

  it('an admitted transaction (signatures held as bytes) is stored exactly as the same transaction in hex', () => {
    const hex = [transfer(1), transfer(2)];
    const admitted = [transfer(1), transfer(2)];
    for (const t of admitted) if (t.envelope !== 'eth') settleAdmitted(t);
    expect(admitted.every((t) => t.envelope !== 'eth' && signatureBytesOf(t.signatures) !== undefined)).toBe(true);
    expect(hex.every((t) => t.envelope !== 'eth' && signatureBytesOf(t.signatures) === undefined)).toBe(true);
    const [a, b] = [encodeStoredBlock(blockOf(admitted)), encodeStoredBlock(blockOf(hex))];
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.jsonSize).toBe(b.jsonSize);
    expect(roundTrip(blockOf(admitted)).block).toEqual(blockOf(hex));
  });

  it('keeps a genesis header (no signatures), a transaction with no recipient and an Ethereum envelope', () => {
    const eth = {
      chainId: 72020,
      type: 'VM_CALL',
      from: alice.address,
      to: bob.address,
      amount: '1',
      nonce: 0,
      timestamp: 5,
      fee: '21000',
      data: null,
      envelope: 'eth',
      id: `0x${'ab'.repeat(32)}`,
      raw: '0x02f8',
      gasLimit: '21000',
      gasPrice: '1000000000',
      valueWei: '1000000000000',
      input: '0x',
    } as SignedTx;
    const noTo = signTx(alice, { type: 'STAKE', amount: '10', nonce: 3, timestamp: 9 }, DEV_NETWORK);
    const genesis = materialize({ salt: 1, tick: [], txs: [] }, 0, ZERO_HASH);
    expect(roundTrip(genesis).block).toEqual(genesis);
    const b = blockOf([eth, noTo]);
    expect(roundTrip(b).block).toEqual(b);
  });

  it('keeps any amount, fee and result integer, each in its minimal big-endian bytes (short ones without BigInt)', () => {
    const minimal = (n: bigint) => (n === 0n ? 0 : Math.ceil(n.toString(16).length / 2));
    const signed = transfer(4);
    const withAmount = (amount: string, burned: string): Block => {
      const t = { ...signed, amount, fee: amount } as SignedTx;
      return { ...blockOf([t]), results: [{ status: 'failed', energyUsed: amount, burned }] };
    };
    const base = encodeStoredBlock(withAmount('0', '0')).bytes.length;
    const edges = [0n, 1n, 255n, 256n, 65_535n, 10n ** 15n - 1n, 10n ** 15n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 80n];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: 2n ** 96n })), (n) => {
        const b = withAmount(n.toString(), (n / 3n).toString());
        expect(roundTrip(b).block).toEqual(b);
        // amount, fee and energyUsed take n's minimal bytes; burned n/3's: nothing more than a length byte each.
        expect(encodeStoredBlock(b).bytes.length - base).toBe(3 * minimal(n) + minimal(n / 3n));
      }),
      { numRuns: 300 },
    );
  });

  it('a block the compact layout would not keep exactly is stored as its JSON line', () => {
    const odd = { ...transfer(1), amount: '007' } as SignedTx; // not canonical: the layout's integers would change it
    const extraField = { ...transfer(2), note: 'x' } as unknown as SignedTx;
    const upper = { ...transfer(3), id: transfer(3).id.toUpperCase().replace('0X', '0x') as Hex };
    for (const t of [odd, extraField, upper]) {
      const b = blockOf([t]);
      const { bytes, signers } = encodeStoredBlock(b);
      expect(bytes[0]).toBe(0x7b);
      expect(signers).toEqual([]);
      expect(roundTrip(b).block).toEqual(b);
    }
  });

  it('stored blocks depend on the order of the type catalogue: it only grows at the end', () => {
    expect(TX_TYPE_CATALOGUE.slice(0, 3)).toEqual(['TRANSFER', 'STAKE', 'UNSTAKE']);
    expect(TX_TYPE_CATALOGUE.slice(-2)).toEqual(['VM_DEPLOY', 'VM_CALL']);
  });

  it('any synthetic block (results, VM receipts, events, ticks) comes back as it went in', () => {
    fc.assert(
      fc.property(blockSpec, fc.nat(1000), (spec, height) => {
        const b = materialize(spec, height, ZERO_HASH);
        expect(roundTrip(b).block).toEqual(b);
      }),
      { numRuns: 100 },
    );
  });

  it('the chain store writes each signer record once and serves blocks with their keys', async () => {
    const store = new ChainStore(new MemoryKv());
    const blocks: Block[] = [];
    for (let h = 1; h <= 3; h++) {
      const b = blockOf([transfer(h * 2), transfer(h * 2 + 1)]);
      const block = { ...b, header: { ...b.header, height: h, hash: toHex(Buffer.alloc(32, h)) } };
      blocks.push(block);
      await commitSynthetic(store, block);
    }
    let signerRecords = 0;
    for await (const _ of store.kv.iterate({ gte: bucketKey('signer'), lt: bucketEnd('signer') })) signerRecords++;
    expect(signerRecords).toBe(1);
    const fresh = new ChainStore(store.kv); // no cached keys: they come from the records
    for (const b of blocks) {
      expect(await fresh.block(b.header.height)).toEqual(b);
      const size = Buffer.byteLength(JSON.stringify(b));
      expect(await fresh.chainItemJson(b.header.height, b.header.hash, size)).toBe(
        JSON.stringify({ height: b.header.height, hash: b.header.hash, ...b, size }),
      );
    }
    // A block stored as a JSON line (a store written before the binary encoding) makes the same item.
    const [b] = blocks;
    const batch = store.kv.batch();
    batch.put(bucketKey('block', u64be(b.header.height)), Buffer.from(JSON.stringify(b)));
    await store.kv.write(batch);
    expect(await fresh.chainItemJson(b.header.height, b.header.hash, 7)).toBe(
      JSON.stringify({ height: b.header.height, hash: b.header.hash, ...b, size: 7 }),
    );
  });
});
