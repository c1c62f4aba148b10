import { verifyHeader } from '../../chain/block';
import type { Address, SignedBlockHeader } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import type { Detector, DetectorContext } from './detector';

interface SeenHeader {
  hash: Hex;
  /** Gossiped headers are kept whole; the node's own blocks are read back only as evidence. */
  header?: SignedBlockHeader;
  verified: boolean; // committed by this node, or checked after a conflict
}

/**
 * `double_sign`: one producer signed two different blocks at one height — seen on the
 * gossip path, or against a block this node committed. Only signed headers count; each
 * pair is reported once, with both headers as evidence.
 */
export function doubleSignDetector(ctx: DetectorContext): Detector {
  /** Hash and both signatures check out against the producer's bound keys (a malformed header does not). */
  async function signedBy(h: SignedBlockHeader): Promise<boolean> {
    const keys = await ctx.signingKeys(h.producer);
    try {
      return keys !== undefined && verifyHeader(h, keys) === undefined;
    } catch {
      return false;
    }
  }

  const o = ctx.options;
  const headers = new Map<number, Map<Address, SeenHeader>>(); // height → producer → first valid header
  const reported = new Set<string>();

  /** A header claimed by its producer: from gossip (`header` given, unverified) or committed here (trusted). */
  async function observe(
    h: { height: number; producer: Address; hash: Hex; header?: SignedBlockHeader },
    trusted: boolean,
  ): Promise<void> {
    if (!Number.isSafeInteger(h.height) || h.height < 1) return; // genesis has no producer
    if (Math.abs(h.height - ctx.head.height) > o.headerWindow) return; // outside the window kept
    let byProducer = headers.get(h.height);
    if (!byProducer) headers.set(h.height, (byProducer = new Map()));
    const first = byProducer.get(h.producer);
    const entry: SeenHeader = { hash: h.hash, header: h.header, verified: trusted };
    if (!first) {
      byProducer.set(h.producer, entry);
      return;
    }
    if (first.hash === h.hash) {
      if (trusted) first.verified = true;
      return;
    }
    // Two different headers claim the same producer and height: only signed ones count.
    const newValid = trusted || (h.header !== undefined && (await signedBy(h.header)));
    if (!first.verified) first.verified = first.header !== undefined && (await signedBy(first.header));
    if (!first.verified) {
      if (newValid) byProducer.set(h.producer, { ...entry, verified: true });
      else byProducer.delete(h.producer);
      return;
    }
    if (!newValid) {
      ctx.log.debug(
        { height: h.height, producer: h.producer, hash: h.hash },
        'sentinel: ignored an unsigned conflicting header',
      );
      return;
    }
    const pair = [first.hash, h.hash].sort();
    const key = `${h.height}/${h.producer}/${pair[0]}/${pair[1]}`;
    if (reported.has(key)) return;
    reported.add(key);
    // Evidence: both signed headers (a committed one is read back from the store).
    const evidence = await Promise.all(
      [first, entry].map(async (e) => e.header ?? (await committedHeader(h.height, e.hash))),
    );
    ctx.raise('double_sign', 'critical', `producer ${h.producer} signed two different blocks at height ${h.height}`, {
      producer: h.producer,
      height: h.height,
      hashes: [first.hash, h.hash],
      evidence: evidence.filter((x) => x !== undefined),
    });
  }

  async function committedHeader(height: number, hash: Hex): Promise<SignedBlockHeader | undefined> {
    const b = await ctx.store.block(height);
    return b?.header.hash === hash ? b.header : undefined;
  }

  function prune(): void {
    for (const height of headers.keys()) if (height < ctx.head.height - o.headerWindow) headers.delete(height);
    if (reported.size > 10_000) reported.clear();
  }

  return {
    committed: (sum) => observe(sum, true),
    async header(h) {
      await observe({ height: h.height, producer: h.producer, hash: h.hash, header: h }, false);
      prune();
    },
    head: prune,
  };
}
