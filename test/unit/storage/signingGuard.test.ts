import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../../src/primitives/hex';
import { SigningGuard } from '../../../src/storage/signingGuard';
import { scratchDirs } from '../../helpers/scratch';

const scratch = scratchDirs();

const H = (c: string) => `0x${c.repeat(64)}` as Hex;

describe('signing guard: heights, slots and finality votes, across restarts', () => {
  it('keeps the last vote and the newest source; refuses a second checkpoint of the epoch after a restart', async () => {
    const file = join(scratch('cairn-guard-'), 'signing-guard.json');
    const g = await SigningGuard.open(file);
    await g.record(10, 20, { target: { epoch: 3, hash: H('a') }, source: 2 });
    const again = await SigningGuard.open(file);
    expect(again.lastSigned).toEqual({ height: 10, slot: 20, vote: { target: { epoch: 3, hash: H('a') }, source: 2 } });
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
    expect(g.lastSigned).toEqual({ height: 4, slot: 8 });
    expect(g.voteRefusal({ target: { epoch: 5 }, source: 4 })).toBeUndefined();
  });
});
