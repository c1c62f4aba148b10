import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealBlock, ZERO_HASH } from '../../../src/chain/block';
import { MalformedBlock } from '../../../src/chain/blockCodec';
import { decodeChainPage, encodeChainPage } from '../../../src/chain/chainPage';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { signatureBytesOf, signTx } from '../../../src/chain/envelope';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import type { Hex } from '../../../src/primitives/hex';
import type { Block, SignedTx } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { ChainStore } from '../../../src/storage/chainStore';
import { commitSynthetic } from '../../helpers/syntheticBlocks';

const [alice, bob, carol] = [0, 1, 2].map((i) => deriveKeys(devSecret(i)));

const transfer = (from: typeof alice, nonce: number) =>
  signTx(
    from,
    { type: 'TRANSFER', to: carol.address, amount: '5', nonce, data: null, timestamp: 1_700_000_000_000 + nonce },
    DEV_NETWORK,
  );

/** Three stored blocks: alice sends in each, bob in the second; their store and a binary page of them. */
async function storedPage() {
  const store = new ChainStore(new MemoryKv());
  let parent: Hex = ZERO_HASH;
  for (let h = 1; h <= 3; h++) {
    const txs: SignedTx[] = [transfer(alice, h), ...(h === 2 ? [transfer(bob, 0), transfer(bob, 1)] : [])];
    const block: Block = sealBlock(carol, {
      parent: { height: h - 1, hash: parent },
      timestamp: 1_000 * h,
      producer: carol.address,
      stateRoot: ZERO_HASH,
      txs,
      results: txs.map(() => ({ status: 'success', energyUsed: '0', burned: '1' })),
      events: [],
    });
    await commitSynthetic(store, block);
    parent = block.header.hash;
  }
  const records = new Map<Hex, Uint8Array>();
  const stored: Uint8Array[] = [];
  for (let h = 1; h <= 3; h++) stored.push((await store.pageBlock(h, records)) as Uint8Array);
  return { store, records, stored, page: encodeChainPage({ next: 4, records, blocks: stored }) };
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('a binary /chain page (chain/chainPage.ts)', () => {
  it('carries the stored blocks and each signer record once: decoded, the blocks the store holds', async () => {
    const { store, records, page } = await storedPage();
    expect(records.size).toBe(2); // alice's and bob's, though alice signs in all three blocks
    const { blocks, next } = decodeChainPage(page);
    expect(next).toBe(4);
    const held = await Promise.all([1, 2, 3].map((h) => store.block(h)));
    expect(json(blocks)).toEqual(json(held));
    // Signatures come as bytes (the verifier's and the codec's form), their hex only when read.
    const tx = blocks[1].txs[1];
    expect(tx.envelope !== 'eth' && signatureBytesOf(tx.signatures)?.mldsa44.length).toBe(2420);
    expect(page.length).toBeLessThan(JSON.stringify(blocks).length / 2);
    // At the head: no next page.
    expect(decodeChainPage(encodeChainPage({ next: null, records, blocks: [] }))).toEqual({ blocks: [], next: null });
  });

  it('refuses a signer record that does not hash to its reference, and a block whose record is not in the page', async () => {
    const { records, stored } = await storedPage();
    const [aliceRef, bobRef] = [...records.keys()];
    const swapped = new Map([
      [aliceRef, records.get(bobRef) as Uint8Array],
      [bobRef, records.get(bobRef) as Uint8Array],
    ]);
    expect(() => decodeChainPage(encodeChainPage({ next: null, records: swapped, blocks: stored }))).toThrow(
      `signer record ${aliceRef} does not hash to its reference`,
    );
    const onlyAlice = new Map([[aliceRef, records.get(aliceRef) as Uint8Array]]);
    expect(() => decodeChainPage(encodeChainPage({ next: null, records: onlyAlice, blocks: stored }))).toThrow(
      `a block refers to signer record ${bobRef}, not in the page`,
    );
  });

  it('a page cut anywhere, or claiming more than it holds, fails at once with the reason', async () => {
    const { page, stored } = await storedPage();
    for (let cut = 0; cut < page.length; cut += 97)
      expect(() => decodeChainPage(page.subarray(0, cut)), `cut at ${cut}`).toThrow(MalformedBlock);
    // A trailing byte, a version from elsewhere, a count of 2^50 blocks: refused before anything is read or allocated.
    expect(() => decodeChainPage(Buffer.concat([page, Buffer.of(0)]))).toThrow('1 bytes after the end');
    expect(() => decodeChainPage(Buffer.of(2, 0, 0, 0))).toThrow('chain page version 2, not 1');
    const huge = Buffer.of(1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    expect(() => decodeChainPage(huge)).toThrow(MalformedBlock);
    // An amount of a million bytes (its decimal text would take a BigInt seconds): refused by its length.
    const block = Buffer.from(stored[1]);
    const bytesOf = (a: string) => Buffer.from(a.slice(2), 'hex');
    // The first transfer's amount: after its sender (alice) and its recipient (carol, also the header's producer).
    const amountAt = block.indexOf(bytesOf(carol.address), block.indexOf(bytesOf(alice.address))) + 20;
    const bloated = Buffer.concat([
      block.subarray(0, amountAt),
      Buffer.of(0xc0, 0x84, 0x3d),
      Buffer.alloc(1_000_000, 9),
    ]);
    expect(() => decodeChainPage(encodeChainPage({ next: null, records: new Map(), blocks: [bloated] }))).toThrow(
      'a 1000000-byte amount (at most 33)',
    );
    // LEB128 that never ends, or past 2^53: not read forever.
    expect(() => decodeChainPage(Buffer.of(1, ...Array(20).fill(0xff)))).toThrow('is not a safe integer');
  });

  it('any corrupted byte gives an error or blocks that still go through the shape check, never a hang', async () => {
    const { page } = await storedPage();
    fc.assert(
      fc.property(fc.nat(page.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const bad = Buffer.from(page);
        bad[at] = byte;
        try {
          const { blocks } = decodeChainPage(bad);
          // What decodes is a block of the right shape; its hashes and signatures are the consensus actor's to check.
          for (const b of blocks) expect(typeof b.header.height).toBe('number');
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
        }
      }),
      { numRuns: 300 },
    );
  });
});
