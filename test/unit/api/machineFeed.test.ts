import { describe, expect, it } from 'vitest';
import { ZERO_HASH } from '../../../src/chain/block';
import { feedPage, recentIds } from '../../../src/api/machineFeed';
import { MemoryKv } from '../../../src/state/kv';
import { ChainStore } from '../../../src/storage/chainStore';
import { commitSynthetic, materialize, type BlockSpec } from '../../helpers/syntheticBlocks';

/**
 * The machine feeds behind /ai/tasks and /bridge/transfers (api/machineFeed.ts): the list
 * without `since` shows the instances that changed last, the `since` pages never skip or
 * repeat a transition.
 */
async function chain(blocks: { id: number; to: string }[][]): Promise<ChainStore> {
  const store = new ChainStore(new MemoryKv());
  let parent = ZERO_HASH;
  for (const [i, tick] of blocks.entries()) {
    const spec: BlockSpec = { salt: i, tick, txs: [] };
    const b = materialize(spec, i + 1, parent);
    await commitSynthetic(store, b);
    parent = b.header.hash;
  }
  return store;
}

describe('machine feeds', () => {
  it('the recent list is the newest end of the history, not its oldest transitions, whatever the cap', async () => {
    // 30 blocks: instance k (0..29) changes at height k + 1; instance 100 changes at 1 and again at 30.
    const store = await chain(
      Array.from({ length: 30 }, (_, k) => [
        { id: k, to: 'open' },
        ...(k === 0 || k === 29 ? [{ id: 100, to: k ? 'passed' : 'open' }] : []),
      ]),
    );
    const all = await recentIds(store, 'test');
    expect(all.slice(0, 4)).toEqual(['100', '29', '28', '27']); // ties (height 30) by id
    expect(all).toHaveLength(31);
    expect(all.at(-1)).toBe('0');
    // With a cap far below the history's length, still the latest ones.
    expect(await recentIds(store, 'test', 5)).toEqual(['100', '29', '28', '27', '26']);
  });

  it('paging with the cursor covers every transition once, whole blocks, up to the top', async () => {
    const store = await chain(
      Array.from({ length: 12 }, (_, k) => [
        { id: k, to: 'open' },
        { id: 50 + k, to: 'open' },
      ]),
    );
    const whole = await store.machineFeed('test', 0, 1_000);
    const seen: string[] = [];
    let since = 0;
    for (let i = 0; i < 50; i++) {
      const { feed, cursor } = await feedPage(store, 'test', since, 3, 10);
      seen.push(...feed.map((e) => `${e.height}:${e.id}`));
      if (cursor === since) break;
      since = cursor;
    }
    expect(seen).toEqual(whole.filter((e) => e.height <= 10).map((e) => `${e.height}:${e.id}`));
    expect(since).toBe(10);
  });
});
