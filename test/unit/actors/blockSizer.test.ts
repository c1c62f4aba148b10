import { describe, expect, it } from 'vitest';
import { BlockSizer } from '../../../src/actors/consensus/blockSizer';
import { MAX_TXS_PER_BLOCK } from '../../../src/protocol/params';

describe('BlockSizer (how many transactions a block takes)', () => {
  it('takes the most a block may hold until it has measured a block', () => {
    const s = new BlockSizer(200);
    expect(s.maxTxs()).toBe(MAX_TXS_PER_BLOCK);
    s.observe(5, 1_000); // too small a block to say what a transaction costs
    expect(s.maxTxs()).toBe(MAX_TXS_PER_BLOCK);
  });

  it('shrinks blocks that ran over the budget, within a few blocks, and grows them again when they are cheap', () => {
    const s = new BlockSizer(200);
    s.observe(500, 1_000); // 2 ms a transaction: 100 fit in 200 ms
    expect(s.maxTxs()).toBe(100);
    for (let i = 0; i < 10; i++) s.observe(100, 20); // 0.2 ms a transaction
    expect(s.maxTxs()).toBeGreaterThan(500 * 0.9);
  });

  it('never goes below its floor: a slow sample never starves the chain', () => {
    const s = new BlockSizer(200);
    s.observe(100, 100_000);
    expect(s.maxTxs()).toBe(50);
  });
});
