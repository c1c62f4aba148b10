import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../../src/primitives/hex';
import { SIGNED_HEIGHTS_KEPT, SigningGuard } from '../../../src/storage/signingGuard';
import { scratchDirs } from '../../helpers/scratch';

const scratch = scratchDirs();

const H = (c: string) => `0x${c.repeat(64)}` as Hex;

describe('signing guard: heights, slots and finality votes, across restarts', () => {
  it('keeps the last vote and the newest source; refuses a second checkpoint of the epoch after a restart', async () => {
    const file = join(scratch('cairn-guard-'), 'signing-guard.json');
    const g = await SigningGuard.open(file);
    await g.record(10, 20, { target: { epoch: 3, hash: H('a') }, source: 2 });
    const again = await SigningGuard.open(file);
    expect(again.lastSigned).toEqual({
      height: 10,
      slot: 20,
      floor: 0,
      signed: [10],
      vote: { target: { epoch: 3, hash: H('a') }, source: 2 },
    });
    expect(again.refusal(10, 21)).toMatch(/height 10/);
    expect(again.voteRefusal({ target: { epoch: 3, hash: H('a') }, source: 2 })).toBeUndefined();
    expect(again.voteRefusal({ target: { epoch: 3, hash: H('b') }, source: 2 })).toMatch(
      /another checkpoint of epoch 3/,
    );
    expect(again.voteRefusal({ target: { epoch: 3 }, source: 2 })).toMatch(/another checkpoint/);
    // A vote with an older source does not lower what the guard remembers.
    await again.record(11, 21, { target: { epoch: 4, hash: H('c') }, source: 3 });
    await again.record(12, 22, { target: { epoch: 4, hash: H('c') }, source: 3 });
    expect((await SigningGuard.open(file)).voteRefusal({ target: { epoch: 5 }, source: 2 })).toMatch(/surround/);
  });

  it('a file from before votes opens with none; a damaged vote is refused with the way out', async () => {
    const dir = scratch('cairn-guard-');
    const old = join(dir, 'old.json');
    await writeFile(old, '{"height":5,"slot":9}\n');
    const g = await SigningGuard.open(old);
    expect(g.lastSigned).toEqual({ height: 5, slot: 9 });
    // It knows only the last height: at or below it, nothing is signed.
    expect(g.refusal(3, 10)).toBe('already signed a block at height 5');
    expect(g.refusal(6, 10)).toBeUndefined();
    expect(g.voteRefusal({ target: { epoch: 1 }, source: 0 })).toBeUndefined();
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"height":5,"slot":9,"vote":{"target":{"epoch":"x"}}}\n');
    await expect(SigningGuard.open(bad)).rejects.toThrow(
      /damaged: remove it only if this validator key signs nowhere else/,
    );
  });

  it('a --dev revert forgets the votes above it with the heights', async () => {
    const g = await SigningGuard.open(join(scratch('cairn-guard-'), 'signing-guard.json'));
    await g.record(10, 20, { target: { epoch: 10, hash: H('a') }, source: 9 });
    await g.forgetAbove(4, 8);
    expect(g.lastSigned).toEqual({ height: 4, slot: 8, floor: 0, signed: [] });
    expect(g.voteRefusal({ target: { epoch: 5 }, source: 4 })).toBeUndefined();
  });

  it('refuses the heights it signed and the slots up to its last, not the heights it did not sign (seed 35657)', async () => {
    // After a partition the chain adopted can be lower than the branch a validator signed on; it signs that chain's
    // heights it never signed (a second header at one height is the double sign; a lower height alone is not).
    const file = join(scratch('cairn-guard-'), 'signing-guard.json');
    const g = await SigningGuard.open(file);
    await g.record(30, 60);
    await g.record(35, 70);
    const again = await SigningGuard.open(file);
    expect(again.refusal(35, 80)).toBe('already signed a block at height 35');
    expect(again.refusal(30, 80)).toBe('already signed a block at height 30');
    expect(again.refusal(22, 80)).toBeUndefined();
    expect(again.refusal(22, 70)).toBe('already signed in slot 70');
    await again.record(22, 80);
    expect(again.refusal(22, 81)).toBe('already signed a block at height 22');
    // The file still names the highest height signed: a node from before this rule refuses at or below it.
    expect((await SigningGuard.open(file)).lastSigned).toMatchObject({ height: 35, signed: [22, 30, 35] });
  });

  it('keeps the last SIGNED_HEIGHTS_KEPT heights; at or below the lowest it forgot, it never signs', async () => {
    const g = SigningGuard.inMemory();
    for (let i = 1; i <= SIGNED_HEIGHTS_KEPT + 6; i++) await g.record(10 * i, i);
    expect(g.lastSigned.signed).toHaveLength(SIGNED_HEIGHTS_KEPT);
    expect(g.lastSigned.floor).toBe(60);
    expect(g.refusal(55, 1000)).toBe('already signed a block at height 60');
    expect(g.refusal(75, 1000)).toBeUndefined();
    expect(g.refusal(70, 1000)).toBe('already signed a block at height 70');
  });

  it('a damaged list of heights is refused with the way out', async () => {
    const bad = join(scratch('cairn-guard-'), 'bad.json');
    await writeFile(bad, '{"height":5,"slot":9,"floor":0,"signed":[5,"x"]}\n');
    await expect(SigningGuard.open(bad)).rejects.toThrow(/damaged/);
  });
});
