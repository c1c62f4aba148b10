import { describe, expect, it } from 'vitest';
import { BlockWorkGate } from '../../../../src/actors/consensus/blockWork';

/** A promise's state without waiting on it: settled within a macrotask or not. */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('BlockWorkGate: admission waits for the block being built or imported', () => {
  it('lets admission through at once when no block work runs', async () => {
    expect(await settled(new BlockWorkGate().turn())).toBe(true);
  });

  it('holds admission while a block is worked on and releases it when the block ends', async () => {
    const gate = new BlockWorkGate();
    let finish!: () => void;
    const block = gate.during(() => new Promise<string>((r) => (finish = () => r('built'))));
    const waiting = gate.turn();
    expect(await settled(waiting)).toBe(false);
    finish();
    expect(await block).toBe('built');
    expect(await settled(waiting)).toBe(true);
  });

  it('waits one block at most: back-to-back blocks cannot starve admission', async () => {
    const gate = new BlockWorkGate();
    let finishFirst!: () => void;
    const first = gate.during(() => new Promise<void>((r) => (finishFirst = r)));
    const waiting = gate.turn();
    let finishSecond!: () => void;
    // The second block starts the moment the first ends (as an import right after a build would).
    const second = first.then(() => gate.during(() => new Promise<void>((r) => (finishSecond = r))));
    finishFirst();
    await first;
    expect(await settled(waiting)).toBe(true);
    finishSecond();
    await second;
  });

  it('releases waiters when the block work fails too', async () => {
    const gate = new BlockWorkGate();
    let fail!: (e: Error) => void;
    const block = gate.during(() => new Promise<void>((_, reject) => (fail = reject)));
    const waiting = gate.turn();
    fail(new Error('storage failure'));
    await expect(block).rejects.toThrow('storage failure');
    expect(await settled(waiting)).toBe(true);
  });
});
