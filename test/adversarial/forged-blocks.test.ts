/**
 * Row 1 of issue 23: one POST /blocks naming the validator as producer, with signatures all
 * zeros, used to make the node believe another instance signs with its key, and stop
 * producing for good (and a forged sibling preferred by fork choice undid the head before
 * anything was verified). A block is now believed only once its signatures verify; forged
 * blocks are refused, counted by the guard, and production goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerHash } from '../../src/chain/block';
import { txRootOf } from '../../src/chain/block';
import { MLDSA44_SIG_BYTES, SECP_SIG_BYTES } from '../../src/crypto/hybrid';
import { ATTACKER, HONEST, requestFrom, spawnTarget, waitFor, type Target } from './lib';

const SLOT_MS = 200;
let t: Target;

beforeAll(async () => {
  t = await spawnTarget(['--slot-ms', String(SLOT_MS), '--idle-block-ms', '400']);
});
afterAll(async () => t?.cleanup());

const ZERO_SIGS = { secp256k1: `0x${'00'.repeat(SECP_SIG_BYTES)}`, mldsa44: `0x${'00'.repeat(MLDSA44_SIG_BYTES)}` };

interface Header {
  height: number;
  parentHash: string;
  timestamp: number;
  producer: string;
  txRoot: string;
  stateRoot: string;
  txCount: number;
  hash: string;
}

const status = async () =>
  (await requestFrom(HONEST, `${t.url}/status`)).json as { height: number; headHash: string; timestamp: number };
const blockAt = async (height: number): Promise<{ header: Header; txs: unknown[]; results: unknown[] }> => {
  const page = (await requestFrom(HONEST, `${t.url}/chain?from=${height}&limit=1`)).json;
  const { height: _h, hash: _x, size: _s, ...block } = page.blocks[0];
  return block;
};
/** A header with its hash recomputed and zero signatures: well formed, signed by nobody. */
const forge = (h: Omit<Header, 'hash'>) => {
  const fields = {
    height: h.height,
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    producer: h.producer,
    txRoot: h.txRoot,
    stateRoot: h.stateRoot,
    txCount: h.txCount,
  };
  return { ...fields, hash: headerHash(fields as never), signatures: ZERO_SIGS };
};
const post = (block: unknown) => requestFrom(ATTACKER, `${t.url}/blocks`, { body: block });

describe('forged blocks naming the validator', () => {
  it('a forged sibling of the head that fork choice would prefer is refused before anything is undone', async () => {
    await waitFor('a few blocks', async () => (await status()).height >= 3);
    // Right after a new head (blocks come every 400 ms here): the forged sibling must meet it before the next block
    // makes its parent final.
    const before = (await status()).height;
    const s = await waitFor(
      'a new head',
      async () => {
        const now = await status();
        return now.height > before ? now : undefined;
      },
      30_000,
      10,
    );
    const head = await blockAt(s.height);
    // Grind a timestamp in the current slot (so it comes in time, as the head did: fork choice then weighs the hashes)
    // for which the forged sibling's hash is the lower one.
    let sibling: ReturnType<typeof forge>;
    for (let dt = 0; ; dt++) {
      sibling = forge({ ...head.header, timestamp: Math.max(head.header.timestamp + 1, Date.now()) + (dt % 50) });
      if (sibling.hash < head.header.hash) break;
    }
    const r = await post({ header: sibling, txs: head.txs, results: head.results });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^invalid block: .*invalid block signature/);
    // The head's block is still there: nothing was undone for an unsigned branch.
    expect((await blockAt(s.height)).header.hash).toBe(head.header.hash);
    // The block lifecycle actor holds what became of it; the head's block is committed or final.
    const forged = await requestFrom(HONEST, `${t.url}/blocks/${sibling.hash}`);
    expect(forged.status).toBe(404);
    expect(forged.json.error).toMatch(
      new RegExp(`^block not found: ${sibling.hash} \\(rejected at height ${s.height}: .*invalid block signature\\)$`),
    );
    const kept = (await requestFrom(HONEST, `${t.url}/blocks/${head.header.hash}`)).json;
    expect(['committed', 'finalized']).toContain(kept.lifecycle.state);
    expect(kept.lifecycle.height).toBe(s.height);
  });

  it('a forged block on top of the head is refused and production goes on', async () => {
    // On top of the head as the node sees it: when the validator's own next block lands first, the forgery is a
    // sibling fork choice may find stale (200), so it is forged again on the new head.
    let s = await status();
    let onTop: ReturnType<typeof forge>;
    let r: Awaited<ReturnType<typeof post>>;
    for (let attempt = 0; ; attempt++) {
      s = await status();
      const head = await blockAt(s.height);
      onTop = forge({
        height: s.height + 1,
        parentHash: head.header.hash,
        timestamp: Date.now(),
        producer: head.header.producer,
        txRoot: txRootOf([]),
        stateRoot: head.header.stateRoot,
        txCount: 0,
      });
      r = await post({ header: onTop, txs: [], results: [] });
      if (r.status !== 200 || attempt === 9) break;
    }
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.error).toMatch(/invalid block signature|state root|slot/);
    expect((await requestFrom(HONEST, `${t.url}/blocks/${onTop.hash}`)).json.error).toMatch(
      /\(rejected at height \d+: (.*invalid block signature|.*state root|.*slot)/,
    );
    // The validator keeps producing (before the fix it stopped signing for good).
    await waitFor('blocks after the forgeries', async () => (await status()).height >= s.height + 5, 30_000);
    expect(t.output()).not.toMatch(/stops signing/);
    const ready = (await requestFrom(HONEST, `${t.url}/health/ready`)).json;
    expect(ready.modes).toMatchObject({ node: 'ready', signing: 'producing' });
  });

  it('every refused block counts for the guard: the forger is blocked, the honest client is not', async () => {
    let blocked = false;
    for (let i = 0; i < 30 && !blocked; i++) {
      const s = await status();
      const head = await blockAt(s.height);
      const r = await post({
        header: forge({ ...head.header, height: s.height + 1, parentHash: head.header.hash, timestamp: Date.now() }),
        txs: [],
        results: [],
      });
      if (r.status === 429) blocked = true;
      // A block the validator produced meanwhile makes the forgery a losing sibling (200 stale,
      // nothing adopted, nothing checked): forge again on the new head.
      else if (!(r.status === 200 && r.json.status === 'stale')) expect(r.status).toBe(400);
    }
    expect(blocked).toBe(true);
    expect((await requestFrom(HONEST, `${t.url}/status`)).status).toBe(200);
    const h = (await status()).height;
    await waitFor('production after the flood', async () => (await status()).height >= h + 3, 30_000);
  });
});
